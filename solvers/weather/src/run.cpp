#include "tessera/weather/run.hpp"

#include <algorithm>
#include <chrono>
#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <functional>
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
#include "tessera/weather/jablonowski_williamson.hpp"
#include "tessera/weather/memory_estimate.hpp"
#include "tessera/weather/planar_cases.hpp"
#include "tessera/weather/primitive_equations.hpp"
#include "tessera/weather/same_input.hpp"
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

// The step plan of a run. A --restart whose file records its step grid continues that grid
// with the recorded dt (unless --dt asks for another), so that it takes the unbroken run's
// steps; otherwise dt is --dt or the CFL default fitted to the output interval.
StepPlan plan_run(const RunSettings& s, const TimeIntegrator& integrator, double rate,
                  double duration, const std::optional<Checkpoint>& from, bool restart,
                  const std::string& path, bool root) {
  if (restart && from && from->dt && (s.dt == 0 || s.dt == *from->dt)) {
    try {
      choose_dt(*from->dt, integrator, rate);
    } catch (const ConfigError& e) {
      throw ConfigError("the time step " + number(*from->dt) + " s recorded in '" + path +
                        "' does not fit its last state: " + e.what() +
                        " (a different --dt continues the run, not bit for bit)");
    }
    return from->on_grid ? plan_steps(*from->dt, from->origin, from->step, duration)
                         : plan_steps(*from->dt, from->time, 0, duration);
  }
  const double dt = choose_dt(s.dt, integrator, rate, s.output_every_hours * 3600);
  if (restart && from && from->dt && root)
    std::printf(
        "note: --dt %g s is not the time step of '%s' (%g s): the continuation is not bit for "
        "bit the unbroken run\n",
        dt, path.c_str(), *from->dt);
  return plan_steps(dt, restart && from ? from->time : 0, 0, duration);
}

// The Courant number at the last check that found the state sound.
struct Health {
  double courant = 0, t = 0;
};

// The scheme of a planar run, for the output's source attribute: the prescribed flow's tracer
// advection (--tracer-scheme) or the shallow-water vorticity flux (--vorticity-flux).
std::string planar_source(bool kinematic, const RunSettings& s) {
  if (kinematic)
    return std::string("advection of a tracer by a prescribed flow on a planar C grid, ") +
           (s.tracer_scheme == "upwind" ? "first-order upwind" : "van Leer-limited") +
           " face values";
  return std::string("planar shallow water on a C grid, ") +
         (s.vorticity_flux == "energy"
              ? "Sadourny (1975) energy-conserving scheme"
              : "Arakawa & Lamb (1981) energy- and potential-enstrophy-conserving scheme");
}

// The planar model's fastest wave crossing rate (1/s): dt times it is the Courant number.
double wave_frequency(const Diagnostics& d, const Grid& g) {
  return d.max_wave_speed_x / g.dx + d.max_wave_speed_y / g.dy;
}

// What the time loop checks of a model's state: the fields find_bad_value must find positive,
// their names for the message, and whether the grid is geographic (latitude-longitude).
struct Soundness {
  std::vector<bool> positive;
  std::vector<std::string> names;
  bool geographic;
  bool depth = true;  // field 0 is a layer depth (m) that can dry out
};

// Stops the run with an ERROR that names what went wrong where and when, and what the time
// step has to do with it: a step beyond the CFL limit of the flow at the last sound check is
// the cause; one within it is not, and the message says so instead of "reduce --dt".
[[noreturn]] void unsound(const BadValue& b, const Soundness& sound, const Grid& g, double t,
                          long long step, const Health& last, double limit,
                          const std::string& integrator) {
  char value[32];
  std::snprintf(value, sizeof value, "%.6g", std::isnan(b.value) ? NAN : b.value);
  if (std::isnan(b.value)) std::snprintf(value, sizeof value, "nan");
  const bool dry = sound.depth && b.field == 0 && std::isfinite(b.value);
  std::string message = "the run failed at t = " + number(t) + " s (step " + std::to_string(step) +
                        "): " + sound.names.at(static_cast<std::size_t>(b.field)) + " is " + value +
                        (dry ? " m" : "") + " at cell " +
                        describe_cell(g, b.i, b.j, sound.geographic) + "; ";
  char courant[160];
  std::snprintf(courant, sizeof courant, "Courant number %.3g at t = %.6g s, the limit of %s %.3g",
                last.courant, last.t, integrator.c_str(), limit);
  if (last.courant > limit)
    message += std::string("the flow had outgrown the time step (") + courant +
               "): the run became unstable; reduce --dt";
  else
    message += std::string("the time step was within the CFL limit at the last check (") + courant +
               "), so it is not the cause: " +
               (dry ? "the layer dried out there (the topography reaches the free surface, or "
                      "the layer is too thin for the flow)"
                    : "look at the inputs (topography, initial state) near that cell");
  throw Error(message);
}

// The time loop of every model. Steps the integrator through the plan; every 50 steps and at
// the end stops on an unsound state rather than write it, and keeps the Courant number
// (dt x `frequency()`, 1/s) for the message of a later failure; writes a record on the output
// schedule (`write_record(t, step)`, collective) when `writing`; polls for SIGINT and SIGTERM.
// Returns the stop (signal 0: the run reached the end of the plan).
template <class Model, class Frequency, class WriteRecord>
Stop run_steps(Runtime& runtime, Model& model, TimeIntegrator& integrator, const StepPlan& plan,
               const RunSettings& s, const Grid& grid, const Soundness& sound, double t0,
               double t_end, double initial_frequency, Frequency frequency, bool writing,
               WriteRecord write_record) {
  const double output_every = s.output_every_hours * 3600;
  double next_output = t0 + output_every;
  Progress progress(runtime.rank() == 0, s.progress_every, t_end);
  const double limit = courant_limit(integrator);
  Health health{plan.dt * initial_frequency, t0};
  for (long long step = 1; step <= plan.steps; ++step) {
    integrator.step(model.state(), step == plan.steps && plan.shortened
                                       ? plan.end - plan.time(step - 1)
                                       : plan.dt);
    const double t = plan.time(step);
    if (step % 50 == 0 || step == plan.steps) {
      if (const auto bad =
              find_bad_value(runtime, model.decomposition(), model.state().fields, sound.positive))
        unsound(*bad, sound, grid, t, step, health, limit, s.integrator);
      health = {plan.dt * frequency(), t};
    }
    if (writing && (t >= next_output - 1e-6 * plan.dt || step == plan.steps)) {
      write_record(t, step);
      while (next_output <= t + 1e-6 * plan.dt) next_output += output_every;
    }
    progress.update(step, plan.steps, t);
    if (const int signal = stop_requested(runtime.comm()))
      return {signal, static_cast<long>(step), t};
  }
  return {};
}

// Williamson et al. (1992) test cases 1, 2 and 6 on a latitude-longitude grid.
int run_sphere(Runtime& runtime, const RunSettings& s, const std::string& command_line) {
  const int number_of_case = s.case_name.back() - '0';
  const double degrees = s.resolution > 0 ? s.resolution : (number_of_case == 1 ? 2.8125 : 5.625);
  const double days = s.days >= 0 ? s.days
                                  : (number_of_case == 1   ? 12
                                     : number_of_case == 2 ? 5
                                     : number_of_case == 5 ? 15
                                                           : 14);
  // Before anything of the grid's size exists (and before its size is an int): the state,
  // 4 work fields (U, V, B, q) and case 5's mountain, and case 5's or 6's reference run at r
  // times the resolution.
  const int factor = s.reference_factor;
  const bool self_referenced = number_of_case == 5 || number_of_case == 6;
  const bool reference = self_referenced && factor > 1 && s.initial.empty() && s.restart.empty();
  const int work_fields = number_of_case == 5 ? 5 : 4;
  require_memory(
      runtime,
      {.nx = 360 / degrees,
       .ny = 180 / degrees,
       .fields = model_fields(s.integrator, 3, work_fields) * (reference ? 1 + factor * factor : 1),
       .halo = 2,
       .root_arrays = 4,
       .rank_arrays = s.initial.empty() && s.restart.empty() ? 0 : 9},
      "a " + number(360 / degrees) + " x " + number(180 / degrees) + " grid (--resolution " +
          number(degrees) + ")");
  const int nlon = static_cast<int>(std::lround(360 / degrees));
  if (std::abs(nlon * degrees - 360) > 1e-9 * 360 || nlon % 2 != 0)
    throw ConfigError("--resolution " + std::to_string(degrees) +
                      " must divide 360 degrees into an even number of cells (e.g. 5.625, 2.8125)");
  if (!(days > 0)) throw ConfigError("--days must be positive");
  const bool kinematic = number_of_case == 1;
  if (s.polar_filter_degrees > 0 && kinematic)
    throw ConfigError("--polar-filter acts on the dynamic cases (williamson2, williamson5, "
                      "williamson6), not on williamson1's prescribed flow");
  const double filter_latitude = s.polar_filter_degrees * kPi / 180;
  SphericalShallowWater model(runtime, {.nlon = nlon,
                                        .nlat = nlon / 2,
                                        .alpha = s.alpha,
                                        .kinematic = kinematic,
                                        .polar_filter_latitude = filter_latitude});
  williamson::initialize(number_of_case, model);
  auto integrator = make_integrator(s.integrator, model);
  const Grid grid{.nx = nlon,
                  .ny = nlon / 2,
                  .dx = 2 * kPi / nlon,
                  .dy = kPi / (nlon / 2),
                  .x0 = 0,
                  .y0 = -kPi / 2};
  const CheckpointLayout layout = sphere_checkpoint(grid, kinematic);
  const bool root = runtime.rank() == 0;
  const bool restart = !s.restart.empty();
  const std::string start_file = restart ? s.restart : s.initial;
  const std::string output = restart ? s.restart : s.output;
  std::optional<Checkpoint> from;
  if (!start_file.empty())
    from = start_from_file(model, *integrator, layout, start_file, restart, root);
  const double duration = days * 86400;
  const StepPlan plan =
      plan_run(s, *integrator, model.max_frequency(), duration, from, restart, start_file, root);
  const double t0 = restart ? from->time : 0, t_end = plan.end;
  if (root && !start_file.empty())
    std::printf("weather_ipu: starting from the last record of %s (t = %.6g s)%s\n",
                start_file.c_str(), from->time, restart ? ", appending to it" : "");
  const std::string filter_note =
      s.polar_filter_degrees > 0
          ? ", polar filter poleward of " + number(s.polar_filter_degrees) + " degrees"
          : "";
  if (root)
    std::printf(
        "weather_ipu: case %s: Williamson et al. (1992) test case %d, alpha %.4g%s\n"
        "  grid %d x %d (%.4g degrees), %lld steps of %.6g s (%s), %.4g days\n"
        "  target %s (%d tiles), %d rank%s x %d thread%s\n",
        s.case_name.c_str(), number_of_case, s.alpha, filter_note.c_str(), nlon, nlon / 2, degrees,
        plan.steps, plan.dt,
        s.integrator.c_str(), days, runtime.target().name.c_str(), runtime.target().total_tiles(),
        runtime.ranks(), runtime.ranks() == 1 ? "" : "s", runtime.threads(),
        runtime.threads() == 1 ? "" : "s");
  std::vector<std::string> names = {"h"};
  if (!kinematic) names = {"h", "u", "v"};
  std::unique_ptr<CfWriter> writer;
  const bool leapfrog = s.integrator == "leapfrog";
  auto write_record = [&](double t, long long n) {
    std::vector<std::vector<double>> values;
    for (const std::string& name : names) values.push_back(model.gather(name));
    write_checkpoint(model, *integrator, layout, writer.get(), t, plan, n);
    if (root) writer->append(t, values);
  };
  if (!output.empty()) {
    if (root) {
      std::vector<CfVariable> fields = {{"h", "fluid layer thickness", "m", ""}};
      if (!kinematic) {
        fields.push_back(
            {"u", "eastward velocity (averaged to cell centres)", "m s-1", "eastward_wind"});
        fields.push_back(
            {"v", "northward velocity (averaged to cell centres)", "m s-1", "northward_wind"});
      }
      writer = restart
                   ? CfWriter::reopen(output, grid, fields)
                   : std::make_unique<CfWriter>(
                         output, grid, fields, checkpoint_variables(layout, leapfrog),
                         CfFileInfo{.title = "Tessera weather_ipu case " + s.case_name,
                                    .history = command_line,
                                    .source = std::string("Tessera weather: ") +
                                              (kinematic ? "advection of h by a prescribed "
                                                           "non-divergent flow on a "
                                                           "latitude-longitude C grid, van "
                                                           "Leer-limited face values, "
                                                         : "shallow water on a latitude-longitude "
                                                           "C grid, Sadourny (1975) "
                                                           "energy-conserving scheme, ") +
                                              s.integrator + filter_note,
                                    .geographic = true,
                                    .levels = std::nullopt});
    }
    if (!restart) write_record(0, 0);
  }
  const double mass0 = model.mass(), energy0 = model.energy();
  Stop stop = run_steps(
      runtime, model, *integrator, plan, s, grid,
      {{!kinematic, false, false}, {"h", "u (west face)", "v (south face)"}, true}, t0, t_end,
      model.max_frequency(), [&] { return model.max_frequency(); }, !output.empty(),
      write_record);
  if (root && writer) writer->close();
  if (stop.signal)
    return stopped(runtime, output, writer.get(), stop, plan.steps, t_end, false, true);
  std::optional<ErrorNorms> errors;
  // From a file the state is not the case's at t = 0: the exact solution still holds for a
  // restart (the same run), not for --initial.
  if ((number_of_case == 1 || number_of_case == 2) && s.initial.empty())
    errors = model.height_errors(williamson::exact_height(number_of_case, model.config(), t_end));
  const double mass1 = model.mass(), energy1 = model.energy();
  const std::uint64_t checksum = model.checksum();
  const double simulated = runtime.profile().simulated_seconds();
  // Test cases 5 and 6 have no exact solution: compare with our own run at reference_factor
  // times the resolution (its own CFL time step), averaged conservatively onto this
  // grid. A self-reference: it measures the distance to a better-resolved solution
  // of the same scheme, not to the true one (docs/weather.md). Not after a restart or
  // --initial: the reference would have to start where the run did.
  if (reference) {
    const int fine_nlon = nlon * factor;
    SphericalShallowWater fine(runtime,
                               {.nlon = fine_nlon,
                                .nlat = fine_nlon / 2,
                                .alpha = s.alpha,
                                .polar_filter_latitude = filter_latitude});
    williamson::initialize(number_of_case, fine);
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
        stop.step = plan.steps, stop.t = t_end;
        return stopped(runtime, output, writer.get(), stop, plan.steps, t_end, true, false);
      }
    }
    const std::vector<double> reference = fine.gather("h");
    std::vector<double> h = model.gather("h");
    if (root) {
      std::vector<double> coarse = williamson::coarsen(reference, fine_nlon, fine_nlon / 2, factor);
      if (number_of_case == 5) {
        // Williamson's errors are of the free surface: the mountain added to both thicknesses
        // (the coarse grid's, so the difference is the thicknesses').
        const std::vector<double> hs = model.gather("hs");
        for (std::size_t k = 0; k < h.size(); ++k) h[k] += hs[k], coarse[k] += hs[k];
      }
      errors = williamson::normalised_errors(h, coarse, nlon, nlon / 2);
    }
  }
  const std::string summary = runtime.finish();
  if (root) {
    std::printf("mass change %.3e relative\n", (mass1 - mass0) / mass0);
    if (number_of_case != 1)
      std::printf("energy change %.3e relative\n", (energy1 - energy0) / energy0);
    if (self_referenced && errors)
      std::printf(
          "errors against our own run at %.4g degrees (a self-reference, not an exact "
          "solution):\n",
          degrees / factor);
    if (errors)
      std::printf("error: l1=%.6e l2=%.6e linf=%.6e\n", errors->l1, errors->l2, errors->linf);
    else
      std::printf("no errors for test case %d without a reference run (--reference-factor 1)\n",
                  number_of_case);
    std::printf("state checksum %016" PRIx64 "\n", checksum);
    if (writer) std::printf("wrote %s (%d records)\n", output.c_str(), writer->records());
    std::printf("simulated time on %s: %.6e s for %lld steps (%.6e s per step)\n",
                runtime.target().name.c_str(), simulated, plan.steps,
                simulated / static_cast<double>(plan.steps));
    std::fputs(summary.c_str(), stdout);
  }
  return 0;
}

// The cases of the hydrostatic primitive equations: Jablonowski & Williamson's (2006) balanced
// jet (jw-steady-state) and the baroclinic wave it grows from a bump of u, and Held & Suarez's
// (1994) forced climate (held-suarez: 20 sigma levels, from isothermal air at rest).
// The output's pressure levels in Pa, from the highest pressure down: --pressure-levels, or
// CMIP6's plev8; a restart continues with its file's (refusing other levels asked for).
std::vector<double> output_pressure_levels(const RunSettings& s, bool restart, int nx, int ny) {
  std::vector<double> hpa = s.pressure_levels_hpa;
  if (hpa.empty()) hpa = {1000, 850, 700, 500, 250, 100, 50, 10};
  std::sort(hpa.begin(), hpa.end(), std::greater<>());
  std::vector<double> pa;
  for (const double p : hpa) pa.push_back(100 * p);
  if (!restart) return pa;
  const CfRecord file = read_last_record(s.restart, nx, ny, {}, {}, {"plev"});
  const auto found = file.coordinates.find("plev");
  const std::vector<double> theirs =
      found == file.coordinates.end() ? std::vector<double>{} : found->second;
  if (theirs == pa || s.pressure_levels_hpa.empty()) return theirs;
  std::string list;
  for (const double p : theirs) list += (list.empty() ? "" : ", ") + number(p / 100);
  throw ConfigError(
      "'" + s.restart + "' has " +
      (theirs.empty() ? "no pressure levels" : "the pressure levels " + list + " hPa") +
      ": continue it with those, leaving out --pressure-levels");
}

int run_atmosphere(Runtime& runtime, const RunSettings& s, const std::string& command_line) {
  const bool wave = s.case_name == "baroclinic-wave";
  const bool forced = s.case_name == "held-suarez";
  if (s.nx > 0 || s.ny > 0)
    throw ConfigError("the case " + s.case_name + " takes --resolution, not --nx or --ny");
  if (!s.topography.empty())
    throw ConfigError("the case " + s.case_name +
                      " has its own flat or balanced surface: leave out --topography");
  if (forced && s.alpha != 0)
    throw ConfigError("held-suarez has no rotated version: leave out --alpha");
  const double degrees = s.resolution > 0 ? s.resolution : 2.8125;
  const double days = s.days >= 0 ? s.days : (forced ? 1200 : wave ? 10 : 30);
  const double filter_degrees = s.polar_filter_degrees > 0 ? s.polar_filter_degrees : 60;
  const HybridLevels levels = forced ? HybridLevels::uniform_sigma(20) : HybridLevels::cam26();
  const int layers = levels.layers();
  // The state (ps, and u, v, T in every layer) and the work fields (five per layer, one per
  // interface, four of one layer and the surface geopotential; del^4 five more of one layer).
  require_memory(
      runtime,
      {.nx = 360 / degrees,
       .ny = 180 / degrees,
       .fields = model_fields(s.integrator, 3 * layers + 1,
                              6 * layers + 6 + (s.hyperdiffusion > 0 ? 5 : 0)),
       .halo = 2,
       .root_arrays =
           3 * layers + 2 +
           4 * static_cast<int>(s.pressure_levels_hpa.empty() ? 8 : s.pressure_levels_hpa.size()),
       .rank_arrays = s.initial.empty() && s.restart.empty() ? 0 : 6 * layers + 2},
      "a " + number(360 / degrees) + " x " + number(180 / degrees) + " x " +
          std::to_string(layers) + " grid (--resolution " + number(degrees) + ")");
  const int nlon = static_cast<int>(std::lround(360 / degrees));
  if (std::abs(nlon * degrees - 360) > 1e-9 * 360 || nlon % 2 != 0)
    throw ConfigError("--resolution " + std::to_string(degrees) +
                      " must divide 360 degrees into an even number of cells (e.g. 5.625, 2.8125)");
  AtmosphereConfig config = jablonowski_williamson::configuration(nlon, nlon / 2);
  config.polar_filter_latitude = filter_degrees * kPi / 180;
  config.diffusion = s.diffusion;
  config.hyperdiffusion = s.hyperdiffusion;
  config.sponge_layers = s.sponge_layers;
  config.sponge_diffusion = s.sponge_diffusion;
  config.levels = levels;
  config.rotation_axis_tilt = s.alpha;
  if (forced) config.held_suarez = HeldSuarez{};
  PrimitiveEquations model(runtime, config);
  if (forced)
    // At rest and isothermal, with a 0.1 K wave in T to break the zonal symmetry.
    model.initialize([&](double, double) { return levels.reference_pressure; },
                     [](double, double, double) { return 0.0; },
                     [](double, double, double) { return 0.0; },
                     [](double lambda, double phi, double) {
                       return 300 + 0.1 * std::cos(3 * lambda) * std::sin(2 * phi);
                     });
  else
    jablonowski_williamson::initialize(model, {.perturbation = wave ? 1.0 : 0.0});
  auto integrator = make_integrator(s.integrator, model);
  const Grid grid{.nx = nlon,
                  .ny = nlon / 2,
                  .dx = 2 * kPi / nlon,
                  .dy = kPi / (nlon / 2),
                  .x0 = 0,
                  .y0 = -kPi / 2};
  const bool root = runtime.rank() == 0;
  // JW06's norm measures the change from their initial state, whatever the run starts from.
  const std::vector<double> zonal0 = model.zonal_mean_u(), ps0 = model.gather("ps");
  const CheckpointLayout layout = atmosphere_checkpoint(grid, layers);
  const bool restart = !s.restart.empty();
  const std::string start_file = restart ? s.restart : s.initial;
  const std::string output = restart ? s.restart : s.output;
  std::optional<Checkpoint> from;
  if (!start_file.empty())
    from = start_from_file(model, *integrator, layout, start_file, restart, root);
  const std::vector<double> pressure_levels = output_pressure_levels(s, restart, grid.nx, grid.ny);
  const StepPlan plan = plan_run(s, *integrator, model.max_frequency(), days * 86400, from, restart,
                                 start_file, root);
  const double t0 = restart ? from->time : 0;
  if (root && !start_file.empty())
    std::printf("weather_ipu: starting from the last record of %s (t = %.6g s)%s\n",
                start_file.c_str(), from->time, restart ? ", appending to it" : "");
  const std::string scheme =
      "hydrostatic primitive equations on a latitude-longitude C grid, " + std::to_string(layers) +
      (forced ? " equally spaced sigma levels" : " hybrid sigma-pressure levels (CAM3)") +
      ", Simmons & Burridge (1981) vertical and Sadourny (1975) horizontal energy-conserving "
      "schemes, " +
      s.integrator + ", polar filter poleward of " + number(filter_degrees) + " degrees" +
      (s.diffusion > 0 ? ", del2 diffusion " + number(s.diffusion) + " m2 s-1" : "") +
      (s.hyperdiffusion > 0 ? ", del4 diffusion " + number(s.hyperdiffusion) + " m4 s-1" : "") +
      (s.sponge_layers > 0 ? ", a sponge of del2 " + number(s.sponge_diffusion) +
                                 " m2 s-1 doubling upwards in the top " +
                                 std::to_string(s.sponge_layers) + " layers"
                           : "") +
      (s.diffusion + s.hyperdiffusion + s.sponge_diffusion > 0
           ? " (tapered as (cos phi / cos phi_c)^2 and ^4 poleward of the filter)"
           : "") +
      (forced ? ", Held & Suarez (1994) forcing" : "");
  if (root)
    std::printf(
        "weather_ipu: case %s: %s\n  %s\n"
        "  grid %d x %d x %d (%.4g degrees), %lld steps of %.6g s, %.4g days\n"
        "  target %s (%d tiles), %d rank%s x %d thread%s\n",
        s.case_name.c_str(),
        forced ? "Held & Suarez (1994) forced climate"
        : wave ? "Jablonowski & Williamson (2006) baroclinic wave"
               : "Jablonowski & Williamson (2006) steady state",
        scheme.c_str(), nlon, nlon / 2, layers, degrees, plan.steps, plan.dt, days,
        runtime.target().name.c_str(), runtime.target().total_tiles(), runtime.ranks(),
        runtime.ranks() == 1 ? "" : "s", runtime.threads(), runtime.threads() == 1 ? "" : "s");
  std::unique_ptr<CfWriter> writer;
  auto write_record = [&](double t, long long n) {
    write_checkpoint(model, *integrator, layout, writer.get(), t, plan, n);
    std::vector<std::vector<double>> values{model.gather("ps")};
    for (const char* name : {"u", "v", "T"}) {
      std::vector<double> all;
      for (int k = 0; k < layers; ++k) {
        const std::vector<double> level = model.gather(name, k);
        all.insert(all.end(), level.begin(), level.end());
      }
      values.push_back(std::move(all));
    }
    if (!pressure_levels.empty())
      for (const char* name : {"T", "u", "v", "Z"}) {
        std::vector<double> all;
        for (const double p : pressure_levels) {
          const std::vector<double> level = model.gather_on_pressure_level(name, p);
          all.insert(all.end(), level.begin(), level.end());
        }
        values.push_back(std::move(all));
      }
    if (root) writer->append(t, values);
  };
  if (!output.empty()) {
    const std::vector<double> phis = model.gather("phis");
    if (root) {
      const HybridLevels& lv = config.levels;
      std::vector<CfVariable> fields{
          {"ps", "surface pressure", "Pa", "surface_air_pressure"},
          {"u", "eastward wind (averaged to cell centres)", "m s-1", "eastward_wind",
           CfLevels::model},
          {"v", "northward wind (averaged to cell centres)", "m s-1", "northward_wind",
           CfLevels::model},
          {"T", "air temperature", "K", "air_temperature", CfLevels::model}};
      if (!pressure_levels.empty()) {
        const std::vector<CfVariable> on_pressure_levels{
            {"ta", "air temperature (extrapolated below the ground)", "K", "air_temperature",
             CfLevels::pressure},
            {"ua", "eastward wind (averaged to cell centres; the lowest layer's below the ground)",
             "m s-1", "eastward_wind", CfLevels::pressure},
            {"va", "northward wind (averaged to cell centres; the lowest layer's below the ground)",
             "m s-1", "northward_wind", CfLevels::pressure},
            {"zg", "geopotential height (extrapolated below the ground)", "m",
             "geopotential_height", CfLevels::pressure}};
        fields.insert(fields.end(), on_pressure_levels.begin(), on_pressure_levels.end());
      }
      std::vector<CfVariable> static_fields{
          {"phis", "surface geopotential", "m2 s-2", "surface_geopotential"}};
      for (CfVariable& v : checkpoint_variables(layout, s.integrator == "leapfrog"))
        static_fields.push_back(v);
      if (restart) {
        writer = CfWriter::reopen(output, grid, fields);
      } else {
        writer = std::make_unique<CfWriter>(
            output, grid, fields, static_fields,
            CfFileInfo{.title = "Tessera weather_ipu case " + s.case_name,
                       .history = command_line,
                       .source = "Tessera weather: " + scheme,
                       .geographic = true,
                       .levels = CfHybridLevels{.a_interfaces = lv.a,
                                                .b_interfaces = lv.b,
                                                .p0 = lv.reference_pressure},
                       .pressure_levels = pressure_levels});
        writer->write_static("phis", phis);
      }
    }
    if (!restart) write_record(0, 0);
  }
  std::vector<bool> positive(static_cast<std::size_t>(3 * layers + 1), false);
  std::vector<std::string> names{"ps"};
  positive[0] = true;
  for (const char* name : {"u (west face) in layer ", "v (south face) in layer ", "T in layer "})
    for (int k = 0; k < layers; ++k) names.push_back(name + std::to_string(k));
  for (int k = 0; k < layers; ++k) positive[static_cast<std::size_t>(model.t_field(k))] = true;
  const double mass0 = model.mass(), energy0 = model.total_energy();
  const Stop stop = run_steps(
      runtime, model, *integrator, plan, s, grid, {positive, names, true, false}, t0, plan.end,
      model.max_frequency(), [&] { return model.max_frequency(); }, !output.empty(), write_record);
  if (root && writer) writer->close();
  if (stop.signal)
    return stopped(runtime, output, writer.get(), stop, plan.steps, plan.end, false, true);
  const double mass1 = model.mass(), energy1 = model.total_energy();
  const std::vector<double> zonal = model.zonal_mean_u(), ps1 = model.gather("ps");
  const double zonal_change = jablonowski_williamson::zonal_mean_change(model, zonal, zonal0);
  const auto jet = std::max_element(zonal.begin(), zonal.end()) - zonal.begin();
  const auto [ps_min, ps_max] = model.surface_pressure_range();
  const std::uint64_t checksum = model.checksum();
  const double simulated = runtime.profile().simulated_seconds();
  const std::string summary = runtime.finish();
  if (root) {
    std::printf("mass change %.3e relative\n", (mass1 - mass0) / mass0);
    std::printf("energy change %.3e relative\n", (energy1 - energy0) / energy0);
    std::printf("surface pressure %.2f to %.2f hPa\n", ps_min / 100, ps_max / 100);
    if (forced)
      std::printf("zonal-mean u maximum %.4g m/s at latitude %.4g, eta %.3g\n", zonal[jet],
                  -90 + (static_cast<double>(jet % (nlon / 2)) + 0.5) * 360.0 / nlon,
                  model.layer_eta(static_cast<int>(jet / (nlon / 2))));
    else if (s.alpha == 0)
      std::printf("l2(ubar - ubar0) %.4g m/s (Jablonowski & Williamson's steady-state norm)\n",
                  zonal_change);
    if (!forced)
      std::printf("l2(ps - ps0) %.4g hPa (rotation axis tilted by alpha = %.4g rad)\n",
                  jablonowski_williamson::surface_pressure_change(model, ps1, ps0) / 100, s.alpha);
    std::printf("state checksum %016" PRIx64 "\n", checksum);
    if (writer) std::printf("wrote %s (%d records)\n", output.c_str(), writer->records());
    std::printf("simulated time on %s: %.6e s for %lld steps (%.6e s per step)\n",
                runtime.target().name.c_str(), simulated, plan.steps,
                simulated / static_cast<double>(plan.steps));
    std::fputs(summary.c_str(), stdout);
  }
  return 0;
}

int run_planar(Runtime& runtime, const RunSettings& s, const std::string& command_line) {
  const bool from_file = !s.initial.empty() || !s.restart.empty();
  // Before anything of the grid's size exists: the state (up to 4 fields), 6 work fields
  // (b, U, V, B, q, c); on rank 0 the gathered output fields, on every rank a start file's
  // 8 restart arrays or the resampled topography.
  PlanarCase c = make_planar_case(s, runtime.comm(), [&](int nx, int ny) {
    require_memory(runtime,
                   {.nx = static_cast<double>(nx),
                    .ny = static_cast<double>(ny),
                    .fields = model_fields(s.integrator, 4, 6),
                    .halo = 2,
                    .root_arrays = 5,
                    .rank_arrays = from_file ? 9 : 2},
                   "a " + std::to_string(nx) + " x " + std::to_string(ny) + " grid");
  });
  c.config.vorticity_flux = s.vorticity_flux;
  if (!(c.days > 0)) throw ConfigError("--days must be positive, got " + std::to_string(c.days));
  ShallowWater model(runtime, c.config);
  c.initialize(model);
  const bool restart = !s.restart.empty();
  const std::string start_file = restart ? s.restart : s.initial;
  const std::string output = restart ? s.restart : s.output;
  const Grid& g = c.config.grid;
  const bool root = runtime.rank() == 0;
  auto integrator = make_integrator(s.integrator, model);
  const CheckpointLayout layout = planar_checkpoint(g, c.config.kinematic, c.config.tracer);
  std::optional<Checkpoint> from;
  // --initial FILE.csv: the layer depth only (rows north to south, resampled onto the grid).
  const bool initial_csv = s.initial.ends_with(".csv");
  if (initial_csv) {
    if (c.config.kinematic)
      throw ConfigError("--initial " + s.initial + ": a CSV file gives the layer depth, which " +
                        s.case_name + " keeps fixed (its flow is prescribed); use a NetCDF file");
    const ElevationGrid depth = read_elevation_csv(s.initial, "--initial");
    require_same_input(runtime.comm(), depth.values,
                       "the layer depth read from '" + s.initial + "' (--initial)");
    model.set_depth(resample(depth, c.config.grid.nx, c.config.grid.ny));
  } else if (!start_file.empty()) {
    from = start_from_file(model, *integrator, layout, start_file, restart, root);
  }

  const Diagnostics start = model.diagnostics();
  const double rate = wave_frequency(start, g);
  const double duration = c.days * 86400;
  const StepPlan plan = plan_run(s, *integrator, rate, duration, from, restart, start_file, root);
  const double t0 = restart ? from->time : 0, t_end = plan.end;
  if (root && initial_csv)
    std::printf("weather_ipu: starting from the layer depth in %s\n", s.initial.c_str());
  else if (root && !start_file.empty())
    std::printf("weather_ipu: starting from the last record of %s (t = %.6g s)%s\n",
                start_file.c_str(), from->time, restart ? ", appending to it" : "");
  if (root)
    std::printf(
        "weather_ipu: case %s: %s\n  grid %d x %d (dx %.4g m, dy %.4g m), %lld steps of %.6g s "
        "(%s, Courant %.3g), %.4g days\n  target %s (%d tiles), %d rank%s x %d thread%s\n",
        s.case_name.c_str(), c.description.c_str(), g.nx, g.ny, g.dx, g.dy, plan.steps, plan.dt,
        s.integrator.c_str(), plan.dt * rate, c.days, runtime.target().name.c_str(),
        runtime.target().total_tiles(), runtime.ranks(), runtime.ranks() == 1 ? "" : "s",
        runtime.threads(), runtime.threads() == 1 ? "" : "s");

  std::unique_ptr<CfWriter> writer;
  std::vector<std::string> names = {"h", "u", "v"};
  if (c.config.tracer) names.push_back("c");
  const bool leapfrog = s.integrator == "leapfrog";
  auto write_record = [&](double t, long long n) {
    std::vector<std::vector<double>> values;
    for (const std::string& name : names) values.push_back(model.gather(name));
    write_checkpoint(model, *integrator, layout, writer.get(), t, plan, n);
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
      for (CfVariable& v : checkpoint_variables(layout, leapfrog)) static_fields.push_back(v);
      writer =
          restart
              ? CfWriter::reopen(output, g, fields)
              : std::make_unique<CfWriter>(
                    output, g, fields, static_fields,
                    CfFileInfo{.title = "Tessera weather_ipu case " + s.case_name,
                               .history = command_line,
                               .source = "Tessera weather: " +
                                         planar_source(c.config.kinematic, s) + ", " + s.integrator,
                               .geographic = false,
                               .levels = std::nullopt});
    }
    const std::vector<double> b = model.gather("b");
    if (root && !restart) writer->write_static("b", b);
    // A restart continues after the record it started from.
    if (!restart) write_record(0, 0);
  }

  Soundness sound{{!c.config.kinematic, false, false},
                  {"the layer depth h", "u (west face)", "v (south face)", "tracer_mass"},
                  false};
  if (c.config.tracer) sound.positive.push_back(false);
  const Stop stop = run_steps(
      runtime, model, *integrator, plan, s, g, sound, t0, t_end, rate,
      [&] { return wave_frequency(model.diagnostics(), g); }, !output.empty(), write_record);
  if (root && writer) writer->close();
  if (stop.signal)
    return stopped(runtime, output, writer.get(), stop, plan.steps, t_end, false, true);
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
    std::printf("simulated time on %s: %.6e s for %lld steps (%.6e s per step)\n",
                runtime.target().name.c_str(), runtime.profile().simulated_seconds(), plan.steps,
                runtime.profile().simulated_seconds() / static_cast<double>(plan.steps));
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
  require(std::isfinite(polar_filter_degrees) && polar_filter_degrees >= 0 &&
              polar_filter_degrees < 90,
          "--polar-filter", polar_filter_degrees, "a latitude in (0, 90) degrees (0: no filter)");
  require(std::isfinite(progress_every) && progress_every >= 0, "--progress-every", progress_every,
          "a non-negative number of seconds");
  require(nx >= 0, "--nx", nx, "a positive number of cells");
  require(ny >= 0, "--ny", ny, "a positive number of cells");
  require(reference_factor >= 1 && reference_factor <= 8, "--reference-factor", reference_factor,
          "between 1 and 8");
  require(std::isfinite(diffusion) && diffusion >= 0, "--diffusion", diffusion,
          "a non-negative coefficient in m2/s");
  require(std::isfinite(hyperdiffusion) && hyperdiffusion >= 0, "--hyperdiffusion", hyperdiffusion,
          "a non-negative coefficient in m4/s");
  require(sponge_layers >= 0, "--sponge-layers", sponge_layers, "a number of layers >= 0");
  require(std::isfinite(sponge_diffusion) && sponge_diffusion >= 0, "--sponge-diffusion",
          sponge_diffusion, "a non-negative coefficient in m2/s");
  for (std::size_t k = 0; k < pressure_levels_hpa.size(); ++k) {
    const double p = pressure_levels_hpa[k];
    require(std::isfinite(p) && p > 0 && p <= 1100, "--pressure-levels", p,
            "pressures in (0, 1100] hPa");
    for (std::size_t l = 0; l < k; ++l)
      require(pressure_levels_hpa[l] != p, "--pressure-levels", p, "given once");
  }
}

int run(Runtime& runtime, const RunSettings& s, const std::string& command_line) {
  s.validate();
  if (!s.initial.empty() && !s.restart.empty())
    throw ConfigError("give --initial or --restart, not both");
  if (!s.restart.empty() && !s.output.empty())
    throw ConfigError("--restart appends to its own file '" + s.restart + "'; leave out --output");
  const bool atmosphere = s.case_name == "jw-steady-state" || s.case_name == "baroclinic-wave" ||
                          s.case_name == "held-suarez";
  const bool sphere = atmosphere || s.case_name == "williamson1" || s.case_name == "williamson2" ||
                      s.case_name == "williamson5" || s.case_name == "williamson6";
  if (sphere && s.initial.ends_with(".csv"))
    throw ConfigError("--initial FILE.csv works for the planar cases only, not " + s.case_name);
  for (const auto& [option, value] :
       {std::pair{"--diffusion", s.diffusion}, std::pair{"--hyperdiffusion", s.hyperdiffusion},
        std::pair{"--sponge-layers", static_cast<double>(s.sponge_layers)},
        std::pair{"--sponge-diffusion", s.sponge_diffusion},
        std::pair{"--pressure-levels", static_cast<double>(s.pressure_levels_hpa.size())}})
    if (!atmosphere && value != 0)
      throw ConfigError(std::string(option) +
                        " acts on the 3-D cases (jw-steady-state, baroclinic-wave, "
                        "held-suarez), not on " +
                        s.case_name);
  if (atmosphere) return run_atmosphere(runtime, s, command_line);
  return sphere ? run_sphere(runtime, s, command_line) : run_planar(runtime, s, command_line);
}

}  // namespace tessera::weather
