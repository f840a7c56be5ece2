// The time step of a run: the CFL condition of the C grid for an integrator.
#pragma once

#include "tessera/weather/time_integrator.hpp"

namespace tessera::weather {

// The time step: `requested` (s, the --dt option; 0: none) if it satisfies the CFL condition
// (else a ConfigError that says what would), or 0.8 of the largest stable step. `rate` is
// the largest (|u| + c) / dx + (|v| + c) / dy of the initial state, 1/s.
double choose_dt(double requested, const TimeIntegrator& integrator, double rate);

}  // namespace tessera::weather
