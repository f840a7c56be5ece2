// PotentialFile: the text of a potential file (LAMMPS's `potentials` folder: EAM's DYNAMO
// funcfl/setfl files and the like) read the way LAMMPS's PotentialFileReader reads it, so that
// every file LAMMPS accepts is read to the same numbers (internal to the md module).
//
// Lines are read in order. skip_line() drops one line as it is (a header). values(n) reads
// lines, with everything after '#' dropped and blank lines skipped, joining them until they
// hold at least n words, and returns all of their words; doubles(n) reads n numbers from as
// many lines as they take (words after the n-th on its line are dropped, as LAMMPS drops them).
// The first line's `UNITS: name` tag, when there is one, is units_tag(). Every error is a
// FormatError naming the file, the line and what was expected.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "tessera/md/pair.hpp"

namespace tessera::md {

class PotentialFile {
 public:
  // `kind` names the file in messages ("EAM potential file").
  PotentialFile(std::string text, std::string path, std::string kind);

  const std::string& units_tag() const { return units_tag_; }
  const std::string& path() const { return path_; }
  void skip_line();
  std::vector<std::string> values(std::size_t n);
  // As values(n), but at the end of the file, where no word is left, nothing (LAMMPS's
  // next_line(n) in a loop over a file's entries); a FormatError when some words are left, but
  // fewer than n.
  std::optional<std::vector<std::string>> next_values(std::size_t n);
  std::vector<double> doubles(std::size_t n);
  // Words as numbers, with the file and line in the message of a word that is not one.
  double number(const std::string& word) const;
  int integer(const std::string& word) const;
  [[noreturn]] void fail(const std::string& what) const;

 private:
  bool next_line(std::string& line);

  std::string text_, path_, kind_, units_tag_;
  std::size_t at_ = 0, line_number_ = 0;
};

// The potential file at `path` (`kind` names it in messages), as LAMMPS's utils::open_potential
// finds it: a path that cannot be read is looked for by its file name in the folder
// $LAMMPS_POTENTIALS names. Read through context.read_file (rank 0 reads, every rank gets it).
PotentialFile open_potential(const PairContext& context, const std::string& path,
                             const std::string& kind);

// The factor LAMMPS multiplies a potential file's energies by when the file's UNITS tag and
// the simulation's units differ (metal <-> real, utils::get_conversion_factor: 23.060549
// kcal/mol per eV); 1 when they agree or the file has no tag. Throws ConfigError otherwise.
double energy_conversion(const PotentialFile& file, const std::string& units);

}  // namespace tessera::md
