#include "slab_exchange.hpp"

#include <algorithm>

namespace tessera::md {
namespace {

// A gathered candidate: score, id, velocity, mass (mass 0: an empty record).
constexpr std::size_t record = 6;

bool better(const SlabAtom& p, const SlabAtom& q) {
  return p.score != q.score ? p.score < q.score : p.id < q.id;
}

}  // namespace

SlabCandidates slab_candidates(Simulation& sim, std::string_view name, std::uint32_t group_mask,
                               int dim, int bins, std::size_t n, const SlabScore& first,
                               const SlabScore& middle) {
  const Box& box = sim.box();
  const auto d = static_cast<std::size_t>(dim);
  const double lo = box.lo[d], hi = box.hi[d], length = hi - lo;
  const bool periodic = sim.boundary().periodic(d);
  const double bin = length / bins;
  const double middle_lo = lo + (bins / 2) * bin, middle_hi = lo + (bins / 2 + 1) * bin;
  // Each tile's best n of each side.
  const auto all =
      sim.gather_atoms(name, 2 * n * record, [&](const AtomsView& a, std::span<double> out) {
        std::vector<SlabAtom> sides[2];
        for (std::size_t i = 0; i < a.id.size(); ++i) {
          if ((a.mask[i] & group_mask) == 0) continue;
          double coord = a.x[3 * i + d];
          if (coord < lo && periodic)
            coord += length;
          else if (coord >= hi && periodic)
            coord -= length;
          const double* v = &a.v[3 * i];
          const double m = a.mass[static_cast<std::size_t>(a.type[i])];
          const auto add = [&](int side, const SlabScore& score) {
            if (const auto s = score(v, m))
              sides[side].push_back({*s, a.id[i], {v[0], v[1], v[2]}, m});
          };
          if (coord >= lo && coord < lo + bin) add(0, first);
          if (coord >= middle_lo && coord < middle_hi) add(1, middle);
        }
        for (std::size_t side = 0; side < 2; ++side) {
          auto& list = sides[side];
          const std::size_t k = std::min(n, list.size());
          std::partial_sort(list.begin(), list.begin() + static_cast<std::ptrdiff_t>(k), list.end(),
                            better);
          for (std::size_t j = 0; j < k; ++j) {
            double* r = &out[(side * n + j) * record];
            r[0] = list[j].score, r[1] = static_cast<double>(list[j].id);
            r[2] = list[j].v[0], r[3] = list[j].v[1], r[4] = list[j].v[2], r[5] = list[j].mass;
          }
        }
      });
  SlabCandidates c;
  for (std::size_t t = 0; t < all.size() / (2 * n * record); ++t)
    for (std::size_t j = 0; j < 2 * n; ++j) {
      const double* r = &all[(t * 2 * n + j) * record];
      if (r[5] > 0)
        (j < n ? c.first : c.middle)
            .push_back({r[0], static_cast<std::int64_t>(r[1]), {r[2], r[3], r[4]}, r[5]});
    }
  for (auto* list : {&c.first, &c.middle}) {
    std::sort(list->begin(), list->end(), better);
    if (list->size() > n) list->resize(n);
  }
  return c;
}

void set_velocities(Simulation& sim, std::string_view name,
                    const std::map<std::int64_t, std::array<double, 3>>& velocities) {
  if (velocities.empty()) return;
  sim.adjust_velocities(name, [&](FixTile& t) {
    for (std::size_t i = 0; i < static_cast<std::size_t>(t.nlocal); ++i) {
      const auto it = velocities.find(t.id[i]);
      if (it != velocities.end())
        for (std::size_t c = 0; c < 3; ++c) t.v[3 * i + c] = it->second[c];
    }
  });
}

}  // namespace tessera::md
