#include "tessera/md/compute.hpp"

#include "tessera/md/fix.hpp"
#include "tessera/md/simulation.hpp"

namespace tessera::md {

double atom_attribute(const AtomsView& a, std::size_t k, std::size_t i) {
  switch (k) {
    case 0:
      return static_cast<double>(a.id[i]);
    case 1:
      return a.type[i];
    case 2:
      return a.mass[static_cast<std::size_t>(a.type[i])];
    case 12:
      return a.q.empty() ? 0.0 : a.q[i];
    default:
      break;
  }
  if (k < 6) return a.x[3 * i + (k - 3)];
  if (k < 9) return a.v[3 * i + (k - 6)];
  return 3 * i + (k - 9) < a.f.size() ? a.f[3 * i + (k - 9)] : 0.0;
}

double DofCount::of(const Simulation& sim, double now) const {
  return !dynamic_ && at_setup_ && sim.in_run() ? *at_setup_ : now;
}

double dof_removed_by_fixes(Simulation& sim, std::uint32_t group_mask) {
  double removed = 0;
  for (const auto& fix : sim.fixes()) removed += fix->dof_removed(sim, group_mask);
  return removed;
}

std::size_t Compute::modify(const std::vector<std::string>& words, std::size_t at) {
  throw ConfigError("compute_modify " + id() + ": compute " + style() + " has no keyword '" +
                    words[at] + "' (or it lacks its value)");
}

std::optional<TermKind> term_keyword(const std::string& word) {
  for (const TermKind kind : all_term_kinds)
    if (word == info(kind).name) return kind;
  return std::nullopt;
}

void require_lumped_terms(const Simulation& sim, const std::string& what,
                          const VirialTerms& terms) {
  const bool kspace = sim.kspace() != nullptr;
  bool lumped = !kspace || terms.kspace == terms.pair;
  std::string names;
  sim.for_each_bonded_style([&](const auto* style, TermKind kind) {
    if (!style) return;
    lumped = lumped && terms.bonded[static_cast<std::size_t>(kind)] == terms.pair;
    names += std::string(" ") + info(kind).name;
  });
  if (!lumped)
    throw ConfigError(what + ": md_ipu tallies each atom's shares of the terms pair" + names +
                      (kspace ? " kspace" : "") + " together; name them all (pair" + names +
                      (kspace ? " kspace" : "") + ") or none");
}

VirialTerms virial_terms(const std::string& what, const std::vector<std::string>& words,
                         std::size_t from) {
  VirialTerms terms;
  if (words.size() > from) terms.ke = terms.fix = false, terms.set_interactions(false);
  for (std::size_t k = from; k < words.size(); ++k) {
    const std::string& word = words[k];
    if (word == "ke")
      terms.ke = true;
    else if (word == "pair")
      terms.pair = true;
    else if (word == "fix")
      terms.fix = true;
    else if (word == "virial")
      terms.fix = true, terms.set_interactions(true);
    else if (const auto kind = term_keyword(word))
      terms.bonded[static_cast<std::size_t>(*kind)] = true;
    else if (word == "kspace")
      terms.kspace = true;
    else
      throw ConfigError(what + ": unknown keyword '" + word +
                        "'; use ke, pair, virial, bond, angle, dihedral, improper, kspace or fix");
  }
  return terms;
}

}  // namespace tessera::md
