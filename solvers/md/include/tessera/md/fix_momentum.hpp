// fix ID GROUP momentum N [linear XFLAG YFLAG ZFLAG] [angular] [rescale]: LAMMPS's FixMomentum.
// Every N steps (end_of_step) the group's centre-of-mass velocity (the components flagged, all
// by default when neither linear nor angular is given) and/or its rotation about its centre of
// mass (positions unwrapped) are removed; rescale then restores the group's kinetic energy.
#pragma once

#include <array>

#include "tessera/md/fix.hpp"

namespace tessera::md {

class FixMomentum final : public Fix {
 public:
  explicit FixMomentum(const FixArguments& a);
  std::string style() const override { return "momentum"; }
  int end_of_step_every() const override { return every_; }
  bool needs_step_velocities() const override { return true; }
  void end_of_step(Simulation& sim) override;
  nlohmann::json restart_section() const override;
  void restore(const nlohmann::json& section, const detail::RestartHeader& header,
               const std::string& where) override;

 private:
  int every_ = 1;
  bool linear_ = true, angular_ = false, rescale_ = false;
  std::array<bool, 3> flags_{true, true, true};
};

}  // namespace tessera::md
