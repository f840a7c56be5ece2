// fix ID GROUP balance NEVERY THRESH shift|rcb ARGS [weight ...]: LAMMPS's dynamic load
// balancing, which moves the boundaries between processors as a run goes. md_ipu's tile grid
// is fixed by the target (results are the same for any decomposition), so no boundary moves;
// the fix keeps LAMMPS's bookkeeping over md_ipu's processors, the tiles (balance_weights.hpp):
// at a run's setup and every NEVERY steps it weighs the atoms (and stores the weights with
// weight store), and where the tiles' imbalance exceeds THRESH it records a "rebalance".
//
// Outputs, as LAMMPS's (0 before the first balancing): the scalar is the imbalance factor after
// the last rebalance (the largest tile's load over the mean), the vector [1] the largest tile's
// load at the last balancing, [2] the iterations the last rebalance took (0: nothing moves), [3]
// the imbalance factor before it. They describe md_ipu's decomposition, so they change with the
// tile count (the target, and the host's threads), as LAMMPS's change with the processors.
#pragma once

#include <cstdint>
#include <memory>

#include "tessera/md/fix.hpp"

namespace tessera::md {

struct BalanceSettings;

class FixBalance final : public Fix {
 public:
  explicit FixBalance(const FixArguments& a);
  ~FixBalance() override;
  std::string style() const override { return "balance"; }
  bool changes_box() const override { return true; }   // LAMMPS's BOX_CHANGE_DOMAIN
  bool restartable() const override { return false; }  // as LAMMPS's: no restart state

  // As LAMMPS's, it rebuilds the lists (and wraps atoms into the box) at its steps.
  bool rebuilds_at(std::int64_t step) const override { return every_ > 0 && step % every_ == 0; }
  void setup(Simulation& sim) override;
  int end_of_step_every() const override { return every_ > 0 ? every_ : 1; }
  void end_of_step(Simulation& sim) override;

  bool has_scalar() const override { return true; }
  std::size_t vector_size() const override { return 3; }
  double scalar(Simulation& /*sim*/) override { return final_; }
  std::vector<double> vector(Simulation& /*sim*/) override { return {largest_, 0.0, previous_}; }

 private:
  void weigh(Simulation& sim);

  int every_ = 0;
  double threshold_ = 0;
  std::unique_ptr<BalanceSettings> settings_;
  AtomVariables variables_;
  double final_ = 0, previous_ = 0, largest_ = 0;  // LAMMPS's imbfinal, imbprev, maxloadperproc
  std::int64_t last_step_ = -1;                    // of the last balancing
};

}  // namespace tessera::md
