// read_dump's and rerun's snapshots (LAMMPS's ReadDump): the fields and keywords
//   FIELD... [box yes|no] [replace yes|no] [purge yes|no] [trim yes|no] [add yes|keep|no]
//            [label FIELD COLUMN] [scaled yes|no] [wrapped yes|no] [format native]
// with FIELD x y z vx vy vz ix iy iz, and a snapshot of a native text dump (dump_reader.hpp)
// applied to the simulation as LAMMPS applies it: the step becomes the snapshot's; with box
// (default) the box becomes its box; atoms whose id is in the snapshot get its fields (replace,
// default; their image flags kept unless ix iy iz are read, zeroed for unwrapped coordinates),
// the others are deleted with trim, snapshot atoms of no current id are added with add (new ids
// after the largest with yes, their own with keep; the dump must have a type column), purge
// deletes every atom first. Then every atom is mapped back into the periodic box with its image
// flags counted. Coordinates come from column x (else the first of xs, xu, xsu: scaled by the
// snapshot's box, unwrapped, or both), or from the column a label names, read as scaled and
// wrapped say. Forces are not read: md_ipu computes them at each run's setup.
// Rank 0 reads the files; what it reads and its errors reach every rank (collective).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "dump_reader.hpp"
#include "tessera/md/simulation.hpp"

namespace tessera::md {

struct ReadDumpSettings {
  enum class Field { x, y, z, vx, vy, vz, ix, iy, iz, q };
  std::vector<Field> fields;
  bool box = true, replace = true, purge = false, trim = false;
  enum class Add { no, yes, keep } add = Add::no;
  std::map<Field, std::string> labels;  // label FIELD COLUMN
  bool scaled = false, wrapped = true;  // how labelled coordinates are read
};

// FIELD... and keywords from words[at] on; throws ConfigError, `what` first.
ReadDumpSettings parse_read_dump(const std::string& what, const std::vector<std::string>& words,
                                 std::size_t at, int dimension);

// What applying a snapshot did, as LAMMPS's read_dump reports it.
struct ReadDumpCounts {
  std::int64_t before = 0, snapshot = 0, purged = 0, replaced = 0, trimmed = 0, added = 0,
               after = 0;
};

// The DumpReader of rank 0 through produce_on_root (collective): seek and next as
// DumpReader's, and the snapshot found applied to `sim` (collective).
class SharedDumpReader {
 public:
  SharedDumpReader(Simulation& sim, std::vector<std::string> files)
      : sim_(sim), reader_(std::move(files)) {}
  std::optional<std::int64_t> seek(std::int64_t step, bool exact);
  std::optional<std::int64_t> next(std::int64_t current, std::int64_t last, int every, int skip);
  ReadDumpCounts apply(const ReadDumpSettings& settings);

 private:
  Simulation& sim_;
  DumpReader reader_;  // used on rank 0 only
};

}  // namespace tessera::md
