// weather_ipu: shallow-water cases on the Tessera tile runtime.
//
//   weather_ipu [--case NAME] [--nx N --ny N | --resolution DEG] [--days D] [--dt S] [--output
//   FILE.nc]
//               [--output-every H] [--integrator rk3|rk4|leapfrog] [--target ...] [--profile ...]
//               [--initial FILE.nc | --restart FILE.nc]
//
// Cases (all on a plane, C grid, Sadourny's energy-conserving scheme):
//   gravity-wave     linear standing gravity wave, f = 0, doubly periodic; analytic solution
//   geostrophic      zonal jet in geostrophic balance on a doubly periodic f-plane; steady
//   tracer-rotation  solid-body rotation of a cosine bell in prescribed flow, one turn a day
//   volcano          westerly flow over Maunga Whau's topography (scaled) in a channel, with
//                    a moisture tracer; needs --topography FILE.csv
//   williamson1/2/6  Williamson et al. (1992) test cases 1, 2 and 6 on a latitude-longitude
//                    grid of --resolution degrees, flow angle --alpha
// Cases with a reference solution end with `error: l1=... l2=... linf=...`, the
// normalised errors of Williamson et al. (1992, J. Comput. Phys. 102, 211), eqs. 82-84,
// here of the perturbation h - H (gravity-wave, geostrophic) or the tracer.
// --initial starts a planar case from the last record of an earlier output (same
// case and grid); --restart also takes its time and appends to that file.
#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>
#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <functional>
#include <numbers>
#include <optional>
#include <string>

#include "tessera/core/environment.hpp"
#include "tessera/core/error.hpp"
#include "tessera/core/options.hpp"
#include "tessera/core/runtime.hpp"
#include "tessera/weather/cf_reader.hpp"
#include "tessera/weather/cf_writer.hpp"
#include "tessera/weather/elevation.hpp"
#include "tessera/weather/shallow_water.hpp"
#include "tessera/weather/time_integrator.hpp"
#include "tessera/weather/williamson.hpp"

namespace {

using namespace tessera;
using namespace tessera::weather;
using Function = ShallowWater::Function;
constexpr double kPi = std::numbers::pi;
constexpr double kG = 9.80616;

struct Settings {
  std::string case_name = "gravity-wave";
  int nx = 0, ny = 0;  // 0: the case's default
  double days = -1;    // < 0: the case's default
  double dt = 0;       // 0: from the CFL condition
  std::string output;
  double output_every_hours = 1;
  std::string integrator = "rk3";
  std::string tracer_scheme = "limited";
  std::string topography;
  double resolution = 0;  // degrees; 0: the case's default
  double alpha = 0;       // Williamson's flow angle, radians
  std::string initial;    // start from the last record of this weather_ipu output
  std::string restart;    // continue this weather_ipu output, appending to it
};

// One test case: its grid and physics, its initial state and, if it has one,
// the exact solution at time t (of h, or of the tracer) with the offset whose
// norm the errors are relative to.
struct Case {
  int nx = 0, ny = 0;
  double days = 0;
  ShallowWaterConfig config;
  std::function<void(ShallowWater&)> initialize;
  std::function<Function(double t)> reference;
  int reference_field = ShallowWater::kH;
  double reference_offset = 0;
  std::string description;
};

Grid square(int nx, int ny, double lx, double ly, bool px, bool py) {
  return {.nx = nx, .ny = ny, .dx = lx / nx, .dy = ly / ny, .periodic_x = px, .periodic_y = py};
}
Function constant(double v) {
  return [v](double, double) { return v; };
}

Case base(int nx, int ny, double days, std::string description) {
  Case c;
  c.nx = nx, c.ny = ny, c.days = days;
  c.description = std::move(description);
  return c;
}

Case make_case(const Settings& s) {
  auto size = [&](int nx, int ny, double days) {
    return std::tuple{s.nx > 0 ? s.nx : nx, s.ny > 0 ? s.ny : ny, s.days >= 0 ? s.days : days};
  };
  if (s.case_name == "gravity-wave") {
    const auto [nx, ny, days] = size(128, 16, 0.1);
    const double length = 1e6, depth = 1000, a = 0.01, k = 2 * kPi / length;
    const double omega = std::sqrt(kG * depth) * k;
    Case c =
        base(nx, ny, days, "standing gravity wave, H = 1000 m, amplitude 1 cm, wavelength 1000 km");
    c.config.grid = square(nx, ny, length, length * ny / nx, true, true);
    c.reference_offset = depth;
    c.initialize = [=](ShallowWater& m) {
      m.initialize([=](double x, double) { return depth + a * std::cos(k * x); }, constant(0),
                   constant(0));
    };
    c.reference = [=](double t) {
      return [=](double x, double) { return depth + a * std::cos(k * x) * std::cos(omega * t); };
    };
    return c;
  }
  if (s.case_name == "geostrophic") {
    const auto [nx, ny, days] = size(64, 64, 5);
    const double length = 2e6, depth = 1000, f0 = 1e-4, u0 = 5, ky = 2 * kPi / length;
    const double amplitude = f0 * u0 / (kG * ky);
    auto h = [=](double, double y) { return depth + amplitude * std::cos(ky * y); };
    Case c = base(nx, ny, days,
                  "zonal jet u = 5 sin(2 pi y / 2000 km) m/s in geostrophic balance, f = 1e-4 /s");
    c.config.grid = square(nx, ny, length, length, true, true);
    c.config.f0 = f0;
    c.reference = [=](double) { return Function(h); };
    c.reference_offset = depth;
    c.initialize = [=](ShallowWater& m) {
      m.initialize(
          h, [=](double, double y) { return u0 * std::sin(ky * y); }, constant(0));
    };
    return c;
  }
  if (s.case_name == "tracer-rotation") {
    const auto [nx, ny, days] = size(100, 100, 1);
    const double length = 1e6, omega = 2 * kPi / 86400;
    auto bell_at = [=](double t) {
      // The bell's centre turns about the domain centre at omega.
      const double xc = 0.5 * length - 0.25 * length * std::sin(omega * t);
      const double yc = 0.5 * length + 0.25 * length * std::cos(omega * t);
      return Function([=](double x, double y) {
        const double r = std::hypot(x - xc, y - yc) / (0.15 * length);
        return r < 1 ? 0.5 * (1 + std::cos(kPi * r)) : 0.0;
      });
    };
    Case c = base(nx, ny, days,
                  "cosine bell in solid-body rotation, one turn per day (prescribed flow)");
    c.config.grid = square(nx, ny, length, length, false, false);
    c.config.tracer = true;
    c.config.tracer_scheme = s.tracer_scheme;
    c.config.kinematic = true;
    c.reference = bell_at;
    c.reference_field = ShallowWater::kTracerMass;
    c.initialize = [=](ShallowWater& m) {
      m.initialize(
          constant(1), [=](double, double y) { return -omega * (y - 0.5 * length); },
          [=](double x, double) { return omega * (x - 0.5 * length); }, bell_at(0));
    };
    return c;
  }
  if (s.case_name == "volcano") {
    if (s.topography.empty())
      throw ConfigError(
          "the volcano case needs --topography FILE.csv (examples/data/volcano_elevation.csv)");
    const ElevationGrid e = read_elevation_csv(s.topography);
    const auto [nx, ny, days] = size(e.nx, e.ny, 1);
    // Maunga Whau's shape stretched into a regional mountain: each 10 m data cell
    // becomes 5 km, and heights above the lowest point are scaled by 10.
    const double lx = e.nx * 5e3, ly = e.ny * 5e3, depth = 3000, f0 = 1e-4, u0 = 10;
    double lowest = e.values.front();
    for (double v : e.values) lowest = std::min(lowest, v);
    std::vector<double> b = resample(e, nx, ny);
    for (double& v : b) v = 10 * (v - lowest);
    Case c =
        base(nx, ny, days,
             "10 m/s westerly over Maunga Whau's topography (x 500 across, x 10 up), moist band");
    c.config.grid = square(nx, ny, lx, ly, true, false);
    c.config.f0 = f0;
    c.config.tracer = true;
    c.config.tracer_scheme = s.tracer_scheme;
    c.config.tracer_diffusivity = 100;
    c.initialize = [=](ShallowWater& m) {
      m.set_topography(b);
      // The free surface starts level across the mountain (h = H - b) and tilted in y
      // so that the westerly is in geostrophic balance: f u0 = -g d(h + b)/dy.
      const double dx = lx / nx, dy = ly / ny;
      m.initialize(
          [=](double x, double y) {
            const int i = std::clamp(static_cast<int>(std::floor(x / dx)), 0, nx - 1);
            const int j = std::clamp(static_cast<int>(std::floor(y / dy)), 0, ny - 1);
            return depth - f0 * u0 * (y - 0.5 * ly) / kG -
                   b[static_cast<std::size_t>(j) * static_cast<std::size_t>(nx) +
                     static_cast<std::size_t>(i)];
          },
          constant(u0), constant(0),
          [=](double x, double y) {
            return std::exp(-std::pow((x - 0.15 * lx) / (0.08 * lx), 2)) *
                   (0.6 + 0.4 * std::sin(2 * kPi * y / ly));
          });
    };
    return c;
  }
  throw ConfigError("unknown case '" + s.case_name +
                    "'; the cases are gravity-wave, geostrophic, tracer-rotation, volcano, "
                    "williamson1, williamson2, williamson6");
}

// The time step: --dt if it satisfies the CFL condition (else an error that
// says what would), or 0.8 of the largest stable step. `rate` is the largest
// (|u| + c) / dx + (|v| + c) / dy of the initial state, 1/s.
double choose_dt(const Settings& s, const TimeIntegrator& integrator, double rate) {
  // C-grid frequencies reach 2 (|u| + c) / dx per axis: the Courant number dt * rate
  // must stay below half the integrator's imaginary-axis limit.
  const double courant_limit = 0.5 * integrator.stability_limit();
  if (s.dt > 0 && s.dt * rate > courant_limit) {
    char message[512];
    std::snprintf(message, sizeof message,
                  "--dt %g s violates the CFL condition: Courant number %.3g exceeds %.3g, the "
                  "limit of %s (largest (|u| + c) / dx + (|v| + c) / dy is %.4g /s); use --dt "
                  "%.4g or less",
                  s.dt, s.dt * rate, courant_limit, s.integrator.c_str(), rate,
                  courant_limit / rate);
    throw ConfigError(message);
  }
  return s.dt > 0 ? s.dt : 0.8 * courant_limit / rate;
}

// Williamson et al. (1992) test cases 1, 2 and 6 on a latitude-longitude grid.
int run_sphere(Runtime& runtime, const Settings& s, const std::string& command_line) {
  const int number = s.case_name.back() - '0';
  const double degrees = s.resolution > 0 ? s.resolution : (number == 1 ? 2.8125 : 5.625);
  const double days = s.days >= 0 ? s.days : (number == 1 ? 12 : number == 2 ? 5 : 14);
  const int nlon = static_cast<int>(std::lround(360 / degrees));
  if (std::abs(nlon * degrees - 360) > 1e-9 * 360 || nlon % 2 != 0)
    throw ConfigError("--resolution " + std::to_string(degrees) +
                      " must divide 360 degrees into an even number of cells (e.g. 5.625, 2.8125)");
  if (!(days > 0)) throw ConfigError("--days must be positive");
  SphericalShallowWater model(
      runtime, {.nlon = nlon, .nlat = nlon / 2, .alpha = s.alpha, .kinematic = number == 1});
  williamson::initialize(number, model);
  auto integrator = make_integrator(s.integrator, model);
  const double t_end = days * 86400;
  double dt = choose_dt(s, *integrator, model.max_frequency());
  const long steps = std::max(1L, static_cast<long>(std::ceil(t_end / dt - 1e-9)));
  dt = t_end / static_cast<double>(steps);
  const bool root = runtime.rank() == 0;
  if (root)
    std::printf(
        "weather_ipu: case %s: Williamson et al. (1992) test case %d, alpha %.4g\n"
        "  grid %d x %d (%.4g degrees), %ld steps of %.6g s (%s), %.4g days\n"
        "  target %s (%d tiles), %d rank%s x %d thread%s\n",
        s.case_name.c_str(), number, s.alpha, nlon, nlon / 2, degrees, steps, dt,
        s.integrator.c_str(), days, runtime.target().name.c_str(), runtime.target().total_tiles(),
        runtime.ranks(), runtime.ranks() == 1 ? "" : "s", runtime.threads(),
        runtime.threads() == 1 ? "" : "s");
  std::vector<std::string> names = {"h"};
  if (number != 1) names = {"h", "u", "v"};
  std::unique_ptr<CfWriter> writer;
  const Grid grid{.nx = nlon,
                  .ny = nlon / 2,
                  .dx = 2 * kPi / nlon,
                  .dy = kPi / (nlon / 2),
                  .x0 = 0,
                  .y0 = -kPi / 2};
  auto write_record = [&](double t) {
    std::vector<std::vector<double>> values;
    for (const std::string& n : names) values.push_back(model.gather(n));
    if (root) writer->append(t, values);
  };
  if (!s.output.empty()) {
    if (root) {
      std::vector<CfVariable> fields = {{"h", "fluid layer thickness", "m", ""}};
      if (number != 1) {
        fields.push_back(
            {"u", "eastward velocity (averaged to cell centres)", "m s-1", "eastward_wind"});
        fields.push_back(
            {"v", "northward velocity (averaged to cell centres)", "m s-1", "northward_wind"});
      }
      writer =
          std::make_unique<CfWriter>(s.output, grid, fields, std::vector<CfVariable>{},
                                     "Tessera weather_ipu case " + s.case_name, command_line, true);
    }
    write_record(0);
  }
  const double mass0 = model.mass(), energy0 = model.energy();
  const double output_every = s.output_every_hours * 3600;
  double next_output = output_every;
  for (long step = 1; step <= steps; ++step) {
    integrator->step(model.state(), dt);
    const double t = static_cast<double>(step) * dt;
    if (step % 50 == 0 || step == steps) {
      const double m = model.mass();
      if (!std::isfinite(m) || !std::isfinite(model.max_frequency()))
        throw Error("the run became unstable at t = " + std::to_string(t) + " s (step " +
                    std::to_string(step) + ": non-finite values); reduce --dt");
    }
    if (!s.output.empty() && (t >= next_output - 1e-6 * dt || step == steps)) {
      write_record(t);
      while (next_output <= t + 1e-6 * dt) next_output += output_every;
    }
  }
  if (root && writer) writer->close();
  std::optional<ErrorNorms> errors;
  if (number != 6)
    errors = model.height_errors(williamson::exact_height(number, model.config(), t_end));
  const double mass1 = model.mass(), energy1 = model.energy();
  const std::uint64_t checksum = model.checksum();
  const std::string summary = runtime.finish();
  if (root) {
    std::printf("mass change %.3e relative\n", (mass1 - mass0) / mass0);
    if (number != 1) std::printf("energy change %.3e relative\n", (energy1 - energy0) / energy0);
    if (errors)
      std::printf("error: l1=%.6e l2=%.6e linf=%.6e\n", errors->l1, errors->l2, errors->linf);
    else
      std::printf("no exact solution for test case 6: the paper's errors need a reference run\n");
    std::printf("state checksum %016" PRIx64 "\n", checksum);
    if (writer) std::printf("wrote %s (%d records)\n", s.output.c_str(), writer->records());
    std::printf("simulated time on %s: %.6e s for %ld steps (%.6e s per step)\n",
                runtime.target().name.c_str(), runtime.profile().simulated_seconds(), steps,
                runtime.profile().simulated_seconds() / static_cast<double>(steps));
    std::fputs(summary.c_str(), stdout);
  }
  return 0;
}

// The exact prognostic state (face velocities, tracer mass h c) of the latest
// record, kept beside the centred output fields so that --restart continues
// bit for bit: centred u, v and c = h c / h do not give the state back exactly.
const std::vector<CfVariable> kRestartFields = {
    {"u_face", "x velocity on west cell faces at the last record (for restarts)", "m s-1", ""},
    {"v_face", "y velocity on south cell faces at the last record (for restarts)", "m s-1", ""},
    {"tracer_mass", "layer depth times tracer concentration at the last record (for restarts)", "m",
     ""}};

// Replaces the case's initial state by the last record of `path` (--initial or
// --restart) and returns that record's time. In kinematic mode the flow is the
// case's prescribed one and only the tracer is read.
double start_from_file(ShallowWater& model, const std::string& path, bool restart) {
  const ShallowWaterConfig& config = model.config();
  std::vector<std::string> names, optional;
  if (!config.kinematic) names = {"h", "u_face", "v_face"};
  if (config.tracer) (restart || config.kinematic ? names : optional).push_back("tracer_mass");
  const CfRecord r = read_last_record(path, config.grid.nx, config.grid.ny, names, optional);
  if (!config.kinematic) {
    model.set_state(ShallowWater::kH, r.fields.at("h"));
    model.set_state(ShallowWater::kU, r.fields.at("u_face"));
    model.set_state(ShallowWater::kV, r.fields.at("v_face"));
  }
  if (r.fields.contains("tracer_mass"))
    model.set_state(ShallowWater::kTracerMass, r.fields.at("tracer_mass"));
  return r.time;
}

int run(Runtime& runtime, const Settings& s, const std::string& command_line) {
  const bool sphere =
      s.case_name == "williamson1" || s.case_name == "williamson2" || s.case_name == "williamson6";
  if (!s.initial.empty() && !s.restart.empty())
    throw ConfigError("give --initial or --restart, not both");
  if (!s.restart.empty() && !s.output.empty())
    throw ConfigError("--restart appends to its own file '" + s.restart + "'; leave out --output");
  if (sphere && (!s.initial.empty() || !s.restart.empty()))
    throw ConfigError("--initial and --restart work for the planar cases only, not " + s.case_name);
  if (sphere) return run_sphere(runtime, s, command_line);
  Case c = make_case(s);
  if (!(c.days > 0)) throw ConfigError("--days must be positive, got " + std::to_string(c.days));
  ShallowWater model(runtime, c.config);
  c.initialize(model);
  const std::string start_file = s.restart.empty() ? s.initial : s.restart;
  const std::string output = s.restart.empty() ? s.output : s.restart;
  // Simulated time at the start: the last record's time when restarting, else 0.
  double t0 = 0;
  if (!start_file.empty()) {
    const double t_file = start_from_file(model, start_file, !s.restart.empty());
    if (!s.restart.empty()) t0 = t_file;
  }
  auto integrator = make_integrator(s.integrator, model);
  const Grid& g = c.config.grid;
  const bool root = runtime.rank() == 0;

  const Diagnostics start = model.diagnostics();
  const double rate = start.max_wave_speed_x / g.dx + start.max_wave_speed_y / g.dy;
  const double duration = c.days * 86400, t_end = t0 + duration;
  double dt = choose_dt(s, *integrator, rate);
  const long steps = std::max(1L, static_cast<long>(std::ceil(duration / dt - 1e-9)));
  dt = duration / static_cast<double>(steps);
  if (root && !start_file.empty())
    std::printf("weather_ipu: starting from the last record of %s (t = %.6g s)%s\n",
                start_file.c_str(), t0, s.restart.empty() ? "" : ", appending to it");
  // The file holds one time level; leapfrog needs two, so it starts again with
  // a forward-Euler step and the continued run differs from an unbroken one.
  if (root && !start_file.empty() && s.integrator == "leapfrog")
    std::printf(
        "note: leapfrog restarts with a forward-Euler step: not bit for bit the unbroken run\n");
  if (root)
    std::printf(
        "weather_ipu: case %s: %s\n  grid %d x %d (dx %.4g m, dy %.4g m), %ld steps of %.6g s "
        "(%s, Courant %.3g), %.4g days\n  target %s (%d tiles), %d rank%s x %d thread%s\n",
        s.case_name.c_str(), c.description.c_str(), g.nx, g.ny, g.dx, g.dy, steps, dt,
        s.integrator.c_str(), dt * rate, c.days, runtime.target().name.c_str(),
        runtime.target().total_tiles(), runtime.ranks(), runtime.ranks() == 1 ? "" : "s",
        runtime.threads(), runtime.threads() == 1 ? "" : "s");

  std::unique_ptr<CfWriter> writer;
  std::vector<std::string> names = {"h", "u", "v"};
  if (c.config.tracer) names.push_back("c");
  const int restart_fields = c.config.tracer ? 3 : 2;
  auto write_record = [&](double t) {
    std::vector<std::vector<double>> values;
    for (const std::string& n : names) values.push_back(model.gather(n));
    const int exact[] = {ShallowWater::kU, ShallowWater::kV, ShallowWater::kTracerMass};
    for (int k = 0; k < restart_fields; ++k) {
      const std::vector<double> state = model.gather_state(exact[k]);
      if (root) writer->write_static(kRestartFields[static_cast<std::size_t>(k)].name, state);
    }
    if (root) writer->append(t, values);
  };
  if (!output.empty()) {
    if (root) {
      std::vector<CfVariable> fields = {
          {"h", "fluid layer thickness", "m", ""},
          {"u", "eastward velocity (averaged to cell centres)", "m s-1", "eastward_wind"},
          {"v", "northward velocity (averaged to cell centres)", "m s-1", "northward_wind"}};
      if (c.config.tracer) fields.push_back({"c", "passive tracer concentration", "1", ""});
      std::vector<CfVariable> static_fields = {
          {"b", "bottom topography height", "m", "surface_altitude"}};
      static_fields.insert(static_fields.end(), kRestartFields.begin(),
                           kRestartFields.begin() + restart_fields);
      writer = s.restart.empty() ? std::make_unique<CfWriter>(
                                       output, g, fields, static_fields,
                                       "Tessera weather_ipu case " + s.case_name, command_line)
                                 : CfWriter::reopen(output, g, fields);
    }
    const std::vector<double> b = model.gather("b");
    if (root && s.restart.empty()) writer->write_static("b", b);
    // A restart continues after the record it started from.
    if (s.restart.empty()) write_record(0);
  }

  const double output_every = s.output_every_hours * 3600;
  double next_output = t0 + output_every;
  const auto wall_start = std::chrono::steady_clock::now();
  auto last_progress = wall_start;
  for (long step = 1; step <= steps; ++step) {
    integrator->step(model.state(), dt);
    const double t = t0 + static_cast<double>(step) * dt;
    // Every 50 steps and at the end: stop on a blown-up state rather than write NaNs.
    if (step % 50 == 0 || step == steps) {
      const Diagnostics d = model.diagnostics();
      if (!d.finite || !(d.min_depth > 0))
        throw Error("the run became unstable at t = " + std::to_string(t) + " s (step " +
                    std::to_string(step) +
                    (d.finite ? ": the layer depth fell to zero"
                              : ": "
                                "non-finite values") +
                    "); reduce --dt");
    }
    if (!output.empty() && (t >= next_output - 1e-6 * dt || step == steps)) {
      write_record(t);  // collective: every rank gathers, rank 0 writes
      while (next_output <= t + 1e-6 * dt) next_output += output_every;
    }
    const auto now = std::chrono::steady_clock::now();
    if (root && now - last_progress > std::chrono::seconds(5) && step < steps) {
      const double wall = std::chrono::duration<double>(now - wall_start).count();
      const double rate_steps = static_cast<double>(step) / wall;
      std::printf("progress: t = %.3g h of %.3g h, %.4g steps/s, ETA %.0f s\n", t / 3600,
                  t_end / 3600, rate_steps, static_cast<double>(steps - step) / rate_steps);
      std::fflush(stdout);
      last_progress = now;
    }
  }
  if (root && writer) writer->close();

  const Diagnostics end = model.diagnostics();
  std::optional<ErrorNorms> errors;
  // From --initial the state is not the case's: no reference solution applies.
  if (c.reference && s.initial.empty())
    errors = model.errors(c.reference_field, c.reference(t_end), c.reference_offset);
  const std::uint64_t checksum = model.checksum();
  const std::string summary = runtime.finish();
  if (root) {
    std::printf("mass change %.3e relative\n", (end.mass - start.mass) / start.mass);
    if (!c.config.kinematic) {
      std::printf("energy change %.3e relative\n", (end.energy - start.energy) / start.energy);
      if (start.potential_enstrophy > 0)
        std::printf(
            "potential enstrophy change %.3e relative\n",
            (end.potential_enstrophy - start.potential_enstrophy) / start.potential_enstrophy);
    }
    if (c.config.tracer)
      std::printf("tracer mass change %.3e relative\n",
                  (end.tracer_mass - start.tracer_mass) / start.tracer_mass);
    if (errors)
      std::printf("error: l1=%.6e l2=%.6e linf=%.6e\n", errors->l1, errors->l2, errors->linf);
    std::printf("state checksum %016" PRIx64 "\n", checksum);
    if (writer) std::printf("wrote %s (%d records)\n", output.c_str(), writer->records());
    std::printf("simulated time on %s: %.6e s for %ld steps (%.6e s per step)\n",
                runtime.target().name.c_str(), runtime.profile().simulated_seconds(), steps,
                runtime.profile().simulated_seconds() / static_cast<double>(steps));
    std::fputs(summary.c_str(), stdout);
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  return tessera::run_main(argc, argv, [](int argc, char** argv) {
    CLI::App app{"weather_ipu: shallow-water cases on the Tessera tile runtime"};
    Settings s;
    RuntimeOptions options;
    app.add_option("--case", s.case_name,
                   "gravity-wave | geostrophic | tracer-rotation | volcano | williamson1 | "
                   "williamson2 | williamson6")
        ->capture_default_str();
    app.add_option("--resolution", s.resolution,
                   "Grid spacing in degrees for the williamson cases [=5.625; 2.8125 for case 1]")
        ->check(CLI::PositiveNumber);
    app.add_option("--alpha", s.alpha, "Angle of the williamson1/2 flow to the equator, radians")
        ->capture_default_str();
    app.add_option("--nx", s.nx, "Cells in x [=the case's default]")->check(CLI::PositiveNumber);
    app.add_option("--ny", s.ny, "Cells in y [=the case's default]")->check(CLI::PositiveNumber);
    app.add_option("--days", s.days, "Simulated days [=the case's default]")
        ->check(CLI::PositiveNumber);
    app.add_option("--dt", s.dt, "Time step in s [=0.8 of the CFL limit]")
        ->check(CLI::PositiveNumber);
    app.add_option("--output", s.output, "CF-1.8 NetCDF output file");
    app.add_option("--output-every", s.output_every_hours, "Hours between output records")
        ->capture_default_str()
        ->check(CLI::PositiveNumber);
    app.add_option("--integrator", s.integrator, "rk3 | rk4 | leapfrog")
        ->capture_default_str()
        ->check(CLI::IsMember({"rk3", "rk4", "leapfrog"}));
    app.add_option("--tracer-scheme", s.tracer_scheme, "upwind | limited")
        ->capture_default_str()
        ->check(CLI::IsMember({"upwind", "limited"}));
    app.add_option("--topography", s.topography,
                   "Elevation CSV for the volcano case (rows north to south, metres)");
    app.add_option("--initial", s.initial,
                   "Start from the last record of this weather_ipu output (same case and grid)");
    app.add_option("--restart", s.restart,
                   "Continue this weather_ipu output from its last record for --days more, "
                   "appending to it");
    add_runtime_options(app, options, "host");
    if (auto code = parse_command_line(app, argc, argv)) return *code;
    std::string command_line = "weather_ipu";
    for (int i = 1; i < argc; ++i) command_line += std::string(" ") + argv[i];
    Runtime runtime(options);
    return run(runtime, s, command_line);
  });
}
