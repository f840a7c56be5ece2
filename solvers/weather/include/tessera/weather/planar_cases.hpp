// The planar test cases of weather_ipu (C grid, ShallowWater):
//   gravity-wave     linear standing gravity wave, f = 0, doubly periodic; analytic solution
//   geostrophic      zonal jet in geostrophic balance on a doubly periodic f-plane; steady
//   tracer-rotation  solid-body rotation of a cosine bell in prescribed flow, one turn a day
//   volcano          westerly flow over Maunga Whau's topography (scaled) in a channel, with
//                    a moisture tracer; needs RunSettings::topography (CSV or NetCDF)
#pragma once

#include <mpi.h>

#include <functional>
#include <string>

#include "tessera/weather/run.hpp"
#include "tessera/weather/shallow_water.hpp"

namespace tessera::weather {

// One test case: its grid and physics, its initial state and, if it has one,
// the exact solution at time t (of h, or of the tracer) with the offset whose
// norm the errors are relative to.
struct PlanarCase {
  int nx = 0, ny = 0;
  double days = 0;
  ShallowWaterConfig config;
  std::function<void(ShallowWater&)> initialize;
  std::function<ShallowWater::Function(double t)> reference;
  int reference_field = ShallowWater::kH;
  double reference_offset = 0;
  std::string description;
};

// The case RunSettings::case_name names, sized by nx, ny and days where they are set.
// Throws ConfigError for an unknown case or a volcano without topography, or a topography
// that differs between the ranks of `comm` (collective: same_input.hpp), and the elevation
// reader's errors. Collective over `comm` for the volcano. `sized`, if given, is called with
// the grid's size as soon as it is known, before anything of that size is allocated (to
// refuse a grid too large for the machine: memory_estimate.hpp).
PlanarCase make_planar_case(const RunSettings& s, MPI_Comm comm = MPI_COMM_SELF,
                            const std::function<void(int nx, int ny)>& sized = {});

}  // namespace tessera::weather
