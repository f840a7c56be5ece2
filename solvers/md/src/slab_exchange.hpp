// The swaps of Muller-Plathe's reverse non-equilibrium methods (fix thermal/conductivity, fix
// viscosity; J. Chem. Phys. 106, 6082 (1997) and Phys. Rev. E 59, 4894 (1999)): the box is cut
// into NBIN slabs along a dimension; candidates are the group's atoms in the first slab and in
// the middle one (slab NBIN/2 + 1), positions mapped into a periodic box first. Each side's
// atoms are ranked by a score (lowest first, ties by atom id; an atom without a score is not a
// candidate) and the best N over every tile and rank are kept, so the swaps are the same for any
// tile and rank count. Host side, collective.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string_view>
#include <vector>

#include "tessera/md/simulation.hpp"

namespace tessera::md {

struct SlabAtom {
  double score = 0;
  std::int64_t id = 0;
  std::array<double, 3> v{};
  double mass = 0;
};

struct SlabCandidates {
  std::vector<SlabAtom> first, middle;  // best first, up to N each
};

// An atom's score from its velocity and mass, or nothing when it is not a candidate.
using SlabScore = std::function<std::optional<double>(const double* v, double mass)>;

SlabCandidates slab_candidates(Simulation& sim, std::string_view name, std::uint32_t group_mask,
                               int dim, int bins, std::size_t n, const SlabScore& first,
                               const SlabScore& middle);

// Gives the atoms of these ids these velocities (collective).
void set_velocities(Simulation& sim, std::string_view name,
                    const std::map<std::int64_t, std::array<double, 3>>& velocities);

}  // namespace tessera::md
