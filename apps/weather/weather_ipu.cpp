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
// --initial starts a case from the last record of an earlier output (same case and
// grid) or, for a planar case, from a layer depth in CSV; --restart also takes the time
// and the time step and appends to that file, bit for bit the unbroken run for every
// integrator. The cases, the time step, the checkpoint and the run loop are the library's
// (tessera/weather/run.hpp); this program parses the options.
#include <CLI/CLI.hpp>
#include <string>

#include "tessera/core/environment.hpp"
#include "tessera/core/options.hpp"
#include "tessera/core/runtime.hpp"
#include "tessera/core/stop_signal.hpp"
#include "tessera/weather/run.hpp"

int main(int argc, char** argv) {
  using namespace tessera;
  return tessera::run_main(argc, argv, [](int argc, char** argv) {
    CLI::App app{"weather_ipu: shallow-water cases on the Tessera tile runtime"};
    tessera::weather::RunSettings s;
    RuntimeOptions options;
    app.add_option("--case", s.case_name,
                   "gravity-wave | geostrophic | tracer-rotation | volcano | williamson1 | "
                   "williamson2 | williamson6")
        ->capture_default_str();
    require_finite(
        app.add_option(
            "--resolution", s.resolution,
            "Grid spacing in degrees for the williamson cases [=5.625; 2.8125 for case 1]"))
        ->check(CLI::PositiveNumber)
        ->check(CLI::Range(0.0, 90.0));
    require_finite(app.add_option("--alpha", s.alpha,
                                  "Angle of the williamson1/2 flow to the equator, radians"))
        ->capture_default_str();
    app.add_option("--nx", s.nx, "Cells in x [=the case's default]")->check(CLI::PositiveNumber);
    app.add_option("--ny", s.ny, "Cells in y [=the case's default]")->check(CLI::PositiveNumber);
    require_finite(app.add_option("--days", s.days, "Simulated days [=the case's default]"))
        ->check(CLI::PositiveNumber);
    require_finite(app.add_option("--dt", s.dt,
                                  "Time step in s [=0.8 of the CFL limit, fitted to "
                                  "--output-every]"))
        ->check(CLI::PositiveNumber);
    app.add_option("--output", s.output, "CF-1.8 NetCDF output file");
    require_finite(
        app.add_option("--output-every", s.output_every_hours, "Hours between output records"))
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
    require_finite(app.add_option("--progress-every", s.progress_every,
                                  "Seconds of wall time between progress lines"))
        ->capture_default_str()
        ->check(CLI::NonNegativeNumber);
    add_runtime_options(app, options, "host");
    if (auto code = parse_command_line(app, argc, argv)) return *code;
    std::string command_line = "weather_ipu";
    for (int i = 1; i < argc; ++i) command_line += std::string(" ") + argv[i];
    Runtime runtime(options);
    stop_on_signals();
    return tessera::weather::run(runtime, s, command_line);
  });
}
