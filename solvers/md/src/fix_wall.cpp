#include "tessera/md/fix_wall.hpp"

#include <cmath>
#include <numbers>

#include "arguments.hpp"
#include "tessera/md/simulation.hpp"

namespace tessera::md {
using namespace arguments;

namespace {
const char* const face_names[] = {"xlo", "xhi", "ylo", "yhi", "zlo", "zhi"};
}

std::string FixWall::style() const {
  switch (kind_) {
    case Kind::lj93:
      return "wall/lj93";
    case Kind::lj126:
      return "wall/lj126";
    case Kind::lj1043:
      return "wall/lj1043";
    case Kind::harmonic:
      break;
  }
  return "wall/harmonic";
}

FixWall::FixWall(const FixArguments& a, Kind kind)
    : Fix(a.id, a.group), kind_(kind), variable_(a.variable) {
  const std::string what = "fix " + a.id + " " + style();
  const std::string usage = "fix ID GROUP " + style() +
                            " FACE COORD EPSILON SIGMA CUTOFF ... [units lattice|box] [pbc yes|no]";
  if (a.from_restart) return;
  need(a.args, 5, usage);
  struct Given {
    Wall wall;
    bool edge = false;
  };
  std::vector<Given> given;
  bool lattice = true, pbc = false;
  for (std::size_t at = 0; at < a.args.size();) {
    const std::string& key = a.args[at];
    int face = -1;
    for (int f = 0; f < 6; ++f)
      if (key == face_names[f]) face = f;
    if (face >= 0) {
      if (at + 4 >= a.args.size())
        bad(what + ": " + key + " needs COORD EPSILON SIGMA CUTOFF; usage: " + usage);
      Given g;
      g.wall.dim = face / 2;
      g.wall.side = face % 2 == 0 ? -1 : 1;
      for (const auto& other : given)
        if (other.wall.dim == g.wall.dim && other.wall.side == g.wall.side)
          bad(what + ": the wall " + key + " is given twice");
      const std::string& coord = a.args[at + 1];
      if (coord == "EDGE") {
        g.edge = true;
      } else if (coord.rfind("v_", 0) == 0) {
        g.wall.variable = coord.substr(2);
        if (!variable_) bad(what + ": no variables here for " + coord);
      } else {
        g.wall.coord = number(what + " " + key, coord);
      }
      for (std::size_t k = 2; k <= 4; ++k)
        if (a.args[at + k].rfind("v_", 0) == 0)
          bad(what + ": a variable epsilon, sigma or cutoff (" + a.args[at + k] +
              ") is not supported");
      g.wall.epsilon = number(what + " " + key, a.args[at + 2]);
      g.wall.sigma = number(what + " " + key, a.args[at + 3]);
      g.wall.cutoff = number(what + " " + key, a.args[at + 4]);
      if (!(g.wall.cutoff > 0)) bad(what + ": the cutoff of wall " + key + " must be positive");
      given.push_back(g);
      at += 5;
    } else if (key == "units" || key == "pbc" || key == "fld") {
      if (at + 1 >= a.args.size()) bad(what + ": " + key + " needs a value");
      const std::string& value = a.args[at + 1];
      if (key == "units") {
        if (value != "lattice" && value != "box")
          bad(what + ": units is lattice or box, not '" + value + "'");
        lattice = value == "lattice";
      } else if (key == "pbc") {
        pbc = yes_no(what + " pbc", value);
      } else if (yes_no(what + " fld", value)) {
        bad(what + ": fld yes (the FLD model of colloids) is not supported");
      }
      at += 2;
    } else {
      bad(what + ": unknown face or keyword '" + key + "'; usage: " + usage);
    }
  }
  if (given.empty()) bad(what + ": no wall is given; usage: " + usage);
  const Simulation* sim = a.sim;
  if (!sim || !sim->has_box()) bad(what + ": the simulation box is not defined yet");
  for (auto& g : given) {
    Wall& w = g.wall;
    const auto d = static_cast<std::size_t>(w.dim);
    const std::string face = face_names[2 * w.dim + (w.side > 0 ? 1 : 0)];
    if (sim->dimension() == 2 && w.dim == 2) bad(what + ": a 2-d simulation has no z walls");
    if (sim->boundary().periodic(d) && !pbc)
      bad(what + ": the wall at " + face +
          " is on a periodic dimension; make it non-periodic with boundary, or use pbc yes");
    // Numbers and variables are in lattice spacings under units lattice, as LAMMPS's FixWall.
    if (g.edge)
      w.coord = w.side < 0 ? sim->box().lo[d] : sim->box().hi[d];
    else if (w.variable.empty() && lattice)
      w.coord *= a.lattice[d];
    if (!w.variable.empty() && lattice) w.variable_scale = a.lattice[d];
    walls_.push_back(w);
  }
  // The style's coefficients (LAMMPS's precompute) and the energy at the cutoff.
  for (auto& w : walls_) {
    const double eps = w.epsilon, sigma = w.sigma, rc = w.cutoff;
    auto& c = w.coeff;
    switch (kind_) {
      case Kind::lj93: {
        c[0] = 6.0 / 5.0 * eps * std::pow(sigma, 9.0);
        c[1] = 3.0 * eps * std::pow(sigma, 3.0);
        c[2] = 2.0 / 15.0 * eps * std::pow(sigma, 9.0);
        c[3] = eps * std::pow(sigma, 3.0);
        const double rinv = 1.0 / rc, r2inv = rinv * rinv, r4inv = r2inv * r2inv;
        w.offset = c[2] * r4inv * r4inv * rinv - c[3] * r2inv * rinv;
        break;
      }
      case Kind::lj126: {
        c[0] = 48.0 * eps * std::pow(sigma, 12.0);
        c[1] = 24.0 * eps * std::pow(sigma, 6.0);
        c[2] = 4.0 * eps * std::pow(sigma, 12.0);
        c[3] = 4.0 * eps * std::pow(sigma, 6.0);
        const double r2inv = 1.0 / (rc * rc), r6inv = r2inv * r2inv * r2inv;
        w.offset = r6inv * (c[2] * r6inv - c[3]);
        break;
      }
      case Kind::lj1043: {
        const double two_pi = 2.0 * std::numbers::pi;
        c[0] = two_pi * 2.0 / 5.0 * eps * std::pow(sigma, 10.0);
        c[1] = two_pi * eps * std::pow(sigma, 4.0);
        c[2] = two_pi * std::pow(2.0, 1 / 2.0) / 3 * eps * std::pow(sigma, 3.0);
        c[3] = 0.61 / std::pow(2.0, 1 / 2.0) * sigma;
        c[4] = c[0] * 10.0;
        c[5] = c[1] * 4.0;
        c[6] = c[2] * 3.0;
        const double rinv = 1.0 / rc, r2inv = rinv * rinv, r4inv = r2inv * r2inv;
        w.offset = c[0] * r4inv * r4inv * r2inv - c[1] * r4inv - c[2] * std::pow(rc + c[3], -3.0);
        break;
      }
      case Kind::harmonic:
        w.offset = 0;
        break;
    }
  }
}

void FixWall::interaction(const Wall& w, double delta, double& energy, double& force) const {
  const auto& c = w.coeff;
  switch (kind_) {
    case Kind::lj93: {
      const double rinv = 1.0 / delta, r2inv = rinv * rinv, r4inv = r2inv * r2inv;
      const double r10inv = r4inv * r4inv * r2inv;
      force = c[0] * r10inv - c[1] * r4inv;
      energy = c[2] * r4inv * r4inv * rinv - c[3] * r2inv * rinv - w.offset;
      return;
    }
    case Kind::lj126: {
      const double rinv = 1.0 / delta, r2inv = rinv * rinv, r6inv = r2inv * r2inv * r2inv;
      force = r6inv * (c[0] * r6inv - c[1]) * rinv;
      energy = r6inv * (c[2] * r6inv - c[3]) - w.offset;
      return;
    }
    case Kind::lj1043: {
      const double rinv = 1.0 / delta, r2inv = rinv * rinv, r4inv = r2inv * r2inv;
      const double r10inv = r4inv * r4inv * r2inv;
      force = c[4] * r10inv * rinv - c[5] * r4inv * rinv - c[6] * std::pow(delta + c[3], -4.0);
      energy = c[0] * r10inv - c[1] * r4inv - c[2] * std::pow(delta + c[3], -3.0) - w.offset;
      return;
    }
    case Kind::harmonic: {
      const double dr = w.cutoff - delta;
      force = 2.0 * w.epsilon * dr;
      energy = w.epsilon * dr * dr;
      return;
    }
  }
}

void FixWall::pre_force(Simulation& sim) {
  for (auto& w : walls_)
    if (!w.variable.empty()) {
      if (!variable_)
        throw ConfigError("fix " + id() + " " + style() + ": its variable " + w.variable +
                          " is gone");
      w.coord = variable_(w.variable) * w.variable_scale;
    }
  tally_.resize(sim.runtime(), walls_.size() + 1);
}

void FixWall::post_force(FixTile& t) {
  const std::span<double> sum = tally_.start_row(t.tile);
  for (std::size_t m = 0; m < walls_.size(); ++m) {
    const Wall& w = walls_[m];
    const auto dim = static_cast<std::size_t>(w.dim);
    for (std::size_t i = 0; i < static_cast<std::size_t>(t.nlocal); ++i) {
      if (!in_group(t, i)) continue;
      const double x = t.x[3 * i + dim];
      const double delta = w.side < 0 ? x - w.coord : w.coord - x;
      if (delta >= w.cutoff) continue;
      if (delta <= 0.0)
        throw Error("fix " + id() + " " + style() + ": atom " + std::to_string(t.id[i]) +
                    " is on or behind the wall at " + face_names[2 * w.dim + (w.side > 0)] +
                    " at step " + std::to_string(t.step) +
                    " (LAMMPS's \"Particle on or inside fix wall surface\"); start the atoms "
                    "inside the walls, or reduce the timestep");
      double energy = 0, force = 0;
      interaction(w, delta, energy, force);
      const double fwall = w.side * force;
      t.f[3 * i + dim] -= fwall;
      sum[0] += energy;
      sum[m + 1] += fwall;
    }
  }
}

double FixWall::tile_energy(const Tile& tile) const { return tally_.first(tile); }

std::vector<double> FixWall::totals(Simulation& sim) {
  return tally_.totals(sim.runtime(), "md.fix_wall", walls_.size() + 1);
}

double FixWall::scalar(Simulation& sim) { return totals(sim)[0]; }

std::vector<double> FixWall::vector(Simulation& sim) {
  const auto t = totals(sim);
  return std::vector<double>(t.begin() + 1, t.end());
}

}  // namespace tessera::md
