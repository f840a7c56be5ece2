// pair_style table: a pair potential tabulated in a file, interpolated as LAMMPS's PairTable
// (pair_table.cpp of the version Debian ships, 29 Sep 2021) interpolates it.
//
//   pair_style table STYLE N [ewald|pppm|msm|dispersion|tip4p]
//   pair_coeff I J FILE KEYWORD [CUTOFF]
// STYLE is lookup (the value at the middle of each of N-1 bins in r^2), linear (linear between
// N points even in r^2), spline (cubic splines through them) or bitmap (2^N bins indexed by the
// bits of r^2 as a float). FILE's section KEYWORD holds, in LAMMPS's format, a parameter line
// "N n [R|RSQ|BITMAP lo hi] [FPRIME fplo fphi]" and n lines "index r energy force" (energy
// units, force units); the table is splined from those points to the style's N unless it
// already is them (linear, RSQ spacing, n = N, cutoff at its end). CUTOFF defaults to the
// table's last distance. Unlike pairs are never mixed: every pair needs its pair_coeff. The
// keywords after N say that the tables hold a kspace style's real-space part; with one, the
// tables' common cutoff is the one the kspace style's accuracy estimate uses.
//
// Files tagged `UNITS: metal` run in units real with LAMMPS's conversion (and the reverse).
// LAMMPS warns when forces disagree with -dE/dr away from inflection points and when the file's
// distances differ from those its R or RSQ keyword implies; so does md_ipu. An entry reads on
// into the next line until it has its four values, as LAMMPS's reader does; a word that is not
// a number, where LAMMPS warns and goes on with the previous entry's value, is an error. A
// distance inside a table's inner end stops the run, as in LAMMPS. A restart file
// keeps the settings and the pair_coeff commands; the files are read again. Data files get no
// Pair Coeffs (as LAMMPS's).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "tessera/md/pair.hpp"

namespace tessera::md {

class PairTable final : public Pair {
 public:
  explicit PairTable(const PairContext& context) : context_(context) {}

  std::string style() const override { return "table"; }
  void settings(const std::vector<std::string>& args) override;
  void coeff(const std::vector<std::string>& args, int types) override;
  bool has_coeff(int i, int j) const override;
  double init(int types, std::size_t tiles) override;
  bool tallies_per_atom() const override { return true; }
  // The interpolation arrays of every table (not the file's points, which init leaves behind).
  std::size_t replicated_bytes() const override;
  std::optional<double> long_range_cutoff() const override;
  void compute(PairTile& t) override;
  SpecialWeights special_weights() const override { return SpecialWeights::weighed; }
  nlohmann::json restart_section() const override;
  void restore(const nlohmann::json& section, const detail::RestartHeader& header,
               int types) override;

  enum class Interpolation { lookup, linear, spline, bitmap };

  // One pair_coeff's table: the points read from the file and what the style interpolates.
  struct Table {
    // From the file (LAMMPS's Table: ninput, rfile, efile, ffile, rflag, rlo, rhi, fpflag,
    // fplo, fphi).
    enum class Spacing { file, r, rsq, bitmap };
    std::vector<double> rfile, efile, ffile, e2file, f2file;
    Spacing spacing = Spacing::file;
    double rlo = 0, rhi = 0;
    bool fprime = false;
    double fplo = 0, fphi = 0;
    // The interpolation's (LAMMPS's names): values at the lower edges of the bins, their
    // differences and second derivatives.
    double cut = 0, innersq = 0, delta = 0, invdelta = 0, deltasq6 = 0;
    bool match = false;
    std::vector<double> rsq, drsq, e, de, f, df, e2, f2;
    int nmask = 0, nshiftbits = 0;
  };

 private:
  void read(Table& tb, const std::string& path, const std::string& keyword) const;
  void build(Table& tb) const;
  template <Interpolation Style, bool Energy>
  bool interpolate(const Table& tb, double rsq, double& fpair, double& energy) const;
  template <Interpolation Style, bool EnergyVirial, bool PerAtom>
  void kernel(PairTile& t) const;

  PairContext context_;
  Interpolation interpolation_ = Interpolation::linear;
  int length_ = 0;                         // LAMMPS's tablength: N
  std::vector<std::string> kspace_words_;  // ewald, pppm, ... as given
  std::vector<Table> tables_;
  std::vector<std::vector<int>> index_;  // [i][j], 1-based, i <= j: the table, -1 none
  std::vector<std::vector<std::string>> coeff_calls_;  // for restart files
  int types_ = 0;
  std::vector<int> pair_table_;  // [i * (types + 1) + j]: the table of each type pair
  std::vector<double> cutsq_;    // the same: its cutoff squared
};

}  // namespace tessera::md
