// Dumps: LAMMPS's `dump ID all STYLE N FILE fields...`.
//
// Styles: atom (id type xs ys zs), custom (id type x y z xs ys zs xu yu zu ix iy iz
// vx vy vz fx fy fz mass q mol element), xyz, and netcdf (AMBER trajectory convention, readable by
// MDAnalysis, VMD and OVITO). Atoms are always written sorted by id (what
// `dump_modify sort id` asks for), whatever the decomposition.
//
// Files follow tessera/core/atomic_file.hpp. Frames go to FILE.part while a run goes on;
// at the end of the run publish_dumps publishes every dump of the run together (completed and
// synced first, then renamed one right after another), so that FILE is never half written
// and the dumps of one simulation hold the same frames under their names whenever the
// program is stopped or killed. A later run continues FILE through a copy, FILE.part, so
// that FILE keeps the frames of the earlier runs until the longer file replaces it. A write
// that fails (a full disk) throws Error naming the file and the reason; discard_dumps then
// drops the run's frames of every dump (each FILE.part is removed), and each FILE keeps what
// the earlier runs published. Only rank 0 writes.
#pragma once

#include <cstdint>
#include <map>
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
  // Frames not yet published are dropped (FILE.part removed).
  ~Dump() override;

  int every() const override { return every_; }
  // Writes a frame (rank 0) at multiples of every(). Throws Error when writing fails.
  void observe(Simulation& sim, bool first_of_run, bool last_of_run) override;

  // dump_modify format float FMT.
  void set_float_format(const std::string& format);
  // dump_modify element: a name for each atom type (1, 2, ... in order), for the custom field
  // element (C for every type until given, as LAMMPS's) and the xyz dump's first column (the
  // type's number until given).
  void set_elements(std::vector<std::string> names);
  // The group whose atoms each frame holds (all by default), as LAMMPS's dump GROUP.
  void set_group(std::string group) { group_ = std::move(group); }
  const std::string& id() const { return id_; }
  const std::string& file() const { return file_; }
  // Whether a write of this dump failed during the current run.
  bool failed() const { return failed_; }

  // Publishes the frames the run added to each dump, all together (rank 0; the others hold no
  // files). Throws Error naming the file that could not be published.
  friend void publish_dumps(const std::vector<Dump*>& dumps);
  // Drops the frames the run added to each dump; each FILE keeps what was published before.
  friend void discard_dumps(const std::vector<Dump*>& dumps);

 protected:
  Dump(std::string id, std::string style, int every, std::string file,
       std::vector<std::string> fields);
  virtual void write_frame(Simulation& sim, const std::vector<AtomRecord>& atoms) = 0;
  // Closes what the style holds open on FILE.part (before it is completed or removed).
  virtual void close() = 0;
  // The run's FILE.part, opened at the first frame of a run: empty for the dump's first
  // run, else a copy of FILE to continue. A style that writes through a library opens it by
  // name (partial()).
  AtomicFile& output(bool by_name);
  // Whether FILE holds frames this dump published in an earlier run.
  bool continues() const { return published_; }

  std::string id_, style_;
  int every_;
  std::string file_;
  std::vector<std::string> fields_;
  std::string group_ = "all";
  std::string float_format_;
  std::vector<std::string> elements_;  // dump_modify element, by type - 1
  std::string element(int type) const;
  std::int64_t last_step_ = -1;
  std::map<std::int64_t, std::int64_t> molecules_;  // the frame's molecule ids by atom id (mol)
  std::unique_ptr<AtomicFile> out_;
  bool published_ = false, failed_ = false;
};

void publish_dumps(const std::vector<Dump*>& dumps);
void discard_dumps(const std::vector<Dump*>& dumps);

}  // namespace tessera::md
