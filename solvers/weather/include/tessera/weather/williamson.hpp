// Williamson et al. (1992, J. Comput. Phys. 102, 211-224) shallow-water test
// cases on the sphere, as initial states and (where the paper gives one)
// exact solutions, for SphericalShallowWater.
//
//   1  cosine bell (h0 = 1000 m, radius a/3, centred at 3 pi/2, 0) carried once
//      round the sphere in 12 days by solid-body rotation at angle alpha (eqs. 74-77);
//      exact solution: the rotated bell.
//   2  global steady state nonlinear zonal geostrophic flow, u0 = 2 pi a / 12 days,
//      g h0 = 2.94e4 m^2/s^2, at angle alpha (eqs. 90-95); exact solution: the initial state.
//   5  zonal flow (u0 = 20 m/s, h0 = 5960 m) over an isolated conical mountain 2000 m high,
//      radius pi/9, at (3 pi/2, pi/6) (eqs. 90-92, 133); no exact solution: errors against a
//      reference run, as for 6.
//   6  Rossby-Haurwitz wave of wavenumber R = 4, omega = K = 7.848e-6 /s,
//      h0 = 8000 m (eqs. 142-147); no exact solution. The paper's errors are
//      against a high-resolution spectral reference (Jakob-Chien, Hack &
//      Williamson 1995 used T213), which we do not have; `coarsen` and
//      `normalised_errors` compare with our own run at an integer multiple of the
//      resolution instead (a self-reference: see docs/weather.md for its limits).
#pragma once

#include <vector>

#include "tessera/core/error.hpp"
#include "tessera/weather/spherical_shallow_water.hpp"

namespace tessera::weather::williamson {

using Function = SphericalShallowWater::Function;

// Sets up test case `number` (1, 2, 5 or 6) on `model` (kinematic for case 1; case 5 sets the
// mountain and refuses an alpha other than 0).
void initialize(int number, SphericalShallowWater& model);
// The exact height after `seconds`, for cases 1 and 2; throws ConfigError for 5 and 6.
Function exact_height(int number, const SphereConfig& config, double seconds);

// Cell averages of a field on an nlon x nlat latitude-longitude grid (row-major
// from the south, as SphericalShallowWater::gather gives it) averaged onto the
// grid `factor` times coarser, each coarse cell the area-weighted mean of the
// factor x factor fine cells it is made of (so area integrals are kept).
// Throws ConfigError unless factor >= 1 divides nlon and nlat.
std::vector<double> coarsen(const std::vector<double>& fine, int nlon, int nlat, int factor);
// Williamson et al. (1992) eqs. 82-84 of h against `reference`, both nlon x nlat
// cell averages on the latitude-longitude grid, with area-weighted integrals.
ErrorNorms normalised_errors(const std::vector<double>& h, const std::vector<double>& reference,
                             int nlon, int nlat);

}  // namespace tessera::weather::williamson
