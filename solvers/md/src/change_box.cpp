#include "change_box.hpp"

#include <cmath>
#include <cstdio>
#include <optional>

#include "arguments.hpp"

namespace tessera::md {

namespace {

std::string print_box(const Box& b) {
  char buf[300];
  std::snprintf(buf, sizeof buf, "  %s box = (%.8g %.8g %.8g) to (%.8g %.8g %.8g)",
                b.triclinic ? "triclinic" : "orthogonal", b.lo[0], b.lo[1], b.lo[2], b.hi[0],
                b.hi[1], b.hi[2]);
  std::string text = buf;
  if (b.triclinic) {
    std::snprintf(buf, sizeof buf, " with tilt (%.8g %.8g %.8g)", b.xy, b.xz, b.yz);
    text += buf;
  }
  return text + "\n";
}

// LAMMPS's ChangeBox::volume_preserve: the other dimension(s) scaled about their middles so that
// the volume (area in 2-d) is `old_volume` again.
void keep_volume(Box& b, int dimension, int dim1, int dim2, double old_volume) {
  double new_volume = b.hi[0] - b.lo[0];
  new_volume *= b.hi[1] - b.lo[1];
  if (dimension == 3) new_volume *= b.hi[2] - b.lo[2];
  const double scale = old_volume / new_volume;
  const auto stretch = [&](int d, double f) {
    const auto i = static_cast<std::size_t>(d);
    const double mid = 0.5 * (b.lo[i] + b.hi[i]);
    double delta = b.lo[i] - mid;
    b.lo[i] = mid + f * delta;
    delta = b.hi[i] - mid;
    b.hi[i] = mid + f * delta;
  };
  if (dim2 < 0) {
    stretch(dim1, scale);
  } else {
    stretch(dim1, std::sqrt(scale));
    stretch(dim2, std::sqrt(scale));
  }
}

}  // namespace

std::string change_box(Simulation& sim, const std::vector<std::string>& a,
                       const std::array<double, 3>& lattice, bool dumps_defined) {
  using arguments::bad;
  const std::string usage =
      "change_box GROUP x|y|z final LO HI|delta DLO DHI|scale F|volume ... xy|xz|yz final T|delta "
      "DT ... boundary X Y Z ortho triclinic set remap [units lattice|box]";
  if (!sim.has_box()) bad("change_box before the simulation box is defined; use create_box or read_data first");
  arguments::need(a, 2, usage);
  const int bit = sim.group_bit(a[0]);
  if (bit < 0) bad("change_box: there is no group " + a[0]);
  const std::uint32_t groupbit = 1u << bit;
  const int dimension = sim.dimension();
  // The units keyword comes last; lengths and tilts scale by the lattice unless units box.
  std::size_t end = a.size();
  bool lattice_units = true;
  if (end >= 3 && a[end - 2] == "units") {
    if (a[end - 1] != "box" && a[end - 1] != "lattice")
      bad("change_box: units must be box or lattice, not '" + a[end - 1] + "'");
    lattice_units = a[end - 1] == "lattice";
    end -= 2;
  }
  const auto scale = [&](std::size_t d) { return lattice_units ? lattice[d] : 1.0; };
  const auto value = [&](std::size_t k) {
    if (k >= end) bad("change_box: " + a[k - 1] + " needs more values; usage: " + usage);
    return arguments::number("change_box", a[k]);
  };
  std::string text = "Changing box ...\n";
  // First every atom into the current box (LAMMPS's pbc before the operations).
  sim.remap_atoms(/*migrate=*/false);
  Box box = sim.box();
  Boundary boundary = sim.boundary();
  Box saved = box;
  const auto check = [&](const Box& b) {
    for (int d = 0; d < 3; ++d)
      if (!(b.length(d) > 0)) bad("change_box: the box would have zero or negative extent in " + std::string(1, "xyz"[d]));
    if (b.triclinic) {
      if (dimension == 2 && (b.xz != 0.0 || b.yz != 0.0))
        bad("change_box: a 2-d box cannot be tilted in z");
      if (skew_too_large(b, boundary.periodicity()) && !sim.tilt_large())
        bad("change_box: the triclinic box's skew would be too large (xy and xz at most half of "
            "lx, yz at most half of ly in periodic dimensions)");
    }
  };
  bool moves_atoms = false;
  for (std::size_t at = 1; at < end;) {
    const std::string& op = a[at];
    if (op == "x" || op == "y" || op == "z") {
      const int d = op[0] - 'x';
      const auto i = static_cast<std::size_t>(d);
      if (dimension == 2 && d == 2) bad("change_box: z cannot change in a 2-d simulation");
      if (at + 1 >= end) bad("change_box: " + op + " needs a style; usage: " + usage);
      const std::string& how = a[at + 1];
      const double old_volume = dimension == 2 ? box.length(0) * box.length(1) : box.volume();
      if (how == "final") {
        box.lo[i] = scale(i) * value(at + 2), box.hi[i] = scale(i) * value(at + 3), at += 4;
      } else if (how == "delta") {
        box.lo[i] += scale(i) * value(at + 2), box.hi[i] += scale(i) * value(at + 3), at += 4;
      } else if (how == "scale") {
        const double f = value(at + 2);
        const double mid = 0.5 * (box.lo[i] + box.hi[i]);
        double delta = box.lo[i] - mid;
        box.lo[i] = mid + f * delta;
        delta = box.hi[i] - mid;
        box.hi[i] = mid + f * delta;
        at += 3;
      } else {
        bad("change_box: " + op + " " + how + ": use final, delta or scale (volume follows one)");
      }
      // Up to two following dimensions that keep the volume.
      int vdim1 = -1, vdim2 = -1;
      while (at + 1 < end && a[at + 1] == "volume" && (a[at] == "x" || a[at] == "y" || a[at] == "z")) {
        const int v = a[at][0] - 'x';
        if (v == d || vdim2 >= 0 || v == vdim1 || (dimension == 2 && v == 2))
          bad("change_box: volume used incorrectly (LAMMPS's rule: after a length, for up to two "
              "other dimensions)");
        (vdim1 < 0 ? vdim1 : vdim2) = v;
        at += 2;
      }
      check(box);
      if (vdim1 >= 0) keep_volume(box, dimension, vdim1, vdim2, old_volume);
      check(box);
      text += print_box(box);
      moves_atoms = true;
    } else if (op == "xy" || op == "xz" || op == "yz") {
      if (!box.triclinic) bad("change_box: cannot change the tilt factors of an orthogonal box (use triclinic first)");
      if (dimension == 2 && op != "xy") bad("change_box: xz and yz cannot change in a 2-d simulation");
      if (at + 1 >= end) bad("change_box: " + op + " needs a style; usage: " + usage);
      double& tilt = op == "xy" ? box.xy : (op == "xz" ? box.xz : box.yz);
      const double s = scale(op == "yz" ? 1 : 0);
      if (a[at + 1] == "final") tilt = s * value(at + 2);
      else if (a[at + 1] == "delta") tilt += s * value(at + 2);
      else bad("change_box: " + op + " " + a[at + 1] + ": use final or delta");
      at += 3;
      check(box);
      text += print_box(box);
      moves_atoms = true;
    } else if (op == "boundary") {
      if (at + 4 > end) bad("change_box: boundary needs three words");
      boundary = Boundary::from_words(&a[at + 1], "change_box boundary");
      if (dimension == 2 && !boundary.periodic(2))
        bad("change_box: the z boundary of a 2-d simulation must stay periodic");
      if (boundary.any_shrinks())
        bad("change_box: md_ipu changes boundaries to p or f only (not s or m)");
      at += 4;
      moves_atoms = true;
    } else if (op == "ortho" || op == "triclinic") {
      if (op == "ortho" && (box.xy != 0.0 || box.xz != 0.0 || box.yz != 0.0))
        bad("change_box: cannot change the box to orthogonal while a tilt is not zero");
      if (dumps_defined) bad("change_box: cannot change the box ortho/triclinic with dumps defined (LAMMPS's rule)");
      for (const auto& fix : sim.fixes())
        if (fix->style() == "deform")
          bad("change_box: cannot change the box ortho/triclinic with fix deform defined");
      box.triclinic = op == "triclinic";
      if (!box.triclinic) box.xy = box.xz = box.yz = 0.0;
      check(box);
      text += print_box(box);
      ++at;
    } else if (op == "set") {
      saved = box;
      ++at;
    } else if (op == "remap") {
      // The group's atoms from the saved box to this one, through fractional coordinates.
      const BoxMatrix from(saved), to(box);
      sim.change_atoms([&](const Simulation::GroupAtom& g) { return (g.mask & groupbit) != 0; },
                       [&](Simulation::AtomChange& c) {
                         from.to_fraction(c.x.data(), c.x.data());
                         to.to_cartesian(c.x.data(), c.x.data());
                         return true;
                       });
      saved = box;
      moves_atoms = true;
      ++at;
    } else {
      bad("change_box: unknown operation '" + op + "'; usage: " + usage);
    }
  }
  if (!(boundary.face == sim.boundary().face) && sim.change_boundary(boundary))
    text += "WARNING: Resetting image flags for non-periodic dimensions\n";
  sim.change_box(box);
  if (moves_atoms) sim.remap_atoms(/*migrate=*/true);
  return text;
}

}  // namespace tessera::md
