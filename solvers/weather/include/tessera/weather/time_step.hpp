// The time step of a run: the CFL condition of the C grid for an integrator, and the plan
// of the steps that cover a run.
//
// The default step is 0.8 of the CFL limit, shortened so that a whole number of steps fills
// the output interval: it does not depend on the run's length, so a run split at an output
// time (a restart) takes the same steps as the unbroken run. A run whose length is not a
// whole number of steps ends with one shorter step.
#pragma once

#include "tessera/core/error.hpp"
#include "tessera/weather/time_integrator.hpp"

namespace tessera::weather {

// Half the integrator's imaginary-axis limit: C-grid frequencies reach 2 (|u| + c) / dx per
// axis, so the Courant number dt * rate must stay below it.
double courant_limit(const TimeIntegrator& integrator);

// The time step: `requested` (s, the --dt option; 0: none) if it satisfies the CFL condition
// (else a ConfigError that says what would), or 0.8 of the largest stable step, shortened
// to interval / n for the smallest whole n (`interval`, s, the time between output records;
// 0: not fitted). `rate` is the largest (|u| + c) / dx + (|v| + c) / dy of the state, 1/s
// (finite, else a ConfigError; 0 only with a requested step).
double choose_dt(double requested, const TimeIntegrator& integrator, double rate,
                 double interval = 0);

// Steps of dt on a grid of times origin + k dt. A run from step `first` covers `duration`
// seconds: `steps` steps, the last one shortened when the duration is not a whole number of
// steps (to within 1e-9 of a step).
struct StepPlan {
  double dt = 0, origin = 0;
  long long first = 0, steps = 0;
  double end = 0;          // the run's last time, s
  bool shortened = false;  // the last step ends at `end`, off the grid

  // The time after step n of this run (1 <= n <= steps).
  double time(long long n) const;
  // The step of the time grid after step n (first + n), the checkpoint's `step`.
  long long grid_step(long long n) const { return first + n; }
};

// Plans a run of `duration` s starting at grid step `first` of (origin, dt). Throws
// ConfigError when dt, origin or the duration is not finite and positive (origin >= 0),
// when the run would take more than 2^53 steps, or when its times are too large for steps
// of dt to advance them (a time of 1e30 s).
StepPlan plan_steps(double dt, double origin, long long first, double duration);

}  // namespace tessera::weather
