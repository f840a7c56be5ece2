#include "tessera/md/compute_pe_atom.hpp"

#include <set>

#include "tessera/core/error.hpp"
#include "tessera/md/simulation.hpp"

namespace tessera::md {

void require_per_atom_tallies(Simulation& sim, const std::string& what) {
  if (!sim.per_atom_tallied())
    throw Error(what + ": per-atom energies and virials were not tallied at step " +
                std::to_string(sim.step()) +
                "; they are at the steps thermo, dumps and fixes look at during a run, and after "
                "a run until the atoms change");
}

ComputePEAtom::ComputePEAtom(const ComputeArguments& a) : Compute(a.id, a.group) {
  static const std::set<std::string> keywords{"pair",     "bond",   "angle", "dihedral",
                                              "improper", "kspace", "fix"};
  if (!a.args.empty()) terms_.set_interactions(false);
  for (const auto& word : a.args) {
    if (!keywords.count(word))
      throw ConfigError("compute " + a.id + " pe/atom: unknown keyword '" + word +
                        "'; use pair, bond, angle, dihedral, improper, kspace or fix");
    if (word == "pair") terms_.pair = true;
    if (const auto kind = term_keyword(word)) terms_.bonded[static_cast<std::size_t>(*kind)] = true;
    if (word == "kspace") terms_.kspace = true;
  }
}

void ComputePEAtom::prepare_peratom(Simulation& sim) {
  require_per_atom_tallies(sim, "compute " + id() + " pe/atom");
  require_lumped_terms(sim, "compute " + id() + " pe/atom", terms_);
}

void ComputePEAtom::peratom(const AtomsView& a, std::span<double> out) const {
  for (std::size_t i = 0; i < a.id.size(); ++i)
    out[i] = terms_.pair && in_group(a, i) ? a.eatom[i] : 0.0;
}

}  // namespace tessera::md
