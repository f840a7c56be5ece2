// DumpReader: snapshots of LAMMPS's native text dump files (dump atom and dump custom, as LAMMPS
// and md_ipu write them), found by timestep across a list of files, as LAMMPS's ReaderNative
// and ReadDump::seek/next find them. A snapshot is
//   ITEM: TIMESTEP / N / ITEM: NUMBER OF ATOMS / N / ITEM: BOX BOUNDS pp pp pp / 3 lines lo hi /
//   ITEM: ATOMS label... / one line per atom.
// Files are read line by line (a snapshot at a time, never a whole file). Not thread-safe; one
// rank reads (produce_on_root). Throws FormatError naming the file and line for text that is not
// a snapshot, ConfigError for a file that cannot be opened.
#pragma once

#include <array>
#include <cstdint>
#include <fstream>
#include <optional>
#include <string>
#include <vector>

namespace tessera::md {

struct DumpHeader {
  std::int64_t step = 0;
  std::int64_t atoms = 0;
  std::array<double, 3> lo{}, hi{};
  std::string bounds;               // the BOX BOUNDS line's words after "BOUNDS" ("pp pp pp")
  bool triclinic = false;           // its box has tilt factors (xy xz yz)
  std::vector<std::string> labels;  // the ATOMS line's column labels
};

class DumpReader {
 public:
  explicit DumpReader(std::vector<std::string> files) : files_(std::move(files)) {}
  // The first snapshot at `step` or after it (exactly at it when `exact`), from the first file
  // on; its step, or nullopt when there is none.
  std::optional<std::int64_t> seek(std::int64_t step, bool exact);
  // After a snapshot at `current`: the next one after it at or before `last`, whose step is a
  // multiple of `every` (0: any), taking one of each `skip` that match, from this file on (as
  // LAMMPS's ReadDump::next); nullopt when there is none.
  std::optional<std::int64_t> next(std::int64_t current, std::int64_t last, int every, int skip);
  // The header of the snapshot found, and then its atoms' values in the given columns (indices
  // into labels), atoms x columns, row by row.
  DumpHeader header();
  std::vector<double> atoms(const DumpHeader& header, const std::vector<std::size_t>& columns);

 private:
  bool open(std::size_t file);
  // The next snapshot's step from the current file, or nullopt at its end.
  std::optional<std::int64_t> read_step();
  // Past the rest of the snapshot whose step was read.
  void skip();
  bool line(std::string& text);
  [[noreturn]] void fail(const std::string& what) const;

  std::vector<std::string> files_;
  std::size_t file_ = 0;
  std::ifstream in_;
  std::int64_t line_number_ = 0;
  std::int64_t step_ = 0;
};

}  // namespace tessera::md
