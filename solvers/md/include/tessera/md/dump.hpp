// Dumps: LAMMPS's `dump ID all STYLE N FILE fields...`.
//
// Styles: atom (id type xs ys zs), custom (id type x y z xs ys zs xu yu zu ix iy iz
// vx vy vz fx fy fz mass), xyz, and netcdf (AMBER trajectory convention, readable by
// MDAnalysis, VMD and OVITO). Atoms are always written sorted by id (what
// `dump_modify sort id` asks for), whatever the decomposition. Frames go to
// FILE.part while a run goes on; at the end of each run a complete copy replaces
// FILE atomically, so FILE is never half written.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "tessera/core/atomic_file.hpp"
#include "tessera/core/error.hpp"
#include "tessera/md/simulation.hpp"

namespace tessera::md {

class Dump : public Observer {
 public:
  // Throws ConfigError for unknown styles or fields.
  static std::shared_ptr<Dump> make(const std::string& id, const std::string& style, int every,
                                    const std::string& file,
                                    const std::vector<std::string>& fields);
  ~Dump() override;

  int every() const override { return every_; }
  void observe(Simulation& sim, bool first_of_run, bool last_of_run) override;

  // dump_modify format float FMT.
  void set_float_format(const std::string& format);
  const std::string& id() const { return id_; }
  const std::string& file() const { return file_; }
  // Publishes FILE from FILE.part (end of each run).
  void finish(int rank);
  // Publishes FILE and removes FILE.part (undump, end of the program).
  void release(int rank);

 protected:
  Dump(std::string id, std::string style, int every, std::string file,
       std::vector<std::string> fields);
  virtual void write_frame(Simulation& sim, const std::vector<AtomRecord>& atoms) = 0;
  virtual void close() = 0;
  std::string part_path() const { return partial_path(file_); }

  std::string id_, style_;
  int every_;
  std::string file_;
  std::vector<std::string> fields_;
  std::string float_format_;
  std::int64_t last_step_ = -1;
  bool open_ = false;
};

}  // namespace tessera::md
