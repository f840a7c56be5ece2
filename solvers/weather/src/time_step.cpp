#include "tessera/weather/time_step.hpp"

#include <cstdio>

#include "tessera/core/error.hpp"

namespace tessera::weather {

double choose_dt(double requested, const TimeIntegrator& integrator, double rate) {
  // C-grid frequencies reach 2 (|u| + c) / dx per axis: the Courant number dt * rate
  // must stay below half the integrator's imaginary-axis limit.
  const double courant_limit = 0.5 * integrator.stability_limit();
  if (requested > 0 && requested * rate > courant_limit) {
    char message[512];
    std::snprintf(message, sizeof message,
                  "--dt %g s violates the CFL condition: Courant number %.3g exceeds %.3g, the "
                  "limit of %s (largest (|u| + c) / dx + (|v| + c) / dy is %.4g /s); use --dt "
                  "%.4g or less",
                  requested, requested * rate, courant_limit, integrator.name().c_str(), rate,
                  courant_limit / rate);
    throw ConfigError(message);
  }
  return requested > 0 ? requested : 0.8 * courant_limit / rate;
}

}  // namespace tessera::weather
