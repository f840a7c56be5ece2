// Energy minimization, as LAMMPS's minimize command: min_style cg (Polak-Ribiere conjugate
// gradient, restarted every N dof iterations or when the direction is not downhill) or sd
// (steepest descent), each with LAMMPS's quadratic line search (MinLineSearch::
// linemin_quadratic: backtracking from alpha = min(1, dmax / max |h|), a secant projection
// once the energy is quadratic to within 0.1), LAMMPS's stopping criteria (energy tolerance
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
  std::string style = "cg";  // min_style: cg or sd
  double etol = 0, ftol = 0;
  long long max_iterations = 0, max_evaluations = 0;
  double dmax = 0.1;  // min_modify dmax: the largest move of a line search (distance units)
  enum class Norm { two, max, inf };
  Norm norm = Norm::two;  // min_modify norm
  bool normalize = true;  // energies per atom (thermo_modify norm)
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
