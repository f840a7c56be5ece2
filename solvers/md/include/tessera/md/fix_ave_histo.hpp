// fix ID GROUP ave/histo NEVERY NREPEAT NFREQ LO HI NBIN VALUE... [keyword value ...]: LAMMPS's
// FixAveHisto, histograms of values: NREPEAT samples NEVERY steps apart (the last on a multiple
// of NFREQ, as fix ave/time schedules them) binned into NBIN equal bins over [LO, HI].
// The values are all global or all per-atom:
//   global:   c_ID, c_ID[N], f_ID, f_ID[N], v_NAME (equal style), one number each (mode scalar,
//             the default), or in mode vector c_ID / f_ID (a global vector, every element) and
//             c_ID[J] / f_ID[J] (column J of a global array);
//   per-atom: x y z vx vy vz fx fy fz, c_ID / c_ID[J] of a per-atom compute, v_NAME (atom
//             style), one number per atom of the group; in mode vector only, as in LAMMPS.
// kind global|peratom names which (LAMMPS's; it is found from the values otherwise);
// beyond ignore (default: values outside [LO, HI] are counted as missing), end (into the end
// bins) or extra (into two extra bins at LO and HI); ave one|running|window M combines the
// histograms of successive NFREQ steps as LAMMPS does. Its outputs: f_ID[1..4] the total count,
// the missing count, the smallest and the largest value; f_ID[I][J] row I of NBIN (+2) rows:
// the bin's centre, its count and its fraction of the total (intensive). `file FILE` writes
// LAMMPS's layout (three comment lines; per NFREQ step "STEP NBIN TOTAL MISSING MIN MAX", then
// "BIN COORD COUNT FRACTION", numbers with %g), rewritten whole (atomic_file.hpp) on rank 0; `overwrite` keeps only the
// latest; title1/2/3 replace the comment lines. Not kept in restart files, as in LAMMPS.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "tessera/md/fix.hpp"
#include "tessera/md/output_reference.hpp"
#include "tessera/md/time_average.hpp"

namespace tessera::md {

class FixAveHisto final : public Fix {
 public:
  explicit FixAveHisto(const FixArguments& a);
  std::string style() const override { return "ave/histo"; }
  bool needs_step_velocities() const override { return true; }
  bool needs_energy() const override { return true; }
  bool restartable() const override { return false; }
  int end_of_step_every() const override { return every_; }
  int global_frequency() const override { return frequency_; }
  void setup(Simulation& sim) override;
  void end_of_step(Simulation& sim) override;
  std::size_t vector_size() const override { return 4; }
  std::vector<double> vector(Simulation& sim) override;
  std::size_t array_columns() const override { return 3; }
  std::size_t array_rows() const override { return coord_.size(); }
  double array(Simulation& sim, std::size_t row, std::size_t column) override;

 private:
  struct Value {
    std::string text;
    int property = -1;  // x y z vx vy vz fx fy fz
    std::optional<OutputReference> ref;
    std::string variable;  // v_NAME's NAME
  };
  // The histogram of this step's values: bins, then total, missing, min, max.
  std::vector<double> sample(Simulation& sim);
  void bin(double value, std::vector<double>& histogram) const;
  void write(std::int64_t step);

  std::function<double(const std::string&)> variable_;
  AtomVariables atom_variables_;
  int every_ = 1, repeat_ = 1, frequency_ = 1;
  double lo_ = 0, hi_ = 1, inverse_width_ = 1;
  enum class Beyond { ignore, end, extra } beyond_ = Beyond::ignore;
  bool per_atom_ = false, vector_mode_ = false;
  std::vector<Value> values_;
  std::vector<double> coord_;  // bin centres (LO and HI for the extra bins)
  TimeAverage average_;        // ave one|running|window over the bins, total and missing
  // ave window M: the last M histograms' min and max, oldest replaced first.
  std::vector<std::array<double, 2>> window_extremes_;
  std::size_t window_at_ = 0;
  // total, missing, min, max as output; LAMMPS starts them at 0, so that with ave running the
  // min (max) is never above (below) 0.
  std::array<double, 4> stats_{0, 0, 0, 0};
  std::int64_t start_ = 0;
  AveragesFile output_;
  SampleSchedule schedule_;
  std::vector<double> sum_;  // this NFREQ's histogram so far
};

}  // namespace tessera::md
