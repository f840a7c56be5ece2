#include "displace_atoms.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "arguments.hpp"
#include "tessera/md/random_park.hpp"

namespace tessera::md {
void displace_atoms(Simulation& sim, const std::vector<std::string>& a, const DisplaceInputs& in) {
  const std::string what = "displace_atoms";
  const char* usage =
      "displace_atoms GROUP move DX DY DZ | ramp DDIM DLO DHI DIM CLO CHI | random DX DY DZ SEED "
      "| rotate PX PY PZ RX RY RZ THETA [units lattice|box]";
  arguments::need(a, 2, usage);
  if (!sim.has_box()) arguments::bad("the simulation box is not defined; use create_box first");
  const int bit = sim.group_bit(a[0]);
  if (bit < 0) arguments::bad(what + ": there is no group " + a[0]);
  const std::uint32_t mask = 1u << bit;
  const std::string& style = a[1];
  const std::size_t count = style == "move"     ? 5
                            : style == "ramp"   ? 8
                            : style == "random" ? 6
                            : style == "rotate" ? 9
                                                : 0;
  if (count == 0)
    arguments::bad(what + ": unknown style '" + style + "'; use move, ramp, random or rotate");
  arguments::need(a, count, usage);
  bool lattice_units = true;
  for (std::size_t k = count; k < a.size(); k += 2) {
    if (a[k] != "units" || k + 1 >= a.size() || (a[k + 1] != "box" && a[k + 1] != "lattice"))
      arguments::bad(what +
                     ": after the style's arguments only units box|lattice; usage: " + usage);
    lattice_units = a[k + 1] == "lattice";
  }
  std::array<double, 3> scale{1.0, 1.0, 1.0};
  if (lattice_units) scale = in.lattice;
  const auto select = [mask](const Simulation::GroupAtom& g) { return (g.mask & mask) != 0; };
  const auto num = [&](const std::string& word) { return arguments::number(what, word); };

  if (style == "move") {
    for (std::size_t d = 0; d < 3; ++d) {
      const std::string& word = a[2 + d];
      if (word.rfind("v_", 0) != 0) {
        const double delta = scale[d] * num(word);
        sim.change_atoms(select, [=](Simulation::AtomChange& c) {
          c.x[d] += delta;
          return true;
        });
        continue;
      }
      const auto value = in.variable(word.substr(2));
      if (const double* delta = std::get_if<double>(&value)) {
        const double step = scale[d] * *delta;
        sim.change_atoms(select, [=](Simulation::AtomChange& c) {
          c.x[d] += step;
          return true;
        });
      } else {
        const double s = scale[d];
        sim.change_atoms(select,
                         [=](Simulation::AtomChange& c) {
                           c.x[d] += s * c.values[0];
                           return true;
                         },
                         {std::get<AtomValues>(value)});
      }
    }
  } else if (style == "ramp") {
    const std::size_t moved = arguments::axis(what + " ramp: DDIM", a[2]),
                      along = arguments::axis(what + " ramp: DIM", a[5]);
    const double lo = scale[moved] * num(a[3]), hi = scale[moved] * num(a[4]);
    const double c_lo = scale[along] * num(a[6]), c_hi = scale[along] * num(a[7]);
    if (c_lo == c_hi) arguments::bad(what + " ramp: CLO and CHI must differ");
    sim.change_atoms(select, [=](Simulation::AtomChange& c) {
      const double f = std::clamp((c.x[along] - c_lo) / (c_hi - c_lo), 0.0, 1.0);
      c.x[moved] += lo + f * (hi - lo);
      return true;
    });
  } else if (style == "random") {
    const std::array<double, 3> delta{scale[0] * num(a[2]), scale[1] * num(a[3]),
                                      scale[2] * num(a[4])};
    const auto seed = static_cast<int>(arguments::seed_value(
        what + " random", a[5], "displace_atoms random: the seed must be a positive integer"));
    sim.change_atoms(select, [=](Simulation::AtomChange& c) {
      RandomPark random(1);
      random.reseed(seed, {c.x[0], c.x[1], c.x[2]});
      for (std::size_t d = 0; d < 3; ++d) c.x[d] += delta[d] * 2.0 * (random.uniform() - 0.5);
      return true;
    });
  } else {
    const std::array<double, 3> point{scale[0] * num(a[2]), scale[1] * num(a[3]),
                                      scale[2] * num(a[4])};
    std::array<double, 3> r{num(a[5]), num(a[6]), num(a[7])};
    const double theta = num(a[8]) * M_PI / 180.0;
    const bool flat = sim.dimension() == 2;
    if (flat && (r[0] != 0.0 || r[1] != 0.0))
      arguments::bad(what + " rotate: a 2-d system rotates about the z axis (RX = RY = 0)");
    const double length = std::sqrt(r[0] * r[0] + r[1] * r[1] + r[2] * r[2]);
    if (length == 0.0) arguments::bad(what + " rotate: the axis has zero length");
    for (double& e : r) e /= length;
    const double cosine = std::cos(theta), sine = std::sin(theta);
    const Box box = sim.box();
    sim.change_atoms(select, [=](Simulation::AtomChange& c) {
      // About the atom's unwrapped position, its images then counted anew (LAMMPS's).
      std::array<double, 3> d{};
      for (std::size_t k = 0; k < 3; ++k)
        d[k] = box.unwrapped(c.x.data(), c.image.data(), k) - point[k];
      const double along = d[0] * r[0] + d[1] * r[1] + d[2] * r[2];
      std::array<double, 3> p{}, b{};
      for (std::size_t k = 0; k < 3; ++k) p[k] = d[k] - along * r[k];
      b[0] = r[1] * p[2] - r[2] * p[1];
      b[1] = r[2] * p[0] - r[0] * p[2];
      b[2] = r[0] * p[1] - r[1] * p[0];
      for (std::size_t k = 0; k < (flat ? 2u : 3u); ++k) {
        c.x[k] = point[k] + along * r[k] + p[k] * cosine + b[k] * sine;
        c.image[k] = 0;
      }
      return true;
    });
  }

  // Back into the periodic box with the images counted, as a rebuild wraps (LAMMPS's remap),
  // and no atom past a fixed face.
  const Box box = sim.box();
  const Boundary boundary = sim.boundary();
  const std::int64_t stranded =
      sim.change_atoms([](const Simulation::GroupAtom&) { return true; },
                       [&](Simulation::AtomChange& c) { return !sim.wrap_position(c.x, c.image); });
  if (stranded > 0)
    arguments::bad(what +
                   ": an atom moved too far to count its periodic images (or to a "
                   "non-finite position)");
  constexpr double none = std::numeric_limits<double>::infinity();
  const double lost = sim.reduce_atoms(
      "md.displace_atoms_lost", ReduceOp::min, 1, [&](const AtomsView& v, std::span<double> out) {
        out[0] = none;
        for (std::size_t i = 0; i < v.id.size(); ++i)
          for (std::size_t d = 0; d < 3; ++d) {
            const double x = v.x[3 * i + d];
            if ((x < box.lo[d] && !boundary.periodic(d) && !boundary.shrinks(d, 0)) ||
                (x >= box.hi[d] && !boundary.periodic(d) && !boundary.shrinks(d, 1)))
              out[0] = std::min(out[0], static_cast<double>(v.id[i]));
          }
      })[0];
  if (lost != none)
    arguments::bad(what + ": atom " + std::to_string(static_cast<std::int64_t>(lost)) +
                   " moved beyond a fixed face of the box (LAMMPS would lose it)");
}

}  // namespace tessera::md
