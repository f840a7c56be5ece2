#include "tessera/md/fix_wall_reflect_stochastic.hpp"

#include <cmath>

#include "arguments.hpp"
#include "tessera/core/rng.hpp"
#include "tessera/md/fix_wall_reflect.hpp"
#include "tessera/md/simulation.hpp"

namespace tessera::md {
namespace {

// One collision's draws, as LAMMPS's RanMars (uniform in (0, 1), Marsaglia's polar Gaussian).
class Draws {
 public:
  Draws(long long seed, std::int64_t step, std::int64_t id, int wall)
      : engine_(
            rng_stream(static_cast<std::uint64_t>(seed) ^ (static_cast<std::uint64_t>(step) << 32),
                       static_cast<std::uint64_t>(id) * 8 + static_cast<std::uint64_t>(wall))) {}
  double uniform() { return (static_cast<double>(engine_() >> 11) + 0.5) * 0x1.0p-53; }
  double gaussian() {
    double v1, v2, rsq;
    do {
      v1 = 2.0 * uniform() - 1.0;
      v2 = 2.0 * uniform() - 1.0;
      rsq = v1 * v1 + v2 * v2;
    } while (rsq >= 1.0 || rsq == 0.0);
    return v1 * std::sqrt(-2.0 * std::log(rsq) / rsq);
  }
  double gaussian(double mu, double sigma) { return mu + sigma * gaussian(); }
  double rayleigh(double sigma) { return sigma * std::sqrt(-2.0 * std::log(uniform())); }
  // LAMMPS's RanMars::besselexp: the normal velocity of a Cercignani-Lampis reflection.
  double besselexp(double theta, double alpha, double cp) {
    const double v1 = uniform(), v2 = uniform();
    const double spread = 2.0 * std::sqrt(-2.0 * theta * (1.0 - alpha) * alpha * std::log(v1)) *
                          std::cos(2.0 * M_PI * v2) * cp;
    const double base = (1.0 - alpha) * cp * cp - 2.0 * alpha * theta * std::log(v1);
    return cp < 0.0 ? std::sqrt(base + spread) : -std::sqrt(base - spread);
  }

 private:
  RngEngine engine_;
};

}  // namespace

FixWallReflectStochastic::FixWallReflectStochastic(const FixArguments& a) : Fix(a.id, a.group) {
  const std::string what = "fix wall/reflect/stochastic";
  const char* usage =
      "fix ID GROUP wall/reflect/stochastic diffusive|maxwell|ccl SEED FACE COORD T VX VY VZ "
      "[A | AX AY AZ] ... [units lattice|box]";
  arguments::need(a.args, 8, usage);
  const std::string& model = a.args[0];
  std::size_t per_wall = 6;
  if (model == "diffusive") {
    model_ = Model::diffusive;
  } else if (model == "maxwell") {
    model_ = Model::maxwell;
    per_wall = 7;
  } else if (model == "ccl") {
    model_ = Model::ccl;
    per_wall = 9;
  } else {
    arguments::bad(what + ": the model must be diffusive, maxwell or ccl, not '" + model + "'");
  }
  seed_ = arguments::seed_value(what + " SEED", a.args[1], "the seed must be a positive integer");
  ReflectingFaces faces(what);
  for (std::size_t i = 2; i < a.args.size();) {
    const std::string& key = a.args[i];
    if (key == "units") {
      if (i + 1 >= a.args.size()) arguments::bad(what + ": units needs box or lattice");
      faces.set_units(a.args[i + 1]);
      i += 2;
      continue;
    }
    if (!ReflectingFaces::is_face(key))
      arguments::bad(what + ": unknown face or keyword '" + key +
                     "'; use xlo xhi ylo yhi zlo zhi and units");
    if (i + per_wall > a.args.size())
      arguments::bad(what + ": face " + key + " needs " + std::to_string(per_wall - 1) +
                     " values; usage: " + usage);
    faces.add(key, a.args[i + 1]);
    Wall w;
    const int dim = (key[0] - 'x');
    w.temperature = arguments::number(what + " " + key + " T", a.args[i + 2]);
    if (!(w.temperature > 0))
      arguments::bad(what + ": face " + key + ": the wall temperature must be positive");
    for (std::size_t d = 0; d < 3; ++d) {
      w.velocity[d] = arguments::number(what + " " + key + " velocity", a.args[i + 3 + d]);
      if (w.velocity[d] != 0 && static_cast<int>(d) == dim)
        arguments::bad(what + ": face " + key + ": the wall velocity must be tangential");
      if (model_ != Model::diffusive) {
        const std::string& word = a.args[i + (model_ == Model::ccl ? 6 + d : 6)];
        const double coefficient = arguments::number(what + " " + key + " accommodation", word);
        if (!(coefficient >= 0 && coefficient <= 1))
          arguments::bad(what + ": face " + key + ": accommodation coefficients lie in 0..1");
        w.accommodation[d] = coefficient;
      }
    }
    walls_.push_back(w);
    i += per_wall;
  }
  if (faces.empty()) arguments::bad(what + ": give at least one wall; usage: " + usage);
  const auto placed = faces.place(a.sim, a.lattice);
  for (std::size_t k = 0; k < walls_.size(); ++k) walls_[k].face = placed[k];
}

// LAMMPS's FixWallReflectStochastic::wall_particle, wall by wall.
void FixWallReflectStochastic::post_integrate(FixTile& t) {
  const Units& u = *t.units;
  for (std::size_t m = 0; m < walls_.size(); ++m) {
    const Wall& w = walls_[m];
    const auto dim = static_cast<std::size_t>(w.face.dim);
    for (std::size_t i = 0; i < static_cast<std::size_t>(t.nlocal); ++i) {
      if (!in_group(t, i)) continue;
      double* x = &t.x[3 * i];
      double* v = &t.v[3 * i];
      int sign = 0;
      if (!w.face.upper && x[dim] < w.face.coord) sign = 1;
      if (w.face.upper && x[dim] > w.face.coord) sign = -1;
      if (sign == 0) continue;
      const double theta =
          u.boltz * w.temperature / (t.mass[static_cast<std::size_t>(t.type[i])] * u.mvv2e);
      const double factor = std::sqrt(theta);
      const double time = (x[dim] - w.face.coord) / v[dim];  // since the crossing
      Draws draws(seed_, t.step, t.id[i], static_cast<int>(m));
      const double diffuse = model_ == Model::maxwell ? draws.uniform() : 0.0;
      for (std::size_t d = 0; d < 3; ++d) {
        x[d] -= v[d] * time;
        const bool normal = d == dim;
        switch (model_) {
          case Model::diffusive:
            v[d] = normal ? sign * draws.rayleigh(factor) : draws.gaussian(w.velocity[d], factor);
            break;
          case Model::maxwell:
            if (diffuse < w.accommodation[d])
              v[d] = normal ? sign * draws.rayleigh(factor) : draws.gaussian(w.velocity[d], factor);
            else if (normal)
              v[d] = -v[d];
            break;
          case Model::ccl: {
            const double a = w.accommodation[d];
            v[d] = normal ? draws.besselexp(theta, a, v[d])
                          : w.velocity[d] + draws.gaussian((1 - a) * (v[d] - w.velocity[d]),
                                                           std::sqrt((2 - a) * a * theta));
            break;
          }
        }
        if (normal)
          x[d] = w.face.coord + v[d] * time;
        else
          x[d] += v[d] * time;
      }
    }
  }
}

}  // namespace tessera::md
