// fix ID GROUP vector NEVERY VALUE...: LAMMPS's FixVector. At every step that is a multiple of
// NEVERY, from the first at or after its definition (a run's setup included), it appends the
// current value of each VALUE (c_ID, c_ID[N], f_ID, f_ID[N] or v_NAME of an equal-style
// variable) to a global vector (one value) or a row of a global array (several), which grow for
// as long as the fix lives: f_ID[N] (f_ID[N][J]) is the Nth sample, and the special functions of
// formulas read the whole history (slope(f_ID) of a mean squared displacement gives the
// diffusion coefficient, trap(f_ID) of a velocity autocorrelation its Green-Kubo integral). The
// values must be all intensive or all extensive (equal-style variables count as intensive), as
// LAMMPS requires; reading an element not sampled yet is an error, as in LAMMPS.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <vector>

#include "tessera/md/fix.hpp"
#include "tessera/md/output_reference.hpp"

namespace tessera::md {

class FixVector final : public Fix {
 public:
  explicit FixVector(const FixArguments& a);
  std::string style() const override { return "vector"; }
  bool needs_step_velocities() const override { return true; }
  bool needs_energy() const override { return true; }
  bool restartable() const override { return false; }  // as LAMMPS's: no restart state
  int end_of_step_every() const override { return every_; }
  int global_frequency() const override { return every_; }
  void setup(Simulation& sim) override { end_of_step(sim); }
  void end_of_step(Simulation& sim) override;
  std::size_t vector_size() const override { return values_.size() == 1 ? rows_ : 0; }
  bool vector_grows() const override { return values_.size() == 1; }
  bool extensive_vector(std::size_t) const override { return extensive_; }
  std::vector<double> vector(Simulation&) override;
  std::size_t array_columns() const override { return values_.size() > 1 ? values_.size() : 0; }
  std::size_t array_rows() const override { return values_.size() > 1 ? rows_ : 0; }
  double array(Simulation&, std::size_t row, std::size_t column) override;

 private:
  struct Value {
    std::string text;
    std::optional<OutputReference> ref;
    std::string variable;  // v_NAME's NAME
  };
  std::function<double(const std::string&)> variable_;
  int every_ = 1;
  std::vector<Value> values_;
  bool extensive_ = false;  // every value's, as LAMMPS requires them alike
  std::int64_t next_ = 0;
  std::size_t rows_ = 0;
  std::vector<double> data_;  // rows_ x values_.size(), row by row
};

}  // namespace tessera::md
