// weather_ipu: shallow-water cases on the Tessera tile runtime.
//
//   weather_ipu [--case NAME] [--nx N --ny N | --resolution DEG] [--days D] [--dt S]
//               [--output FILE.nc] [--output-every H] [--integrator rk3|rk4|leapfrog]
//               [--vorticity-flux arakawa-lamb|energy] [--topography FILE.csv|FILE.nc]
//               [--initial FILE.nc|FILE.csv | --restart FILE.nc] [--reference-factor N]
//               [--progress-every S] [--target ...] [--profile ...]
//
// Planar cases (C grid; Arakawa & Lamb's (1981) energy- and potential-enstrophy-
// conserving vorticity flux, or Sadourny's energy-conserving one):
//   gravity-wave     linear standing gravity wave, f = 0, doubly periodic; analytic solution
//   geostrophic      zonal jet in geostrophic balance on a doubly periodic f-plane; steady
//   tracer-rotation  solid-body rotation of a cosine bell in prescribed flow, one turn a day
//   volcano          westerly flow over Maunga Whau's topography (scaled) in a channel, with
//                    a moisture tracer; needs --topography FILE.csv or FILE.nc
//   williamson1/2/6  Williamson et al. (1992) test cases 1, 2 and 6 on a latitude-longitude
//                    grid of --resolution degrees, flow angle --alpha (Sadourny's scheme)
// Cases with a reference solution end with `error: l1=... l2=... linf=...`, the
// normalised errors of Williamson et al. (1992, J. Comput. Phys. 102, 211), eqs. 82-84,
// here of the perturbation h - H (gravity-wave, geostrophic) or the tracer; for
// williamson6 against our own run at --reference-factor times the resolution.
// --initial starts a planar case from the last record of an earlier output (same
// case and grid) or from a layer depth in CSV; --restart also takes the time and
// appends to that file, bit for bit the unbroken run for every integrator.
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
#include "tessera/core/stop_signal.hpp"
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
  std::string vorticity_flux = "arakawa-lamb";
  std::string topography;
  double resolution = 0;      // degrees; 0: the case's default
  double alpha = 0;           // Williamson's flow angle, radians
  std::string initial;        // start from the last record of this weather_ipu output
  std::string restart;        // continue this weather_ipu output, appending to it
  int reference_factor = 2;   // williamson6: resolution multiple of the self-reference run
  double progress_every = 5;  // seconds of wall time between progress lines
};

// Prints `progress: t = ... h of ... h, ... steps/s, ETA ... s` on rank 0 at most
// every `every` seconds of wall time (not after the last step).
class Progress {
 public:
  Progress(bool root, double every, double t_end, std::string label = "")
      : root_(root), every_(every), t_end_(t_end), label_(std::move(label)) {}
  void update(long step, long steps, double t) {
    const auto now = std::chrono::steady_clock::now();
    if (!root_ || step >= steps || std::chrono::duration<double>(now - last_).count() < every_)
      return;
    const double wall = std::chrono::duration<double>(now - start_).count();
    const double rate = static_cast<double>(step) / wall;
    std::printf("progress: %st = %.3g h of %.3g h, %.4g steps/s, ETA %.0f s\n", label_.c_str(),
                t / 3600, t_end_ / 3600, rate, static_cast<double>(steps - step) / rate);
    flush_standard_output();
    last_ = now;
  }

 private:
  bool root_;
  double every_, t_end_;
  std::string label_;
  std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now(), last_ = start_;
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
          "the volcano case needs --topography FILE.csv or FILE.nc "
          "(examples/data/volcano_elevation.csv)");
    const ElevationGrid e = read_elevation(s.topography);
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

// A run ended early by SIGINT or SIGTERM (tessera/core/stop_signal.hpp): the signal, the
// last step taken and its time.
struct Stop {
  int signal = 0;
  long step = 0;
  double t = 0;
};

// Says on standard error where the run stopped and what the output holds (published by
// then), and returns the exit code, 128 + signal. `reference`: the stop came during
// williamson6's reference run, after the run itself had ended; `restartable`: the case can
// be continued with --restart.
int stopped(Runtime& runtime, const std::string& output, const CfWriter* writer, const Stop& stop,
            long steps, double t_end, bool reference, bool restartable) {
  if (runtime.rank() != 0) return stop_exit_code(stop.signal);
  char text[512];
  std::snprintf(text, sizeof text, "weather_ipu: stopped by %s%s at t = %.6g s (step %ld of %ld)",
                signal_name(stop.signal).c_str(),
                reference ? " during the reference run, after the run itself" : "", stop.t,
                stop.step, steps);
  std::string message = text;
  if (writer) {
    message += "; " + output + " holds " + std::to_string(writer->records()) + " records";
    if (restartable && stop.t < t_end) message += " (continue it with --restart " + output + ")";
  }
  std::fprintf(stderr, "%s\n", message.c_str());
  return stop_exit_code(stop.signal);
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
  Progress progress(root, s.progress_every, t_end);
  Stop stop;
  for (long step = 1; step <= steps; ++step) {
    integrator->step(model.state(), dt);
    const double t = static_cast<double>(step) * dt;
    if (step % 50 == 0 || step == steps) {
      const double m = model.mass();
      if (!std::isfinite(m) || !std::isfinite(model.max_frequency()))
        throw Error("the run became unstable at t = " + std::to_string(t) + " s (step " +
                    std::to_string(step) + ": non-finite values); reduce --dt");
    }
    progress.update(step, steps, t);
    if (!s.output.empty() && (t >= next_output - 1e-6 * dt || step == steps)) {
      write_record(t);
      while (next_output <= t + 1e-6 * dt) next_output += output_every;
    }
    if ((stop.signal = stop_requested(runtime.comm()))) {
      stop.step = step, stop.t = t;
      break;
    }
  }
  if (root && writer) writer->close();
  if (stop.signal)
    return stopped(runtime, s.output, writer.get(), stop, steps, t_end, false, false);
  std::optional<ErrorNorms> errors;
  if (number != 6)
    errors = model.height_errors(williamson::exact_height(number, model.config(), t_end));
  const double mass1 = model.mass(), energy1 = model.energy();
  const std::uint64_t checksum = model.checksum();
  const double simulated = runtime.profile().simulated_seconds();
  // Test case 6 has no exact solution: compare with our own run at reference_factor
  // times the resolution (its own CFL time step), averaged conservatively onto this
  // grid. A self-reference: it measures the distance to a better-resolved solution
  // of the same scheme, not to the true one (docs/weather.md).
  const int factor = s.reference_factor;
  if (number == 6 && factor > 1) {
    const int fine_nlon = nlon * factor;
    SphericalShallowWater fine(runtime,
                               {.nlon = fine_nlon, .nlat = fine_nlon / 2, .alpha = s.alpha});
    williamson::initialize(6, fine);
    auto fine_integrator = make_integrator(s.integrator, fine);
    const double fine_dt_max =
        0.8 * 0.5 * fine_integrator->stability_limit() / fine.max_frequency();
    const long fine_steps = std::max(1L, static_cast<long>(std::ceil(t_end / fine_dt_max - 1e-9)));
    const double fine_dt = t_end / static_cast<double>(fine_steps);
    if (root)
      std::printf("reference: the same case on %d x %d (%.4g degrees), %ld steps of %.6g s\n",
                  fine_nlon, fine_nlon / 2, degrees / factor, fine_steps, fine_dt);
    Progress fine_progress(root, s.progress_every, t_end, "reference ");
    for (long step = 1; step <= fine_steps; ++step) {
      fine_integrator->step(fine.state(), fine_dt);
      fine_progress.update(step, fine_steps, static_cast<double>(step) * fine_dt);
      if ((stop.signal = stop_requested(runtime.comm()))) {
        stop.step = steps, stop.t = t_end;
        return stopped(runtime, s.output, writer.get(), stop, steps, t_end, true, false);
      }
    }
    const std::vector<double> reference = fine.gather("h");
    const std::vector<double> h = model.gather("h");
    if (root)
      errors = williamson::normalised_errors(
          h, williamson::coarsen(reference, fine_nlon, fine_nlon / 2, factor), nlon, nlon / 2);
  }
  const std::string summary = runtime.finish();
  if (root) {
    std::printf("mass change %.3e relative\n", (mass1 - mass0) / mass0);
    if (number != 1) std::printf("energy change %.3e relative\n", (energy1 - energy0) / energy0);
    if (number == 6 && errors)
      std::printf(
          "errors against our own run at %.4g degrees (a self-reference, not an exact "
          "solution):\n",
          degrees / factor);
    if (errors)
      std::printf("error: l1=%.6e l2=%.6e linf=%.6e\n", errors->l1, errors->l2, errors->linf);
    else
      std::printf("no errors for test case 6 without a reference run (--reference-factor 1)\n");
    std::printf("state checksum %016" PRIx64 "\n", checksum);
    if (writer) std::printf("wrote %s (%d records)\n", s.output.c_str(), writer->records());
    std::printf("simulated time on %s: %.6e s for %ld steps (%.6e s per step)\n",
                runtime.target().name.c_str(), simulated, steps,
                simulated / static_cast<double>(steps));
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

// Leapfrog's second time level (the filtered level n - 1) at the latest record,
// so that a leapfrog --restart continues bit for bit; NaN while the run is still
// at its initial state (the restarted run then starts with a forward-Euler step,
// as the unbroken one did).
const std::vector<CfVariable> kPreviousFields = {
    {"h_previous", "layer depth at the leapfrog's filtered previous time level (for restarts)", "m",
     ""},
    {"u_face_previous", "u_face at the leapfrog's filtered previous time level (for restarts)",
     "m s-1", ""},
    {"v_face_previous", "v_face at the leapfrog's filtered previous time level (for restarts)",
     "m s-1", ""},
    {"tracer_mass_previous",
     "tracer_mass at the leapfrog's filtered previous time level (for restarts)", "m", ""}};
constexpr int kStateFields[] = {ShallowWater::kH, ShallowWater::kU, ShallowWater::kV,
                                ShallowWater::kTracerMass};

// Replaces the case's initial state by the last record of `path` (--initial or
// --restart) and returns that record, with the leapfrog level if the file has
// one. In kinematic mode the flow is the case's prescribed one and only the
// tracer is read.
CfRecord start_from_file(ShallowWater& model, const std::string& path, bool restart) {
  const ShallowWaterConfig& config = model.config();
  std::vector<std::string> names, optional;
  if (!config.kinematic) names = {"h", "u_face", "v_face"};
  if (config.tracer) (restart || config.kinematic ? names : optional).push_back("tracer_mass");
  for (std::size_t k = 0; k < (config.tracer ? 4u : 3u); ++k)
    optional.push_back(kPreviousFields[k].name);
  CfRecord r = read_last_record(path, config.grid.nx, config.grid.ny, names, optional);
  if (!config.kinematic) {
    model.set_state(ShallowWater::kH, r.fields.at("h"));
    model.set_state(ShallowWater::kU, r.fields.at("u_face"));
    model.set_state(ShallowWater::kV, r.fields.at("v_face"));
  }
  if (r.fields.contains("tracer_mass"))
    model.set_state(ShallowWater::kTracerMass, r.fields.at("tracer_mass"));
  return r;
}

// Gives a leapfrog integrator the previous time level saved in `r`; refuses a
// --restart whose file was written by another kind of integrator (its
// continuation could not be the same run).
void restore_time_levels(ShallowWater& model, TimeIntegrator& integrator, const CfRecord& r,
                         const std::string& path, bool restart, bool root) {
  const bool leapfrog = integrator.name() == "leapfrog";
  const bool saved = r.fields.contains("h_previous");
  if (restart && saved && !leapfrog)
    throw ConfigError("'" + path +
                      "' was written by a leapfrog run (it holds h_previous); restart " +
                      "it with --integrator leapfrog");
  if (restart && !saved && leapfrog)
    throw ConfigError("'" + path + "' holds no leapfrog time level (h_previous): it was written " +
                      "by a one-level integrator; restart it with that --integrator (rk3 or rk4)");
  if (!leapfrog) return;
  if (!saved) {
    if (root)
      std::printf(
          "note: '%s' holds no leapfrog time level: leapfrog starts with a forward-Euler "
          "step\n",
          path.c_str());
    return;
  }
  // NaN: the record is the run's initial state and the unbroken run started here too.
  if (!std::isfinite(r.fields.at("h_previous").front())) return;
  State* previous = integrator.restore_previous_level();
  // Copy the whole state first (halos included: in kinematic mode the prescribed
  // velocities' halos are never refreshed), then the saved interiors.
  combine(model.runtime(), *previous, 1, model.state(), 0, model.state());
  const ShallowWaterConfig& config = model.config();
  for (std::size_t k = 0; k < (config.tracer ? 4u : 3u); ++k) {
    if (config.kinematic && kStateFields[k] != ShallowWater::kTracerMass) continue;
    model.set_state(kStateFields[k], r.fields.at(kPreviousFields[k].name), previous);
  }
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
  c.config.vorticity_flux = s.vorticity_flux;
  if (!(c.days > 0)) throw ConfigError("--days must be positive, got " + std::to_string(c.days));
  ShallowWater model(runtime, c.config);
  c.initialize(model);
  const std::string start_file = s.restart.empty() ? s.initial : s.restart;
  const std::string output = s.restart.empty() ? s.output : s.restart;
  // Simulated time at the start: the last record's time when restarting, else 0.
  double t0 = 0;
  CfRecord record;
  // --initial FILE.csv: the layer depth only (rows north to south, resampled onto the grid).
  const bool initial_csv = s.initial.ends_with(".csv");
  if (initial_csv) {
    if (c.config.kinematic)
      throw ConfigError("--initial " + s.initial + ": a CSV file gives the layer depth, which " +
                        s.case_name + " keeps fixed (its flow is prescribed); use a NetCDF file");
    model.set_depth(
        resample(read_elevation_csv(s.initial, "--initial"), c.config.grid.nx, c.config.grid.ny));
  } else if (!start_file.empty()) {
    record = start_from_file(model, start_file, !s.restart.empty());
    if (!s.restart.empty()) t0 = record.time;
  }
  auto integrator = make_integrator(s.integrator, model);
  const Grid& g = c.config.grid;
  const bool root = runtime.rank() == 0;
  if (!start_file.empty() && !initial_csv)
    restore_time_levels(model, *integrator, record, start_file, !s.restart.empty(), root);

  const Diagnostics start = model.diagnostics();
  const double rate = start.max_wave_speed_x / g.dx + start.max_wave_speed_y / g.dy;
  const double duration = c.days * 86400, t_end = t0 + duration;
  double dt = choose_dt(s, *integrator, rate);
  const long steps = std::max(1L, static_cast<long>(std::ceil(duration / dt - 1e-9)));
  dt = duration / static_cast<double>(steps);
  if (root && initial_csv)
    std::printf("weather_ipu: starting from the layer depth in %s\n", s.initial.c_str());
  else if (root && !start_file.empty())
    std::printf("weather_ipu: starting from the last record of %s (t = %.6g s)%s\n",
                start_file.c_str(), t0, s.restart.empty() ? "" : ", appending to it");
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
  const bool leapfrog = s.integrator == "leapfrog";
  auto write_record = [&](double t) {
    std::vector<std::vector<double>> values;
    for (const std::string& n : names) values.push_back(model.gather(n));
    const int exact[] = {ShallowWater::kU, ShallowWater::kV, ShallowWater::kTracerMass};
    for (int k = 0; k < restart_fields; ++k) {
      const std::vector<double> state = model.gather_state(exact[k]);
      if (root) writer->write_static(kRestartFields[static_cast<std::size_t>(k)].name, state);
    }
    if (leapfrog) {
      const State* previous = integrator->previous_level();
      const std::vector<double> not_started(static_cast<std::size_t>(g.nx) * g.ny, NAN);
      for (int k = 0; k < restart_fields + 1; ++k) {
        const std::vector<double> level =
            previous ? model.gather_state(kStateFields[k], previous) : not_started;
        if (root) writer->write_static(kPreviousFields[static_cast<std::size_t>(k)].name, level);
      }
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
      if (leapfrog)
        static_fields.insert(static_fields.end(), kPreviousFields.begin(),
                             kPreviousFields.begin() + restart_fields + 1);
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
  Progress progress(root, s.progress_every, t_end);
  Stop stop;
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
    progress.update(step, steps, t);
    if ((stop.signal = stop_requested(runtime.comm()))) {
      stop.step = step, stop.t = t;
      break;
    }
  }
  if (root && writer) writer->close();
  if (stop.signal) return stopped(runtime, output, writer.get(), stop, steps, t_end, false, true);

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
    app.add_option("--vorticity-flux", s.vorticity_flux,
                   "Planar cases: arakawa-lamb (conserves energy and potential enstrophy) | "
                   "energy (Sadourny 1975)")
        ->capture_default_str()
        ->check(CLI::IsMember({"arakawa-lamb", "energy"}));
    app.add_option("--topography", s.topography,
                   "Elevation for the volcano case, metres: CSV (rows north to south) or NetCDF "
                   "(a 2-D variable with standard_name surface_altitude or named elevation, "
                   "topography, b, z or height)");
    app.add_option("--initial", s.initial,
                   "Start from the last record of this weather_ipu output (same case and grid), "
                   "or, for FILE.csv, from this layer depth in metres (rows north to south, "
                   "resampled; the case's velocities and tracer concentration are kept)");
    app.add_option("--restart", s.restart,
                   "Continue this weather_ipu output from its last record for --days more, "
                   "appending to it");
    app.add_option("--reference-factor", s.reference_factor,
                   "williamson6: errors against our own run at this multiple of the resolution "
                   "(1: none)")
        ->capture_default_str()
        ->check(CLI::Range(1, 8));
    app.add_option("--progress-every", s.progress_every,
                   "Seconds of wall time between progress lines")
        ->capture_default_str()
        ->check(CLI::NonNegativeNumber);
    add_runtime_options(app, options, "host");
    if (auto code = parse_command_line(app, argc, argv)) return *code;
    std::string command_line = "weather_ipu";
    for (int i = 1; i < argc; ++i) command_line += std::string(" ") + argv[i];
    Runtime runtime(options);
    stop_on_signals();
    return run(runtime, s, command_line);
  });
}
