// fix ID GROUP ave/correlate NEVERY NREPEAT NFREQ VALUE... [keyword value ...]: LAMMPS's
// FixAveCorrelate, time correlations of scalar values, as Green-Kubo transport coefficients
// need them (the heat flux's for thermal conductivity, the pressure tensor's for viscosity).
// Every NEVERY steps (from START, default 0) it samples each VALUE (c_ID, c_ID[N], f_ID, f_ID[N]
// or v_NAME of an equal-style variable, [*] expanded) into a ring of the last NREPEAT samples,
// and adds to the correlation at each lag k = 0..NREPEAT-1 the products of the newest sample
// and the one k samples older:
//   C_ij(k) = PREFACTOR * mean over samples t of V_i(t - k) V_j(t),
// the pairs (i, j) chosen by `type`: auto (i = j; the default), upper (i < j), lower (i > j),
// auto/upper (i <= j), auto/lower (i >= j) or full (all). Every NFREQ steps the correlations so
// far become its output, a global array of NREPEAT rows (intensive; f_ID[I][J], and f_ID[J] as
// column J where a vector is read, as trap(f_ID[3]) integrates it): column 1 the lag in steps,
// column 2 the number of products at that lag, then one column per pair. `ave one` (default)
// starts the sums again after each output (the newest sample kept for lag 0), `ave running`
// keeps adding. `file FILE` writes LAMMPS's layout (three comment lines, then per output
// "STEP NREPEAT" and a line "ROW LAG COUNT C..." per lag), `overwrite` (ave running only) keeps
// only the latest, title1/2/3 replace the comment lines. The file is rewritten whole
// (atomic_file.hpp) at each output on rank 0. Not kept in restart files, as in LAMMPS.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "tessera/md/fix.hpp"
#include "tessera/md/output_reference.hpp"
#include "tessera/md/time_average.hpp"

namespace tessera::md {

class FixAveCorrelate final : public Fix {
 public:
  explicit FixAveCorrelate(const FixArguments& a);
  std::string style() const override { return "ave/correlate"; }
  bool needs_step_velocities() const override { return true; }
  bool needs_energy() const override { return true; }
  bool restartable() const override { return false; }
  int end_of_step_every() const override { return every_; }
  int global_frequency() const override { return frequency_; }
  void setup(Simulation& sim) override;
  void end_of_step(Simulation& sim) override;
  std::size_t array_columns() const override { return pairs_.size() + 2; }
  std::size_t array_rows() const override { return static_cast<std::size_t>(repeat_); }
  double array(Simulation& sim, std::size_t row, std::size_t column) override;

 private:
  struct Value {
    std::string text;  // as given: c_ID[2], v_name
    std::optional<OutputReference> ref;
    std::string variable;  // v_NAME's NAME
  };
  // Starts the ring and schedule over at the first multiple of NEVERY at or after `step` and
  // START (LAMMPS's nextvalid).
  void restart_sampling(std::int64_t step);
  void accumulate();
  void write(std::int64_t step);

  std::function<double(const std::string&)> variable_;
  int every_ = 1, repeat_ = 1, frequency_ = 1;
  std::vector<Value> values_;
  std::vector<std::pair<std::size_t, std::size_t>> pairs_;  // (older value i, newer value j)
  bool running_ = false;
  std::int64_t start_ = 0;
  double prefactor_ = 1.0;
  AveragesFile output_;

  // The ring of samples (NREPEAT x values), the newest at `last_`, `samples_` of them.
  std::vector<double> ring_;
  std::size_t last_ = 0, samples_ = 0;
  std::int64_t next_ = 0;  // the step of the next sample
  std::vector<double> sums_;              // NREPEAT x pairs
  std::vector<std::int64_t> counts_;      // NREPEAT
  std::vector<double> saved_;             // the output: NREPEAT x pairs, normalised
  std::vector<std::int64_t> saved_counts_;
};

}  // namespace tessera::md
