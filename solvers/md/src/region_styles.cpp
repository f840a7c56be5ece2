// The region styles md_ipu has (region.hpp): block, sphere, cylinder, union and intersect.
#include <algorithm>
#include <cmath>

#include "arguments.hpp"
#include "tessera/md/region.hpp"

namespace tessera::md {

Box Region::extent() const {
  if (interior_) return bounds();
  Box all;
  for (std::size_t d = 0; d < 3; ++d) all.lo[d] = -unbounded, all.hi[d] = unbounded;
  return all;
}

namespace {

// A coordinate of the region command: INF, EDGE (a face of the box) or a number scaled by the
// lattice; `upper` picks the face and the sign of INF.
double bound(const RegionArguments& a, const std::string& word, std::size_t d, bool upper) {
  const std::string what = "region " + a.id;
  if (word == "INF" || word == "EDGE") {
    if (!a.box) arguments::bad(what + ": INF and EDGE need the simulation box; define it first");
    if (word == "INF") return upper ? unbounded : -unbounded;
    return upper ? a.box->hi[d] : a.box->lo[d];
  }
  return arguments::number(what, word) * a.scale[d];
}

void need_words(const RegionArguments& a, std::size_t n, const std::string& usage) {
  if (a.args.size() != n)
    arguments::bad("region " + a.id + ": wrong number of arguments; usage: region ID " + usage);
}

class Block final : public Region {
 public:
  explicit Block(const RegionArguments& a) {
    need_words(a, 6, "block xlo xhi ylo yhi zlo zhi [keyword value ...]");
    for (std::size_t d = 0; d < 3; ++d) {
      box_.lo[d] = bound(a, a.args[2 * d], d, false);
      box_.hi[d] = bound(a, a.args[2 * d + 1], d, true);
      if (!(box_.hi[d] >= box_.lo[d]))  // LAMMPS's RegBlock allows lo == hi
        arguments::bad("region " + a.id + ": a lo exceeds its hi");
    }
  }
  std::string style() const override { return "block"; }
  bool inside(const std::array<double, 3>& p) const override {
    for (std::size_t d = 0; d < 3; ++d)
      if (!(p[d] >= box_.lo[d] && p[d] <= box_.hi[d])) return false;
    return true;
  }
  Box bounds() const override { return box_; }
  std::optional<Box> as_box() const override { return box_; }

 private:
  Box box_;
};

class Sphere final : public Region {
 public:
  explicit Sphere(const RegionArguments& a) {
    need_words(a, 4, "sphere x y z radius [keyword value ...]");
    for (std::size_t d = 0; d < 3; ++d)
      c_[d] = arguments::number("region " + a.id, a.args[d]) * a.scale[d];
    r_ = arguments::number("region " + a.id, a.args[3]) * a.scale[0];
    if (r_ < 0) arguments::bad("region " + a.id + ": the radius must not be negative");
  }
  std::string style() const override { return "sphere"; }
  bool inside(const std::array<double, 3>& p) const override {
    const double dx = p[0] - c_[0], dy = p[1] - c_[1], dz = p[2] - c_[2];
    return std::sqrt(dx * dx + dy * dy + dz * dz) <= r_;
  }
  Box bounds() const override {
    Box b;
    for (std::size_t d = 0; d < 3; ++d) b.lo[d] = c_[d] - r_, b.hi[d] = c_[d] + r_;
    return b;
  }

 private:
  std::array<double, 3> c_{};
  double r_ = 0;
};

class Cylinder final : public Region {
 public:
  explicit Cylinder(const RegionArguments& a) {
    need_words(a, 6, "cylinder x|y|z c1 c2 radius lo hi [keyword value ...]");
    const std::string& dim = a.args[0];
    if (dim != "x" && dim != "y" && dim != "z")
      arguments::bad("region " + a.id + ": the cylinder's axis must be x, y or z");
    axis_ = static_cast<std::size_t>(dim[0] - 'x');
    // The other two dimensions, in order; LAMMPS scales the radius by the first's spacing.
    first_ = axis_ == 0 ? 1 : 0;
    second_ = axis_ == 2 ? 1 : 2;
    c1_ = arguments::number("region " + a.id, a.args[1]) * a.scale[first_];
    c2_ = arguments::number("region " + a.id, a.args[2]) * a.scale[second_];
    r_ = arguments::number("region " + a.id, a.args[3]) * a.scale[first_];
    if (r_ < 0) arguments::bad("region " + a.id + ": the radius must not be negative");
    lo_ = bound(a, a.args[4], axis_, false);
    hi_ = bound(a, a.args[5], axis_, true);
    if (!(hi_ > lo_)) arguments::bad("region " + a.id + ": the cylinder's hi must exceed its lo");
  }
  std::string style() const override { return "cylinder"; }
  bool inside(const std::array<double, 3>& p) const override {
    const double d1 = p[first_] - c1_, d2 = p[second_] - c2_;
    return std::sqrt(d1 * d1 + d2 * d2) <= r_ && p[axis_] >= lo_ && p[axis_] <= hi_;
  }
  Box bounds() const override {
    Box b;
    b.lo[first_] = c1_ - r_, b.hi[first_] = c1_ + r_;
    b.lo[second_] = c2_ - r_, b.hi[second_] = c2_ + r_;
    b.lo[axis_] = lo_, b.hi[axis_] = hi_;
    return b;
  }

 private:
  std::size_t axis_ = 2, first_ = 0, second_ = 1;
  double c1_ = 0, c2_ = 0, r_ = 0, lo_ = 0, hi_ = 0;
};

// prism xlo xhi ylo yhi zlo zhi xy xz yz: LAMMPS's RegPrism, the parallelepiped with edge
// vectors (xhi-xlo, 0, 0), (xy, yhi-ylo, 0) and (xz, yz, zhi-zlo) from (xlo, ylo, zlo). A point is
// inside when its fractional coordinates along them are within 0..1, by LAMMPS's inverse of that
// matrix (the tilts scaled by the x, x and y lattice spacings).
class Prism final : public Region {
 public:
  explicit Prism(const RegionArguments& a) {
    need_words(a, 9, "prism xlo xhi ylo yhi zlo zhi xy xz yz [keyword value ...]");
    const std::string what = "region " + a.id + " prism";
    for (std::size_t d = 0; d < 3; ++d) {
      lo_[d] = bound(a, a.args[2 * d], d, false);
      hi_[d] = bound(a, a.args[2 * d + 1], d, true);
      if (!(hi_[d] > lo_[d]))
        arguments::bad(what + ": its " + "xyz"[d] + "lo must be below its " + "xyz"[d] + "hi");
    }
    xy_ = arguments::number(what, a.args[6]) * a.scale[0];
    xz_ = arguments::number(what, a.args[7]) * a.scale[0];
    yz_ = arguments::number(what, a.args[8]) * a.scale[1];
    // As LAMMPS: a tilt needs the dimension it tilts along to be bounded.
    const auto infinite = [&](std::size_t d) { return lo_[d] == -unbounded || hi_[d] == unbounded; };
    if ((xy_ != 0 && infinite(1)) || (xz_ != 0 && infinite(2)) || (yz_ != 0 && infinite(2)))
      arguments::bad(what + ": a tilt along an INF dimension is not allowed (LAMMPS's \"Illegal "
                     "region prism\")");
    const double hx = hi_[0] - lo_[0], hy = hi_[1] - lo_[1], hz = hi_[2] - lo_[2];
    inv_xx_ = 1.0 / hx;
    inv_xy_ = -xy_ / (hx * hy);
    inv_xz_ = (xy_ * yz_ - xz_ * hy) / (hx * hy * hz);
    inv_yy_ = 1.0 / hy;
    inv_yz_ = -yz_ / (hy * hz);
    inv_zz_ = 1.0 / hz;
  }
  std::string style() const override { return "prism"; }
  bool inside(const std::array<double, 3>& p) const override {
    const double dx = p[0] - lo_[0], dy = p[1] - lo_[1], dz = p[2] - lo_[2];
    const double a = inv_xx_ * dx + inv_xy_ * dy + inv_xz_ * dz;
    const double b = inv_yy_ * dy + inv_yz_ * dz;
    const double c = inv_zz_ * dz;
    return a >= 0.0 && a <= 1.0 && b >= 0.0 && b <= 1.0 && c >= 0.0 && c <= 1.0;
  }
  Box bounds() const override {
    Box b;
    b.lo[0] = std::min(lo_[0], lo_[0] + xy_);
    b.lo[0] = std::min(b.lo[0], b.lo[0] + xz_);
    b.hi[0] = std::max(hi_[0], hi_[0] + xy_);
    b.hi[0] = std::max(b.hi[0], b.hi[0] + xz_);
    b.lo[1] = std::min(lo_[1], lo_[1] + yz_);
    b.hi[1] = std::max(hi_[1], hi_[1] + yz_);
    b.lo[2] = lo_[2], b.hi[2] = hi_[2];
    return b;
  }
  std::optional<Box> as_box() const override {
    Box b;
    b.lo = lo_, b.hi = hi_, b.xy = xy_, b.xz = xz_, b.yz = yz_, b.triclinic = true;
    return b;
  }

 private:
  std::array<double, 3> lo_{}, hi_{};
  double xy_ = 0, xz_ = 0, yz_ = 0;
  double inv_xx_ = 0, inv_xy_ = 0, inv_xz_ = 0, inv_yy_ = 0, inv_yz_ = 0, inv_zz_ = 0;
};

// union and intersect: of the regions named, each as it matches (its own side applied).
class Combined final : public Region {
 public:
  Combined(const RegionArguments& a, bool all) : all_(all) {
    const std::string what = "region " + a.id + (all ? " intersect" : " union");
    if (a.args.empty())
      arguments::bad(what + ": usage: region ID " + (all ? "intersect" : "union") +
                     " N ID1 ID2 ...");
    const long long n = arguments::integer(what, a.args[0], 2, 1000);
    if (a.args.size() != static_cast<std::size_t>(n) + 1)
      arguments::bad(what + ": " + a.args[0] + " regions named, " +
                     std::to_string(a.args.size() - 1) + " given");
    if (!a.regions) arguments::bad(what + ": there are no regions to combine");
    for (std::size_t k = 1; k < a.args.size(); ++k) {
      const auto it = a.regions->find(a.args[k]);
      if (it == a.regions->end()) arguments::bad(what + ": there is no region " + a.args[k]);
      parts_.push_back(it->second);
    }
  }
  std::string style() const override { return all_ ? "intersect" : "union"; }
  bool inside(const std::array<double, 3>& p) const override {
    for (const auto& r : parts_)
      if (r->matches(p) != all_) return !all_;
    return all_;
  }
  Box bounds() const override {
    Box b = parts_[0]->extent();
    for (const auto& r : parts_) {
      const Box e = r->extent();
      for (std::size_t d = 0; d < 3; ++d) {
        b.lo[d] = all_ ? std::max(b.lo[d], e.lo[d]) : std::min(b.lo[d], e.lo[d]);
        b.hi[d] = all_ ? std::min(b.hi[d], e.hi[d]) : std::max(b.hi[d], e.hi[d]);
      }
    }
    return b;
  }

 private:
  bool all_;
  std::vector<std::shared_ptr<const Region>> parts_;
};

}  // namespace

const Registry<Region, const RegionArguments&>& region_styles() {
  static const Registry<Region, const RegionArguments&> styles = [] {
    Registry<Region, const RegionArguments&> r("region style");
    r.add<Block>("block");
    r.add<Cylinder>("cylinder");
    r.add<Prism>("prism");
    r.add("intersect", [](const RegionArguments& a) -> std::unique_ptr<Region> {
      return std::make_unique<Combined>(a, true);
    });
    r.add<Sphere>("sphere");
    r.add("union", [](const RegionArguments& a) -> std::unique_ptr<Region> {
      return std::make_unique<Combined>(a, false);
    });
    return r;
  }();
  return styles;
}

}  // namespace tessera::md
