// fix ID GROUP recenter X Y Z [shift GROUP2] [units box|lattice|fraction]: LAMMPS's FixRecenter.
// At each step's initial_integrate (after the fixes defined before it moved the atoms), the
// group's centre of mass (unwrapped positions, the group's mass as the run's setup found it) is
// moved to (X, Y, Z) by shifting every atom of GROUP2 (default the group) by the same vector. A
// coordinate may be INIT (the centre of mass at the run's setup) or NULL (not moved). units
// lattice (default) scales X Y Z by the lattice spacings, fraction places them in the box
// (0..1 from its lower to its upper face, at each step). Outputs (extensive, as LAMMPS's): f_ID
// the distance moved at the last step, f_ID[1..3] the shift. A later fix that integrates gets a
// warning (its moves come after the recentring). Restart files do not keep it, as LAMMPS's.
#pragma once

#include <array>
#include <functional>
#include <string>

#include "tessera/md/domain.hpp"
#include "tessera/md/fix.hpp"

namespace tessera::md {

class FixRecenter final : public Fix {
 public:
  explicit FixRecenter(const FixArguments& a);
  std::string style() const override { return "recenter"; }
  bool restartable() const override { return false; }
  void setup(Simulation& sim) override;
  void pre_integrate(Simulation& sim) override;
  std::size_t initial_integrate_sums() const override { return 3; }
  void sum_initial_integrate(const FixTile& t, std::span<double> out) const override;
  void set_initial_integrate_sums(std::span<const double> sums) override;
  void initial_integrate(FixTile& t) override;
  bool has_scalar() const override { return true; }
  std::size_t vector_size() const override { return 3; }
  bool extensive_scalar() const override { return true; }
  bool extensive_vector(std::size_t) const override { return true; }
  double scalar(Simulation&) override { return distance_; }
  std::vector<double> vector(Simulation&) override { return {shift_[0], shift_[1], shift_[2]}; }

 private:
  enum class Target { value, init, none };
  std::array<Target, 3> kind_{Target::value, Target::value, Target::value};
  std::array<double, 3> target_{};  // box units, or fractions with units fraction
  bool fraction_ = false;
  std::string group2_;
  std::uint32_t group2_mask_ = 0;
  std::function<void(const std::string&)> print_;
  double mass_ = 0;
  std::array<double, 3> init_{}, lo_{}, hi_{}, shift_{};
  Box box_;  // for unwrapping
  double distance_ = 0;
};

}  // namespace tessera::md
