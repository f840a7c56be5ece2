#include "tessera/md/fix_balance.hpp"

#include "arguments.hpp"
#include "balance_weights.hpp"

namespace tessera::md {

FixBalance::FixBalance(const FixArguments& a) : Fix(a.id, a.group) {
  const std::string what = "fix " + a.id + " balance";
  if (a.from_restart || a.sim == nullptr) arguments::bad(what + ": not kept in restart files");
  arguments::need(a.args, 3, "fix ID GROUP balance NEVERY THRESH shift|rcb ARGS... [weight ...]");
  every_ = static_cast<int>(arguments::integer(what + " NEVERY", a.args[0], 0, arguments::int_max));
  threshold_ = arguments::number(what + " THRESH", a.args[1]);
  if (!(threshold_ > 0)) arguments::bad(what + ": THRESH must be positive");
  variables_ = a.atom_variables;
  settings_ = std::make_unique<BalanceSettings>(
      parse_balance(*a.sim, a.args, 2, /*fix=*/true, variables_, what));
  if (every_ == 0 && !settings_->variable.empty())
    arguments::bad(what + ": NEVERY 0 cannot be used with weight var (as in LAMMPS)");
}

FixBalance::~FixBalance() = default;

// LAMMPS's FixBalance::pre_exchange at a balancing step (once a step): weigh, and rebalance
// past THRESH.
void FixBalance::weigh(Simulation& sim) {
  if (sim.step() == last_step_) return;
  last_step_ = sim.step();
  const TileLoads loads = balance_loads(sim, *settings_, variables_, "fix " + id() + " balance");
  largest_ = loads.largest;
  if (loads.imbalance <= threshold_) return;
  previous_ = loads.imbalance;
  final_ = loads.imbalance;  // nothing moved
}

void FixBalance::setup(Simulation& sim) { weigh(sim); }

void FixBalance::end_of_step(Simulation& sim) {
  if (every_ > 0) weigh(sim);
}

}  // namespace tessera::md
