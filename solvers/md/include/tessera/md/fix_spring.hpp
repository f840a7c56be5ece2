// fix ID GROUP spring tether K X Y Z R0 | couple GROUP2 K X Y Z R0: LAMMPS's FixSpring, a spring
// of stiffness K (energy/distance^2) and rest length R0 on the group's centre of mass (unwrapped
// positions), tethered to the point (X, Y, Z) or coupled to GROUP2's centre of mass at the
// displacement (X, Y, Z) from it; a component given as NULL is left out of the distance. The
// force, -K (r - R0) along the spring, is shared among the atoms by mass (GROUP2's feel the
// opposite one), in post_force, a run's setup and minimizations.
//
// Outputs, as LAMMPS's (extensive): f_ID is the spring's energy K/2 (r - R0)^2; f_ID[1..3] the
// force on the group (tether) or on GROUP2's centre (couple), f_ID[4] its magnitude, negative
// when the spring is compressed. fix_modify energy yes adds the energy to the potential energy.
// Restart files do not keep it, as LAMMPS's do not.
#pragma once

#include <array>
#include <optional>

#include "tessera/md/domain.hpp"
#include "tessera/md/fix.hpp"

namespace tessera::md {

class FixSpring final : public Fix {
 public:
  explicit FixSpring(const FixArguments& a);
  std::string style() const override { return "spring"; }
  bool acts_in_minimize() const override { return true; }
  bool restartable() const override { return false; }
  void pre_force(Simulation& sim) override;
  // The groups' mass-weighted unwrapped positions and masses (4 each).
  std::size_t post_force_sums() const override { return 8; }
  void sum_post_force(const FixTile& t, std::span<double> out) const override;
  void set_post_force_sums(std::span<const double> sums) override;
  void post_force(FixTile& t) override;
  bool has_scalar() const override { return true; }
  bool extensive_scalar() const override { return true; }
  std::size_t vector_size() const override { return 4; }
  bool extensive_vector(std::size_t /*k*/) const override { return true; }
  double scalar(Simulation& /*sim*/) override { return energy_; }
  std::vector<double> vector(Simulation& /*sim*/) override {
    return {total_[0], total_[1], total_[2], total_[3]};
  }
  bool has_energy() const override { return true; }
  // The spring's energy counted once, on tile 0.
  double tile_energy(const Tile& tile) const override;

 private:
  std::string group2_;  // empty for a tether
  std::uint32_t group2_mask_ = 0;
  double k_ = 0, r0_ = 0;
  std::array<std::optional<double>, 3> target_;
  Box box_;  // for unwrapping
  // This force computation's per-mass forces on the group's and GROUP2's atoms.
  std::array<double, 3> per_mass_{}, per_mass2_{};
  double energy_ = 0;
  std::array<double, 4> total_{};
};

}  // namespace tessera::md
