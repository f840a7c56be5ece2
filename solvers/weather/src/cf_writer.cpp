#include "tessera/weather/cf_writer.hpp"

#include <ncDim.h>
#include <ncFile.h>
#include <ncVar.h>

#include <cstdio>
#include <filesystem>
#include <netcdf>
#include <numbers>

#include "tessera/core/atomic_file.hpp"
#include "tessera/core/error.hpp"

namespace tessera::weather {

struct CfWriter::File {
  netCDF::NcFile nc;
};

namespace {
void describe(netCDF::NcVar& v, const CfVariable& c) {
  v.putAtt("long_name", c.long_name);
  v.putAtt("units", c.units);
  if (!c.standard_name.empty()) v.putAtt("standard_name", c.standard_name);
}
}  // namespace

CfWriter::CfWriter(std::string path, const Grid& grid, std::vector<CfVariable> fields,
                   std::vector<CfVariable> static_fields, const std::string& title,
                   const std::string& history, bool geographic)
    : path_(std::move(path)),
      partial_(partial_path(path_)),
      grid_(grid),
      fields_(std::move(fields)) {
  try {
    file_ = std::make_unique<File>();
    file_->nc.open(partial_, netCDF::NcFile::replace, netCDF::NcFile::nc4);
    netCDF::NcFile& nc = file_->nc;
    nc.putAtt("Conventions", "CF-1.8");
    nc.putAtt("title", title);
    nc.putAtt("institution", "Tessera");
    nc.putAtt("source", "Tessera weather: C-grid shallow-water model (Sadourny 1975)");
    nc.putAtt("history", history);
    const netCDF::NcDim time = nc.addDim("time");
    const netCDF::NcDim y = nc.addDim(geographic ? "lat" : "y", static_cast<std::size_t>(grid.ny));
    const netCDF::NcDim x = nc.addDim(geographic ? "lon" : "x", static_cast<std::size_t>(grid.nx));
    netCDF::NcVar tv = nc.addVar("time", netCDF::ncDouble, time);
    describe(tv, {"time", "time", "seconds since 2000-01-01 00:00:00", "time"});
    tv.putAtt("calendar", "standard");
    tv.putAtt("axis", "T");
    netCDF::NcVar xv = nc.addVar(x.getName(), netCDF::ncDouble, x);
    netCDF::NcVar yv = nc.addVar(y.getName(), netCDF::ncDouble, y);
    if (geographic) {
      describe(xv, {"lon", "longitude", "degrees_east", "longitude"});
      describe(yv, {"lat", "latitude", "degrees_north", "latitude"});
    } else {
      describe(xv, {"x", "x distance of cell centre", "m", ""});
      describe(yv, {"y", "y distance of cell centre (northward)", "m", ""});
    }
    xv.putAtt("axis", "X");
    yv.putAtt("axis", "Y");
    const double scale = geographic ? 180 / std::numbers::pi : 1;
    std::vector<double> xs(static_cast<std::size_t>(grid.nx)),
        ys(static_cast<std::size_t>(grid.ny));
    for (int i = 0; i < grid.nx; ++i) xs[static_cast<std::size_t>(i)] = scale * grid.x_center(i);
    for (int j = 0; j < grid.ny; ++j) ys[static_cast<std::size_t>(j)] = scale * grid.y_center(j);
    xv.putVar(xs.data());
    yv.putVar(ys.data());
    for (const CfVariable& f : fields_) {
      netCDF::NcVar v = nc.addVar(f.name, netCDF::ncDouble, {time, y, x});
      describe(v, f);
    }
    for (const CfVariable& f : static_fields) {
      netCDF::NcVar v = nc.addVar(f.name, netCDF::ncDouble, {y, x});
      describe(v, f);
    }
    nc.sync();
  } catch (const netCDF::exceptions::NcException& e) {
    file_.reset();
    std::remove(partial_.c_str());
    throw Error("cannot write the NetCDF file '" + partial_ + "': " + e.what() +
                "; check that its folder exists and is writable");
  }
}

CfWriter::CfWriter(std::string path, const Grid& grid, std::vector<CfVariable> fields)
    : path_(std::move(path)),
      partial_(partial_path(path_)),
      grid_(grid),
      fields_(std::move(fields)) {}

std::unique_ptr<CfWriter> CfWriter::reopen(std::string path, const Grid& grid,
                                           std::vector<CfVariable> fields) {
  std::unique_ptr<CfWriter> w(new CfWriter(std::move(path), grid, std::move(fields)));
  std::error_code ec;
  std::filesystem::copy_file(w->path_, w->partial_,
                             std::filesystem::copy_options::overwrite_existing, ec);
  if (ec)
    throw Error("cannot copy '" + w->path_ + "' to '" + w->partial_ +
                "' to append to it: " + ec.message() + "; check that its folder is writable");
  try {
    w->file_ = std::make_unique<File>();
    w->file_->nc.open(w->partial_, netCDF::NcFile::write);
    w->records_ = static_cast<int>(w->file_->nc.getDim("time").getSize());
  } catch (const netCDF::exceptions::NcException& e) {
    w->file_.reset();
    std::remove(w->partial_.c_str());
    throw Error("cannot append to the NetCDF file '" + w->partial_ + "': " + e.what());
  }
  return w;
}

CfWriter::~CfWriter() {
  if (file_) {
    try {
      file_->nc.close();
    } catch (...) {
    }
    std::remove(partial_.c_str());
  }
}

void CfWriter::write_static(const std::string& name, const std::vector<double>& values) {
  file_->nc.getVar(name).putVar(values.data());
}

void CfWriter::append(double time_seconds, const std::vector<std::vector<double>>& values) {
  const std::size_t r = static_cast<std::size_t>(records_);
  try {
    file_->nc.getVar("time").putVar({r}, {1}, &time_seconds);
    for (std::size_t k = 0; k < fields_.size(); ++k)
      file_->nc.getVar(fields_[k].name)
          .putVar({r, 0, 0},
                  {1, static_cast<std::size_t>(grid_.ny), static_cast<std::size_t>(grid_.nx)},
                  values[k].data());
    file_->nc.sync();
  } catch (const netCDF::exceptions::NcException& e) {
    throw Error("cannot append record " + std::to_string(records_) + " to '" + partial_ +
                "': " + e.what());
  }
  ++records_;
}

void CfWriter::close() {
  file_->nc.close();
  file_.reset();
  publish(path_);
}

}  // namespace tessera::weather
