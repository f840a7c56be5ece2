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
  // The areas of the faces normal to z, y and x: |a x b|, |a x c|, |b x c| (lx ly, lx lz, ly lz
  // when orthogonal), as LAMMPS's ProcMap for a triclinic box.
  double area_ab = box.length(0) * box.length(1), area_ac = box.length(0) * box.length(2),
         area_bc = box.length(1) * box.length(2);
  if (box.triclinic) {
    const double lx = box.length(0), ly = box.length(1), lz = box.length(2);
    area_ab = lx * ly;
    area_ac = lx * std::sqrt(box.yz * box.yz + lz * lz);
    area_bc = std::sqrt(std::pow(ly * lz, 2) + std::pow(box.xy * lz, 2) +
                        std::pow(box.xy * box.yz - ly * box.xz, 2));
  }
  double best = std::numeric_limits<double>::infinity();
  for (int a = 1; a <= tiles; ++a) {
    if (tiles % a) continue;
    for (int b = 1; b <= tiles / a; ++b) {
      if ((tiles / a) % b) continue;
      const int c = tiles / a / b;
      if (dimension == 2 && c != 1) continue;  // as LAMMPS's ProcMap in 2-d
      const double surface = area_ab / (a * b) + area_ac / (a * c) + area_bc / (b * c);
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
  set_shifts();
}

void Domain::set_shifts() {
  const BoxMatrix m(box_);
  // The cutoff across each dimension: in an orthogonal box the cutoff itself, in a triclinic one
  // the cutoff times the length of row d of h_inv (LAMMPS's Comm::get_comm_cutoff).
  if (box_.triclinic) {
    const auto& hi = m.h_inv;
    reach_ = {ghost_cutoff_ * std::sqrt(hi[0] * hi[0] + hi[5] * hi[5] + hi[4] * hi[4]),
              ghost_cutoff_ * std::sqrt(hi[1] * hi[1] + hi[3] * hi[3]), ghost_cutoff_ * hi[2]};
  } else {
    reach_ = {ghost_cutoff_, ghost_cutoff_, ghost_cutoff_};
  }
  for (auto& tile : segments_)
    for (auto& s : tile) {
      if (box_.triclinic) {
        const auto shift = box_.period_shift(s.images);
        for (std::size_t d = 0; d < 3; ++d) {
          s.shift[d] = -shift[d];
          s.rebuild_shift[d] = -s.images[d];
        }
      } else {
        for (std::size_t d = 0; d < 3; ++d)
          s.rebuild_shift[d] = s.shift[d] = -s.images[d] * box_.length(static_cast<int>(d));
      }
    }
}

void Domain::build_segments() {
  const int tiles = this->tiles();
  set_shifts();
  std::array<int, 3> reach{};
  for (std::size_t d = 0; d < 3; ++d) {
    const double sub = length_1d(d) / grid_[d];
    reach[d] = static_cast<int>(std::ceil(reach_[d] / sub));
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
            // The destination really sits `images` box periods away from its unwrapped place,
            // so our atoms appear to it shifted by the opposite (set_shifts).
            s.images[static_cast<std::size_t>(d)] = images;
            if (images != 0 && !periodic_[static_cast<std::size_t>(d)]) s.active = false;
          }
          s.destination = wrapped[0] + grid_[0] * (wrapped[1] + grid_[1] * wrapped[2]);
          segments_[static_cast<std::size_t>(t)].push_back(s);
        }
  }
  set_shifts();
}

std::array<int, 3> Domain::coords(int tile) const {
  return {tile % grid_[0], (tile / grid_[0]) % grid_[1], tile / (grid_[0] * grid_[1])};
}

std::array<double, 3> Domain::sub_lo(int tile) const {
  const auto c = coords(tile);
  std::array<double, 3> lo{};
  for (int d = 0; d < 3; ++d) lo[static_cast<std::size_t>(d)] = sub_lo_1d(d, c[static_cast<std::size_t>(d)]);
  return lo;
}

std::array<double, 3> Domain::sub_hi(int tile) const {
  const auto c = coords(tile);
  std::array<double, 3> hi{};
  for (int d = 0; d < 3; ++d) {
    const auto i = static_cast<std::size_t>(d);
    hi[i] = c[i] + 1 == grid_[i] ? hi_1d(i) : sub_lo_1d(d, c[i] + 1);
  }
  return hi;
}

void Domain::ghost_bounds(int tile, std::array<double, 3>& lo, std::array<double, 3>& hi) const {
  const auto sub_lo = this->sub_lo(tile), sub_hi = this->sub_hi(tile);
  for (std::size_t d = 0; d < 3; ++d) lo[d] = sub_lo[d] - reach_[d], hi[d] = sub_hi[d] + reach_[d];
  if (box_.triclinic) BoxMatrix(box_).bounding_box(lo, hi, lo, hi);
}

int Domain::owner(const std::array<double, 3>& x) const {
  std::array<int, 3> c{};
  for (int d = 0; d < 3; ++d) {
    const auto i = static_cast<std::size_t>(d);
    int k = static_cast<int>(std::floor((x[i] - lo_1d(i)) / length_1d(i) * grid_[i]));
    k = k < 0 ? 0 : (k >= grid_[i] ? grid_[i] - 1 : k);
    // Agree with sub_lo/sub_hi at the edges, whatever the rounding of the division above.
    while (k > 0 && x[i] < sub_lo_1d(d, k)) --k;
    while (k + 1 < grid_[i] && x[i] >= sub_lo_1d(d, k + 1)) ++k;
    c[i] = k;
  }
  return c[0] + grid_[0] * (c[1] + grid_[1] * c[2]);
}

int Domain::owner_of_position(const std::array<double, 3>& x) const {
  if (!box_.triclinic) return owner(x);
  std::array<double, 3> f{};
  BoxMatrix(box_).to_fraction(x.data(), f.data());
  return owner(f);
}

bool Domain::wrap(double* x, int* image) const {
  if (!box_.triclinic) return wrap_rebuild(x, image);
  if (!std::isfinite(x[0]) || !std::isfinite(x[1]) || !std::isfinite(x[2])) return false;
  const BoxMatrix m(box_);
  double f[3];
  m.to_fraction(x, f);
  bool inside = true;
  for (std::size_t d = 0; d < 3; ++d) inside = inside && (!periodic_[d] || (f[d] >= 0.0 && f[d] < 1.0));
  if (inside) return true;
  if (!wrap_rebuild(f, image)) return false;
  m.to_cartesian(f, x);
  return true;
}

bool Domain::wrap_rebuild(double* x, int* image) const {
  for (int d = 0; d < 3; ++d) {
    const auto i = static_cast<std::size_t>(d);
    if (!periodic_[i]) {
      if (!std::isfinite(x[d])) return false;
      continue;
    }
    const double lo = lo_1d(i), hi = hi_1d(i), l = length_1d(i);
    if (x[d] >= lo && x[d] < hi) continue;
    const double crossings = std::floor((x[d] - lo) / l);
    // The image count must stay an int: an atom that crossed the box more than 2^31 times
    // (a blown-up system, a velocity of 1e308) is refused, not wrapped (a double beyond int's
    // range converted to int is undefined behaviour).
    const double after = static_cast<double>(image[d]) + crossings;
    if (!std::isfinite(x[d]) || !(after >= std::numeric_limits<int>::min() + 1.0) ||
        !(after <= std::numeric_limits<int>::max() - 1.0))
      return false;
    x[d] -= crossings * l;
    image[d] = static_cast<int>(after);
    if (x[d] >= hi) x[d] -= l, ++image[d];  // rounding at the upper edge
    if (x[d] < lo) x[d] = lo;
  }
  return true;
}

Boundary Boundary::from_words(const std::string* words, const std::string& what) {
  Boundary b;
  for (std::size_t d = 0; d < 3; ++d) {
    const std::string& w = words[d];
    const bool letters_ok =
        (w.size() == 1 || w.size() == 2) && w.find_first_not_of("pfsm") == std::string::npos;
    if (!letters_ok)
      throw ConfigError(what + " " + w +
                        ": use p, f, s or m, or two of f, s and m (lower and upper face)");
    b.face[d] = {w[0], w.size() == 2 ? w[1] : w[0]};
    if ((b.face[d][0] == 'p') != (b.face[d][1] == 'p'))
      throw ConfigError(what + " " + w + ": a periodic dimension is periodic at both faces");
  }
  return b;
}

std::array<double, 6> Box::cell() const {
  const double ly = length(1), lz = length(2);
  const double b_sq = ly * ly + xy * xy, c_sq = lz * lz + yz * yz + xz * xz;
  const auto degrees = [&](double cosine) { return triclinic ? std::acos(cosine) * 180.0 / M_PI : 90.0; };
  return {length(0), std::sqrt(b_sq), std::sqrt(c_sq),
          degrees((xy * xz + ly * yz) / std::sqrt(b_sq * c_sq)), degrees(xz / std::sqrt(c_sq)),
          degrees(xy / std::sqrt(b_sq))};
}

BoxMatrix::BoxMatrix(const Box& box) : lo(box.lo) {
  for (std::size_t d = 0; d < 3; ++d) {
    h[d] = box.length(static_cast<int>(d));
    h_inv[d] = 1.0 / h[d];
  }
  if (box.triclinic) {
    h[3] = box.yz, h[4] = box.xz, h[5] = box.xy;
    h_inv[3] = -h[3] / (h[1] * h[2]);
    h_inv[4] = (h[3] * h[5] - h[1] * h[4]) / (h[0] * h[1] * h[2]);
    h_inv[5] = -h[5] / (h[0] * h[1]);
  }
}

void BoxMatrix::bounding_box(const std::array<double, 3>& flo, const std::array<double, 3>& fhi,
                             std::array<double, 3>& lo_out, std::array<double, 3>& hi_out) const {
  std::array<double, 3> lo_new{}, hi_new{};
  for (int corner = 0; corner < 8; ++corner) {
    const double f[3] = {corner & 1 ? fhi[0] : flo[0], corner & 2 ? fhi[1] : flo[1],
                         corner & 4 ? fhi[2] : flo[2]};
    double x[3];
    to_cartesian(f, x);
    for (std::size_t d = 0; d < 3; ++d) {
      lo_new[d] = corner == 0 ? x[d] : std::min(lo_new[d], x[d]);
      hi_new[d] = corner == 0 ? x[d] : std::max(hi_new[d], x[d]);
    }
  }
  lo_out = lo_new, hi_out = hi_new;
}

FaceCoordinates face_coordinates(const Box& box, const std::array<double, 3>& x) {
  if (!box.triclinic) return {x, box.lo, box.hi};
  FaceCoordinates f{{}, {0, 0, 0}, {1, 1, 1}};
  BoxMatrix(box).to_fraction(x.data(), f.c.data());
  return f;
}

bool skew_too_large(const Box& box, const std::array<bool, 3>& periodic) {
  return box.triclinic && ((std::fabs(box.xy / box.length(0)) > 0.5 && periodic[0]) ||
                           (std::fabs(box.xz / box.length(0)) > 0.5 && periodic[0]) ||
                           (std::fabs(box.yz / box.length(1)) > 0.5 && periodic[1]));
}

void minimum_image(const Box& box, const std::array<bool, 3>& periodic, double* delta) {
  if (!box.triclinic) {
    for (int d = 0; d < 3; ++d)
      if (periodic[static_cast<std::size_t>(d)]) delta[d] = minimum_image(delta[d], box.length(d));
    return;
  }
  if (periodic[2] && std::fabs(delta[2]) > 0.5 * box.length(2)) {
    const double s = delta[2] < 0.0 ? 1.0 : -1.0;
    delta[2] += s * box.length(2), delta[1] += s * box.yz, delta[0] += s * box.xz;
  }
  if (periodic[1] && std::fabs(delta[1]) > 0.5 * box.length(1)) {
    const double s = delta[1] < 0.0 ? 1.0 : -1.0;
    delta[1] += s * box.length(1), delta[0] += s * box.xy;
  }
  if (periodic[0] && std::fabs(delta[0]) > 0.5 * box.length(0))
    delta[0] += delta[0] < 0.0 ? box.length(0) : -box.length(0);
}

}  // namespace tessera::md
