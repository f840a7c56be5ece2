#include "tessera/md/domain.hpp"

#include <cmath>
#include <limits>

#include "tessera/core/error.hpp"
#include "tessera/core/host_memory.hpp"

namespace tessera::md {

Domain::Domain(const Box& box, int tiles, double ghost_cutoff, int dimension,
               std::array<bool, 3> periodic)
    : box_(box), ghost_cutoff_(ghost_cutoff), dimension_(dimension), periodic_(periodic) {
  // Least total sub-box surface, as LAMMPS's procs2box.
  double best = std::numeric_limits<double>::infinity();
  const double lx = box.length(0), ly = box.length(1), lz = box.length(2);
  for (int a = 1; a <= tiles; ++a) {
    if (tiles % a) continue;
    for (int b = 1; b <= tiles / a; ++b) {
      if ((tiles / a) % b) continue;
      const int c = tiles / a / b;
      if (dimension == 2 && c != 1) continue;  // as LAMMPS's ProcMap in 2-d
      const double surface = lx * ly / (a * b) + lx * lz / (a * c) + ly * lz / (b * c);
      if (surface < best * (1 - 1e-12)) best = surface, grid_ = {a, b, c};
    }
  }
  build_segments();
}

Domain Domain::resized(const Box& box) const {
  Domain d = *this;
  d.box_ = box;
  d.segments_.clear();
  d.build_segments();
  return d;
}

void Domain::rescale(const Box& box) {
  box_ = box;
  for (auto& tile : segments_)
    for (auto& s : tile)
      for (std::size_t d = 0; d < 3; ++d)
        s.shift[d] = -s.images[d] * box.length(static_cast<int>(d));
}

void Domain::build_segments() {
  const Box& box = box_;
  const int tiles = this->tiles();
  std::array<int, 3> reach{};
  for (int d = 0; d < 3; ++d) {
    const double sub = box.length(d) / grid_[static_cast<std::size_t>(d)];
    reach[static_cast<std::size_t>(d)] = static_cast<int>(std::ceil(ghost_cutoff_ / sub));
  }
  if (dimension_ == 2) reach[2] = 0;
  // Sub-boxes thinner than the ghost cutoff make each tile exchange with (2r+1)^3 - 1 others:
  // with many tiles on a small box that grows as tiles^2. Refused before it is allocated: the
  // segments, and per segment a count and a list offset (Simulation::rebuild).
  double per_tile = 1;
  for (int d = 0; d < 3; ++d) per_tile *= 2.0 * reach[static_cast<std::size_t>(d)] + 1;
  require_host_memory(
      static_cast<double>(tiles) * (per_tile - 1) * (sizeof(Segment) + 2 * sizeof(int)),
      "the ghost exchange of " + std::to_string(tiles) + " tiles, each sending to " +
          std::to_string(static_cast<long long>(per_tile - 1)) +
          " others (sub-boxes thinner than the cutoff plus skin)",
      "use fewer tiles (--tiles-per-ipu) or a larger box");
  segments_.resize(static_cast<std::size_t>(tiles));
  for (int t = 0; t < tiles; ++t) {
    const auto c = coords(t);
    for (int dz = -reach[2]; dz <= reach[2]; ++dz)
      for (int dy = -reach[1]; dy <= reach[1]; ++dy)
        for (int dx = -reach[0]; dx <= reach[0]; ++dx) {
          if (dx == 0 && dy == 0 && dz == 0) continue;
          const std::array<int, 3> unwrapped{c[0] + dx, c[1] + dy, c[2] + dz};
          std::array<int, 3> wrapped{};
          Segment s{};
          for (int d = 0; d < 3; ++d) {
            const int p = grid_[static_cast<std::size_t>(d)];
            const int u = unwrapped[static_cast<std::size_t>(d)];
            const int images = static_cast<int>(std::floor(static_cast<double>(u) / p));
            wrapped[static_cast<std::size_t>(d)] = u - images * p;
            // The destination really sits `images` box lengths away from its unwrapped place,
            // so our atoms appear to it shifted by the opposite.
            s.shift[static_cast<std::size_t>(d)] = -images * box.length(d);
            s.images[static_cast<std::size_t>(d)] = images;
            if (images != 0 && !periodic_[static_cast<std::size_t>(d)]) s.active = false;
          }
          s.destination = wrapped[0] + grid_[0] * (wrapped[1] + grid_[1] * wrapped[2]);
          segments_[static_cast<std::size_t>(t)].push_back(s);
        }
  }
}

std::array<int, 3> Domain::coords(int tile) const {
  return {tile % grid_[0], (tile / grid_[0]) % grid_[1], tile / (grid_[0] * grid_[1])};
}

std::array<double, 3> Domain::sub_lo(int tile) const {
  const auto c = coords(tile);
  std::array<double, 3> lo{};
  for (int d = 0; d < 3; ++d) {
    const auto i = static_cast<std::size_t>(d);
    lo[i] = box_.lo[i] + box_.length(d) * c[i] / grid_[i];
  }
  return lo;
}

std::array<double, 3> Domain::sub_hi(int tile) const {
  const auto c = coords(tile);
  std::array<double, 3> hi{};
  for (int d = 0; d < 3; ++d) {
    const auto i = static_cast<std::size_t>(d);
    hi[i] = c[i] + 1 == grid_[i] ? box_.hi[i] : box_.lo[i] + box_.length(d) * (c[i] + 1) / grid_[i];
  }
  return hi;
}

int Domain::owner(const std::array<double, 3>& x) const {
  std::array<int, 3> c{};
  for (int d = 0; d < 3; ++d) {
    const auto i = static_cast<std::size_t>(d);
    int k = static_cast<int>(std::floor((x[i] - box_.lo[i]) / box_.length(d) * grid_[i]));
    k = k < 0 ? 0 : (k >= grid_[i] ? grid_[i] - 1 : k);
    // Agree with sub_lo/sub_hi at the edges, whatever the rounding of the division above.
    while (k > 0 && x[i] < sub_lo_1d(d, k)) --k;
    while (k + 1 < grid_[i] && x[i] >= sub_lo_1d(d, k + 1)) ++k;
    c[i] = k;
  }
  return c[0] + grid_[0] * (c[1] + grid_[1] * c[2]);
}

bool Domain::wrap(double* x, int* image) const {
  for (int d = 0; d < 3; ++d) {
    const auto i = static_cast<std::size_t>(d);
    if (!periodic_[i]) {
      if (!std::isfinite(x[d])) return false;
      continue;
    }
    if (x[d] >= box_.lo[i] && x[d] < box_.hi[i]) continue;
    const double l = box_.length(d);
    const double crossings = std::floor((x[d] - box_.lo[i]) / l);
    // The image count must stay an int: an atom that crossed the box more than 2^31 times
    // (a blown-up system, a velocity of 1e308) is refused, not wrapped (a double beyond int's
    // range converted to int is undefined behaviour).
    const double after = static_cast<double>(image[d]) + crossings;
    if (!std::isfinite(x[d]) || !(after >= std::numeric_limits<int>::min() + 1.0) ||
        !(after <= std::numeric_limits<int>::max() - 1.0))
      return false;
    x[d] -= crossings * l;
    image[d] = static_cast<int>(after);
    if (x[d] >= box_.hi[i]) x[d] -= l, ++image[d];  // rounding at the upper edge
    if (x[d] < box_.lo[i]) x[d] = box_.lo[i];
  }
  return true;
}

}  // namespace tessera::md
