#include "tessera/md/compute_pe.hpp"

#include <set>

#include "tessera/md/simulation.hpp"

namespace tessera::md {

ComputePE::ComputePE(const ComputeArguments& a) : Compute(a.id, a.group) {
  if (a.group != "all") throw ConfigError("compute " + a.id + " pe must use the group all");
  static const std::set<std::string> keywords{"pair",     "bond",   "angle", "dihedral",
                                              "improper", "kspace", "fix"};
  if (!a.args.empty()) pair_ = false;
  for (const auto& word : a.args) {
    if (!keywords.count(word))
      throw ConfigError("compute " + a.id + " pe: unknown keyword '" + word +
                        "'; use pair, bond, angle, dihedral, improper, kspace or fix");
    if (word == "pair") pair_ = true;
  }
}

double ComputePE::scalar(Simulation& sim) { return pair_ ? sim.thermo().pe : 0.0; }

}  // namespace tessera::md
