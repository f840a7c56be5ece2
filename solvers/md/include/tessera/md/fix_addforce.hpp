// fix ID GROUP addforce FX FY FZ: LAMMPS's FixAddForce with constant components: adds (FX, FY,
// FZ) (force units) to the force on each atom of the group in post_force (and in a run's setup).
#pragma once

#include <array>

#include "tessera/md/fix.hpp"

namespace tessera::md {

class FixAddForce final : public Fix {
 public:
  explicit FixAddForce(const FixArguments& a);
  std::string style() const override { return "addforce"; }
  bool acts_in_minimize() const override { return true; }
  void post_force(FixTile& t) override;
  nlohmann::json restart_section() const override;
  void restore(const nlohmann::json& section, const detail::RestartHeader& header,
               const std::string& where) override;

 private:
  std::array<double, 3> value_{};
};

}  // namespace tessera::md
