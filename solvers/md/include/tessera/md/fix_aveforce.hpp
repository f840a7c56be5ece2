// fix ID GROUP aveforce FX FY FZ: LAMMPS's FixAveForce with constant components: in post_force
// (and in a run's setup and a minimization) every atom of the group gets the group's average
// force plus (FX, FY, FZ) in each component not given as NULL, so that the group moves as one.
// The average is over the forces the fixes before it left (one reduction over the tiles).
#pragma once

#include <array>
#include <optional>

#include "tessera/md/fix.hpp"

namespace tessera::md {

class FixAveForce final : public Fix {
 public:
  explicit FixAveForce(const FixArguments& a);
  std::string style() const override { return "aveforce"; }
  bool acts_in_minimize() const override { return true; }
  std::size_t post_force_sums() const override { return 4; }
  void sum_post_force(const FixTile& t, std::span<double> out) const override;
  void set_post_force_sums(std::span<const double> sums) override;
  void post_force(FixTile& t) override;
  nlohmann::json restart_section() const override;
  void restore(const nlohmann::json& section, const detail::RestartHeader& header,
               const std::string& where) override;

 private:
  std::array<std::optional<double>, 3> value_;
  std::array<double, 3> average_{};
  bool any_ = false;  // the group has atoms
};

}  // namespace tessera::md
