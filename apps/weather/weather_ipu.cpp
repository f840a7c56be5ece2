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
#include "weather_ipu_options.hpp"

int main(int argc, char** argv) {
  using namespace tessera;
  return tessera::run_main(argc, argv, [](int argc, char** argv) {
    CLI::App app{"weather_ipu: shallow-water cases on the Tessera tile runtime"};
    tessera::weather::RunSettings s;
    RuntimeOptions options;
    tessera::weather::add_weather_ipu_options(app, s, options);
    if (auto code = parse_command_line(app, argc, argv)) return *code;
    std::string command_line = "weather_ipu";
    for (int i = 1; i < argc; ++i) command_line += std::string(" ") + argv[i];
    Runtime runtime(options);
    stop_on_signals();
    return tessera::weather::run(runtime, s, command_line);
  });
}
