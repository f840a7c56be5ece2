#include "tessera/weather/time_step.hpp"

#include <cmath>
#include <cstdio>
#include <limits>
#include <string>

namespace tessera::weather {

namespace {
std::string number(double v) {
  char text[32];
  std::snprintf(text, sizeof text, "%.6g", v);
  return text;
}
}  // namespace

double courant_limit(const TimeIntegrator& integrator) {
  return 0.5 * integrator.stability_limit();
}

double choose_dt(double requested, const TimeIntegrator& integrator, double rate, double interval) {
  const double limit = courant_limit(integrator);
  if (!std::isfinite(rate) || rate < 0)
    throw ConfigError(
        "the initial state has a non-finite wave speed (largest (|u| + c) / dx + "
        "(|v| + c) / dy is " +
        number(rate) + " /s): no time step can be chosen");
  if (requested > 0 && requested * rate > limit) {
    char message[512];
    std::snprintf(message, sizeof message,
                  "--dt %g s violates the CFL condition: Courant number %.3g exceeds %.3g, the "
                  "limit of %s (largest (|u| + c) / dx + (|v| + c) / dy is %.4g /s); use --dt "
                  "%.4g or less",
                  requested, requested * rate, limit, integrator.name().c_str(), rate,
                  limit / rate);
    throw ConfigError(message);
  }
  if (requested > 0) return requested;
  if (!(rate > 0)) throw ConfigError("the initial state is at rest with no wave speed: give --dt");
  const double largest = 0.8 * limit / rate;
  return interval > 0 ? interval / std::ceil(interval / largest) : largest;
}

double StepPlan::time(long long n) const {
  if (n == steps && shortened) return end;
  return origin + static_cast<double>(first + n) * dt;
}

StepPlan plan_steps(double dt, double origin, long long first, double duration) {
  if (!std::isfinite(dt) || !(dt > 0))
    throw ConfigError("the time step must be a positive number of seconds, got " + number(dt));
  if (!std::isfinite(origin) || origin < 0 || first < 0)
    throw ConfigError("the run's start time must be finite and >= 0, got " + number(origin));
  if (!std::isfinite(duration) || !(duration > 0))
    throw ConfigError("the run's duration must be positive, got " + number(duration) + " s");
  constexpr double kMaxSteps = 9007199254740992.0;  // 2^53: every step count exact
  const double exact = duration / dt;
  if (!(exact < kMaxSteps - static_cast<double>(first)))
    throw ConfigError("a run of " + number(duration) + " s in steps of " + number(dt) +
                      " s would take " + number(exact) + " steps, more than 2^53");
  StepPlan p;
  p.dt = dt, p.origin = origin, p.first = first;
  const double whole = std::round(exact);
  if (whole >= 1 && std::abs(exact - whole) <= 1e-9 * std::max(1.0, whole)) {
    p.steps = static_cast<long long>(whole);
  } else {
    p.steps = static_cast<long long>(std::ceil(exact));
    p.shortened = true;
  }
  const double start = origin + static_cast<double>(first) * dt;
  p.end = p.shortened ? start + duration : origin + static_cast<double>(first + p.steps) * dt;
  // Steps must advance the time: at 1e30 s a step of 72 s is lost in rounding.
  const double spacing = std::nextafter(p.end, std::numeric_limits<double>::infinity()) - p.end;
  if (!std::isfinite(p.end) || !(spacing <= 1e-6 * dt))
    throw ConfigError("times near t = " + number(p.end) + " s are too coarse for steps of " +
                      number(dt) + " s (doubles there are " + number(spacing) +
                      " s apart): the run could not advance");
  return p;
}

}  // namespace tessera::weather
