// fix ID GROUP ave/time NEVERY NREPEAT NFREQ VALUE... [keyword value ...]: LAMMPS's FixAveTime.
// Every NFREQ steps it averages NREPEAT samples taken NEVERY steps apart (the last at the NFREQ
// step) of each VALUE: c_ID, c_ID[N], f_ID, f_ID[N] or v_NAME (an equal-style variable), with
// [*] expanded. Keywords: mode scalar (each value a number) or vector (each value a compute's
// or fix's global vector, averaged element by element), ave one|running|window M (each NFREQ
// average alone, or combined with all or the last M before it), start STEP, file FILE (LAMMPS's
// layout: two comment lines, then "STEP v1 v2 ..." per average; in mode vector "STEP ROWS" and
// a line per row), overwrite, format F (used as given, as LAMMPS does: " %.6g" keeps the space
// LAMMPS puts before each value by default), title1/2/3 TEXT. Its outputs: in mode scalar a scalar
// (one value) or a vector (one element per value); in mode vector with one value, a vector of
// its rows. The file is rewritten whole (atomic_file.hpp) at each average on rank 0.
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

class FixAveTime final : public Fix {
 public:
  explicit FixAveTime(const FixArguments& a);
  std::string style() const override { return "ave/time"; }
  bool needs_step_velocities() const override { return true; }
  bool needs_energy() const override { return true; }
  bool restartable() const override { return false; }
  int end_of_step_every() const override { return every_; }
  int global_frequency() const override { return frequency_; }
  void setup(Simulation& sim) override;
  void end_of_step(Simulation& sim) override;
  bool has_scalar() const override { return !vector_mode_ && values_.size() == 1; }
  std::size_t vector_size() const override;
  bool extensive_scalar() const override { return extensive_.size() == 1 && extensive_[0]; }
  bool extensive_vector(std::size_t k) const override;
  double scalar(Simulation& sim) override;
  std::vector<double> vector(Simulation& sim) override;

 private:
  struct Value {
    std::string text;  // as given: c_ID[2], v_name
    std::optional<OutputReference> ref;
    std::string variable;  // v_NAME's NAME
  };
  std::vector<double> sample(Simulation& sim);
  void write(Simulation& sim, std::int64_t step, const std::vector<double>& average);

  std::function<double(const std::string&)> variable_;
  int every_ = 1, repeat_ = 1, frequency_ = 1;
  std::vector<Value> values_;
  bool vector_mode_ = false;
  TimeAverage average_;
  std::int64_t start_ = 0;
  std::string format_ = " %g";
  AveragesFile output_;
  std::vector<bool> extensive_;

  SampleSchedule schedule_;
  std::vector<double> sum_;
};

}  // namespace tessera::md
