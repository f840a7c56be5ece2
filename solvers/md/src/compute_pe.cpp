#include "tessera/md/compute_pe.hpp"

#include "tessera/md/simulation.hpp"

namespace tessera::md {

ComputePE::ComputePE(const ComputeArguments& a) : Compute(a.id, a.group) {
  if (a.group != "all") throw ConfigError("compute " + a.id + " pe must use the group all");
  all_ = a.args.empty();
  parts_.set_interactions(all_), parts_.fix = all_;
  for (const auto& word : a.args) {
    if (word == "pair")
      parts_.pair = true;
    else if (word == "kspace")
      parts_.kspace = true;
    else if (word == "fix")
      parts_.fix = true;
    else if (const auto kind = term_keyword(word))
      parts_.bonded[static_cast<std::size_t>(*kind)] = true;
    else
      throw ConfigError("compute " + a.id + " pe: unknown keyword '" + word +
                        "'; use pair, bond, angle, dihedral, improper, kspace or fix");
  }
}

double ComputePE::scalar(Simulation& sim) {
  const Thermo th = sim.thermo();
  if (all_) return th.pe;
  // pe is the pair, bonded and kspace energies and the fixes' (which have no sum of their own).
  const double pair = th.evdwl + th.ecoul;
  const double fix = th.pe - pair - th.elong - th.bonded_energy_total();
  double sum =
      (parts_.pair ? pair : 0.0) + (parts_.kspace ? th.elong : 0.0) + (parts_.fix ? fix : 0.0);
  for (std::size_t kind = 0; kind < term_kinds; ++kind)
    if (parts_.bonded[kind]) sum += th.bonded_energy[kind];
  return sum;
}

}  // namespace tessera::md
