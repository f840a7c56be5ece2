#include "weather_ipu_options.hpp"

#include <CLI/CLI.hpp>

#include "yaml_config.hpp"

namespace tessera::weather {

void add_weather_ipu_options(CLI::App& app, RunSettings& settings, RuntimeOptions& runtime) {
  app.add_option("--case", settings.case_name,
                 "gravity-wave | geostrophic | tracer-rotation | volcano | williamson1 | "
                 "williamson2 | williamson5 | williamson6 | jw-steady-state | baroclinic-wave | "
                 "held-suarez")
      ->capture_default_str();
  require_finite(
      app.add_option(
          "--resolution", settings.resolution,
          "Grid spacing in degrees for the spherical cases [=5.625; 2.8125 for williamson1 and "
          "the 3-D cases jw-steady-state, baroclinic-wave and held-suarez]"))
      ->check(CLI::PositiveNumber)
      ->check(CLI::Range(0.0, 90.0));
  require_finite(app.add_option("--alpha", settings.alpha,
                                "Angle of the williamson1/2 flow to the equator; for "
                                "jw-steady-state and baroclinic-wave, the tilt of the rotation "
                                "axis (Lauritzen et al. 2010); radians"))
      ->capture_default_str();
  require_finite(app.add_option("--polar-filter", settings.polar_filter_degrees,
                                "williamson2/5/6 and the 3-D cases: filter the tendencies zonally "
                                "poleward of this latitude, degrees; the time step follows its "
                                "spacing [=off; 60 for the 3-D cases, which always filter]"))
      ->check(CLI::Range(0.0, 90.0));
  app.add_option("--nx", settings.nx, "Cells in x [=the case's default]")
      ->check(CLI::PositiveNumber);
  app.add_option("--ny", settings.ny, "Cells in y [=the case's default]")
      ->check(CLI::PositiveNumber);
  require_finite(app.add_option("--days", settings.days, "Simulated days [=the case's default]"))
      ->check(CLI::PositiveNumber);
  require_finite(app.add_option("--dt", settings.dt,
                                "Time step in s [=0.8 of the CFL limit, fitted to "
                                "--output-every]"))
      ->check(CLI::PositiveNumber);
  app.add_option("--output", settings.output, "CF-1.8 NetCDF output file");
  require_finite(
      app.add_option("--output-every", settings.output_every_hours, "Hours between output records"))
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  app.add_option("--integrator", settings.integrator, "rk3 | rk4 | leapfrog")
      ->capture_default_str()
      ->check(CLI::IsMember({"rk3", "rk4", "leapfrog"}));
  app.add_option("--tracer-scheme", settings.tracer_scheme, "upwind | limited")
      ->capture_default_str()
      ->check(CLI::IsMember({"upwind", "limited"}));
  app.add_option("--vorticity-flux", settings.vorticity_flux,
                 "Planar cases: arakawa-lamb (conserves energy and potential enstrophy) | "
                 "energy (Sadourny 1975)")
      ->capture_default_str()
      ->check(CLI::IsMember({"arakawa-lamb", "energy"}));
  app.add_option("--topography", settings.topography,
                 "Elevation for the volcano case, metres: CSV (rows north to south) or NetCDF "
                 "(a 2-D variable with standard_name surface_altitude or named elevation, "
                 "topography, b, z or height)");
  app.add_option("--initial", settings.initial,
                 "Start from the last record of this weather_ipu output (same case and grid), "
                 "or, for FILE.csv, from this layer depth in metres (rows north to south, "
                 "resampled; the case's velocities and tracer concentration are kept)");
  app.add_option("--restart", settings.restart,
                 "Continue this weather_ipu output from its last record for --days more, "
                 "appending to it");
  app.add_option("--reference-factor", settings.reference_factor,
                 "williamson5/6: errors against our own run at this multiple of the resolution "
                 "(1: none)")
      ->capture_default_str()
      ->check(CLI::Range(1, 8));
  require_finite(app.add_option("--diffusion", settings.diffusion,
                                "The 3-D cases (jw-steady-state, baroclinic-wave, held-suarez): "
                                "del2 horizontal diffusion of u, v and T, m2/s [=0]"))
      ->check(CLI::NonNegativeNumber);
  require_finite(app.add_option("--hyperdiffusion", settings.hyperdiffusion,
                                "The 3-D cases: del4 horizontal diffusion of u, v and T below "
                                "the sponge, m4/s [=0]"))
      ->check(CLI::NonNegativeNumber);
  app.add_option("--sponge-layers", settings.sponge_layers,
                 "The 3-D cases: the top layers that get the sponge's del2 diffusion in place "
                 "of del4 [=0]")
      ->check(CLI::NonNegativeNumber);
  require_finite(app.add_option("--sponge-diffusion", settings.sponge_diffusion,
                                "The 3-D cases: the sponge's del2 coefficient, m2/s, doubling "
                                "in each layer upwards [=0]"))
      ->check(CLI::NonNegativeNumber);
  app.add_option("--pressure-levels", settings.pressure_levels_hpa,
                 "The 3-D cases: the output's pressure levels, hPa, comma-separated (ta, ua, "
                 "va, zg on plev) [=1000,850,700,500,250,100,50,10]")
      ->delimiter(',');
  require_finite(app.add_option("--progress-every", settings.progress_every,
                                "Seconds of wall time between progress lines"))
      ->capture_default_str()
      ->check(CLI::NonNegativeNumber);
  add_runtime_options(app, runtime, "host");
  apps::add_yaml_config_option(app);
}

}  // namespace tessera::weather
