// LAMMPS's FixRigid and FixRigidNH without thermostat (src/RIGID/fix_rigid.cpp,
// fix_rigid_nh.cpp), followed step by step so that bodies move as LAMMPS's do.
#include "tessera/md/fix_rigid.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>

#include "arguments.hpp"
#include "rigid_math.hpp"
#include "tessera/md/simulation.hpp"

namespace tessera::md {

namespace {
// LAMMPS's fix_rigid.cpp: principal moments below EPSILON of the largest are zero; the moments
// recomputed in the principal frame must agree within TOLERANCE.
constexpr double epsilon = 1.0e-7;
constexpr double tolerance = 1.0e-6;
// The body keys (custom values less their minimum) a fix may span.
constexpr long long max_keys = 10'000'000;
}  // namespace

FixRigid::FixRigid(const FixArguments& a, const std::string& style)
    : Fix(a.id, a.group), style_(style), no_squish_(style == "rigid/nve") {
  const std::string what = "fix " + a.id + " " + style;
  const std::string usage = "fix ID GROUP " + style +
                            " single | group N G1 ... GN | custom i_NAME|v_NAME [force M x y z] "
                            "[torque M x y z] [langevin Tstart Tstop Tdamp seed] [reinit yes|no]";
  if (a.from_restart || a.sim == nullptr)
    arguments::bad(what +
                   ": restart files do not keep rigid bodies (nor do LAMMPS's); define "
                   "the fix again after read_restart");
  Simulation& sim = *a.sim;
  if (!sim.has_box()) arguments::bad(what + ": the simulation box is not defined yet");
  arguments::need(a.args, 1, usage);
  const int group = sim.group_bit(a.group);
  if (group < 0) arguments::bad(what + ": there is no group " + a.group + "; define it with group");
  const std::uint32_t fix_mask = 1u << group;
  dimension_ = sim.dimension();
  print_ = a.print;

  // Each atom's key: atoms with the same positive key form one body (0: none).
  const std::string& bodystyle = a.args[0];
  std::size_t at = 1;
  AtomValues key;  // one value per atom of a tile
  long long keys = 0;
  if (bodystyle == "single") {
    keys = 1;
    key = [fix_mask](const AtomsView& v, std::span<double> out) {
      for (std::size_t i = 0; i < v.id.size(); ++i) out[i] = (v.mask[i] & fix_mask) ? 1.0 : 0.0;
    };
  } else if (bodystyle == "group") {
    arguments::need(a.args, 2, usage);
    keys = arguments::integer(what + " group", a.args[1], 1, 32);
    if (a.args.size() < 2 + static_cast<std::size_t>(keys))
      arguments::bad(what + ": group " + a.args[1] + " needs that many group IDs; usage: " + usage);
    std::vector<std::uint32_t> masks;
    for (long long k = 0; k < keys; ++k) {
      const std::string& name = a.args[2 + static_cast<std::size_t>(k)];
      const int bit = sim.group_bit(name);
      if (bit < 0) arguments::bad(what + ": there is no group " + name + " to make a body of");
      masks.push_back(1u << bit);
    }
    at = 2 + static_cast<std::size_t>(keys);
    // An atom in two listed groups gets -1, counted below as an error.
    key = [fix_mask, masks](const AtomsView& v, std::span<double> out) {
      for (std::size_t i = 0; i < v.id.size(); ++i) {
        out[i] = 0.0;
        if (!(v.mask[i] & fix_mask)) continue;
        for (std::size_t k = 0; k < masks.size(); ++k)
          if (v.mask[i] & masks[k]) out[i] = out[i] != 0.0 ? -1.0 : static_cast<double>(k + 1);
      }
    };
  } else if (bodystyle == "custom") {
    arguments::need(a.args, 2, usage);
    const std::string& word = a.args[1];
    at = 2;
    AtomValues value;
    if (word.rfind("v_", 0) == 0) {
      if (!a.atom_variables.bind) arguments::bad(what + ": no variables here for " + word);
      a.atom_variables.check(word.substr(2), what + " custom " + word);
      value = a.atom_variables.bind(word.substr(2));
    } else {
      const auto ref = sim.custom_reference(word, what + " custom");
      if (!ref || ref->name.empty())
        arguments::bad(what +
                       ": custom takes i_NAME (a fix property/atom) or v_NAME (an "
                       "atom-style variable), not '" +
                       word + "'");
      if (!ref->integer)
        arguments::bad(what + ": custom " + word +
                       " must be an integer property (i_NAME), as LAMMPS requires");
      const std::size_t column = sim.custom_column(*ref, what + " custom");
      value = [column](const AtomsView& v, std::span<double> out) {
        for (std::size_t i = 0; i < v.id.size(); ++i)
          out[i] = v.per_atom[i * v.per_atom_width + column];
      };
    }
    // LAMMPS's: the values truncated to integers, less their minimum over the group, plus 1.
    const auto truncated = [value, fix_mask](const AtomsView& v, std::span<double> out) {
      std::vector<double> raw(v.id.size());
      value(v, raw);
      for (std::size_t i = 0; i < v.id.size(); ++i)
        out[i] = (v.mask[i] & fix_mask) ? std::trunc(raw[i]) : std::nan("");
    };
    const auto range = sim.reduce_atoms(
        "md.fix_rigid_keys", ReduceOp::max, 2, [&](const AtomsView& v, std::span<double> out) {
          std::vector<double> k(v.id.size());
          truncated(v, k);
          out[0] = out[1] = -std::numeric_limits<double>::max();
          for (const double x : k)
            if (!std::isnan(x)) out[0] = std::max(out[0], -x), out[1] = std::max(out[1], x);
        });
    const double lowest = -range[0];
    if (range[1] < lowest) arguments::bad(what + ": the group " + a.group + " has no atoms");
    if (range[1] - lowest + 1 > static_cast<double>(max_keys))
      arguments::bad(what + ": custom " + word + " spans " + std::to_string(range[1] - lowest + 1) +
                     " values; at most " + std::to_string(max_keys) + " are allowed");
    keys = static_cast<long long>(range[1] - lowest) + 1;
    key = [truncated, lowest](const AtomsView& v, std::span<double> out) {
      truncated(v, out);
      for (double& x : out) x = std::isnan(x) ? 0.0 : x - lowest + 1.0;
    };
  } else if (bodystyle == "molecule") {
    arguments::bad(what +
                   ": bodystyle molecule needs molecule IDs, which md_ipu's atom style "
                   "atomic does not have; use group or custom");
  } else {
    arguments::bad(what + ": unknown bodystyle '" + bodystyle + "'; usage: " + usage);
  }

  // Atoms per key; the keys with atoms become bodies 0, 1, ... in key order.
  const auto counts =
      sim.reduce_atoms("md.fix_rigid_count", ReduceOp::sum, static_cast<std::size_t>(keys) + 1,
                       [&](const AtomsView& v, std::span<double> out) {
                         std::vector<double> k(v.id.size());
                         key(v, k);
                         for (const double x : k) {
                           if (x < 0)
                             out[0] += 1;  // in two listed groups
                           else if (x > 0)
                             out[static_cast<std::size_t>(x)] += 1;
                         }
                       });
  if (counts[0] > 0)
    arguments::bad(what + ": " + std::to_string(static_cast<long long>(counts[0])) +
                   " atoms belong to more than one of the listed groups (one body each)");
  std::vector<double> body_of_key(counts.size(), 0.0);  // body + 1, 0: none
  for (std::size_t k = 1; k < counts.size(); ++k)
    if (counts[k] > 0) {
      bodies_.emplace_back();
      bodies_.back().atoms = static_cast<int>(counts[k]);
      body_of_key[k] = static_cast<double>(bodies_.size());
    }
  if (bodies_.empty()) arguments::bad(what + ": no rigid bodies defined (the group has no atoms)");
  for (const Body& b : bodies_)
    if (b.atoms <= 1)
      arguments::bad(what + ": one or zero atoms in rigid body (a body needs at least two)");

  handle_ = sim.add_per_atom(per_atom_width);
  sim.store_per_atom("md.fix_rigid_body", sim.per_atom_offset(handle_) + body_column,
                     [&](const AtomsView& v, std::span<double> out) {
                       key(v, out);
                       for (double& x : out) x = body_of_key[static_cast<std::size_t>(x)];
                     });

  const auto flags = [&](const std::string& keyword) {
    if (at + 5 > a.args.size())
      arguments::bad(what + " " + keyword + ": usage: " + keyword +
                     " M xflag yflag zflag (on|off)");
    const auto [lo, hi] =
        arguments::bounds(what + " " + keyword, a.args[at + 1],
                          static_cast<long long>(bodies_.size()), "body", "body range");
    std::array<double, 3> on{};
    for (std::size_t d = 0; d < 3; ++d) {
      const std::string& w = a.args[at + 2 + d];
      if (w != "on" && w != "off")
        arguments::bad(what + " " + keyword + ": expected on or off, got '" + w + "'");
      on[d] = w == "on" ? 1.0 : 0.0;
    }
    at += 5;
    return std::tuple{lo, hi, on};
  };
  for (Body& b : bodies_)
    if (dimension_ == 2) b.force_on[2] = b.torque_on[0] = b.torque_on[1] = 0.0;
  while (at < a.args.size()) {
    const std::string& keyword = a.args[at];
    if (keyword == "force") {
      const auto [lo, hi, on] = flags(keyword);
      if (dimension_ == 2 && on[2] == 1.0)
        arguments::bad(what + ": the z force cannot be on in a 2-d simulation");
      for (long long m = lo; m <= hi; ++m) bodies_[static_cast<std::size_t>(m - 1)].force_on = on;
    } else if (keyword == "torque") {
      const auto [lo, hi, on] = flags(keyword);
      if (dimension_ == 2 && (on[0] == 1.0 || on[1] == 1.0))
        arguments::bad(what + ": the x and y torques cannot be on in a 2-d simulation");
      for (long long m = lo; m <= hi; ++m) bodies_[static_cast<std::size_t>(m - 1)].torque_on = on;
    } else if (keyword == "langevin") {
      if (at + 5 > a.args.size())
        arguments::bad(what + " langevin: usage: langevin Tstart Tstop Tdamp seed");
      Langevin l;
      l.t_start = arguments::number(what + " langevin", a.args[at + 1]);
      l.t_stop = arguments::number(what + " langevin", a.args[at + 2]);
      l.t_period = arguments::number(what + " langevin", a.args[at + 3]);
      if (!(l.t_period > 0.0)) arguments::bad(what + ": the langevin period must be > 0");
      const auto seed = arguments::seed_value(what + " langevin", a.args[at + 4],
                                              "fix rigid langevin: the seed must be positive");
      // LAMMPS seeds processor 0's stream with seed + 0, the only one that draws.
      l.random = std::make_unique<RandomMars>(static_cast<int>(seed));
      langevin_ = std::move(l);
      at += 5;
    } else if (keyword == "reinit") {
      if (at + 2 > a.args.size()) arguments::bad(what + " reinit: expected yes or no");
      reinit_ = arguments::yes_no(what + " reinit", a.args[at + 1]);
      at += 2;
    } else if (keyword == "temp" || keyword == "iso" || keyword == "aniso" || keyword == "x" ||
               keyword == "y" || keyword == "z" || keyword == "couple" || keyword == "dilate" ||
               keyword == "tparam" || keyword == "pchain") {
      arguments::bad(what + ": keyword " + keyword +
                     " belongs to LAMMPS's rigid/nvt, rigid/npt and rigid/nph, which md_ipu "
                     "does not have");
    } else if (keyword == "infile" || keyword == "gravity") {
      arguments::bad(what + ": keyword " + keyword + " is not supported by md_ipu");
    } else {
      arguments::bad(what + ": unknown keyword '" + keyword + "'; usage: " + usage);
    }
  }
  if (print_) {
    int atoms = 0;
    for (const Body& b : bodies_) atoms += b.atoms;
    print_("  " + std::to_string(bodies_.size()) + " rigid bodies with " + std::to_string(atoms) +
           " atoms\n");
  }
}

std::size_t FixRigid::modify(Simulation& sim, const std::vector<std::string>& words,
                             std::size_t at) {
  if (words[at] == "bodyforces" && at + 1 < words.size()) {
    const std::string& w = words[at + 1];
    if (w != "early" && w != "late")
      throw ConfigError("fix_modify " + id() + " bodyforces: expected early or late, got '" + w +
                        "'");
    early_ = w == "early";
    return 2;
  }
  return Fix::modify(sim, words, at);
}

void FixRigid::release(Simulation& sim) { sim.remove_per_atom(handle_); }

template <class View>
int FixRigid::body_of(const View& t, std::size_t i) const {
  return static_cast<int>(t.per_atom[i * t.per_atom_width + offset_ + body_column]) - 1;
}

template <class View>
std::array<int, 3> FixRigid::image_in_body(const View& t, std::size_t i, const Body& b) const {
  return {t.image[3 * i] - b.image[0], t.image[3 * i + 1] - b.image[1],
          t.image[3 * i + 2] - b.image[2]};
}

// LAMMPS's Domain::unmap with the atom's image relative to its body's.
template <class View>
double FixRigid::unwrapped(const View& t, std::size_t i, const Body& b, std::size_t d) const {
  const auto n = image_in_body(t, i, b);
  const double* x = &t.x[3 * i];
  if (d == 0) return x[0] + n[0] * length_[0] + n[1] * xy_ + n[2] * xz_;
  if (d == 1) return x[1] + n[1] * length_[1] + n[2] * yz_;
  return x[2] + n[2] * length_[2];
}

void FixRigid::capture(const Simulation& sim) {
  offset_ = sim.per_atom_offset(handle_);
  const Box& box = sim.box();
  for (int d = 0; d < 3; ++d) length_[static_cast<std::size_t>(d)] = box.length(d);
  xy_ = box.xy, xz_ = box.xz, yz_ = box.yz;
}

// Half a step of the forces and torques on body b: its momentum and its angular momentum (the
// quaternion momentum for NO_SQUISH).
void FixRigid::half_kick(Body& b) const {
  const double dtfm = dtf_ / b.mass;
  for (std::size_t d = 0; d < 3; ++d) b.vcm[d] += dtfm * b.fcm[d] * b.force_on[d];
  if (!no_squish_) {
    for (std::size_t d = 0; d < 3; ++d) b.angmom[d] += dtf_ * b.torque[d] * b.torque_on[d];
    return;
  }
  for (std::size_t d = 0; d < 3; ++d) b.torque[d] *= b.torque_on[d];
  const rigid::Quat fquat =
      rigid::quat_times_vector(b.quat, rigid::to_body(b.ex, b.ey, b.ez, b.torque));
  for (std::size_t c = 0; c < 4; ++c) b.conjqm[c] += dtf_ * 2.0 * fquat[c];
}

void FixRigid::init(Simulation& sim) {
  const std::string what = "fix " + id() + " " + style();
  for (const auto& fix : sim.fixes()) {
    if (fix->changes_box())
      throw ConfigError(what + ": fix " + fix->id() + " " + fix->style() +
                        " changes the box, which md_ipu's rigid bodies do not follow yet");
    if (fix.get() != this && fix->style().rfind("rigid", 0) == 0 && print_)
      print_("WARNING: More than one fix rigid\n");
  }
  capture(sim);
  dtv_ = sim.timestep();
  dtf_ = 0.5 * sim.timestep() * sim.units().ftm2v;
  dtq_ = 0.5 * sim.timestep();
  boltz_ = sim.units().boltz, mvv2e_ = sim.units().mvv2e, ftm2v_ = sim.units().ftm2v;
  two_d_enforced_ = false;
  for (const auto& fix : sim.fixes())
    if (dimension_ == 2 && fix->style() == "enforce2d") two_d_enforced_ = true;
  if (reinit_ || !set_up_) setup_bodies(sim);
  set_up_ = true;
  double ndof = 0;
  for (const Body& b : bodies_)
    ndof += b.force_on[0] + b.force_on[1] + b.force_on[2] + b.torque_on[0] + b.torque_on[1] +
            b.torque_on[2];
  ndof -= nlinear_;
  tfactor_ = ndof > 0.0 ? sim.units().mvv2e / (ndof * sim.units().boltz) : 0.0;
}

// LAMMPS's setup_bodies_static and setup_bodies_dynamic: masses, centres of mass, principal
// axes and moments, each atom's place in its body's frame, then the bodies' velocities and
// angular momenta from their atoms'.
void FixRigid::setup_bodies(Simulation& sim) {
  const std::string what = "fix " + id() + " " + style();
  const std::size_t n = bodies_.size();
  const auto each_body_atom = [this](const AtomsView& a, auto&& fn) {
    for (std::size_t i = 0; i < a.id.size(); ++i) {
      const int b = body_of(a, i);
      if (b >= 0) fn(a, i, bodies_[static_cast<std::size_t>(b)], 6 * static_cast<std::size_t>(b));
    }
  };
  for (Body& b : bodies_) b.image = {0, 0, 0};
  const auto periodic = sim.boundary();
  const auto centre = sim.reduce_atoms(
      "md.fix_rigid_centre", ReduceOp::sum, 6 * n, [&](const AtomsView& a, std::span<double> out) {
        each_body_atom(a, [&](const AtomsView& t, std::size_t i, const Body& b, std::size_t k) {
          const double m = t.mass[static_cast<std::size_t>(t.type[i])];
          const auto img = image_in_body(t, i, b);
          for (std::size_t d = 0; d < 3; ++d)
            if (img[d] != 0 && !periodic.periodic(d)) out[k + 5] += 1;  // counted as an error
          for (std::size_t d = 0; d < 3; ++d) out[k + d] += unwrapped(t, i, b, d) * m;
          out[k + 3] += m;
        });
      });
  for (std::size_t b = 0; b < n; ++b) {
    Body& body = bodies_[b];
    if (centre[6 * b + 5] > 0)
      throw ConfigError(what + ": an atom of body " + std::to_string(b + 1) +
                        " has a non-zero image flag in a non-periodic dimension");
    body.mass = centre[6 * b + 3];
    if (!(body.mass > 0.0))
      throw ConfigError(what + ": body " + std::to_string(b + 1) +
                        " has no atoms left (were they deleted?); define the fix again");
    for (std::size_t d = 0; d < 3; ++d) body.xcm[d] = centre[6 * b + d] / body.mass;
    body.vcm = body.angmom = {0, 0, 0};
  }
  remap_centres(sim);

  const auto inertia_sums = [&](bool principal) {
    return sim.reduce_atoms(
        "md.fix_rigid_inertia", ReduceOp::sum, 6 * n,
        [&](const AtomsView& a, std::span<double> out) {
          each_body_atom(a, [&](const AtomsView& t, std::size_t i, const Body& b, std::size_t k) {
            double dx, dy, dz;
            if (principal) {
              const double* p = &t.per_atom[i * t.per_atom_width + offset_ + displace_column];
              dx = p[0], dy = p[1], dz = p[2];
            } else {
              dx = unwrapped(t, i, b, 0) - b.xcm[0];
              dy = unwrapped(t, i, b, 1) - b.xcm[1];
              dz = unwrapped(t, i, b, 2) - b.xcm[2];
            }
            const double m = t.mass[static_cast<std::size_t>(t.type[i])];
            out[k] += m * (dy * dy + dz * dz);
            out[k + 1] += m * (dx * dx + dz * dz);
            out[k + 2] += m * (dx * dx + dy * dy);
            out[k + 3] -= m * dy * dz;
            out[k + 4] -= m * dx * dz;
            out[k + 5] -= m * dx * dy;
          });
        });
  };
  const auto tensor = inertia_sums(false);
  nlinear_ = 0;
  for (std::size_t b = 0; b < n; ++b) {
    Body& body = bodies_[b];
    const double* s = &tensor[6 * b];
    const std::array<rigid::Vec, 3> inertia{
        {{s[0], s[5], s[4]}, {s[5], s[1], s[3]}, {s[4], s[3], s[2]}}};
    std::array<rigid::Vec, 3> axes{};
    if (!rigid::principal_axes(inertia, body.inertia, axes))
      throw Error(what +
                  ": insufficient Jacobi rotations to diagonalize the inertia tensor of "
                  "body " +
                  std::to_string(b + 1));
    body.ex = axes[0], body.ey = axes[1], body.ez = axes[2];
    const double largest = std::max({body.inertia[0], body.inertia[1], body.inertia[2]});
    for (double& moment : body.inertia)
      if (moment < epsilon * largest) moment = 0.0;
    if (body.inertia[0] == 0.0 || body.inertia[1] == 0.0 || body.inertia[2] == 0.0) ++nlinear_;
    // A right-handed frame: ez flipped when ex x ey points against it.
    const rigid::Vec& ex = body.ex;
    const rigid::Vec& ey = body.ey;
    const rigid::Vec cross{ex[1] * ey[2] - ex[2] * ey[1], ex[2] * ey[0] - ex[0] * ey[2],
                           ex[0] * ey[1] - ex[1] * ey[0]};
    if (cross[0] * body.ez[0] + cross[1] * body.ez[1] + cross[2] * body.ez[2] < 0.0)
      for (double& c : body.ez) c = -c;
    body.quat = rigid::orientation_of(body.ex, body.ey, body.ez);
  }
  sim.for_each_tile("md.fix_rigid_displace", [&](FixTile& t) {
    for (std::size_t i = 0; i < static_cast<std::size_t>(t.nlocal); ++i) {
      double* p = &t.per_atom[i * t.per_atom_width + offset_ + displace_column];
      const int b = body_of(t, i);
      if (b < 0) {
        p[0] = p[1] = p[2] = 0.0;
        continue;
      }
      const Body& body = bodies_[static_cast<std::size_t>(b)];
      const rigid::Vec delta{unwrapped(t, i, body, 0) - body.xcm[0],
                             unwrapped(t, i, body, 1) - body.xcm[1],
                             unwrapped(t, i, body, 2) - body.xcm[2]};
      const rigid::Vec d = rigid::to_body(body.ex, body.ey, body.ez, delta);
      p[0] = d[0], p[1] = d[1], p[2] = d[2];
    }
  });
  const auto check = inertia_sums(true);
  for (std::size_t b = 0; b < n; ++b) {
    const Body& body = bodies_[b];
    const double* s = &check[6 * b];
    bool bad = false;
    for (std::size_t c = 0; c < 3; ++c)
      bad = bad || (body.inertia[c] == 0.0
                        ? std::fabs(s[c]) > tolerance
                        : std::fabs((s[c] - body.inertia[c]) / body.inertia[c]) > tolerance);
    const double norm = (body.inertia[0] + body.inertia[1] + body.inertia[2]) / 3.0;
    bad = bad || std::fabs(s[3] / norm) > tolerance || std::fabs(s[4] / norm) > tolerance ||
          std::fabs(s[5] / norm) > tolerance;
    if (bad)
      throw Error(what + ": bad principal moments of body " + std::to_string(b + 1) +
                  " (the moments in its principal frame do not match the diagonalized ones)");
  }

  const auto motion = sim.reduce_atoms(
      "md.fix_rigid_motion", ReduceOp::sum, 6 * n, [&](const AtomsView& a, std::span<double> out) {
        each_body_atom(a, [&](const AtomsView& t, std::size_t i, const Body& b, std::size_t k) {
          const double m = t.mass[static_cast<std::size_t>(t.type[i])];
          const double* v = &t.v[3 * i];
          for (std::size_t d = 0; d < 3; ++d) out[k + d] += v[d] * m;
          const double dx = unwrapped(t, i, b, 0) - b.xcm[0];
          const double dy = unwrapped(t, i, b, 1) - b.xcm[1];
          const double dz = unwrapped(t, i, b, 2) - b.xcm[2];
          out[k + 3] += dy * m * v[2] - dz * m * v[1];
          out[k + 4] += dz * m * v[0] - dx * m * v[2];
          out[k + 5] += dx * m * v[1] - dy * m * v[0];
        });
      });
  for (std::size_t b = 0; b < n; ++b) {
    Body& body = bodies_[b];
    for (std::size_t d = 0; d < 3; ++d) {
      body.vcm[d] = motion[6 * b + d] / body.mass;
      body.angmom[d] = motion[6 * b + 3 + d];
    }
  }
}

// LAMMPS's pre_neighbor: each centre of mass back into the periodic box, its image counted.
void FixRigid::remap_centres(Simulation& sim) {
  for (Body& b : bodies_) {
    rigid::Vec x = b.xcm;
    std::array<std::int32_t, 3> image = b.image;
    if (!sim.wrap_position(x, image))
      throw Error("fix " + id() + " " + style() +
                  ": a rigid body's centre of mass is not finite or too far outside the box");
    b.xcm = x, b.image = image;
  }
}

void FixRigid::pre_exchange(Simulation& sim) { remap_centres(sim); }

template <class View>
void FixRigid::sum_forces(const View& t, std::span<double> out) const {
  for (std::size_t i = 0; i < t.id.size(); ++i) {
    const int b = body_of(t, i);
    if (b < 0) continue;
    const Body& body = bodies_[static_cast<std::size_t>(b)];
    double* s = &out[6 * static_cast<std::size_t>(b)];
    const double* f = &t.f[3 * i];
    s[0] += f[0], s[1] += f[1], s[2] += f[2];
    const double dx = unwrapped(t, i, body, 0) - body.xcm[0];
    const double dy = unwrapped(t, i, body, 1) - body.xcm[1];
    const double dz = unwrapped(t, i, body, 2) - body.xcm[2];
    s[3] += dy * f[2] - dz * f[1];
    s[4] += dz * f[0] - dx * f[2];
    s[5] += dx * f[1] - dy * f[0];
  }
}

// LAMMPS's FixRigid::setup: forces and torques of the run's first forces, then the atoms'
// velocities from the bodies', the constraint virial estimated as twice that of this change.
void FixRigid::setup(Simulation& sim) {
  const std::size_t n = bodies_.size();
  offset_ = sim.per_atom_offset(handle_);
  const auto sums =
      sim.reduce_atoms("md.fix_rigid_setup", ReduceOp::sum, 6 * n,
                       [&](const AtomsView& a, std::span<double> out) { sum_forces(a, out); });
  for (std::size_t b = 0; b < n; ++b) {
    Body& body = bodies_[b];
    for (std::size_t d = 0; d < 3; ++d)
      body.fcm[d] = sums[6 * b + d], body.torque[d] = sums[6 * b + 3 + d];
    body.langevin = {};
    body.omega = rigid::omega_of(body.angmom, body.ex, body.ey, body.ez, body.inertia);
    if (no_squish_) {
      // FixRigidNH::setup: the quaternion momentum of the angular momentum.
      const rigid::Vec mbody = rigid::to_body(body.ex, body.ey, body.ez, body.angmom);
      body.conjqm = rigid::quat_times_vector(body.quat, mbody);
      for (double& c : body.conjqm) c *= 2.0;
    }
  }
  virial_tally_.resize(sim.runtime(), 6);
  sim.adjust_velocities("md.fix_rigid_setup_velocities", [&](FixTile& t) {
    virial_tally_.start_row(t.tile);
    set_atom_velocities(t, 2.0);
  });
}

void FixRigid::pre_integrate(Simulation& sim) {
  in_step_ = true;
  capture(sim);
  ramp_ = sim.ramp_fraction();
  virial_tally_.resize(sim.runtime(), 6);
  for (Body& b : bodies_) {
    half_kick(b);
    for (std::size_t d = 0; d < 3; ++d) b.xcm[d] += dtv_ * b.vcm[d];
    if (!no_squish_) {
      b.omega = rigid::omega_of(b.angmom, b.ex, b.ey, b.ez, b.inertia);
      rigid::richardson(b.quat, b.angmom, b.omega, b.inertia, dtq_);
      rigid::axes_of(b.quat, b.ex, b.ey, b.ez);
      continue;
    }
    // FixRigidNH::initial_integrate, steps 1.4 to 1.13 of Kamberaj et al.
    rigid::no_squish_rotate(3, b.conjqm, b.quat, b.inertia, dtq_);
    rigid::no_squish_rotate(2, b.conjqm, b.quat, b.inertia, dtq_);
    rigid::no_squish_rotate(1, b.conjqm, b.quat, b.inertia, dtv_);
    rigid::no_squish_rotate(2, b.conjqm, b.quat, b.inertia, dtq_);
    rigid::no_squish_rotate(3, b.conjqm, b.quat, b.inertia, dtq_);
    rigid::axes_of(b.quat, b.ex, b.ey, b.ez);
    angular_momentum_from_conjqm(b);
  }
}

void FixRigid::angular_momentum_from_conjqm(Body& b) {
  const rigid::Vec mbody = rigid::inverse_quat_times(b.quat, b.conjqm);
  b.angmom = rigid::to_space(b.ex, b.ey, b.ez, mbody);
  for (double& c : b.angmom) c *= 0.5;
  b.omega = rigid::omega_of(b.angmom, b.ex, b.ey, b.ez, b.inertia);
}

// LAMMPS's set_xv: each atom's position and velocity from its body's, and half the virial of
// the constraint force that moved it (the other half in set_v).
void FixRigid::initial_integrate(FixTile& t) {
  const auto row = virial_tally_.start_row(t.tile);
  for (std::size_t i = 0; i < static_cast<std::size_t>(t.nlocal); ++i) {
    const int bi = body_of(t, i);
    if (bi < 0) continue;
    const Body& b = bodies_[static_cast<std::size_t>(bi)];
    const auto n = image_in_body(t, i, b);
    double* x = &t.x[3 * i];
    double* v = &t.v[3 * i];
    const rigid::Vec before_x{unwrapped(t, i, b, 0), unwrapped(t, i, b, 1), unwrapped(t, i, b, 2)};
    const double v0 = v[0], v1 = v[1], v2 = v[2];
    const double* p = &t.per_atom[i * t.per_atom_width + offset_ + displace_column];
    const rigid::Vec r = rigid::to_space(b.ex, b.ey, b.ez, {p[0], p[1], p[2]});
    x[0] = r[0], x[1] = r[1], x[2] = r[2];
    v[0] = b.omega[1] * x[2] - b.omega[2] * x[1] + b.vcm[0];
    v[1] = b.omega[2] * x[0] - b.omega[0] * x[2] + b.vcm[1];
    v[2] = b.omega[0] * x[1] - b.omega[1] * x[0] + b.vcm[2];
    x[0] += b.xcm[0] - n[0] * length_[0] - n[1] * xy_ - n[2] * xz_;
    x[1] += b.xcm[1] - n[1] * length_[1] - n[2] * yz_;
    x[2] += b.xcm[2] - n[2] * length_[2];
    add_constraint_virial(t, i, before_x, {v0, v1, v2}, row, 1.0);
  }
}

void FixRigid::add_constraint_virial(const FixTile& t, std::size_t i, const rigid::Vec& x,
                                     const rigid::Vec& v_before, std::span<double> row,
                                     double scale) const {
  const double m = t.mass[static_cast<std::size_t>(t.type[i])];
  const double* v = &t.v[3 * i];
  const double* f = &t.f[3 * i];
  const double fc0 = m * (v[0] - v_before[0]) / dtf_ - f[0];
  const double fc1 = m * (v[1] - v_before[1]) / dtf_ - f[1];
  const double fc2 = m * (v[2] - v_before[2]) / dtf_ - f[2];
  row[0] += scale * (0.5 * x[0] * fc0);
  row[1] += scale * (0.5 * x[1] * fc1);
  row[2] += scale * (0.5 * x[2] * fc2);
  row[3] += scale * (0.5 * x[0] * fc1);
  row[4] += scale * (0.5 * x[0] * fc2);
  row[5] += scale * (0.5 * x[1] * fc2);
}

// LAMMPS's set_v: each atom's velocity from its body's, and the other half of the virial.
void FixRigid::set_atom_velocities(FixTile& t, double virial_scale) {
  const auto row = virial_tally_.row(t.tile);
  for (std::size_t i = 0; i < static_cast<std::size_t>(t.nlocal); ++i) {
    const int bi = body_of(t, i);
    if (bi < 0) continue;
    const Body& b = bodies_[static_cast<std::size_t>(bi)];
    const double* p = &t.per_atom[i * t.per_atom_width + offset_ + displace_column];
    const rigid::Vec delta = rigid::to_space(b.ex, b.ey, b.ez, {p[0], p[1], p[2]});
    double* v = &t.v[3 * i];
    const rigid::Vec before{v[0], v[1], v[2]};
    v[0] = b.omega[1] * delta[2] - b.omega[2] * delta[1] + b.vcm[0];
    v[1] = b.omega[2] * delta[0] - b.omega[0] * delta[2] + b.vcm[1];
    v[2] = b.omega[0] * delta[1] - b.omega[1] * delta[0] + b.vcm[2];
    add_constraint_virial(t, i,
                          {unwrapped(t, i, b, 0), unwrapped(t, i, b, 1), unwrapped(t, i, b, 2)},
                          before, row, virial_scale);
  }
}

void FixRigid::sum_post_force(const FixTile& t, std::span<double> out) const { sum_forces(t, out); }
// post_force also runs in a run's setup, whose forces setup() takes (LAMMPS's setup calls no
// post_force of fix rigid): only a step's sums finish the step.
void FixRigid::set_post_force_sums(std::span<const double> sums) {
  if (!in_step_) return;
  finish_bodies(sums);
}
void FixRigid::sum_final_integrate(const FixTile& t, std::span<double> out) const {
  sum_forces(t, out);
}
void FixRigid::set_final_integrate_sums(std::span<const double> sums) { finish_bodies(sums); }

// LAMMPS's apply_langevin_thermostat, compute_forces_and_torques and the bodies' part of
// final_integrate.
void FixRigid::finish_bodies(std::span<const double> sums) {
  in_step_ = false;
  if (langevin_) {
    Langevin& l = *langevin_;
    const double t_target = l.t_start + ramp_ * (l.t_stop - l.t_start);
    const double tsqrt = std::sqrt(t_target);
    for (Body& b : bodies_) {
      double gamma1 = -b.mass / l.t_period / ftm2v_;
      double gamma2 = std::sqrt(b.mass) * tsqrt *
                      std::sqrt(24.0 * boltz_ / l.t_period / dtv_ / mvv2e_) / ftm2v_;
      for (std::size_t d = 0; d < 3; ++d)
        b.langevin[d] = gamma1 * b.vcm[d] + gamma2 * (l.random->uniform() - 0.5);
      gamma1 = -1.0 / l.t_period / ftm2v_;
      gamma2 = tsqrt * std::sqrt(24.0 * boltz_ / l.t_period / dtv_ / mvv2e_) / ftm2v_;
      const rigid::Vec wbody = rigid::to_body(b.ex, b.ey, b.ez, b.omega);
      rigid::Vec tbody{};
      for (std::size_t d = 0; d < 3; ++d)
        tbody[d] = b.inertia[d] * gamma1 * wbody[d] +
                   std::sqrt(b.inertia[d]) * gamma2 * (l.random->uniform() - 0.5);
      const rigid::Vec t = rigid::to_space(b.ex, b.ey, b.ez, tbody);
      for (std::size_t d = 0; d < 3; ++d) b.langevin[3 + d] = t[d];
    }
  }
  for (std::size_t bi = 0; bi < bodies_.size(); ++bi) {
    Body& b = bodies_[bi];
    for (std::size_t d = 0; d < 3; ++d) {
      b.fcm[d] = sums[6 * bi + d] + b.force_on[d] * b.langevin[d];
      b.torque[d] = sums[6 * bi + 3 + d] + b.torque_on[d] * b.langevin[3 + d];
    }
  }
  if (two_d_enforced_) enforce2d();
  for (Body& b : bodies_) {
    half_kick(b);
    if (no_squish_)
      angular_momentum_from_conjqm(b);
    else
      b.omega = rigid::omega_of(b.angmom, b.ex, b.ey, b.ez, b.inertia);
  }
}

// LAMMPS's FixRigid::enforce2d, which fix enforce2d calls: no motion out of the plane.
void FixRigid::enforce2d() {
  for (Body& b : bodies_) {
    b.xcm[2] = b.vcm[2] = b.fcm[2] = 0.0;
    b.torque[0] = b.torque[1] = 0.0;
    b.angmom[0] = b.angmom[1] = 0.0;
    b.omega[0] = b.omega[1] = 0.0;
    b.langevin[2] = b.langevin[3] = b.langevin[4] = 0.0;
  }
}

void FixRigid::final_integrate(FixTile& t) { set_atom_velocities(t, 1.0); }

std::array<double, 6> FixRigid::tile_virial(const Tile& tile) const {
  return virial_tally_.first_values<6>(tile);
}

// LAMMPS's FixRigid::dof: a body whose atoms are all in the temperature's group keeps 6 degrees
// of freedom of its 3N (5 when linear; 3 of 2N in 2-d).
double FixRigid::dof_removed(Simulation& sim, std::uint32_t group_mask) {
  const std::size_t n = bodies_.size();
  offset_ = sim.per_atom_offset(handle_);
  const auto in_group = sim.reduce_atoms("md.fix_rigid_dof", ReduceOp::sum, n,
                                         [&](const AtomsView& a, std::span<double> out) {
                                           for (std::size_t i = 0; i < a.id.size(); ++i) {
                                             const int b = body_of(a, i);
                                             if (b >= 0 && (a.mask[i] & group_mask))
                                               out[static_cast<std::size_t>(b)] += 1;
                                           }
                                         });
  double removed = 0;
  bool partial = false;
  for (std::size_t b = 0; b < n; ++b) {
    const Body& body = bodies_[b];
    const auto count = static_cast<int>(in_group[b]);
    if (count > 0 && count != body.atoms) partial = true;
    if (count != body.atoms) continue;
    if (dimension_ == 3) {
      removed += 3 * count - 6;
      if (body.inertia[0] == 0.0 || body.inertia[1] == 0.0 || body.inertia[2] == 0.0) removed += 1;
    } else {
      removed += 2 * count - 3;
    }
  }
  if (partial && print_) print_("WARNING: Computing temperature of portions of rigid bodies\n");
  return removed;
}

// LAMMPS's FixRigid::compute_scalar: the bodies' temperature.
double FixRigid::scalar(Simulation& /*sim*/) {
  double t = 0.0;
  for (const Body& b : bodies_) {
    t += b.mass * (b.force_on[0] * b.vcm[0] * b.vcm[0] + b.force_on[1] * b.vcm[1] * b.vcm[1] +
                   b.force_on[2] * b.vcm[2] * b.vcm[2]);
    const rigid::Vec w = rigid::body_angular_velocity(b.angmom, b.quat, b.inertia);
    t += b.torque_on[0] * b.inertia[0] * w[0] * w[0] + b.torque_on[1] * b.inertia[1] * w[1] * w[1] +
         b.torque_on[2] * b.inertia[2] * w[2] * w[2];
  }
  return t * tfactor_;
}

double FixRigid::array(Simulation& /*sim*/, std::size_t row, std::size_t column) {
  if (row >= bodies_.size()) return 0.0;
  const Body& b = bodies_[row];
  if (column < 3) return b.xcm[column];
  if (column < 6) return b.vcm[column - 3];
  if (column < 9) return b.fcm[column - 6];
  if (column < 12) return b.torque[column - 9];
  return static_cast<double>(b.image[std::min<std::size_t>(column - 12, 2)]);
}

}  // namespace tessera::md
