// LAMMPS unit styles: the constants that turn mass, velocity and force into
// energy and pressure, and each style's default timestep and neighbor skin.
#pragma once

#include <string>

#include "tessera/core/error.hpp"

namespace tessera::md {

struct Units {
  std::string style;                // lj, metal or real
  double boltz;                     // Boltzmann constant in energy / temperature
  double mvv2e;                     // mass * velocity^2 -> energy
  double ftm2v;                     // force / mass * time -> velocity
  double nktv2p;                    // energy / volume -> pressure
  double dt;                        // default timestep
  double skin;                      // default neighbor skin
  const char* time_unit;            // "tau" or "ns", for the Performance line
  double time_units_per_step_unit;  // one timestep-time unit in time_unit (1 for lj, 1e-3 ps->ns)
  double mv2d;                      // mass / volume -> density (g/cm^3 for metal and real)
  double qqr2e;                     // q_i q_j / r -> energy (Coulomb's constant)

  // Throws ConfigError for styles Tessera does not support.
  static Units of(const std::string& style);
};

}  // namespace tessera::md
