// fix ID all langevin T0 T1 DAMP SEED: Langevin forces, as LAMMPS's FixLangevin:
//   f += -m/damp v + sqrt(24 kB T m / (damp dt)) (u - 1/2),  u uniform in (0, 1),
// in post_force (and in a run's setup), with T going from T0 to T1 over the run. Each atom draws
// from its own Park-Miller stream, seeded from (SEED, atom id) when the fix is defined and
// carried with the atom (restart files keep it), so that the noise does not depend on which
// tile holds the atom. Needs an integrating fix (nve or nvt).
#pragma once

#include <array>

#include "tessera/md/fix.hpp"

namespace tessera::md {

class FixLangevin final : public Fix {
 public:
  explicit FixLangevin(const FixArguments& a);
  std::string style() const override { return "langevin"; }
  void start_atoms(FixTile& t) override;
  void post_force(FixTile& t) override;
  // fix_modify ID temp CID: a temperature whose bias is velocity components (temp/partial), as
  // LAMMPS's Tp_BIAS: the drag and the noise act only on the components it counts.
  std::size_t modify(Simulation& sim, const std::vector<std::string>& words,
                     std::size_t at) override;
  nlohmann::json restart_section() const override;
  void restore(const nlohmann::json& section, const detail::RestartHeader& header,
               const std::string& where) override;

 private:
  void check(const std::string& what) const;
  double t_start_ = 0, t_stop_ = 0, damp_ = 0;
  int seed_ = 0;
  std::array<bool, 3> thermal_{true, true, true};  // the components it acts on
};

}  // namespace tessera::md
