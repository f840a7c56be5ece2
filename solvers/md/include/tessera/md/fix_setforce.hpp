// fix ID GROUP setforce FX FY FZ: sets the force components of the group's atoms, as LAMMPS's
// FixSetForce, in post_force (and in a run's setup); a component given as NULL is left alone.
#pragma once

#include <array>
#include <optional>

#include "tessera/md/fix.hpp"

namespace tessera::md {

class FixSetForce final : public Fix {
 public:
  explicit FixSetForce(const FixArguments& a);
  std::string style() const override { return "setforce"; }
  bool acts_in_minimize() const override { return true; }
  void post_force(FixTile& t) override;
  nlohmann::json restart_section() const override;
  void restore(const nlohmann::json& section, const detail::RestartHeader& header,
               const std::string& where) override;

 private:
  std::array<std::optional<double>, 3> value_;
};

}  // namespace tessera::md
