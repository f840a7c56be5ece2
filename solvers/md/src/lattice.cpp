// The lattice command (lattice.hpp), following LAMMPS's Lattice class (lattice.cpp of the
// version Debian ships) in its checks and its arithmetic.
#include "tessera/md/lattice.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "arguments.hpp"
#include "tessera/core/error.hpp"

namespace tessera::md {

namespace {

using Vector = Lattice::Vector;

Vector cross(const Vector& a, const Vector& b) {
  return {a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]};
}
double dot(const Vector& a, const Vector& b) { return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]; }

// The basis of each named style, and its primitive vectors' lengths (hex's and hcp's
// rectangular cells).
struct Named {
  const char* name;
  int dimension;
  std::vector<Vector> basis;
};
const std::vector<Named>& named_styles() {
  static const std::vector<Named> styles = {
      {"sc", 3, {{0.0, 0.0, 0.0}}},
      {"bcc", 3, {{0.0, 0.0, 0.0}, {0.5, 0.5, 0.5}}},
      {"fcc", 3, {{0.0, 0.0, 0.0}, {0.5, 0.5, 0.0}, {0.5, 0.0, 0.5}, {0.0, 0.5, 0.5}}},
      {"hcp", 3, {{0.0, 0.0, 0.0}, {0.5, 0.5, 0.0}, {0.5, 5.0 / 6.0, 0.5}, {0.0, 1.0 / 3.0, 0.5}}},
      {"diamond",
       3,
       {{0.0, 0.0, 0.0},
        {0.0, 0.5, 0.5},
        {0.5, 0.0, 0.5},
        {0.5, 0.5, 0.0},
        {0.25, 0.25, 0.25},
        {0.25, 0.75, 0.75},
        {0.75, 0.25, 0.75},
        {0.75, 0.75, 0.25}}},
      {"sq", 2, {{0.0, 0.0, 0.0}}},
      {"sq2", 2, {{0.0, 0.0, 0.0}, {0.5, 0.5, 0.0}}},
      {"hex", 2, {{0.0, 0.0, 0.0}, {0.5, 0.5, 0.0}}},
  };
  return styles;
}

constexpr const char* usage =
    "lattice sc|bcc|fcc|hcp|diamond|sq|sq2|hex|custom SCALE [origin X Y Z] [orient x|y|z I J K] "
    "[spacing DX DY DZ] [a1|a2|a3 X Y Z] [basis X Y Z], or lattice none SPACING";

}  // namespace

Lattice Lattice::make(const std::vector<std::string>& a, const Units& units, int dimension) {
  arguments::need(a, 2, usage);
  Lattice l;
  l.style = a[0];
  const auto number = [&](std::size_t k) { return arguments::number("lattice", a[k]); };
  if (l.style == "none") {
    if (a.size() != 2) arguments::bad("lattice none takes only a spacing: " + std::string(usage));
    const double spacing = number(1);
    if (!(spacing > 0)) arguments::bad("lattice none: the spacing must be positive");
    l.spacings = {spacing, spacing, spacing};
    return l;
  }
  const auto named = std::find_if(named_styles().begin(), named_styles().end(),
                                  [&](const Named& n) { return l.style == n.name; });
  const bool custom = l.style == "custom";
  if (named == named_styles().end() && !custom)
    arguments::bad("lattice " + l.style + ": unknown style; " + usage);
  if (!custom && named->dimension != dimension)
    arguments::bad(
        "lattice " + l.style + " is a " + std::to_string(named->dimension) +
        "-d lattice and the simulation is " + std::to_string(dimension) + "-d; use " +
        (dimension == 2 ? "sq, sq2, hex or custom" : "sc, bcc, fcc, hcp, diamond or custom"));
  l.scale = number(1);
  if (!(l.scale > 0)) arguments::bad("lattice " + l.style + ": the scale must be positive");
  if (!custom) l.basis = named->basis;

  std::array<std::array<int, 3>, 3> orient{{{1, 0, 0}, {0, 1, 0}, {0, 0, 1}}};
  std::array<Vector, 3> edge{{{1.0, 0.0, 0.0}, {0.0, 1.0, 0.0}, {0.0, 0.0, 1.0}}};
  if (l.style == "hex") edge[1][1] = std::sqrt(3.0);
  if (l.style == "hcp") edge[1][1] = std::sqrt(3.0), edge[2][2] = std::sqrt(8.0 / 3.0);
  bool spacing_given = false;
  for (std::size_t k = 2; k < a.size();) {
    const std::string& key = a[k];
    const std::size_t values = key == "orient" ? 4 : 3;
    if (k + values >= a.size())
      arguments::bad("lattice: keyword " + key + " needs " + std::to_string(values) + " values; " +
                     usage);
    if (key == "origin") {
      for (std::size_t d = 0; d < 3; ++d) {
        l.origin[d] = number(k + 1 + d);
        if (!(l.origin[d] >= 0.0 && l.origin[d] < 1.0))
          arguments::bad("lattice origin: each value must be in [0, 1), not " + a[k + 1 + d]);
      }
    } else if (key == "orient") {
      const std::string& axis = a[k + 1];
      if (axis != "x" && axis != "y" && axis != "z")
        arguments::bad("lattice orient: the axis must be x, y or z, not '" + axis + "'");
      auto& o = orient[static_cast<std::size_t>(axis[0] - 'x')];
      for (std::size_t d = 0; d < 3; ++d)
        o[d] =
            static_cast<int>(arguments::integer("lattice orient", a[k + 2 + d], -1000000, 1000000));
    } else if (key == "spacing") {
      spacing_given = true;
      for (std::size_t d = 0; d < 3; ++d) l.spacings[d] = number(k + 1 + d);
    } else if (key == "a1" || key == "a2" || key == "a3" || key == "basis") {
      if (!custom)
        arguments::bad("lattice " + l.style + ": " + key +
                       " is for lattice custom only (LAMMPS: Invalid option in lattice command "
                       "for non-custom style)");
      const Vector v{number(k + 1), number(k + 2), number(k + 3)};
      if (key == "basis") {
        for (std::size_t d = 0; d < 3; ++d)
          if (!(v[d] >= 0.0 && v[d] < 1.0))
            arguments::bad("lattice basis: each coordinate must be in [0, 1), not " + a[k + 1 + d]);
        l.basis.push_back(v);
      } else {
        edge[static_cast<std::size_t>(key[1] - '1')] = v;
      }
    } else {
      arguments::bad("lattice: unknown keyword '" + key + "'; " + usage);
    }
    k += 1 + values;
  }
  if (l.basis.empty()) arguments::bad("lattice custom: no basis atoms (give basis X Y Z)");
  // LAMMPS's checks of the orientation and the primitive vectors.
  const auto odot = [&](std::size_t p, std::size_t q) {
    return orient[p][0] * orient[q][0] + orient[p][1] * orient[q][1] + orient[p][2] * orient[q][2];
  };
  if (odot(0, 1) != 0 || odot(1, 2) != 0 || odot(0, 2) != 0)
    arguments::bad("lattice: the orient vectors are not orthogonal");
  const auto& ox = orient[0];
  const auto& oy = orient[1];
  const auto& oz = orient[2];
  const long long xy0 = 1LL * ox[1] * oy[2] - 1LL * ox[2] * oy[1];
  const long long xy1 = 1LL * ox[2] * oy[0] - 1LL * ox[0] * oy[2];
  const long long xy2 = 1LL * ox[0] * oy[1] - 1LL * ox[1] * oy[0];
  if (xy0 * oz[0] + xy1 * oz[1] + xy2 * oz[2] <= 0)
    arguments::bad("lattice: the orient vectors are not right-handed (or one is zero)");
  for (const auto& [p, q] : {std::pair{0, 1}, std::pair{1, 2}, std::pair{0, 2}}) {
    const Vector c = cross(edge[static_cast<std::size_t>(p)], edge[static_cast<std::size_t>(q)]);
    if (dot(c, c) == 0.0) arguments::bad("lattice: the primitive vectors a1 a2 a3 are collinear");
  }
  if (dimension == 2 &&
      (l.origin[2] != 0.0 || ox[2] != 0 || oy[2] != 0 || oz[0] != 0 || oz[1] != 0 ||
       edge[0][2] != 0.0 || edge[1][2] != 0.0 || edge[2][0] != 0.0 || edge[2][1] != 0.0))
    arguments::bad(
        "lattice: a 2-d simulation needs the lattice in the xy plane (origin z 0, "
        "orient and a1 a2 without z, a3 along z)");
  if (spacing_given && !(l.spacings[0] > 0 && l.spacings[1] > 0 && l.spacings[2] > 0))
    arguments::bad("lattice spacing: the spacings must be positive");
  if (units.style == "lj") {
    const double volume = dot(edge[0], cross(edge[1], edge[2]));
    l.scale = std::pow(static_cast<double>(l.basis.size()) / volume / l.scale, 1.0 / dimension);
  }

  // LAMMPS's setup_transform.
  for (std::size_t r = 0; r < 3; ++r)
    for (std::size_t c = 0; c < 3; ++c) l.primitive[r][c] = edge[c][r];
  const auto& p = l.primitive;
  const double determinant = p[0][0] * p[1][1] * p[2][2] + p[0][1] * p[1][2] * p[2][0] +
                             p[0][2] * p[1][0] * p[2][1] - p[0][0] * p[1][2] * p[2][1] -
                             p[0][1] * p[1][0] * p[2][2] - p[0][2] * p[1][1] * p[2][0];
  if (determinant == 0.0) arguments::bad("lattice: the primitive vectors are degenerate");
  auto& q = l.priminv;
  q[0][0] = (p[1][1] * p[2][2] - p[1][2] * p[2][1]) / determinant;
  q[1][0] = (p[1][2] * p[2][0] - p[1][0] * p[2][2]) / determinant;
  q[2][0] = (p[1][0] * p[2][1] - p[1][1] * p[2][0]) / determinant;
  q[0][1] = (p[0][2] * p[2][1] - p[0][1] * p[2][2]) / determinant;
  q[1][1] = (p[0][0] * p[2][2] - p[0][2] * p[2][0]) / determinant;
  q[2][1] = (p[0][1] * p[2][0] - p[0][0] * p[2][1]) / determinant;
  q[0][2] = (p[0][1] * p[1][2] - p[0][2] * p[1][1]) / determinant;
  q[1][2] = (p[0][2] * p[1][0] - p[0][0] * p[1][2]) / determinant;
  q[2][2] = (p[0][0] * p[1][1] - p[0][1] * p[1][0]) / determinant;
  for (std::size_t r = 0; r < 3; ++r) {
    const int lensq =
        orient[r][0] * orient[r][0] + orient[r][1] * orient[r][1] + orient[r][2] * orient[r][2];
    const double length = std::sqrt(static_cast<double>(lensq));
    for (std::size_t c = 0; c < 3; ++c) l.rotaterow[r][c] = orient[r][c] / length;
  }

  if (spacing_given) {
    for (double& s : l.spacings) s *= l.scale;
  } else {
    // The unit cell's extent in the box (the origin offset is still zero here, as in LAMMPS).
    l.spacings = {0, 0, 0};
    Vector lo{}, hi{};
    lo.fill(std::numeric_limits<double>::max());
    hi.fill(-std::numeric_limits<double>::max());
    for (int corner = 0; corner < 8; ++corner) {
      const Vector b =
          l.to_box({static_cast<double>(corner & 1), static_cast<double>((corner >> 1) & 1),
                    static_cast<double>((corner >> 2) & 1)});
      for (std::size_t d = 0; d < 3; ++d)
        lo[d] = std::min(lo[d], b[d]), hi[d] = std::max(hi[d], b[d]);
    }
    for (std::size_t d = 0; d < 3; ++d) l.spacings[d] = hi[d] - lo[d];
  }
  return l;
}

Vector Lattice::to_box(const Vector& v) const {
  const auto& p = primitive;
  double x1 = p[0][0] * v[0] + p[0][1] * v[1] + p[0][2] * v[2];
  double y1 = p[1][0] * v[0] + p[1][1] * v[1] + p[1][2] * v[2];
  double z1 = p[2][0] * v[0] + p[2][1] * v[1] + p[2][2] * v[2];
  x1 *= scale, y1 *= scale, z1 *= scale;
  const auto& r = rotaterow;
  const double xnew = r[0][0] * x1 + r[0][1] * y1 + r[0][2] * z1;
  const double ynew = r[1][0] * x1 + r[1][1] * y1 + r[1][2] * z1;
  const double znew = r[2][0] * x1 + r[2][1] * y1 + r[2][2] * z1;
  return {xnew + spacings[0] * origin[0], ynew + spacings[1] * origin[1],
          znew + spacings[2] * origin[2]};
}

Vector Lattice::to_lattice(const Vector& box) const {
  const double x = box[0] - spacings[0] * origin[0];
  const double y = box[1] - spacings[1] * origin[1];
  const double z = box[2] - spacings[2] * origin[2];
  const auto& r = rotaterow;  // its transpose: the orient vectors as columns
  double x1 = r[0][0] * x + r[1][0] * y + r[2][0] * z;
  double y1 = r[0][1] * x + r[1][1] * y + r[2][1] * z;
  double z1 = r[0][2] * x + r[1][2] * y + r[2][2] * z;
  x1 /= scale, y1 /= scale, z1 /= scale;
  const auto& q = priminv;
  return {q[0][0] * x1 + q[0][1] * y1 + q[0][2] * z1, q[1][0] * x1 + q[1][1] * y1 + q[1][2] * z1,
          q[2][0] * x1 + q[2][1] * y1 + q[2][2] * z1};
}

namespace {

// The range of cells LAMMPS's create_atoms loops over for a box [lo, hi]: the bounding box of
// its 8 corners in lattice coordinates, widened by a cell (two below zero).
std::array<std::array<int, 2>, 3> cell_range(const Lattice& l, const Vector& lo, const Vector& hi) {
  Vector mn{}, mx{};
  mn.fill(std::numeric_limits<double>::max());
  mx.fill(-std::numeric_limits<double>::max());
  for (int corner = 0; corner < 8; ++corner) {
    const Vector c = l.to_lattice(
        {corner & 1 ? hi[0] : lo[0], corner & 2 ? hi[1] : lo[1], corner & 4 ? hi[2] : lo[2]});
    for (std::size_t d = 0; d < 3; ++d)
      mn[d] = std::min(mn[d], c[d]), mx[d] = std::max(mx[d], c[d]);
  }
  std::array<std::array<int, 2>, 3> range{};
  for (std::size_t d = 0; d < 3; ++d) {
    // Cell indices are ints: a region beyond 2^30 cells from the origin would overflow them
    // (undefined behaviour in the conversion).
    if (!(std::fabs(mn[d]) < 1073741824.0) || !(std::fabs(mx[d]) < 1073741824.0))
      throw ConfigError(
          "create_atoms: the region reaches more than 2^30 lattice cells from the origin; "
          "move the box nearer the origin or use a coarser lattice");
    range[d] = {static_cast<int>(mn[d]) - 1 - (mn[d] < 0.0 ? 1 : 0), static_cast<int>(mx[d]) + 1};
  }
  return range;
}

}  // namespace

double Lattice::count_bound(const Vector& lo, const Vector& hi) const {
  const auto range = cell_range(*this, lo, hi);
  double cells = 1;
  for (const auto& r : range) cells *= r[1] - r[0] + 1.0;
  return cells * static_cast<double>(basis.size());
}

std::vector<Vector> Lattice::points(const Vector& lo, const Vector& hi,
                                    const std::function<bool(const Vector&)>& accept,
                                    std::vector<int>* basis_index) const {
  const auto range = cell_range(*this, lo, hi);
  std::vector<Vector> out;
  for (int k = range[2][0]; k <= range[2][1]; ++k)
    for (int j = range[1][0]; j <= range[1][1]; ++j)
      for (int i = range[0][0]; i <= range[0][1]; ++i)
        for (std::size_t m = 0; m < basis.size(); ++m) {
          const Vector p = to_box({i + basis[m][0], j + basis[m][1], k + basis[m][2]});
          if (!accept(p)) continue;
          out.push_back(p);
          if (basis_index) basis_index->push_back(static_cast<int>(m));
        }
  return out;
}

}  // namespace tessera::md
