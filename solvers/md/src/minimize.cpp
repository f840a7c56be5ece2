#include "tessera/md/minimize.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>

namespace tessera::md {
namespace {

// LAMMPS's constants (min.h, min_linesearch.cpp).
constexpr double eps_energy = 1.0e-8;
constexpr double alpha_max = 1.0, alpha_reduce = 0.5, backtrack_slope = 0.4;
constexpr double quadratic_tol = 0.1, emach = 1.0e-8, eps_quad = 1.0e-28;

enum Stop { maxiter, maxeval, etol, ftol, downhill, zeroalpha, zeroforce, zeroquad, maxvdotf };
const char* stop_text(Stop s) {
  static const char* const text[] = {"max iterations",
                                     "max force evaluations",
                                     "energy tolerance",
                                     "force tolerance",
                                     "search direction is not downhill",
                                     "linesearch alpha is zero",
                                     "forces are zero",
                                     "quadratic factors are zero",
                                     "max iterations with v.f negative"};
  return text[s];
}

// The per-atom vectors: the line search's start x0, the previous force g, the direction h.
constexpr std::size_t x0_at = 0, g_at = 3, h_at = 6, width = 9;

class Minimizer {
 public:
  Minimizer(Simulation& sim, const MinSettings& settings) : sim_(sim), s_(settings) {}

  MinStats run();

 private:
  double normalized(double e) const {
    return s_.normalize && sim_.natoms() > 0 ? e / static_cast<double>(sim_.natoms()) : e;
  }
  // Reductions over every owned atom's 3 components: sum f.f, sum f.g, sum f.h, max |h|, max
  // f_i^2 (LAMMPS's fnorm_inf), max |f_atom|^2 (fnorm_max).
  struct Sums {
    double ff = 0, fg = 0, fh = 0, hmax = 0, finf = 0, fatom = 0;
  };
  Sums sums();
  double force_norm_sq(const Sums& t) const {
    return s_.norm == MinSettings::Norm::max   ? t.fatom
           : s_.norm == MinSettings::Norm::inf ? t.finf
                                               : t.ff;
  }
  // x = x0 + alpha h, then the energy there (LAMMPS's alpha_step and energy_force).
  double alpha_step(double alpha, bool reset);
  Stop line_search(double eoriginal, double& alpha);
  Stop iterate();
  Stop iterate_fire();
  Stop iterate_fire_old();

  Simulation& sim_;
  const MinSettings& s_;
  int handle_ = 0;        // our per-atom vectors
  std::size_t base_ = 0;  // where they start in each atom's per-atom values
  double ecurrent_ = 0, eprevious_ = 0, alpha_final_ = 0;
  long long niter_ = 0, neval_ = 0;
};

Minimizer::Sums Minimizer::sums() {
  const std::size_t b = base_;
  const auto add = sim_.reduce_atoms(
      "md.min_sums", ReduceOp::sum, 3, [&](const AtomsView& a, std::span<double> out) {
        for (std::size_t i = 0; i < a.id.size(); ++i)
          for (std::size_t d = 0; d < 3; ++d) {
            const double f = a.f[3 * i + d];
            const double* v = &a.per_atom[a.per_atom_width * i + b];
            out[0] += f * f, out[1] += f * v[g_at + d], out[2] += f * v[h_at + d];
          }
      });
  const auto most = sim_.reduce_atoms(
      "md.min_maxima", ReduceOp::max, 3, [&](const AtomsView& a, std::span<double> out) {
        for (std::size_t i = 0; i < a.id.size(); ++i) {
          double atom = 0;
          for (std::size_t d = 0; d < 3; ++d) {
            const double f = a.f[3 * i + d];
            out[0] = std::max(out[0], std::fabs(a.per_atom[a.per_atom_width * i + b + h_at + d]));
            out[1] = std::max(out[1], f * f);
            atom += f * f;
          }
          out[2] = std::max(out[2], atom);
        }
      });
  return {add[0], add[1], add[2], most[0], most[1], most[2]};
}

double Minimizer::alpha_step(double alpha, bool reset) {
  const std::size_t b = base_;
  const auto result = sim_.min_energy_force([&](FixTile& t) {
    for (std::size_t i = 0; i < static_cast<std::size_t>(t.nlocal); ++i) {
      double* v = &t.per_atom[t.per_atom_width * i + b];
      for (std::size_t d = 0; d < 3; ++d)
        t.x[3 * i + d] = alpha > 0 ? v[x0_at + d] + alpha * v[h_at + d] : v[x0_at + d];
    }
  });
  ++neval_;
  if (result.rebuilt && reset) {
    // Atoms wrapped across a periodic face: their x0 follow (LAMMPS's FixMinimize::
    // reset_coords), so that x - x0 stays the move.
    const Box box = sim_.box();
    const std::array<bool, 3> periodic = sim_.boundary().periodicity();
    sim_.for_each_tile("md.min_reset_coords", [&](FixTile& t) {
      for (std::size_t i = 0; i < static_cast<std::size_t>(t.nlocal); ++i) {
        double* x0 = &t.per_atom[t.per_atom_width * i + b + x0_at];
        double dx0[3], dx[3];
        for (std::size_t d = 0; d < 3; ++d) dx[d] = dx0[d] = t.x[3 * i + d] - x0[d];
        minimum_image(box, periodic, dx);
        for (std::size_t d = 0; d < 3; ++d)
          if (dx[d] != dx0[d]) x0[d] = t.x[3 * i + d] - dx[d];
      }
    });
  }
  return normalized(result.energy);
}

// LAMMPS's MinLineSearch::linemin_quadratic, step for step.
Stop Minimizer::line_search(double eoriginal, double& alpha) {
  const std::size_t b = base_;
  const double n = s_.normalize ? static_cast<double>(sim_.natoms()) : 1.0;
  Sums t = sums();
  const double fdothall = t.fh / n;
  if (fdothall <= 0.0) return downhill;
  if (t.hmax == 0.0) return zeroforce;
  const double alphamax = std::min(alpha_max, s_.dmax / t.hmax);
  sim_.for_each_tile("md.min_store_x0", [&](FixTile& v) {
    for (std::size_t i = 0; i < static_cast<std::size_t>(v.nlocal); ++i)
      for (std::size_t d = 0; d < 3; ++d)
        v.per_atom[v.per_atom_width * i + b + x0_at + d] = v.x[3 * i + d];
  });
  alpha = alphamax;
  double fhprev = fdothall, engprev = eoriginal, alphaprev = 0.0;
  while (true) {
    ecurrent_ = alpha_step(alpha, true);
    t = sums();
    const double fh = t.fh / n;
    const double delfh = fh - fhprev;
    if (std::fabs(fh) < eps_quad || std::fabs(delfh) < eps_quad) {
      ecurrent_ = alpha_step(0.0, false);
      return zeroquad;
    }
    const double relerr =
        std::fabs(1.0 - (0.5 * (alpha - alphaprev) * (fh + fhprev) + ecurrent_) / engprev);
    const double alpha0 = alpha - (alpha - alphaprev) * fh / delfh;
    if (relerr <= quadratic_tol && alpha0 > 0.0 && alpha0 < alphamax) {
      ecurrent_ = alpha_step(alpha0, true);
      if (ecurrent_ - eoriginal < emach) return maxiter;  // success
    }
    const double de_ideal = -backtrack_slope * alpha * fdothall;
    const double de = ecurrent_ - eoriginal;
    if (de <= de_ideal) return maxiter;  // success
    fhprev = fh;
    engprev = ecurrent_;
    alphaprev = alpha;
    alpha *= alpha_reduce;
    if (alpha <= 0.0 || de_ideal >= -emach) {
      ecurrent_ = alpha_step(0.0, false);
      return zeroalpha;
    }
  }
}

// LAMMPS's MinCG::iterate and MinSD::iterate. (maxiter from line_search means success.)
Stop Minimizer::iterate() {
  const std::size_t b = base_;
  const bool cg = s_.style == "cg";
  sim_.for_each_tile("md.min_start", [&](FixTile& v) {
    for (std::size_t i = 0; i < static_cast<std::size_t>(v.nlocal); ++i)
      for (std::size_t d = 0; d < 3; ++d) {
        double* p = &v.per_atom[v.per_atom_width * i + b];
        p[g_at + d] = p[h_at + d] = v.f[3 * i + d];
      }
  });
  double gg = sums().ff;
  const double ndof = 3.0 * static_cast<double>(sim_.natoms());
  const long long nlimit =
      static_cast<long long>(std::min<double>(std::numeric_limits<int>::max(), ndof));
  for (long long iter = 0; iter < s_.max_iterations; ++iter) {
    sim_.set_step(sim_.step() + 1);
    ++niter_;
    eprevious_ = ecurrent_;
    const Stop fail = line_search(ecurrent_, alpha_final_);
    if (fail != maxiter) return fail;
    if (neval_ >= s_.max_evaluations) return maxeval;
    if (std::fabs(ecurrent_ - eprevious_) <
        s_.etol * 0.5 * (std::fabs(ecurrent_) + std::fabs(eprevious_) + eps_energy))
      return etol;
    const Sums t = sums();
    if (s_.ftol > 0.0 && force_norm_sq(t) < s_.ftol * s_.ftol) return ftol;
    if (cg) {
      // Polak-Ribiere, restarted every ndof iterations.
      double beta = std::max(0.0, (t.ff - t.fg) / gg);
      if ((niter_ + 1) % nlimit == 0) beta = 0.0;
      gg = t.ff;
      sim_.for_each_tile("md.min_direction", [&](FixTile& v) {
        for (std::size_t i = 0; i < static_cast<std::size_t>(v.nlocal); ++i)
          for (std::size_t d = 0; d < 3; ++d) {
            double* p = &v.per_atom[v.per_atom_width * i + b];
            p[g_at + d] = v.f[3 * i + d];
            p[h_at + d] = p[g_at + d] + beta * p[h_at + d];
          }
      });
      // Not downhill: restart along the force.
      const auto gh = sim_.reduce_atoms(
          "md.min_downhill", ReduceOp::sum, 1, [&](const AtomsView& a, std::span<double> out) {
            for (std::size_t i = 0; i < a.id.size(); ++i)
              for (std::size_t d = 0; d < 3; ++d) {
                const double* p = &a.per_atom[a.per_atom_width * i + b];
                out[0] += p[g_at + d] * p[h_at + d];
              }
          });
      if (gh[0] <= 0.0)
        sim_.for_each_tile("md.min_restart", [&](FixTile& v) {
          for (std::size_t i = 0; i < static_cast<std::size_t>(v.nlocal); ++i)
            for (std::size_t d = 0; d < 3; ++d) {
              double* p = &v.per_atom[v.per_atom_width * i + b];
              p[h_at + d] = p[g_at + d];
            }
        });
    } else {
      sim_.for_each_tile("md.min_direction", [&](FixTile& v) {
        for (std::size_t i = 0; i < static_cast<std::size_t>(v.nlocal); ++i)
          for (std::size_t d = 0; d < 3; ++d)
            v.per_atom[v.per_atom_width * i + b + h_at + d] = v.f[3 * i + d];
      });
    }
    sim_.observe(false, iter + 1 == s_.max_iterations);
  }
  return maxiter;
}

// LAMMPS's MinFire::iterate (FIRE 2.0), step for step. The velocities are the atoms'; the
// timestep is the simulation's (thermo's dt shows it), restored when the minimization ends.
Stop Minimizer::iterate_fire() {
  using Integrator = MinSettings::Integrator;
  const Integrator integrator = s_.integrator;
  const double ftm2v = sim_.units().ftm2v, dmax = s_.dmax;
  double dt = sim_.timestep();
  const double dtmax = s_.tmax * dt, dtmin = s_.tmin * dt;
  double alpha = s_.alpha0;
  const std::int64_t start = sim_.step();
  std::int64_t last_negative = start;
  long long vdotf_negative = 0;
  // Velocities are zero at the start (run()), and after every uphill step (flagv0).
  bool flagv0 = true;
  // v = factor f / m for every atom.
  const auto velocities_from_forces = [](FixTile& t, double factor) {
    for (std::size_t i = 0; i < static_cast<std::size_t>(t.nlocal); ++i) {
      const double dtfm = factor / t.mass[static_cast<std::size_t>(t.type[i])];
      for (std::size_t d = 0; d < 3; ++d) t.v[3 * i + d] = dtfm * t.f[3 * i + d];
    }
  };
  if (integrator == Integrator::leapfrog) {
    sim_.min_energy_force([](FixTile&) {});
    ++neval_;
    sim_.for_each_tile("md.fire_leapfrog_start",
                       [&](FixTile& t) { velocities_from_forces(t, -0.5 * dt * ftm2v); });
  }
  for (long long iter = 0; iter < s_.max_iterations; ++iter) {
    const std::int64_t step = sim_.step() + 1;
    sim_.set_step(step);
    ++niter_;
    const double vdotf = sim_.reduce_atoms("md.fire_vdotf", ReduceOp::sum, 1,
                                           [&](const AtomsView& a, std::span<double> out) {
                                             for (std::size_t i = 0; i < a.id.size(); ++i) {
                                               const double* v = &a.v[3 * i];
                                               const double* f = &a.f[3 * i];
                                               out[0] += v[0] * f[0] + v[1] * f[1] + v[2] * f[2];
                                             }
                                           })[0];
    double scale1 = 0, scale2 = 0;
    bool step_back = false;
    if (vdotf > 0.0) {
      // Downhill: mix the velocities towards the force, and after delaystep such steps in a
      // row grow the timestep and decay the mixing.
      vdotf_negative = 0;
      const auto vf = sim_.reduce_atoms("md.fire_norms", ReduceOp::sum, 2,
                                        [&](const AtomsView& a, std::span<double> out) {
                                          for (std::size_t i = 0; i < a.id.size(); ++i) {
                                            const double* v = &a.v[3 * i];
                                            const double* f = &a.f[3 * i];
                                            out[0] += v[0] * v[0] + v[1] * v[1] + v[2] * v[2];
                                            out[1] += f[0] * f[0] + f[1] * f[1] + f[2] * f[2];
                                          }
                                        });
      scale1 = 1.0 - alpha;
      scale2 = vf[1] <= 1e-20 ? 0.0 : alpha * std::sqrt(vf[0] / vf[1]);
      if (step - last_negative > s_.delaystep) {
        dt = std::min(dt * s_.dtgrow, dtmax);
        sim_.set_timestep(dt);
        alpha *= s_.alphashrink;
      }
    } else {
      // Uphill: back off (unless within the first delaystep steps), optionally half a step
      // back, and stop the atoms.
      last_negative = step;
      if (!(step - start < s_.delaystep && s_.initialdelay)) {
        alpha = s_.alpha0;
        if (dt * s_.dtshrink >= dtmin) {
          dt *= s_.dtshrink;
          sim_.set_timestep(dt);
        }
      }
      ++vdotf_negative;
      if (s_.vdfmax > 0 && vdotf_negative > s_.vdfmax) return maxvdotf;
      step_back = s_.halfstepback;
      flagv0 = true;
    }
    if (flagv0) {
      // The forces where the atoms now stand (after the step back), from which the next
      // move's length is judged with v = dt f / m; the velocities then start from zero.
      sim_.min_energy_force([&](FixTile& t) {
        for (std::size_t k = 0; k < 3 * static_cast<std::size_t>(t.nlocal); ++k) {
          if (step_back) t.x[k] -= 0.5 * dt * t.v[k];
          t.v[k] = 0.0;
        }
      });
      ++neval_;
    }
    // No atom moves further than dmax.
    const double dtv = sim_.reduce_atoms(
        "md.fire_dtv", ReduceOp::min, 1, [&](const AtomsView& a, std::span<double> out) {
          double dtvone = dt;
          const double dtf = dt * ftm2v;
          for (std::size_t i = 0; i < a.id.size(); ++i) {
            const double dtfm = dtf / a.mass[static_cast<std::size_t>(a.type[i])];
            std::array<double, 3> v{};
            for (std::size_t d = 0; d < 3; ++d)
              v[d] = flagv0 ? dtfm * a.f[3 * i + d] : a.v[3 * i + d];
            const double vmax =
                std::max(std::max(std::fabs(v[0]), std::fabs(v[1])), std::fabs(v[2]));
            if (dtvone * vmax > dmax) dtvone = dmax / vmax;
          }
          out[0] = dtvone;
        })[0];
    const bool mix = vdotf > 0.0;
    const double dtf = (integrator == Integrator::verlet ? 0.5 : 1.0) * dtv * ftm2v;
    const auto result = sim_.min_energy_force([&](FixTile& t) {
      for (std::size_t i = 0; i < static_cast<std::size_t>(t.nlocal); ++i) {
        const double dtfm = dtf / t.mass[static_cast<std::size_t>(t.type[i])];
        for (std::size_t d = 0; d < 3; ++d) {
          double& v = t.v[3 * i + d];
          const double f = t.f[3 * i + d];
          if (integrator != Integrator::euler_explicit) v += dtfm * f;
          if (mix) v = scale1 * v + scale2 * f;
          t.x[3 * i + d] += dtv * v;
          if (integrator == Integrator::euler_explicit) v += dtfm * f;
        }
      }
    });
    ++neval_;
    if (integrator == Integrator::verlet)
      sim_.for_each_tile("md.fire_verlet_kick", [&](FixTile& t) {
        for (std::size_t i = 0; i < static_cast<std::size_t>(t.nlocal); ++i) {
          const double dtfm = dtf / t.mass[static_cast<std::size_t>(t.type[i])];
          for (std::size_t d = 0; d < 3; ++d) t.v[3 * i + d] += dtfm * t.f[3 * i + d];
        }
      });
    eprevious_ = ecurrent_;
    ecurrent_ = normalized(result.energy);
    flagv0 = false;
    if (s_.etol > 0.0 && step - last_negative > s_.delaystep &&
        std::fabs(ecurrent_ - eprevious_) <
            s_.etol * 0.5 * (std::fabs(ecurrent_) + std::fabs(eprevious_) + eps_energy))
      return etol;
    if (s_.ftol > 0.0 && force_norm_sq(sums()) < s_.ftol * s_.ftol) return ftol;
    sim_.observe(false, iter + 1 == s_.max_iterations);
  }
  return maxiter;
}

// LAMMPS's MinFireOld::iterate (the original FIRE, Bitzek, Koskinen, Gaehler, Moseler and
// Gumbsch 2006, Phys. Rev. Lett. 97, 170201): explicit Euler steps of damped dynamics with its
// fixed settings (a delay of 5 steps, growth 1.1 up to 10 times the initial timestep, shrink
// 0.5, mixing 0.1 decaying by 0.99). Its timestep is its own: thermo's dt stays the input's.
Stop Minimizer::iterate_fire_old() {
  constexpr int delay = 5;
  constexpr double grow = 1.1, shrink = 0.5, alpha_start = 0.1, alpha_shrink = 0.99;
  const double ftm2v = sim_.units().ftm2v, dmax = s_.dmax;
  double dt = sim_.timestep();
  const double dtmax = 10.0 * dt;
  double alpha = alpha_start;
  std::int64_t last_negative = sim_.step();
  for (long long iter = 0; iter < s_.max_iterations; ++iter) {
    const std::int64_t step = sim_.step() + 1;
    sim_.set_step(step);
    ++niter_;
    const auto sums = sim_.reduce_atoms("md.fire_old_sums", ReduceOp::sum, 3,
                                        [&](const AtomsView& a, std::span<double> out) {
                                          for (std::size_t i = 0; i < a.id.size(); ++i) {
                                            const double* v = &a.v[3 * i];
                                            const double* f = &a.f[3 * i];
                                            out[0] += v[0] * f[0] + v[1] * f[1] + v[2] * f[2];
                                            out[1] += v[0] * v[0] + v[1] * v[1] + v[2] * v[2];
                                            out[2] += f[0] * f[0] + f[1] * f[1] + f[2] * f[2];
                                          }
                                        });
    // Downhill: the velocities turned towards the force; uphill: stopped, the timestep halved.
    double scale1 = 0.0, scale2 = 0.0;
    if (sums[0] > 0.0) {
      scale1 = 1.0 - alpha;
      scale2 = sums[2] == 0.0 ? 0.0 : alpha * std::sqrt(sums[1] / sums[2]);
      if (step - last_negative > delay) {
        dt = std::min(dt * grow, dtmax);
        alpha *= alpha_shrink;
      }
    } else {
      last_negative = step;
      dt *= shrink;
      alpha = alpha_start;
    }
    sim_.for_each_tile("md.fire_old_mix", [&](FixTile& t) {
      for (std::size_t k = 0; k < 3 * static_cast<std::size_t>(t.nlocal); ++k)
        t.v[k] = scale1 * t.v[k] + scale2 * t.f[k];
    });
    // No atom moves further than dmax.
    const double dtv = sim_.reduce_atoms(
        "md.fire_old_dtv", ReduceOp::min, 1, [&](const AtomsView& a, std::span<double> out) {
          double dtvone = dt;
          for (std::size_t i = 0; i < a.id.size(); ++i) {
            const double* v = &a.v[3 * i];
            const double vmax =
                std::max(std::max(std::fabs(v[0]), std::fabs(v[1])), std::fabs(v[2]));
            if (dtvone * vmax > dmax) dtvone = dmax / vmax;
          }
          out[0] = dtvone;
        })[0];
    const double dtf = dtv * ftm2v;
    const auto result = sim_.min_energy_force([&](FixTile& t) {
      for (std::size_t i = 0; i < static_cast<std::size_t>(t.nlocal); ++i) {
        const double dtfm = dtf / t.mass[static_cast<std::size_t>(t.type[i])];
        for (std::size_t d = 0; d < 3; ++d) {
          t.x[3 * i + d] += dtv * t.v[3 * i + d];
          t.v[3 * i + d] += dtfm * t.f[3 * i + d];
        }
      }
    });
    ++neval_;
    eprevious_ = ecurrent_;
    ecurrent_ = normalized(result.energy);
    if (s_.etol > 0.0 && step - last_negative > delay &&
        std::fabs(ecurrent_ - eprevious_) <
            s_.etol * 0.5 * (std::fabs(ecurrent_) + std::fabs(eprevious_) + eps_energy))
      return etol;
    if (s_.ftol > 0.0 && force_norm_sq(this->sums()) < s_.ftol * s_.ftol) return ftol;
    sim_.observe(false, iter + 1 == s_.max_iterations);
  }
  return maxiter;
}

MinStats Minimizer::run() {
  if (s_.style != "cg" && s_.style != "sd" && s_.style != "fire" && s_.style != "fire/old")
    throw ConfigError("min_style " + s_.style + ": md_ipu has cg, sd, fire and fire/old");
  if (!(s_.etol >= 0) || !(s_.ftol >= 0))
    throw ConfigError("minimize: the energy and force tolerances must not be negative");
  if (s_.max_iterations < 0 || s_.max_evaluations < 0)
    throw ConfigError("minimize: the iteration and evaluation limits must not be negative");
  if (!(s_.dmax > 0)) throw ConfigError("min_modify dmax: the largest move must be positive");
  if (s_.style == "fire" && (!(s_.dtgrow >= 1.0) || !(s_.dtshrink <= 1.0) || !(s_.tmax >= s_.tmin)))
    throw ConfigError(
        "min_style fire: dtgrow must be at least 1, dtshrink at most 1 and tmax at least tmin");
  const double dt_initial = sim_.timestep();
  sim_.begin_minimize();
  MinStats stats;
  handle_ = sim_.add_per_atom(width);
  base_ = sim_.per_atom_offset(handle_);
  try {
    // fire's setup (LAMMPS's MinFire::setup_style, MinFireOld's too) stops every atom, before
    // the first output.
    if (s_.style == "fire" || s_.style == "fire/old")
      sim_.for_each_tile("md.fire_zero_velocities",
                         [](FixTile& t) { std::fill(t.v.begin(), t.v.end(), 0.0); });
    ecurrent_ = normalized(sim_.thermo().pe);
    stats.energy_initial = ecurrent_;
    Sums t = sums();
    stats.force_two_norm_initial = std::sqrt(t.ff);
    stats.force_max_initial = std::sqrt(t.finf);
    sim_.observe(true, s_.max_iterations == 0);
    const Stop stop = s_.style == "fire"       ? iterate_fire()
                      : s_.style == "fire/old" ? iterate_fire_old()
                                               : iterate();
    stats.stop = stop_text(stop);
    if (stop != maxiter)  // LAMMPS's Min::run: the forces where the atoms stand, then output
      ecurrent_ = normalized(sim_.min_energy_force([](FixTile&) {}).energy);
    stats.energy_final = ecurrent_;
    stats.energy_next_to_last = eprevious_;
    t = sums();
    stats.force_two_norm_final = std::sqrt(t.ff);
    stats.force_max_final = std::sqrt(t.finf);
    stats.iterations = niter_;
    stats.evaluations = neval_;
    stats.alpha_final = alpha_final_;
    if (stop != maxiter) sim_.observe(false, true);
  } catch (...) {
    sim_.set_timestep(dt_initial);
    sim_.remove_per_atom(handle_);
    sim_.end_minimize();
    throw;
  }
  // LAMMPS's Min::cleanup: the timestep fire changed is the input's again.
  sim_.set_timestep(dt_initial);
  sim_.remove_per_atom(handle_);
  sim_.end_minimize();
  return stats;
}

}  // namespace

MinStats minimize(Simulation& sim, const MinSettings& settings) {
  return Minimizer(sim, settings).run();
}

}  // namespace tessera::md
