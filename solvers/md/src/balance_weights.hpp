// What LAMMPS's balance command and fix balance take after THRESH, checked as LAMMPS checks
// it: a style with its arguments (balance: x|y|z uniform|FRACTIONS..., shift DIMS NITER
// STOPTHRESH, rcb; fix balance: shift or rcb) and keywords (weight group N G1 F1 ..., weight
// neigh F, weight time F, weight var NAME, weight store NAME, out FILE).
//
// md_ipu's tile grid is fixed by the target (results are the same for any decomposition), so
// no boundary moves; what remains is what LAMMPS reports and keeps: each atom's weight (the
// product of its groups' factors and the atom-style variable's value; neigh and time weigh a
// processor's measured cost, which a fixed grid does not use: factor 1) stored in a d_NAME
// property with weight store, and the imbalance of the tiles' loads (each tile's summed
// weights: the largest over the mean).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "tessera/core/error.hpp"
#include "tessera/md/compute.hpp"
#include "tessera/md/simulation.hpp"

namespace tessera::md {

struct BalanceSettings {
  bool rcb = false;
  std::vector<std::pair<std::uint32_t, double>> group_factors;  // (group mask, factor)
  std::string variable;                                         // weight var: atom-style
  std::optional<Simulation::CustomReference> store;             // weight store: d_NAME
  bool measured = false;                                        // weight neigh or time given
};

// Parses words[from...] (STYLE ARGS KEYWORDS); `fix`: fix balance's styles only. Throws
// ConfigError, `what` first.
BalanceSettings parse_balance(const Simulation& sim, const std::vector<std::string>& words,
                              std::size_t from, bool fix, const AtomVariables& variables,
                              const std::string& what);

// The tiles' loads now (collective): the weights stored first with weight store. Throws
// ConfigError, `what` first, for a weight that is not positive.
struct TileLoads {
  double largest = 0;    // the largest tile's load (atoms, or summed weights)
  double imbalance = 1;  // largest / mean over the tiles
};
TileLoads balance_loads(Simulation& sim, const BalanceSettings& settings,
                        const AtomVariables& variables, const std::string& what);

}  // namespace tessera::md
