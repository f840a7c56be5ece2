// Energy minimization, as LAMMPS's minimize command: min_style cg (Polak-Ribiere conjugate
// gradient, restarted every N dof iterations or when the direction is not downhill) or sd
// (steepest descent), each with LAMMPS's quadratic line search (MinLineSearch::
// linemin_quadratic: backtracking from alpha = min(1, dmax / max |h|), a secant projection
// once the energy is quadratic to within 0.1), or fire (FIRE 2.0, Guenole, Noehring, Vaid,
// Houlle, Xie, Prakash and Bitzek 2020, Comput. Mater. Sci. 175, 109584, as LAMMPS's MinFire:
// damped dynamics on the atoms' velocities with an adaptive timestep, no atom moving more than
// dmax in a step, each of its four integrators and the half step back) or fire/old (the
// original FIRE, Bitzek et al. 2006, as LAMMPS's MinFireOld), LAMMPS's stopping
// criteria (energy tolerance
// relative to the energy, force tolerance on the 2-norm, max or inf norm, iteration and force
// evaluation limits) and the numbers of its "Minimization stats" block. Each iteration is one
// step (thermo and dumps see it); the fixes that act are those that act in a minimization
// (Fix::acts_in_minimize). Energies are per atom under thermo_modify norm yes, as LAMMPS's.
// Collective; throws ConfigError for bad settings.
#pragma once

#include <string>

#include "tessera/md/simulation.hpp"

namespace tessera::md {

struct MinSettings {
  std::string style = "cg";  // min_style: cg, sd, fire or fire/old
  double etol = 0, ftol = 0;
  long long max_iterations = 0, max_evaluations = 0;
  double dmax = 0.1;  // min_modify dmax: the largest move of a line search (distance units)
  enum class Norm { two, max, inf };
  Norm norm = Norm::two;  // min_modify norm
  bool normalize = true;  // energies per atom (thermo_modify norm)
  // min_modify's fire settings, LAMMPS's defaults: steps before the timestep may grow, its
  // growth and shrink factors, the mixing parameter and its decay, the largest and smallest
  // timestep as multiples of the initial one, the integrator, the half step back after an
  // uphill step, the delay also at the start, the uphill steps allowed in a row (0: any).
  enum class Integrator { euler_implicit, verlet, leapfrog, euler_explicit };
  int delaystep = 20;
  double dtgrow = 1.1, dtshrink = 0.5, alpha0 = 0.25, alphashrink = 0.99;
  double tmax = 10.0, tmin = 0.02;
  Integrator integrator = Integrator::euler_implicit;
  bool halfstepback = true, initialdelay = true;
  long long vdfmax = 2000;
};

struct MinStats {
  std::string stop;  // LAMMPS's stopping criterion: "energy tolerance", ...
  double energy_initial = 0, energy_next_to_last = 0, energy_final = 0;
  long long iterations = 0, evaluations = 0;
  double force_two_norm_initial = 0, force_two_norm_final = 0;
  double force_max_initial = 0, force_max_final = 0;  // the largest force component
  double alpha_final = 0;                             // the last line search's step
};

MinStats minimize(Simulation& sim, const MinSettings& settings);

}  // namespace tessera::md
