#include "tessera/md/fix_deform.hpp"

#include <cmath>

#include "arguments.hpp"
#include "tessera/md/simulation.hpp"

namespace tessera::md {

namespace {

const char* const usage =
    "fix ID GROUP deform N x|y|z|xy|xz|yz STYLE ARGS ... [remap x|v|none] [flip yes|no] "
    "[units lattice|box]";
constexpr double two_pi = 2.0 * M_PI;

}  // namespace

FixDeform::FixDeform(const FixArguments& a) : Fix(a.id, a.group), what_("fix " + a.id + " deform") {
  arguments::need(a.args, 3, usage);
  if (!a.sim || !a.sim->has_box()) arguments::bad(what_ + ": needs the simulation box");
  Simulation& sim = *a.sim;
  const Box& box = sim.box();
  every_ = static_cast<int>(arguments::integer(what_ + " N", a.args[0], 1, arguments::int_max));
  std::size_t at = 1;
  const auto value = [&](std::size_t k) {
    if (k >= a.args.size()) arguments::bad(what_ + ": " + a.args[at] + " " + a.args[at + 1] + " needs more values; usage: " + usage);
    return arguments::number(what_, a.args[k]);
  };
  const std::string names[6] = {"x", "y", "z", "yz", "xz", "xy"};
  while (at < a.args.size()) {
    std::size_t index = 6;
    for (std::size_t k = 0; k < 6; ++k)
      if (a.args[at] == names[k]) index = k;
    if (index == 6) break;
    if (at + 1 >= a.args.size()) arguments::bad(what_ + ": " + a.args[at] + " needs a style; usage: " + usage);
    Parameter& p = set_[index];
    const std::string& s = a.args[at + 1];
    const bool length = index < 3;
    if (!length && !box.triclinic)
      arguments::bad(what_ + ": tilt factors (" + names[index] + ") need a triclinic box (region prism)");
    if (s == "final") {
      p.style = Style::final;
      if (length) p.flo = value(at + 2), p.fhi = value(at + 3), at += 4;
      else p.ftilt = value(at + 2), at += 3;
    } else if (s == "delta") {
      p.style = Style::delta;
      if (length) p.dlo = value(at + 2), p.dhi = value(at + 3), at += 4;
      else p.dtilt = value(at + 2), at += 3;
    } else if (s == "scale" && length) {
      p.style = Style::scale, p.scale = value(at + 2), at += 3;
    } else if (s == "vel") {
      p.style = Style::vel, p.vel = value(at + 2), at += 3;
    } else if (s == "erate") {
      p.style = Style::erate, p.rate = value(at + 2), at += 3;
    } else if (s == "trate") {
      p.style = Style::trate, p.rate = value(at + 2), at += 3;
    } else if (s == "volume" && length) {
      p.style = Style::volume, at += 2;
    } else if (s == "wiggle") {
      p.style = Style::wiggle, p.amplitude = value(at + 2), p.period = value(at + 3), at += 4;
      if (!(p.period > 0)) arguments::bad(what_ + ": the wiggle period must be positive");
    } else if (s == "variable") {
      arguments::bad(what_ + ": the variable style is not supported");
    } else {
      arguments::bad(what_ + ": unknown style '" + s + "' for " + names[index] + "; usage: " + usage);
    }
  }
  bool lattice_units = true;
  for (; at < a.args.size(); at += 2) {
    const std::string& key = a.args[at];
    if (at + 1 >= a.args.size()) arguments::bad(what_ + ": " + key + " needs a value");
    const std::string& v = a.args[at + 1];
    if (key == "remap") {
      if (v == "x") remap_ = Remap::x;
      else if (v == "v") remap_ = Remap::v;
      else if (v == "none") remap_ = Remap::none;
      else arguments::bad(what_ + ": remap must be x, v or none, not '" + v + "'");
    } else if (key == "units") {
      if (v != "box" && v != "lattice") arguments::bad(what_ + ": units must be box or lattice, not '" + v + "'");
      lattice_units = v == "lattice";
    } else if (key == "flip") {
      flip_allowed_ = arguments::yes_no(what_ + " flip", v);
    } else {
      arguments::bad(what_ + ": unknown keyword '" + key + "'; usage: " + usage);
    }
  }
  bool any = false;
  for (const auto& p : set_) any = any || p.style != Style::none;
  if (!any) arguments::bad(what_ + ": nothing to deform; usage: " + usage);
  // As LAMMPS: no length change on a shrink-wrapped dimension, no tilt along one.
  const Boundary& bc = sim.boundary();
  const auto shrinks = [&](std::size_t d) { return bc.shrinks(d, 0) || bc.shrinks(d, 1); };
  for (std::size_t d = 0; d < 3; ++d)
    if (set_[d].style != Style::none && shrinks(d))
      arguments::bad(what_ + ": cannot deform a shrink-wrapped boundary");
  if ((set_[3].style != Style::none && shrinks(2)) || (set_[4].style != Style::none && shrinks(2)) ||
      (set_[5].style != Style::none && shrinks(1)))
    arguments::bad(what_ + ": cannot tilt along a shrink-wrapped dimension");
  // Lattice spacings for final, delta, vel and wiggle (a tilt's in its first dimension).
  const double map[6] = {a.lattice[0], a.lattice[1], a.lattice[2], a.lattice[1], a.lattice[0], a.lattice[0]};
  for (std::size_t i = 0; i < 6 && lattice_units; ++i) {
    Parameter& p = set_[i];
    p.flo *= map[i], p.fhi *= map[i], p.dlo *= map[i], p.dhi *= map[i], p.vel *= map[i];
    p.amplitude *= map[i], p.ftilt *= map[i], p.dtilt *= map[i];
  }
  // volume: which other dimensions it follows (LAMMPS's fixed, dynamic1, dynamic2).
  for (int i = 0; i < 3; ++i) {
    Parameter& p = set_[static_cast<std::size_t>(i)];
    if (p.style != Style::volume) continue;
    const int o1 = (i + 1) % 3, o2 = (i + 2) % 3;
    const Style s1 = set_[static_cast<std::size_t>(o1)].style, s2 = set_[static_cast<std::size_t>(o2)].style;
    const auto invalid = [&] { arguments::bad(what_ + ": the volume setting is invalid (LAMMPS's rule: one or two other dimensions must change, not by volume)"); };
    if (s1 == Style::none) {
      if (s2 == Style::none || s2 == Style::volume) invalid();
      p.linked = Linked::one_from_one, p.fixed = o1, p.dynamic1 = o2;
    } else if (s2 == Style::none) {
      if (s1 == Style::volume) invalid();
      p.linked = Linked::one_from_one, p.fixed = o2, p.dynamic1 = o1;
    } else if (s1 == Style::volume) {
      if (s2 == Style::volume) invalid();
      p.linked = Linked::two_from_one, p.fixed = o1, p.dynamic1 = o2;
    } else if (s2 == Style::volume) {
      p.linked = Linked::two_from_one, p.fixed = o2, p.dynamic1 = o1;
    } else {
      p.linked = Linked::one_from_two, p.dynamic1 = o1, p.dynamic2 = o2;
    }
  }
  // The box when the fix is defined (for runs with start/stop).
  for (std::size_t i = 0; i < 3; ++i) {
    set_[i].lo_initial = box.lo[i], set_[i].hi_initial = box.hi[i];
    set_[i].vol_initial = box.length(0) * box.length(1) * box.length(2);
  }
  set_[3].tilt_initial = box.yz, set_[4].tilt_initial = box.xz, set_[5].tilt_initial = box.xy;
}

// LAMMPS's FixDeform::init: each run's start and stop values, and the box's rates.
void FixDeform::setup(Simulation& sim) {
  for (const auto& fix : sim.fixes())
    if (fix.get() != this && fix->style() == "deform")
      throw ConfigError(what_ + ": more than one fix deform (LAMMPS allows one)");
  const Box& box = sim.box();
  const double delt = static_cast<double>(sim.ramp_end() - sim.ramp_begin()) * sim.timestep();
  const bool from_now = sim.run_first() == sim.ramp_begin();
  for (std::size_t i = 0; i < 3; ++i) {
    Parameter& p = set_[i];
    if (from_now) {
      p.lo_start = box.lo[i], p.hi_start = box.hi[i];
      p.vol_start = box.length(0) * box.length(1) * box.length(2);
    } else {
      p.lo_start = p.lo_initial, p.hi_start = p.hi_initial, p.vol_start = p.vol_initial;
    }
    const double mid = 0.5 * (p.lo_start + p.hi_start), length = p.hi_start - p.lo_start;
    switch (p.style) {
      case Style::final: p.lo_stop = p.flo, p.hi_stop = p.fhi; break;
      case Style::delta: p.lo_stop = p.lo_start + p.dlo, p.hi_stop = p.hi_start + p.dhi; break;
      case Style::scale:
        p.lo_stop = mid - 0.5 * p.scale * length, p.hi_stop = mid + 0.5 * p.scale * length;
        break;
      case Style::vel:
        p.lo_stop = p.lo_start - 0.5 * delt * p.vel, p.hi_stop = p.hi_start + 0.5 * delt * p.vel;
        break;
      case Style::erate:
        p.lo_stop = p.lo_start - 0.5 * delt * p.rate * length;
        p.hi_stop = p.hi_start + 0.5 * delt * p.rate * length;
        if (p.hi_stop <= p.lo_stop)
          throw ConfigError(what_ + ": the final box length along " + "xyz"[i] + " would be negative");
        break;
      case Style::trate:
        p.lo_stop = mid - 0.5 * (length * std::exp(p.rate * delt));
        p.hi_stop = mid + 0.5 * (length * std::exp(p.rate * delt));
        break;
      case Style::wiggle:
        p.lo_stop = p.lo_start - 0.5 * p.amplitude * std::sin(two_pi * delt / p.period);
        p.hi_stop = p.hi_start + 0.5 * p.amplitude * std::sin(two_pi * delt / p.period);
        break;
      default: p.lo_stop = p.lo_start, p.hi_stop = p.hi_start; break;
    }
  }
  const double current_tilt[6] = {0, 0, 0, box.yz, box.xz, box.xy};
  for (std::size_t i = 3; i < 6; ++i) {
    Parameter& p = set_[i];
    p.tilt_start = from_now ? current_tilt[i] : p.tilt_initial;
    // erate: relative to the length of the tilt's second dimension (z for yz and xz, y for xy).
    const Parameter& second = set_[i == 5 ? 1 : 2];
    switch (p.style) {
      case Style::final: p.tilt_stop = p.ftilt; break;
      case Style::delta: p.tilt_stop = p.tilt_start + p.dtilt; break;
      case Style::vel: p.tilt_stop = p.tilt_start + delt * p.vel; break;
      case Style::erate:
        p.tilt_stop = p.tilt_start + delt * p.rate * (second.hi_start - second.lo_start);
        break;
      case Style::trate:
        p.tilt_stop = p.tilt_start * std::exp(p.rate * delt);
        if (p.tilt_start == 0.0)
          throw ConfigError(what_ + ": trate on a tilt that is zero (LAMMPS refuses it)");
        break;
      case Style::wiggle: {
        // The extremes LAMMPS takes the tilt to reach over the run (for the yz-with-xy check).
        const double a = p.amplitude, wave = a * std::sin(two_pi * delt / p.period);
        const double q = delt / p.period, t0 = p.tilt_start;
        p.tilt_stop = t0 + wave;
        if (a >= 0.0) {
          p.tilt_min = q < 0.5 ? t0 : (q < 0.75 ? t0 - wave : t0 - a);
          p.tilt_max = q < 0.25 ? t0 + wave : t0 + a;
        } else {
          p.tilt_min = q < 0.25 ? t0 - wave : t0 - a;
          p.tilt_max = q < 0.5 ? t0 : (q < 0.75 ? t0 + wave : t0 + a);
        }
        break;
      }
      default: p.tilt_stop = p.tilt_start; break;
    }
  }
  // A yz that flips would keep changing xz while xy changes too (LAMMPS's check).
  if (flip_allowed_ && set_[3].style != Style::none && set_[5].style != Style::none) {
    const double lo = set_[3].style == Style::wiggle ? set_[3].tilt_min : set_[3].tilt_stop;
    const double hi = set_[3].style == Style::wiggle ? set_[3].tilt_max : set_[3].tilt_stop;
    bool flag = lo / (set_[1].hi_start - set_[1].lo_start) < -0.5 ||
                hi / (set_[1].hi_start - set_[1].lo_start) > 0.5;
    if (set_[1].style != Style::none)
      flag = flag || lo / (set_[1].hi_stop - set_[1].lo_stop) < -0.5 ||
             hi / (set_[1].hi_stop - set_[1].lo_stop) > 0.5;
    if (flag) throw ConfigError(what_ + ": yz changes too much while xy changes (LAMMPS's limit)");
  }
  // The rates, constant for the linear styles (trate and wiggle set theirs at each step).
  h_rate_ = {}, h_ratelo_ = {};
  for (std::size_t i = 0; i < 3; ++i) {
    const Style s = set_[i].style;
    if (s == Style::final || s == Style::delta || s == Style::scale || s == Style::vel ||
        s == Style::erate) {
      const double dlo = delt != 0.0 ? (set_[i].lo_stop - set_[i].lo_start) / delt : 0.0;
      const double dhi = delt != 0.0 ? (set_[i].hi_stop - set_[i].hi_start) / delt : 0.0;
      h_rate_[i] = dhi - dlo, h_ratelo_[i] = dlo;
    }
  }
  for (std::size_t i = 3; i < 6; ++i) {
    const Style s = set_[i].style;
    if (s == Style::final || s == Style::delta || s == Style::vel || s == Style::erate)
      h_rate_[i] = delt != 0.0 ? (set_[i].tilt_stop - set_[i].tilt_start) / delt : 0.0;
  }
  set_rates(sim);
}

void FixDeform::set_rates(Simulation& sim) {
  Simulation::BoxRate rate;
  rate.h_rate = h_rate_, rate.h_ratelo = h_ratelo_;
  rate.vremap_mask = remap_ == Remap::v ? group_mask() : 0u;
  sim.set_box_rate(rate);
}

void FixDeform::release(Simulation& sim) { sim.set_box_rate({}); }

// LAMMPS's FixDeform::pre_exchange: the flip decided at the last step's end.
void FixDeform::pre_exchange(Simulation& sim) {
  if (!flip_) return;
  flip_ = false;
  Box box = sim.box();
  box.yz = set_[3].tilt_target = set_[3].tilt_flip;
  box.xz = set_[4].tilt_target = set_[4].tilt_flip;
  box.xy = set_[5].tilt_target = set_[5].tilt_flip;
  sim.change_box(box);
  sim.remap_atoms(/*migrate=*/true, flips_);
}

// LAMMPS's FixDeform::end_of_step.
void FixDeform::end_of_step(Simulation& sim) {
  const Box& box = sim.box();
  const double delta = sim.ramp_fraction();
  const double elapsed = static_cast<double>(sim.step() - sim.ramp_begin()) * sim.timestep();
  for (std::size_t i = 0; i < 3; ++i) {
    Parameter& p = set_[i];
    const double mid = 0.5 * (p.lo_start + p.hi_start), length = p.hi_start - p.lo_start;
    if (p.style == Style::none) {
      p.lo_target = box.lo[i], p.hi_target = box.hi[i];
    } else if (p.style == Style::trate) {
      p.lo_target = mid - 0.5 * (length * std::exp(p.rate * elapsed));
      p.hi_target = mid + 0.5 * (length * std::exp(p.rate * elapsed));
      h_rate_[i] = p.rate * box.length(static_cast<int>(i));
      h_ratelo_[i] = -0.5 * h_rate_[i];
    } else if (p.style == Style::wiggle) {
      p.lo_target = p.lo_start - 0.5 * p.amplitude * std::sin(two_pi * elapsed / p.period);
      p.hi_target = p.hi_start + 0.5 * p.amplitude * std::sin(two_pi * elapsed / p.period);
      h_rate_[i] = two_pi / p.period * p.amplitude * std::cos(two_pi * elapsed / p.period);
      h_ratelo_[i] = -0.5 * h_rate_[i];
    } else if (p.style != Style::volume) {
      p.lo_target = p.lo_start + delta * (p.lo_stop - p.lo_start);
      p.hi_target = p.hi_start + delta * (p.hi_stop - p.hi_start);
    }
  }
  for (std::size_t i = 0; i < 3; ++i) {
    Parameter& p = set_[i];
    if (p.style != Style::volume) continue;
    const double mid = 0.5 * (p.lo_start + p.hi_start);
    const Parameter& d1 = set_[static_cast<std::size_t>(p.dynamic1)];
    const Parameter& fixed = set_[static_cast<std::size_t>(p.fixed)];
    double half = 0;
    if (p.linked == Linked::one_from_one) {
      half = 0.5 * (p.vol_start / (d1.hi_target - d1.lo_target) / (fixed.hi_start - fixed.lo_start));
    } else if (p.linked == Linked::one_from_two) {
      const Parameter& d2 = set_[static_cast<std::size_t>(p.dynamic2)];
      half = 0.5 * (p.vol_start / (d1.hi_target - d1.lo_target) / (d2.hi_target - d2.lo_target));
    } else {
      half = 0.5 * std::sqrt(p.vol_start / (d1.hi_target - d1.lo_target) /
                             (fixed.hi_start - fixed.lo_start) * (p.hi_start - p.lo_start));
    }
    p.lo_target = mid - half, p.hi_target = mid + half;
  }
  if (box.triclinic) {
    const double h[6] = {box.length(0), box.length(1), box.length(2), box.yz, box.xz, box.xy};
    for (std::size_t i = 3; i < 6; ++i) {
      Parameter& p = set_[i];
      if (p.style == Style::none) {
        p.tilt_target = h[i];
      } else if (p.style == Style::trate) {
        p.tilt_target = p.tilt_start * std::exp(p.rate * elapsed);
        h_rate_[i] = p.rate * h[i];
      } else if (p.style == Style::wiggle) {
        p.tilt_target = p.tilt_start + p.amplitude * std::sin(two_pi * elapsed / p.period);
        h_rate_[i] = two_pi / p.period * p.amplitude * std::cos(two_pi * elapsed / p.period);
      } else {
        p.tilt_target = p.tilt_start + delta * (p.tilt_stop - p.tilt_start);
      }
      // The target moved by whole box lengths to the one nearest the current tilt (after a flip).
      const std::size_t idenom = i == 3 ? 1 : 0;
      const double denom = set_[idenom].hi_target - set_[idenom].lo_target;
      const double current = h[i] / h[idenom];
      while (p.tilt_target / denom - current > 0.0) p.tilt_target -= denom;
      while (p.tilt_target / denom - current < 0.0) p.tilt_target += denom;
      if (std::fabs(p.tilt_target / denom - 1.0 - current) < std::fabs(p.tilt_target / denom - current))
        p.tilt_target -= denom;
    }
  }
  // A tilt beyond half of its length: flip at the next step, before the rebuild (LAMMPS checks
  // yz first, since its flip changes xz). Not across a non-periodic dimension.
  if (box.triclinic && flip_allowed_) {
    const double xprd = set_[0].hi_target - set_[0].lo_target;
    const double yprd = set_[1].hi_target - set_[1].lo_target;
    const double xinv = 1.0 / xprd, yinv = 1.0 / yprd;
    const auto beyond = [](double ratio) { return ratio < -0.5 || ratio > 0.5; };
    if (beyond(set_[3].tilt_target * yinv) || beyond(set_[4].tilt_target * xinv) ||
        beyond(set_[5].tilt_target * xinv)) {
      for (std::size_t i = 3; i < 6; ++i) set_[i].tilt_flip = set_[i].tilt_target;
      int flipxy = 0, flipxz = 0, flipyz = 0;
      const Boundary& bc = sim.boundary();
      if (bc.periodic(1)) {
        if (set_[3].tilt_flip * yinv < -0.5) {
          set_[3].tilt_flip += yprd, set_[4].tilt_flip += set_[5].tilt_flip, flipyz = 1;
        } else if (set_[3].tilt_flip * yinv > 0.5) {
          set_[3].tilt_flip -= yprd, set_[4].tilt_flip -= set_[5].tilt_flip, flipyz = -1;
        }
      }
      if (bc.periodic(0)) {
        if (set_[4].tilt_flip * xinv < -0.5) set_[4].tilt_flip += xprd, flipxz = 1;
        if (set_[4].tilt_flip * xinv > 0.5) set_[4].tilt_flip -= xprd, flipxz = -1;
        if (set_[5].tilt_flip * xinv < -0.5) set_[5].tilt_flip += xprd, flipxy = 1;
        if (set_[5].tilt_flip * xinv > 0.5) set_[5].tilt_flip -= xprd, flipxy = -1;
      }
      flips_ = {flipxy, flipxz, flipyz};
      flip_ = flipxy || flipxz || flipyz;
      if (flip_) flip_step_ = sim.step() + 1;
    }
  }
  // The new box; with remap x the group's atoms move with it (through fractional coordinates).
  Box next = box;
  for (std::size_t i = 0; i < 3; ++i)
    if (set_[i].style != Style::none) next.lo[i] = set_[i].lo_target, next.hi[i] = set_[i].hi_target;
  if (box.triclinic) {
    if (set_[3].style != Style::none) next.yz = set_[3].tilt_target;
    if (set_[4].style != Style::none) next.xz = set_[4].tilt_target;
    if (set_[5].style != Style::none) next.xy = set_[5].tilt_target;
  }
  if (remap_ == Remap::x) {
    const BoxMatrix before(box), after(next);
    sim.for_each_tile("md.fix_deform_remap", [&](FixTile& t) {
      for (std::size_t i = 0; i < static_cast<std::size_t>(t.nlocal); ++i) {
        if (!in_group(t, i)) continue;
        before.to_fraction(&t.x[3 * i], &t.x[3 * i]);
        after.to_cartesian(&t.x[3 * i], &t.x[3 * i]);
      }
    });
  }
  sim.change_box(next);
  set_rates(sim);
}

nlohmann::json FixDeform::global_state() const {
  nlohmann::json state = nlohmann::json::array();
  for (const auto& p : set_)
    state.push_back({{"style", static_cast<int>(p.style)}, {"linked", static_cast<int>(p.linked)},
                     {"lo", p.lo_initial}, {"hi", p.hi_initial}, {"volume", p.vol_initial},
                     {"tilt", p.tilt_initial}});
  return state;
}

// LAMMPS's FixDeform::restart: the box at the fix's definition, for a fix of the same settings.
void FixDeform::restore_state(const nlohmann::json& state, const std::string& where) {
  if (!state.is_array() || state.size() != 6)
    throw ConfigError(where + ": fix " + id() + " deform: its restart state is malformed");
  for (std::size_t i = 0; i < 6; ++i) {
    const auto& s = state[i];
    if (s.value("style", -1) != static_cast<int>(set_[i].style) ||
        s.value("linked", -1) != static_cast<int>(set_[i].linked))
      throw ConfigError(where + ": fix " + id() +
                        " deform: its settings differ from those in the restart file (LAMMPS's "
                        "\"Fix deform settings not consistent with restart\")");
    set_[i].lo_initial = s.value("lo", 0.0), set_[i].hi_initial = s.value("hi", 0.0);
    set_[i].vol_initial = s.value("volume", 0.0), set_[i].tilt_initial = s.value("tilt", 0.0);
  }
}

}  // namespace tessera::md
