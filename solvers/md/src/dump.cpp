#include "tessera/md/dump.hpp"

#include <mpi.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <netcdf>

#include "tessera/core/error.hpp"

namespace tessera::md {
namespace {

const std::vector<std::string> custom_fields = {"id", "type", "x",  "y",  "z",  "xs", "ys",
                                                "zs", "xu",   "yu", "zu", "ix", "iy", "iz",
                                                "vx", "vy",   "vz", "fx", "fy", "fz", "mass"};

bool integer_field(const std::string& f) {
  return f == "id" || f == "type" || f == "ix" || f == "iy" || f == "iz";
}

double field_value(const std::string& f, const AtomRecord& a, const Simulation& sim) {
  const Box& b = sim.box();
  auto d = [](char c) { return static_cast<std::size_t>(c - 'x'); };
  if (f == "x" || f == "y" || f == "z") return a.x[d(f[0])];
  if (f == "xs" || f == "ys" || f == "zs")
    return (a.x[d(f[0])] - b.lo[d(f[0])]) / b.length(static_cast<int>(d(f[0])));
  if (f == "xu" || f == "yu" || f == "zu")
    return a.x[d(f[0])] + a.image[d(f[0])] * b.length(static_cast<int>(d(f[0])));
  if (f == "ix" || f == "iy" || f == "iz") return a.image[static_cast<std::size_t>(f[1] - 'x')];
  if (f == "vx" || f == "vy" || f == "vz") return a.v[static_cast<std::size_t>(f[1] - 'x')];
  if (f == "fx" || f == "fy" || f == "fz") return a.f[static_cast<std::size_t>(f[1] - 'x')];
  if (f == "mass") return sim.mass(a.type);
  if (f == "id") return static_cast<double>(a.id);
  return a.type;
}

// LAMMPS text dumps: atom, custom and xyz.
class TextDump final : public Dump {
 public:
  using Dump::Dump;
  ~TextDump() override { close(); }

 private:
  void write_frame(Simulation& sim, const std::vector<AtomRecord>& atoms) override {
    if (!file_ptr_) {
      file_ptr_ = std::fopen(part_path().c_str(), open_ ? "a" : "w");
      if (!file_ptr_)
        throw Error("dump " + id_ + ": cannot write '" + part_path() +
                    "': " + std::strerror(errno));
      open_ = true;
    }
    std::FILE* out = file_ptr_;
    const Box& b = sim.box();
    const std::string ff = float_format_.empty() ? "%g" : float_format_;
    if (style_ == "xyz") {
      std::fprintf(out, "%zu\n Atoms. Timestep: %lld\n", atoms.size(),
                   static_cast<long long>(sim.step()));
      for (const auto& a : atoms) {
        std::fprintf(out, "%d", a.type);
        for (double x : a.x) std::fprintf(out, (" " + ff).c_str(), x);
        std::fputc('\n', out);
      }
    } else {
      std::fprintf(out,
                   "ITEM: TIMESTEP\n%lld\nITEM: NUMBER OF ATOMS\n%zu\nITEM: BOX BOUNDS pp pp pp\n",
                   static_cast<long long>(sim.step()), atoms.size());
      for (int d = 0; d < 3; ++d)
        std::fprintf(out, "%-1.16e %-1.16e\n", b.lo[static_cast<std::size_t>(d)],
                     b.hi[static_cast<std::size_t>(d)]);
      std::fprintf(out, "ITEM: ATOMS");
      for (const auto& f : fields_) std::fprintf(out, " %s", f.c_str());
      std::fputc('\n', out);
      for (const auto& a : atoms) {
        bool first = true;
        for (const auto& f : fields_) {
          if (!first) std::fputc(' ', out);
          first = false;
          const double v = field_value(f, a, sim);
          if (integer_field(f))
            std::fprintf(out, "%lld", static_cast<long long>(v));
          else
            std::fprintf(out, ff.c_str(), v);
        }
        std::fputc('\n', out);
      }
    }
    if (std::fflush(out) != 0)
      throw Error("dump " + id_ + ": writing '" + part_path() + "' failed");
  }
  void close() override {
    if (file_ptr_) std::fclose(file_ptr_);
    file_ptr_ = nullptr;
  }
  std::FILE* file_ptr_ = nullptr;
};

// AMBER NetCDF trajectory convention 1.0 (ambermd.org/netcdf/nctraj.xhtml), as LAMMPS's dump
// netcdf.
class NetcdfDump final : public Dump {
 public:
  using Dump::Dump;
  ~NetcdfDump() override { close(); }

 private:
  void write_frame(Simulation& sim, const std::vector<AtomRecord>& atoms) override {
    using namespace netCDF;
    try {
      if (!file_) {
        if (open_) {
          file_ = std::make_unique<NcFile>(part_path(), NcFile::write);
          frame_ = file_->getDim("frame").getSize();
        } else {
          create(sim, atoms.size());
          open_ = true;
        }
      }
      if (atoms.size() != atoms_)
        throw Error("dump " + id_ +
                    ": the number of atoms changed; a NetCDF trajectory needs a fixed count");
      const Box& b = sim.box();
      const double time = static_cast<double>(sim.step()) * sim.timestep();
      file_->getVar("time").putVar({frame_}, time);
      std::vector<float> xyz(3 * atoms_), vel;
      std::vector<int> ids(atoms_), types(atoms_);
      const bool velocities = has("vx");
      if (velocities) vel.resize(3 * atoms_);
      for (std::size_t i = 0; i < atoms_; ++i) {
        for (std::size_t d = 0; d < 3; ++d) {
          xyz[3 * i + d] = static_cast<float>(atoms[i].x[d]);
          if (velocities) vel[3 * i + d] = static_cast<float>(atoms[i].v[d]);
        }
        ids[i] = static_cast<int>(atoms[i].id);
        types[i] = atoms[i].type;
      }
      file_->getVar("coordinates").putVar({frame_, 0, 0}, {1, atoms_, 3}, xyz.data());
      if (velocities)
        file_->getVar("velocities").putVar({frame_, 0, 0}, {1, atoms_, 3}, vel.data());
      file_->getVar("id").putVar({frame_, 0}, {1, atoms_}, ids.data());
      file_->getVar("type").putVar({frame_, 0}, {1, atoms_}, types.data());
      const double lengths[3] = {b.length(0), b.length(1), b.length(2)}, angles[3] = {90, 90, 90};
      file_->getVar("cell_lengths").putVar({frame_, 0}, {1, 3}, lengths);
      file_->getVar("cell_angles").putVar({frame_, 0}, {1, 3}, angles);
      file_->sync();
      ++frame_;
    } catch (const exceptions::NcException& e) {
      throw Error("dump " + id_ + ": NetCDF error writing '" + part_path() + "': " + e.what());
    }
  }
  bool has(const std::string& f) const {
    return std::find(fields_.begin(), fields_.end(), f) != fields_.end();
  }
  void create(Simulation& sim, std::size_t atoms) {
    using namespace netCDF;
    atoms_ = atoms;
    file_ = std::make_unique<NcFile>(part_path(), NcFile::replace, NcFile::classic64);
    const NcDim frame = file_->addDim("frame"), spatial = file_->addDim("spatial", 3),
                atom = file_->addDim("atom", atoms),
                cell_spatial = file_->addDim("cell_spatial", 3),
                cell_angular = file_->addDim("cell_angular", 3), label = file_->addDim("label", 5);
    file_->putAtt("Conventions", "AMBER");
    file_->putAtt("ConventionVersion", "1.0");
    file_->putAtt("program", "Tessera md_ipu");
    file_->putAtt("programVersion", "0.1.0");
    const bool lj = sim.units().style == "lj";
    const std::string length_unit = lj ? "lj" : "angstrom", time_unit = lj ? "lj" : "picosecond";
    file_->addVar("spatial", ncChar, spatial);
    file_->addVar("cell_spatial", ncChar, cell_spatial);
    file_->addVar("cell_angular", ncChar, std::vector<NcDim>{cell_angular, label});
    file_->addVar("time", ncFloat, frame).putAtt("units", time_unit);
    file_->addVar("cell_lengths", ncDouble, std::vector<NcDim>{frame, cell_spatial})
        .putAtt("units", length_unit);
    file_->addVar("cell_angles", ncDouble, std::vector<NcDim>{frame, cell_angular})
        .putAtt("units", "degree");
    file_->addVar("coordinates", ncFloat, std::vector<NcDim>{frame, atom, spatial})
        .putAtt("units", length_unit);
    if (has("vx"))
      file_->addVar("velocities", ncFloat, std::vector<NcDim>{frame, atom, spatial})
          .putAtt("units", lj ? "lj" : "angstrom/picosecond");
    file_->addVar("id", ncInt, std::vector<NcDim>{frame, atom});
    file_->addVar("type", ncInt, std::vector<NcDim>{frame, atom});
    file_->enddef();
    file_->getVar("spatial").putVar("xyz");
    file_->getVar("cell_spatial").putVar("abc");
    const char angular[15] = {'a', 'l', 'p', 'h', 'a', 'b', 'e', 't',
                              'a', ' ', 'g', 'a', 'm', 'm', 'a'};
    file_->getVar("cell_angular").putVar(angular);
    frame_ = 0;
  }
  void close() override { file_.reset(); }

  std::unique_ptr<netCDF::NcFile> file_;
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
        throw ConfigError(
            "dump " + id + ": unknown field '" + name +
            "'; supported: id type x y z xs ys zs xu yu zu ix iy iz vx vy vz fx fy fz mass");
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

void Dump::observe(Simulation& sim, bool, bool last_of_run) {
  if (sim.step() != last_step_ && sim.step() % every_ == 0) {
    const std::vector<AtomRecord> atoms = sim.gather_atoms();  // sorted by id on rank 0
    int rank = 0;
    MPI_Comm_rank(sim.runtime().comm(), &rank);
    if (rank == 0) write_frame(sim, atoms);
    last_step_ = sim.step();
  }
  if (last_of_run) {
    int rank = 0;
    MPI_Comm_rank(sim.runtime().comm(), &rank);
    finish(rank);
  }
}

void Dump::finish(int rank) {
  close();
  if (rank != 0 || !open_) return;
  // Publish a complete copy under the final name; FILE.part stays open for the next run.
  try {
    publish_copy(file_);
  } catch (const Error& e) {
    throw Error("dump " + id_ + ": " + e.what());
  }
}

void Dump::release(int rank) {
  finish(rank);
  if (rank == 0 && open_) std::filesystem::remove(part_path());
  open_ = false;
}

}  // namespace tessera::md
