#include "tessera/md/fix_indent.hpp"

#include <cmath>

#include "arguments.hpp"
#include "tessera/md/simulation.hpp"

namespace tessera::md {
using namespace arguments;

FixIndent::FixIndent(const FixArguments& a) : Fix(a.id, a.group), variable_(a.variable) {
  if (a.from_restart) return;
  const std::string what = "fix " + a.id + " indent";
  const char* usage =
      "fix ID GROUP indent K sphere X Y Z R | cylinder x|y|z C1 C2 R | plane x|y|z POS lo|hi "
      "[side in|out] [units lattice|box]";
  need(a.args, 2, usage);
  k_ = number(what, a.args[0]);
  const std::string& shape = a.args[1];
  std::size_t n = 0;
  if (shape == "sphere")
    shape_ = Shape::sphere, n = 4;
  else if (shape == "cylinder")
    shape_ = Shape::cylinder, n = 4;
  else if (shape == "plane")
    shape_ = Shape::plane, n = 3;
  else
    bad(what + ": unknown indenter '" + shape + "' (md_ipu has sphere, cylinder and plane)");
  if (a.args.size() < 2 + n)
    bad(what + ": " + shape + " needs " + std::to_string(n) + " values; usage: " + usage);
  auto geometry = [&](const std::string& word) {
    Value v;
    if (word.rfind("v_", 0) == 0) {
      v.variable = word.substr(2);
      if (!variable_) bad(what + ": no variables here for " + word);
    } else {
      v.number = number(what, word);
    }
    return v;
  };
  auto axis = [&](const std::string& word) {
    if (word != "x" && word != "y" && word != "z")
      bad(what + ": the " + shape + "'s axis is x, y or z, not '" + word + "'");
    return word[0] - 'x';
  };
  const std::size_t first = 2;
  if (shape_ == Shape::sphere) {
    for (std::size_t k = 0; k < 4; ++k) geometry_[k] = geometry(a.args[first + k]);
  } else if (shape_ == Shape::cylinder) {
    axis_ = axis(a.args[first]);
    for (std::size_t k = 0; k < 3; ++k) geometry_[k] = geometry(a.args[first + 1 + k]);
  } else {
    axis_ = axis(a.args[first]);
    geometry_[0] = geometry(a.args[first + 1]);
    const std::string& side = a.args[first + 2];
    if (side != "lo" && side != "hi")
      bad(what + ": the plane's side is lo or hi, not '" + side + "'");
    plane_side_ = side == "lo" ? -1.0 : 1.0;
  }
  bool lattice = true;
  for (std::size_t at = first + n; at < a.args.size(); at += 2) {
    const std::string& key = a.args[at];
    if (at + 1 >= a.args.size()) bad(what + ": " + key + " needs a value");
    const std::string& value = a.args[at + 1];
    if (key == "side") {
      if (value != "in" && value != "out") bad(what + ": side is in or out, not '" + value + "'");
      outside_ = value == "out";
    } else if (key == "units") {
      if (value != "lattice" && value != "box")
        bad(what + ": units is lattice or box, not '" + value + "'");
      lattice = value == "lattice";
    } else {
      bad(what + ": unknown keyword '" + key + "'; usage: " + usage);
    }
  }
  // Numbers are in lattice spacings under units lattice (the radius in x's), as LAMMPS's.
  const std::array<double, 3> scale = lattice ? a.lattice : std::array<double, 3>{1, 1, 1};
  auto scaled = [](Value& v, double s) {
    if (v.variable.empty()) v.number *= s;
  };
  if (shape_ == Shape::sphere) {
    for (std::size_t d = 0; d < 3; ++d) scaled(geometry_[d], scale[d]);
    scaled(geometry_[3], scale[0]);
  } else if (shape_ == Shape::cylinder) {
    std::size_t k = 0;
    for (std::size_t d = 0; d < 3; ++d)
      if (static_cast<int>(d) != axis_) scaled(geometry_[k++], scale[d]);
    scaled(geometry_[2], scale[0]);
  } else {
    scaled(geometry_[0], scale[static_cast<std::size_t>(axis_)]);
  }
}

double FixIndent::value(const Value& v) const {
  if (v.variable.empty()) return v.number;
  if (!variable_)
    throw ConfigError("fix " + id() + " indent: its variable " + v.variable +
                      " is gone (a fix read from a restart file takes numbers only)");
  return variable_(v.variable);
}

void FixIndent::pre_force(Simulation& sim) {
  box_ = sim.box();
  const Box& box = box_;
  for (std::size_t d = 0; d < 3; ++d) periodic_[d] = sim.boundary().periodic(d);
  if (shape_ == Shape::sphere) {
    for (std::size_t d = 0; d < 3; ++d) centre_[d] = value(geometry_[d]);
    radius_ = value(geometry_[3]);
  } else if (shape_ == Shape::cylinder) {
    std::size_t k = 0;
    for (std::size_t d = 0; d < 3; ++d)
      centre_[d] = static_cast<int>(d) == axis_ ? box.lo[d] : value(geometry_[k++]);
    radius_ = value(geometry_[2]);
  } else {
    centre_[static_cast<std::size_t>(axis_)] = value(geometry_[0]);
  }
  // The centre into the periodic box (LAMMPS's Domain::remap, through fractional coordinates
  // in a triclinic box).
  if (shape_ != Shape::plane) {
    auto [c, lo, hi] = face_coordinates(box, centre_);
    for (std::size_t d = 0; d < 3; ++d) {
      if (!periodic_[d]) continue;
      const double length = hi[d] - lo[d];
      while (c[d] < lo[d]) c[d] += length;
      while (c[d] >= hi[d]) c[d] -= length;
      c[d] = std::max(c[d], lo[d]);
    }
    if (box.triclinic) BoxMatrix(box).to_cartesian(c.data(), centre_.data()); else centre_ = c;
  }
  tally_.resize(sim.runtime(), 4);
}

void FixIndent::post_force(FixTile& t) {
  const std::span<double> sum = tally_.start_row(t.tile);
  const double k3 = k_ / 3.0;
  for (std::size_t i = 0; i < static_cast<std::size_t>(t.nlocal); ++i) {
    if (!in_group(t, i)) continue;
    const double* x = &t.x[3 * i];
    double* f = &t.f[3 * i];
    if (shape_ == Shape::plane) {
      const auto d = static_cast<std::size_t>(axis_);
      const double dr = plane_side_ * (centre_[d] - x[d]);
      if (dr >= 0.0) continue;
      const double fatom = -plane_side_ * k_ * dr * dr;
      f[d] += fatom;
      sum[0] -= k3 * dr * dr * dr;
      sum[d + 1] -= fatom;
      continue;
    }
    std::array<double, 3> del{};
    for (std::size_t d = 0; d < 3; ++d)
      del[d] = shape_ == Shape::cylinder && static_cast<int>(d) == axis_ ? 0.0 : x[d] - centre_[d];
    minimum_image(box_, periodic_, del.data());
    const double r = std::sqrt(del[0] * del[0] + del[1] * del[1] + del[2] * del[2]);
    double dr, fmag;
    if (outside_) {
      dr = r - radius_;
      fmag = k_ * dr * dr;
    } else {
      dr = radius_ - r;
      fmag = -k_ * dr * dr;
    }
    if (dr >= 0.0) continue;
    sum[0] -= k3 * dr * dr * dr;
    for (std::size_t d = 0; d < 3; ++d) {
      const double fd = del[d] * fmag / r;
      f[d] += fd;
      sum[d + 1] -= fd;
    }
  }
}

double FixIndent::tile_energy(const Tile& tile) const { return tally_.first(tile); }

std::vector<double> FixIndent::totals(Simulation& sim) {
  return tally_.totals(sim.runtime(), "md.fix_indent", 4);
}

double FixIndent::scalar(Simulation& sim) { return totals(sim)[0]; }

std::vector<double> FixIndent::vector(Simulation& sim) {
  const auto t = totals(sim);
  return {t[1], t[2], t[3]};
}

}  // namespace tessera::md
