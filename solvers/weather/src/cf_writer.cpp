#include "tessera/weather/cf_writer.hpp"

#include <netcdf.h>

#include <cmath>
#include <map>
#include <numbers>

#include "tessera/core/atomic_file.hpp"
#include "tessera/core/error.hpp"

namespace tessera::weather {

// The NetCDF C interface reports every failure by a status, which fail() turns into the
// real reason; the C++ wrapper would raise a failed close again from its destructor.
struct CfWriter::File {
  std::unique_ptr<AtomicFile> out;
  int ncid = -1;
  std::map<std::string, int> variables;
  ~File() {
    if (ncid >= 0) nc_close(ncid);
  }
};

namespace {

struct NcFailure {
  int status;
};
void check(int status) {
  if (status != NC_NOERR) throw NcFailure{status};
}

void put_text(int ncid, int var, const char* name, const std::string& value) {
  check(nc_put_att_text(ncid, var, name, value.size(), value.c_str()));
}

void describe(int ncid, int var, const CfVariable& c) {
  put_text(ncid, var, "long_name", c.long_name);
  put_text(ncid, var, "units", c.units);
  if (!c.standard_name.empty()) put_text(ncid, var, "standard_name", c.standard_name);
}

}  // namespace

void CfWriter::fail(const std::string& what, int status) {
  if (file_->ncid >= 0) nc_close(file_->ncid);
  file_->ncid = -1;
  file_->out->fail(what + " '" + file_->out->partial() + "'",
                   diagnose_write_failure(path_, nc_strerror(status)));
}

int CfWriter::variable(const std::string& name) {
  auto it = file_->variables.find(name);
  if (it != file_->variables.end()) return it->second;
  int var = -1;
  check(nc_inq_varid(file_->ncid, name.c_str(), &var));
  file_->variables[name] = var;
  return var;
}

CfWriter::CfWriter(std::string path, const Grid& grid, std::vector<CfVariable> fields,
                   std::vector<CfVariable> static_fields, const CfFileInfo& info)
    : path_(std::move(path)), grid_(grid), fields_(std::move(fields)) {
  const bool geographic = info.geographic;
  for (const auto* list : {&fields_, &static_fields})
    for (const CfVariable& f : *list) {
      if (f.levels == CfLevels::model && !info.levels)
        throw Error("CfWriter: the field '" + f.name + "' on model levels needs the file's");
      if (f.levels == CfLevels::pressure && info.pressure_levels.empty())
        throw Error("CfWriter: the field '" + f.name + "' on pressure levels needs the file's");
    }
  for (const CfVariable& f : static_fields)
    if (f.levels == CfLevels::pressure)
      throw Error("CfWriter: the static field '" + f.name + "' cannot be on pressure levels");
  for (const double p : info.pressure_levels)
    if (!(p > 0) || !std::isfinite(p))
      throw Error("CfWriter: pressure levels must be positive pressures in Pa, got " +
                  std::to_string(p));
  pressure_levels_ = info.pressure_levels;
  if (info.levels) {
    const CfHybridLevels& h = *info.levels;
    if (h.a_interfaces.size() < 2 || h.a_interfaces.size() != h.b_interfaces.size())
      throw Error("CfWriter: model levels need K + 1 >= 2 values of a and of b, got " +
                  std::to_string(h.a_interfaces.size()) + " and " +
                  std::to_string(h.b_interfaces.size()));
    layers_ = static_cast<int>(h.a_interfaces.size()) - 1;
  }
  file_ = std::make_unique<File>();
  file_->out = AtomicFile::by_name(path_);
  try {
    check(nc_create(file_->out->partial().c_str(), NC_CLOBBER | NC_NETCDF4, &file_->ncid));
    const int nc = file_->ncid;
    put_text(nc, NC_GLOBAL, "Conventions", "CF-1.8");
    put_text(nc, NC_GLOBAL, "title", info.title);
    put_text(nc, NC_GLOBAL, "institution", "Tessera");
    put_text(nc, NC_GLOBAL, "source", info.source);
    put_text(nc, NC_GLOBAL, "history", info.history);
    int time = -1, y = -1, x = -1;
    const char* y_name = geographic ? "lat" : "y";
    const char* x_name = geographic ? "lon" : "x";
    check(nc_def_dim(nc, "time", NC_UNLIMITED, &time));
    check(nc_def_dim(nc, y_name, static_cast<std::size_t>(grid.ny), &y));
    check(nc_def_dim(nc, x_name, static_cast<std::size_t>(grid.nx), &x));
    auto define = [&](const std::string& name, std::vector<int> dims) {
      int var = -1;
      check(nc_def_var(nc, name.c_str(), NC_DOUBLE, static_cast<int>(dims.size()), dims.data(),
                       &var));
      file_->variables[name] = var;
      return var;
    };
    const int tv = define("time", {time});
    describe(nc, tv, {"time", "time", "seconds since 2000-01-01 00:00:00", "time"});
    put_text(nc, tv, "calendar", "standard");
    put_text(nc, tv, "axis", "T");
    const int xv = define(x_name, {x}), yv = define(y_name, {y});
    if (geographic) {
      describe(nc, xv, {"lon", "longitude", "degrees_east", "longitude"});
      describe(nc, yv, {"lat", "latitude", "degrees_north", "latitude"});
    } else {
      describe(nc, xv, {"x", "x distance of cell centre", "m", ""});
      describe(nc, yv, {"y", "y distance of cell centre (northward)", "m", ""});
    }
    put_text(nc, xv, "axis", "X");
    put_text(nc, yv, "axis", "Y");
    int lev = -1;
    if (info.levels) {
      int bounds = -1;
      check(nc_def_dim(nc, "lev", static_cast<std::size_t>(layers_), &lev));
      check(nc_def_dim(nc, "nbnd", 2, &bounds));
      const int lv = define("lev", {lev});
      put_text(nc, lv, "long_name", "hybrid sigma-pressure level at the layer midpoint");
      put_text(nc, lv, "units", "1");
      put_text(nc, lv, "standard_name", "atmosphere_hybrid_sigma_pressure_coordinate");
      put_text(nc, lv, "positive", "down");
      put_text(nc, lv, "axis", "Z");
      put_text(nc, lv, "formula_terms", "a: hyam b: hybm p0: P0 ps: ps");
      put_text(nc, lv, "bounds", "lev_bnds");
      const int lb = define("lev_bnds", {lev, bounds});
      put_text(nc, lb, "formula_terms", "a: hyam_bnds b: hybm_bnds p0: P0 ps: ps");
      describe(nc, define("hyam", {lev}),
               {"hyam", "hybrid A coefficient at the layer midpoint", "1", ""});
      describe(nc, define("hybm", {lev}),
               {"hybm", "hybrid B coefficient at the layer midpoint", "1", ""});
      define("hyam_bnds", {lev, bounds});
      define("hybm_bnds", {lev, bounds});
      describe(nc, define("P0", {}), {"P0", "reference pressure", "Pa", ""});
    }
    int plev = -1;
    if (!pressure_levels_.empty()) {
      check(nc_def_dim(nc, "plev", pressure_levels_.size(), &plev));
      const int pv = define("plev", {plev});
      describe(nc, pv, {"plev", "pressure", "Pa", "air_pressure"});
      put_text(nc, pv, "positive", "down");
      put_text(nc, pv, "axis", "Z");
    }
    auto dimensions = [&](const CfVariable& f, bool record) {
      std::vector<int> dims;
      if (record) dims.push_back(time);
      if (f.levels != CfLevels::none) dims.push_back(f.levels == CfLevels::model ? lev : plev);
      dims.push_back(y);
      dims.push_back(x);
      return dims;
    };
    for (const CfVariable& f : fields_) describe(nc, define(f.name, dimensions(f, true)), f);
    for (const CfVariable& f : static_fields) describe(nc, define(f.name, dimensions(f, false)), f);
    check(nc_enddef(nc));
    const double scale = geographic ? 180 / std::numbers::pi : 1;
    std::vector<double> xs(static_cast<std::size_t>(grid.nx)),
        ys(static_cast<std::size_t>(grid.ny));
    for (int i = 0; i < grid.nx; ++i) xs[static_cast<std::size_t>(i)] = scale * grid.x_center(i);
    for (int j = 0; j < grid.ny; ++j) ys[static_cast<std::size_t>(j)] = scale * grid.y_center(j);
    check(nc_put_var_double(nc, xv, xs.data()));
    check(nc_put_var_double(nc, yv, ys.data()));
    if (info.levels) {
      const CfHybridLevels& h = *info.levels;
      const auto k_count = static_cast<std::size_t>(layers_);
      std::vector<double> am(k_count), bm(k_count), mid(k_count), ab(2 * k_count), bb(2 * k_count),
          eb(2 * k_count);
      for (std::size_t k = 0; k < k_count; ++k) {
        am[k] = 0.5 * (h.a_interfaces[k] + h.a_interfaces[k + 1]);
        bm[k] = 0.5 * (h.b_interfaces[k] + h.b_interfaces[k + 1]);
        mid[k] = am[k] + bm[k];
        for (std::size_t e = 0; e < 2; ++e) {
          ab[2 * k + e] = h.a_interfaces[k + e];
          bb[2 * k + e] = h.b_interfaces[k + e];
          eb[2 * k + e] = ab[2 * k + e] + bb[2 * k + e];
        }
      }
      check(nc_put_var_double(nc, variable("lev"), mid.data()));
      check(nc_put_var_double(nc, variable("lev_bnds"), eb.data()));
      check(nc_put_var_double(nc, variable("hyam"), am.data()));
      check(nc_put_var_double(nc, variable("hybm"), bm.data()));
      check(nc_put_var_double(nc, variable("hyam_bnds"), ab.data()));
      check(nc_put_var_double(nc, variable("hybm_bnds"), bb.data()));
      check(nc_put_var_double(nc, variable("P0"), &h.p0));
    }
    if (!pressure_levels_.empty())
      check(nc_put_var_double(nc, variable("plev"), pressure_levels_.data()));
    check(nc_sync(nc));
  } catch (const NcFailure& e) {
    fail("cannot write the NetCDF file", e.status);
  }
}

CfWriter::CfWriter(std::string path, const Grid& grid, std::vector<CfVariable> fields)
    : path_(std::move(path)), grid_(grid), fields_(std::move(fields)) {}

std::unique_ptr<CfWriter> CfWriter::reopen(std::string path, const Grid& grid,
                                           std::vector<CfVariable> fields) {
  std::unique_ptr<CfWriter> w(new CfWriter(std::move(path), grid, std::move(fields)));
  w->file_ = std::make_unique<File>();
  w->file_->out = AtomicFile::by_name(w->path_, AtomicFile::Start::copy);
  try {
    check(nc_open(w->file_->out->partial().c_str(), NC_WRITE, &w->file_->ncid));
    int time = -1;
    std::size_t records = 0;
    check(nc_inq_dimid(w->file_->ncid, "time", &time));
    check(nc_inq_dimlen(w->file_->ncid, time, &records));
    w->records_ = static_cast<int>(records);
    int lev = -1;
    if (nc_inq_dimid(w->file_->ncid, "lev", &lev) == NC_NOERR) {
      std::size_t levels = 0;
      check(nc_inq_dimlen(w->file_->ncid, lev, &levels));
      w->layers_ = static_cast<int>(levels);
    }
    int plev = -1;
    if (nc_inq_dimid(w->file_->ncid, "plev", &plev) == NC_NOERR) {
      std::size_t levels = 0;
      check(nc_inq_dimlen(w->file_->ncid, plev, &levels));
      w->pressure_levels_.resize(levels);
      check(nc_get_var_double(w->file_->ncid, w->variable("plev"), w->pressure_levels_.data()));
    }
    for (const CfVariable& f : w->fields_)
      if ((f.levels == CfLevels::model && w->layers_ == 0) ||
          (f.levels == CfLevels::pressure && w->pressure_levels_.empty()))
        throw Error("cannot append to '" + w->path_ + "': it has no " +
                    (f.levels == CfLevels::model ? "model" : "pressure") +
                    " levels for the field '" + f.name + "'");
  } catch (const NcFailure& e) {
    w->fail("cannot append to the NetCDF file", e.status);
  }
  return w;
}

CfWriter::~CfWriter() = default;

std::size_t CfWriter::level_count(CfLevels levels) const {
  switch (levels) {
    case CfLevels::none:
      return 1;
    case CfLevels::model:
      return static_cast<std::size_t>(layers_);
    case CfLevels::pressure:
      return pressure_levels_.size();
  }
  return 1;
}

void CfWriter::write_static(const std::string& name, const std::vector<double>& values) {
  try {
    int dimensions = 0;
    check(nc_inq_varndims(file_->ncid, variable(name), &dimensions));
    const std::size_t expected = (dimensions == 3 ? static_cast<std::size_t>(layers_) : 1) *
                                 static_cast<std::size_t>(grid_.ny) *
                                 static_cast<std::size_t>(grid_.nx);  // static: lev only
    if (values.size() != expected)
      throw Error("CfWriter: static field '" + name + "' has " + std::to_string(values.size()) +
                  " values, not " + std::to_string(expected));
    check(nc_put_var_double(file_->ncid, variable(name), values.data()));
  } catch (const NcFailure& e) {
    fail("cannot write the static field '" + name + "' to", e.status);
  }
}

void CfWriter::set_attributes(const std::string& variable,
                              const std::vector<std::pair<std::string, double>>& numbers,
                              const std::vector<std::pair<std::string, std::string>>& texts) {
  try {
    const int nc = file_->ncid;
    int var = -1;
    if (const auto it = file_->variables.find(variable); it != file_->variables.end()) {
      var = it->second;
    } else {
      const int status = nc_inq_varid(nc, variable.c_str(), &var);
      if (status == NC_ENOTVAR) {
        check(nc_redef(nc));
        check(nc_def_var(nc, variable.c_str(), NC_INT, 0, nullptr, &var));
        put_text(nc, var, "long_name", "restart state of the latest record (attributes only)");
        check(nc_enddef(nc));
      } else {
        check(status);
      }
      file_->variables[variable] = var;
    }
    for (const auto& [name, value] : numbers)
      check(nc_put_att_double(nc, var, name.c_str(), NC_DOUBLE, 1, &value));
    for (const auto& [name, value] : texts) put_text(nc, var, name.c_str(), value);
  } catch (const NcFailure& e) {
    fail("cannot write the attributes of '" + variable + "' to", e.status);
  }
}

void CfWriter::append(double time_seconds, const std::vector<std::vector<double>>& values) {
  const std::size_t r = static_cast<std::size_t>(records_);
  try {
    const std::size_t at[4] = {r, 0, 0, 0}, one = 1;
    check(nc_put_vara_double(file_->ncid, variable("time"), at, &one, &time_seconds));
    const auto ny = static_cast<std::size_t>(grid_.ny), nx = static_cast<std::size_t>(grid_.nx);
    for (std::size_t k = 0; k < fields_.size(); ++k) {
      const std::size_t levels = level_count(fields_[k].levels);
      const std::size_t expected = levels * ny * nx;
      if (values[k].size() != expected)
        throw Error("CfWriter: field '" + fields_[k].name + "' has " +
                    std::to_string(values[k].size()) + " values, not " + std::to_string(expected));
      const std::size_t flat[3] = {1, ny, nx}, layered[4] = {1, levels, ny, nx};
      check(nc_put_vara_double(file_->ncid, variable(fields_[k].name), at,
                               fields_[k].levels == CfLevels::none ? flat : layered,
                               values[k].data()));
    }
    check(nc_sync(file_->ncid));
  } catch (const NcFailure& e) {
    fail("cannot append record " + std::to_string(records_) + " to", e.status);
  }
  ++records_;
}

void CfWriter::close() {
  const int status = nc_close(file_->ncid);
  file_->ncid = -1;
  if (status != NC_NOERR) fail("cannot close the NetCDF file", status);
  file_->out->commit();
}

}  // namespace tessera::weather
