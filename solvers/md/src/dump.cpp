#include "tessera/md/dump.hpp"

#include <mpi.h>
#include <netcdf.h>

#include <algorithm>

#include "tessera/core/error.hpp"

namespace tessera::md {
namespace {

const std::vector<std::string> custom_fields = {
    "id", "type", "x",  "y",  "z",  "xs", "ys", "zs", "xu",   "yu", "zu",  "ix",
    "iy", "iz",   "vx", "vy", "vz", "fx", "fy", "fz", "mass", "q",  "mol", "element"};

bool integer_field(const std::string& f) {
  return f == "id" || f == "type" || f == "ix" || f == "iy" || f == "iz" || f == "mol";
}

double field_value(const std::string& f, const AtomRecord& a, const Simulation& sim,
                   const std::map<std::int64_t, std::int64_t>& molecules) {
  const Box& b = sim.box();
  auto d = [](char c) { return static_cast<std::size_t>(c - 'x'); };
  if (f == "x" || f == "y" || f == "z") return a.x[d(f[0])];
  if (f == "xs" || f == "ys" || f == "zs") {
    if (!b.triclinic) return (a.x[d(f[0])] - b.lo[d(f[0])]) / b.length(static_cast<int>(d(f[0])));
    double fraction[3];
    BoxMatrix(b).to_fraction(a.x.data(), fraction);
    return fraction[d(f[0])];
  }
  if (f == "xu" || f == "yu" || f == "zu")
    return b.unwrapped(a.x.data(), a.image.data(), d(f[0]));
  if (f == "ix" || f == "iy" || f == "iz") return a.image[static_cast<std::size_t>(f[1] - 'x')];
  if (f == "vx" || f == "vy" || f == "vz") return a.v[static_cast<std::size_t>(f[1] - 'x')];
  if (f == "fx" || f == "fy" || f == "fz") return a.f[static_cast<std::size_t>(f[1] - 'x')];
  if (f == "mass") return sim.mass(a.type);
  if (f == "q") return a.q;
  if (f == "id") return static_cast<double>(a.id);
  if (f == "mol") {
    const auto it = molecules.find(a.id);
    return it == molecules.end() ? 0.0 : static_cast<double>(it->second);
  }
  return a.type;
}

// LAMMPS text dumps: atom, custom and xyz.
class TextDump final : public Dump {
 public:
  using Dump::Dump;

 private:
  void write_frame(Simulation& sim, const std::vector<AtomRecord>& atoms) override {
    AtomicFile& out = output(false);
    const Box& b = sim.box();
    const std::string ff = float_format_.empty() ? "%g" : float_format_;
    const std::string spaced = " " + ff;
    if (style_ == "xyz") {
      out.print("%zu\nAtoms. Timestep: %lld\n", atoms.size(), static_cast<long long>(sim.step()));
      for (const auto& a : atoms) {
        // LAMMPS's DumpXYZ: the type's number unless dump_modify element named it.
        if (elements_.empty())
          out.print("%d", a.type);
        else
          out.print("%s", element(a.type).c_str());
        for (double x : a.x) out.print(spaced.c_str(), x);
        out.write("\n");
      }
    } else {
      const Boundary& bc = sim.boundary();
      out.print("ITEM: TIMESTEP\n%lld\nITEM: NUMBER OF ATOMS\n%zu\nITEM: BOX BOUNDS %s%s %s %s\n",
                static_cast<long long>(sim.step()), atoms.size(), b.triclinic ? "xy xz yz " : "",
                bc.letters(0).c_str(), bc.letters(1).c_str(), bc.letters(2).c_str());
      if (b.triclinic) {
        // LAMMPS's: the bounding box and the tilt factors.
        const auto lo = b.bound_lo(), hi = b.bound_hi();
        const double tilt[3] = {b.xy, b.xz, b.yz};
        for (std::size_t d = 0; d < 3; ++d)
          out.print("%-1.16e %-1.16e %-1.16e\n", lo[d], hi[d], tilt[d]);
      } else {
        for (std::size_t d = 0; d < 3; ++d) out.print("%-1.16e %-1.16e\n", b.lo[d], b.hi[d]);
      }
      out.write("ITEM: ATOMS");
      for (const auto& f : fields_) out.print(" %s", f.c_str());
      out.write("\n");
      for (const auto& a : atoms) {
        bool first = true;
        for (const auto& f : fields_) {
          if (!first) out.write(" ");
          first = false;
          if (f == "element") {
            out.print("%s", element(a.type).c_str());
            continue;
          }
          const double v = field_value(f, a, sim, molecules_);
          if (integer_field(f))
            out.print("%lld", static_cast<long long>(v));
          else
            out.print(ff.c_str(), v);
        }
        out.write("\n");
      }
    }
    out.flush();  // a whole frame in FILE.part at each step
  }
  void close() override {}  // the AtomicFile owns the stream
};

// NetCDF's C interface reports a failure by a status (an errno value for a system call's
// failure); the C++ wrapper's exceptions would come again from its destructor after a failed
// close.
struct NcFailure {
  int status;
};
void nc_check(int status) {
  if (status != NC_NOERR) throw NcFailure{status};
}

// AMBER NetCDF trajectory convention 1.0 (ambermd.org/netcdf/nctraj.xhtml), as LAMMPS's dump
// netcdf: coordinates, id and type always, and every other requested field under LAMMPS's name
// for it (DumpNetCDF's name mangling): vx vy vz as velocities, fx fy fz as forces, xs ys zs as
// scaled_coordinates, xu yu zu as unwrapped_coordinates (each a 3-vector, written whole when
// any of its components is asked for), ix iy iz and mass as themselves.
class NetcdfDump final : public Dump {
 public:
  NetcdfDump(std::string id, std::string style, int every, std::string file,
             std::vector<std::string> fields)
      : Dump(std::move(id), std::move(style), every, std::move(file), std::move(fields)) {
    add({"coordinates", {"x", "y", "z"}, false, Quantity::distance});
    add({"id", {"id"}, true, Quantity::none});
    add({"type", {"type"}, true, Quantity::none});
    const std::vector<PerAtom> optional = {
        {"velocities", {"vx", "vy", "vz"}, false, Quantity::velocity},
        {"forces", {"fx", "fy", "fz"}, false, Quantity::force},
        {"scaled_coordinates", {"xs", "ys", "zs"}, false, Quantity::none},
        {"unwrapped_coordinates", {"xu", "yu", "zu"}, false, Quantity::distance},
        {"ix", {"ix"}, true, Quantity::none},
        {"iy", {"iy"}, true, Quantity::none},
        {"iz", {"iz"}, true, Quantity::none},
        {"mass", {"mass"}, false, Quantity::mass},
        {"q", {"q"}, false, Quantity::none},
        {"mol", {"mol"}, true, Quantity::none}};
    for (const auto& v : optional)
      for (const auto& f : v.fields)
        if (std::find(fields_.begin(), fields_.end(), f) != fields_.end()) {
          add(v);
          break;
        }
  }
  ~NetcdfDump() override {
    if (ncid_ >= 0) nc_close(ncid_);
  }

 private:
  enum class Quantity { none, distance, velocity, force, mass };
  struct PerAtom {
    std::string name;
    std::vector<std::string> fields;  // 3: a vector over "spatial"; 1: a scalar
    bool integer = false;
    Quantity quantity = Quantity::none;
    int var = -1;
  };

  void add(PerAtom v) { per_atom_.push_back(std::move(v)); }

  // LAMMPS's netcdf_units.cpp names, for the unit styles md_ipu has.
  static std::string unit_of(const std::string& style, Quantity q) {
    if (style == "lj") return q == Quantity::none ? "" : "lj";
    const bool real = style == "real";
    switch (q) {
      case Quantity::none:
        return "";
      case Quantity::distance:
        return "angstrom";
      case Quantity::velocity:
        return real ? "angstrom/femtosecond" : "angstrom/picosecond";
      case Quantity::force:
        return real ? "(Kcal/mol)/angstrom" : "eV/angstrom";
      case Quantity::mass:
        return "gram/mole";
    }
    return "";
  }

  void write_frame(Simulation& sim, const std::vector<AtomRecord>& atoms) override {
    AtomicFile& out = output(true);
    try {
      if (ncid_ < 0) {
        if (continues())
          reopen(out.partial());
        else
          create(sim, atoms.size(), out.partial());
      }
      if (atoms.size() != atoms_)
        throw Error("the number of atoms changed; a NetCDF trajectory needs a fixed count");
      const Box& b = sim.box();
      const double time = static_cast<double>(sim.step()) * sim.timestep();
      const std::size_t at[3] = {frame_, 0, 0}, per_cell[2] = {1, 3};
      nc_check(nc_put_var1_double(ncid_, time_var_, at, &time));
      std::vector<float> reals;
      std::vector<int> ints;
      for (const auto& v : per_atom_) {
        const std::size_t width = v.fields.size();
        const std::size_t count[3] = {1, atoms_, width};
        if (v.integer) {
          ints.resize(width * atoms_);
          for (std::size_t i = 0; i < atoms_; ++i)
            for (std::size_t c = 0; c < width; ++c)
              ints[width * i + c] =
                  static_cast<int>(field_value(v.fields[c], atoms[i], sim, molecules_));
          nc_check(nc_put_vara_int(ncid_, v.var, at, count, ints.data()));
        } else {
          reals.resize(width * atoms_);
          for (std::size_t i = 0; i < atoms_; ++i)
            for (std::size_t c = 0; c < width; ++c)
              reals[width * i + c] =
                  static_cast<float>(field_value(v.fields[c], atoms[i], sim, molecules_));
          nc_check(nc_put_vara_float(ncid_, v.var, at, count, reals.data()));
        }
      }
      const auto cell = b.cell();
      const double lengths[3] = {cell[0], cell[1], cell[2]}, angles[3] = {cell[3], cell[4], cell[5]};
      nc_check(nc_put_vara_double(ncid_, cell_lengths_var_, at, per_cell, lengths));
      nc_check(nc_put_vara_double(ncid_, cell_angles_var_, at, per_cell, angles));
      nc_check(nc_sync(ncid_));
      ++frame_;
    } catch (const NcFailure& f) {
      fail(out, "NetCDF error writing", f.status);
    }
  }

  [[noreturn]] void fail(AtomicFile& out, const std::string& what, int status) {
    if (ncid_ >= 0) nc_close(ncid_);
    ncid_ = -1;
    out.fail(what + " '" + out.partial() + "'",
             diagnose_write_failure(out.path(), nc_strerror(status)));
  }

  void reopen(const std::string& partial) {
    nc_check(nc_open(partial.c_str(), NC_WRITE, &ncid_));
    int frame = -1;
    nc_check(nc_inq_dimid(ncid_, "frame", &frame));
    nc_check(nc_inq_dimlen(ncid_, frame, &frame_));
    nc_check(nc_inq_varid(ncid_, "time", &time_var_));
    nc_check(nc_inq_varid(ncid_, "cell_lengths", &cell_lengths_var_));
    nc_check(nc_inq_varid(ncid_, "cell_angles", &cell_angles_var_));
    for (auto& v : per_atom_) nc_check(nc_inq_varid(ncid_, v.name.c_str(), &v.var));
  }

  static void put_text(int ncid, int var, const char* name, const std::string& value) {
    nc_check(nc_put_att_text(ncid, var, name, value.size(), value.c_str()));
  }

  void create(Simulation& sim, std::size_t atoms, const std::string& partial) {
    atoms_ = atoms;
    frame_ = 0;
    nc_check(nc_create(partial.c_str(), NC_CLOBBER | NC_64BIT_OFFSET, &ncid_));
    int frame, spatial, atom, cell_spatial, cell_angular, label;
    nc_check(nc_def_dim(ncid_, "frame", NC_UNLIMITED, &frame));
    nc_check(nc_def_dim(ncid_, "spatial", 3, &spatial));
    nc_check(nc_def_dim(ncid_, "atom", atoms, &atom));
    nc_check(nc_def_dim(ncid_, "cell_spatial", 3, &cell_spatial));
    nc_check(nc_def_dim(ncid_, "cell_angular", 3, &cell_angular));
    nc_check(nc_def_dim(ncid_, "label", 5, &label));
    put_text(ncid_, NC_GLOBAL, "Conventions", "AMBER");
    put_text(ncid_, NC_GLOBAL, "ConventionVersion", "1.0");
    put_text(ncid_, NC_GLOBAL, "program", "Tessera md_ipu");
    put_text(ncid_, NC_GLOBAL, "programVersion", "0.1.0");
    const std::string& style = sim.units().style;
    const std::string time_unit =
        style == "lj" ? "lj" : (style == "real" ? "femtosecond" : "picosecond");
    auto define = [&](const char* name, nc_type type, std::vector<int> dims,
                      const std::string& units) {
      int var = -1;
      nc_check(nc_def_var(ncid_, name, type, static_cast<int>(dims.size()), dims.data(), &var));
      if (!units.empty()) put_text(ncid_, var, "units", units);
      return var;
    };
    const int spatial_var = define("spatial", NC_CHAR, {spatial}, "");
    const int cell_spatial_var = define("cell_spatial", NC_CHAR, {cell_spatial}, "");
    const int cell_angular_var = define("cell_angular", NC_CHAR, {cell_angular, label}, "");
    time_var_ = define("time", NC_FLOAT, {frame}, time_unit);
    const std::string length_unit = unit_of(style, Quantity::distance);
    cell_lengths_var_ = define("cell_lengths", NC_DOUBLE, {frame, cell_spatial}, length_unit);
    cell_angles_var_ = define("cell_angles", NC_DOUBLE, {frame, cell_angular}, "degree");
    for (auto& v : per_atom_) {
      std::vector<int> dims = {frame, atom};
      if (v.fields.size() == 3) dims.push_back(spatial);
      v.var =
          define(v.name.c_str(), v.integer ? NC_INT : NC_FLOAT, dims, unit_of(style, v.quantity));
    }
    nc_check(nc_enddef(ncid_));
    nc_check(nc_put_var_text(ncid_, spatial_var, "xyz"));
    nc_check(nc_put_var_text(ncid_, cell_spatial_var, "abc"));
    nc_check(nc_put_var_text(ncid_, cell_angular_var, "alphabeta gamma"));
  }

  void close() override {
    if (ncid_ < 0) return;
    const int status = nc_close(ncid_);
    ncid_ = -1;
    if (status != NC_NOERR) fail(*out_, "NetCDF error closing", status);
  }

  int ncid_ = -1;
  int time_var_ = -1, cell_lengths_var_ = -1, cell_angles_var_ = -1;
  std::vector<PerAtom> per_atom_;
  std::size_t atoms_ = 0, frame_ = 0;
};

}  // namespace

Dump::Dump(std::string id, std::string style, int every, std::string file,
           std::vector<std::string> fields)
    : id_(std::move(id)),
      style_(std::move(style)),
      every_(every),
      file_(std::move(file)),
      fields_(std::move(fields)) {}

Dump::~Dump() = default;

std::shared_ptr<Dump> Dump::make(const std::string& id, const std::string& style, int every,
                                 const std::string& file, const std::vector<std::string>& fields) {
  if (every < 1) throw ConfigError("dump " + id + ": N must be a positive number of steps");
  if (style == "atom" || style == "xyz") {
    if (!fields.empty())
      throw ConfigError("dump " + id + " " + style + ": this style takes no field list");
    const std::vector<std::string> f =
        style == "atom" ? std::vector<std::string>{"id", "type", "xs", "ys", "zs"}
                        : std::vector<std::string>{};
    return std::shared_ptr<Dump>(new TextDump(id, style, every, file, f));
  }
  if (style == "custom" || style == "netcdf") {
    std::vector<std::string> f = fields;
    if (style == "custom" && f.empty())
      throw ConfigError("dump " + id + " custom: list the fields to write");
    for (const auto& name : f)
      if (std::find(custom_fields.begin(), custom_fields.end(), name) == custom_fields.end())
        throw ConfigError("dump " + id + ": unknown field '" + name +
                          "'; supported: id type x y z xs ys zs xu yu zu ix iy iz vx vy vz fx fy "
                          "fz mass q mol element");
    if (style == "netcdf" && std::find(f.begin(), f.end(), "element") != f.end())
      throw ConfigError("dump " + id + " netcdf: the field element is written by dump custom " +
                        "(text) only, as LAMMPS's");
    if (style == "custom") return std::shared_ptr<Dump>(new TextDump(id, style, every, file, f));
    return std::shared_ptr<Dump>(new NetcdfDump(id, style, every, file, f));
  }
  throw ConfigError("dump " + id + " " + style +
                    ": unsupported style; use atom, custom, xyz or netcdf");
}

void Dump::set_float_format(const std::string& format) {
  int conversions = 0;
  for (std::size_t i = 0; i + 1 < format.size(); ++i)
    if (format[i] == '%' && format[i + 1] != '%') ++conversions;
  if (conversions != 1 || format.find_first_of("eEfFgG", format.find('%')) == std::string::npos)
    throw ConfigError("dump_modify " + id_ + " format float '" + format +
                      "': use one %e, %f or %g conversion");
  float_format_ = format;
}

void Dump::set_elements(std::vector<std::string> names) { elements_ = std::move(names); }

std::string Dump::element(int type) const {
  // LAMMPS's DumpCustom names every type C until dump_modify element names them.
  if (elements_.empty()) return "C";
  return elements_.at(static_cast<std::size_t>(type - 1));
}

void Dump::observe(Simulation& sim, bool, bool) {
  if (sim.step() == last_step_ || sim.step() % every_ != 0) return;
  // Sorted by id on rank 0; positions as LAMMPS's dumps write them, not wrapped since the last
  // rebuild.
  std::vector<AtomRecord> atoms = sim.gather_atoms(Simulation::Positions::as_stored);
  if (std::find(fields_.begin(), fields_.end(), "mol") != fields_.end())
    molecules_ = sim.gather_molecules();
  if (group_ != "all") {
    const int bit = sim.group_bit(group_);
    if (bit < 0) throw Error("dump " + id_ + ": its group " + group_ + " no longer exists");
    std::erase_if(atoms, [mask = 1u << bit](const AtomRecord& a) { return (a.mask & mask) == 0; });
  }
  int rank = 0;
  MPI_Comm_rank(sim.runtime().comm(), &rank);
  if (rank == 0) {
    try {
      write_frame(sim, atoms);
    } catch (const Error& e) {
      failed_ = true;
      throw Error("dump " + id_ + ": " + e.what());
    }
  }
  last_step_ = sim.step();
}

AtomicFile& Dump::output(bool by_name) {
  if (!out_) {
    const auto start = published_ ? AtomicFile::Start::copy : AtomicFile::Start::empty;
    out_ = by_name ? AtomicFile::by_name(file_, start) : std::make_unique<AtomicFile>(file_, start);
  }
  return *out_;
}

void publish_dumps(const std::vector<Dump*>& dumps) {
  std::vector<AtomicFile*> files;
  try {
    for (Dump* d : dumps) {
      if (!d->out_) continue;
      try {
        d->close();
      } catch (const Error& e) {
        throw Error("dump " + d->id_ + ": " + e.what());
      }
      files.push_back(d->out_.get());
    }
    AtomicFile::commit_together(files);
  } catch (const Error&) {
    discard_dumps(dumps);
    throw;
  }
  for (Dump* d : dumps) {
    if (!d->out_) continue;
    d->out_.reset();
    d->published_ = true;
  }
}

void discard_dumps(const std::vector<Dump*>& dumps) {
  for (Dump* d : dumps) {
    if (!d->out_) continue;
    // A dump renamed before a later one failed is published all the same.
    if (d->out_->committed()) d->published_ = true;
    try {
      d->close();
    } catch (const Error&) {
      // Its FILE.part goes just below; the error that ended the run is the one to report.
    }
    d->out_.reset();
  }
}

}  // namespace tessera::md
