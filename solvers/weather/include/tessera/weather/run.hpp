// run: weather_ipu's cases from start to end on the tile runtime, as a library call: the
// planar cases (planar_cases.hpp) and Williamson et al.'s spherical ones, the time step
// (time_step.hpp), the NetCDF output and its continuation (checkpoint.hpp), progress lines
// and the clean stop on SIGINT/SIGTERM (tessera/core/stop_signal.hpp). weather_ipu parses
// the options into RunSettings and calls run(); see docs/weather.md for what each setting
// does.
#pragma once

#include <string>
#include <vector>

#include "tessera/core/error.hpp"
#include "tessera/core/runtime.hpp"

namespace tessera::weather {

// The settings of one run, as weather_ipu's options give them (0 or < 0: the case's default).
struct RunSettings {
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
  double polar_filter_degrees = 0;  // williamson2/6: the polar filter's latitude; 0: none
  std::string initial;        // start from the last record of this weather_ipu output
  std::string restart;        // continue this weather_ipu output, appending to it
  int reference_factor = 2;   // williamson6: resolution multiple of the self-reference run
  double diffusion = 0;       // the 3-D cases: del2 coefficient, m^2/s
  double hyperdiffusion = 0;  // the 3-D cases: del4 coefficient, m^4/s
  int sponge_layers = 0;      // the 3-D cases: layers of the sponge at the top
  double sponge_diffusion = 0;  // the 3-D cases: the sponge's del2 coefficient, m^2/s
  // The 3-D cases: the output's pressure levels, hPa; empty: CMIP6's plev8 (1000, 850, 700,
  // 500, 250, 100, 50, 10 hPa).
  std::vector<double> pressure_levels_hpa;
  double progress_every = 5;  // seconds of wall time between progress lines

  // Throws ConfigError naming the option (--days, --dt, ...) of a setting that is not finite
  // or out of its range: days > 0 (or < 0: the default), dt >= 0, output_every > 0,
  // 0 <= resolution <= 90, alpha finite, 0 <= polar_filter_degrees < 90, progress_every >= 0,
  // nx, ny >= 0,
  // 1 <= reference_factor <= 8, diffusion, hyperdiffusion, sponge_layers and
  // sponge_diffusion >= 0, pressure levels in (0, 1100] hPa without repeats.
  void validate() const;
};

// Prints `progress: t = ... h of ... h, ... steps/s, ETA ... s` on rank 0 at most

// Runs the case of `s` and prints its summary on rank 0; returns the exit code (0, or
// 128 + signal after a stop by SIGINT or SIGTERM). `command_line` goes into the output's
// history attribute. Throws ConfigError for settings that do not fit the case, and Error
// when the run fails. Collective over the runtime's ranks.
int run(Runtime& runtime, const RunSettings& s, const std::string& command_line);

}  // namespace tessera::weather
