#include "tessera/weather/run.hpp"

#include <algorithm>
#include <chrono>
#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <memory>
#include <numbers>
#include <optional>
#include <string>

#include "tessera/core/environment.hpp"
#include "tessera/core/error.hpp"
#include "tessera/core/stop_signal.hpp"
#include "tessera/weather/cf_reader.hpp"
#include "tessera/weather/cf_writer.hpp"
#include "tessera/weather/checkpoint.hpp"
#include "tessera/weather/elevation.hpp"
#include "tessera/weather/planar_cases.hpp"
#include "tessera/weather/shallow_water.hpp"
#include "tessera/weather/spherical_shallow_water.hpp"
#include "tessera/weather/time_integrator.hpp"
#include "tessera/weather/time_step.hpp"
#include "tessera/weather/williamson.hpp"

namespace tessera::weather {

namespace {

constexpr double kPi = std::numbers::pi;

std::string number(double v) {
  char text[32];
  std::snprintf(text, sizeof text, "%.6g", v);
  return text;
}

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
int run_sphere(Runtime& runtime, const RunSettings& s, const std::string& command_line) {
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
  double dt = choose_dt(s.dt, *integrator, model.max_frequency());
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

}  // namespace

void RunSettings::validate() const {
  auto require = [](bool ok, const std::string& option, double value, const std::string& range) {
    if (!ok) throw ConfigError(option + " must be " + range + ", got " + number(value));
  };
  require(std::isfinite(days) && days != 0, "--days", days, "a positive number of days");
  require(std::isfinite(dt) && dt >= 0, "--dt", dt, "a positive time step in s (0: the default)");
  require(std::isfinite(output_every_hours) && output_every_hours > 0, "--output-every",
          output_every_hours, "a positive number of hours");
  require(std::isfinite(resolution) && resolution >= 0 && resolution <= 90, "--resolution",
          resolution, "a grid spacing in (0, 90] degrees");
  require(std::isfinite(alpha), "--alpha", alpha, "a finite angle in radians");
  require(std::isfinite(progress_every) && progress_every >= 0, "--progress-every", progress_every,
          "a non-negative number of seconds");
  require(nx >= 0, "--nx", nx, "a positive number of cells");
  require(ny >= 0, "--ny", ny, "a positive number of cells");
  require(reference_factor >= 1 && reference_factor <= 8, "--reference-factor", reference_factor,
          "between 1 and 8");
}

int run(Runtime& runtime, const RunSettings& s, const std::string& command_line) {
  s.validate();
  const bool sphere =
      s.case_name == "williamson1" || s.case_name == "williamson2" || s.case_name == "williamson6";
  if (!s.initial.empty() && !s.restart.empty())
    throw ConfigError("give --initial or --restart, not both");
  if (!s.restart.empty() && !s.output.empty())
    throw ConfigError("--restart appends to its own file '" + s.restart + "'; leave out --output");
  if (sphere && (!s.initial.empty() || !s.restart.empty()))
    throw ConfigError("--initial and --restart work for the planar cases only, not " + s.case_name);
  if (sphere) return run_sphere(runtime, s, command_line);
  PlanarCase c = make_planar_case(s);
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
  double dt = choose_dt(s.dt, *integrator, rate);
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

}  // namespace tessera::weather
