// Williamson et al. (1992, J. Comput. Phys. 102, 211-224) shallow-water test
// cases on the sphere, as initial states and (where the paper gives one)
// exact solutions, for SphericalShallowWater.
//
//   1  cosine bell (h0 = 1000 m, radius a/3, centred at 3 pi/2, 0) carried once
//      round the sphere in 12 days by solid-body rotation at angle alpha (eqs. 74-77);
//      exact solution: the rotated bell.
//   2  global steady state nonlinear zonal geostrophic flow, u0 = 2 pi a / 12 days,
//      g h0 = 2.94e4 m^2/s^2, at angle alpha (eqs. 90-95); exact solution: the initial state.
//   6  Rossby-Haurwitz wave of wavenumber R = 4, omega = K = 7.848e-6 /s,
//      h0 = 8000 m (eqs. 142-147); no exact solution (the paper compares with a
//      high-resolution spectral run, which we do not have).
#pragma once

#include "tessera/weather/spherical_shallow_water.hpp"

namespace tessera::weather::williamson {

using Function = SphericalShallowWater::Function;

// Sets up test case `number` (1, 2 or 6) on `model` (kinematic for case 1).
void initialize(int number, SphericalShallowWater& model);
// The exact height after `seconds`, for cases 1 and 2; throws ConfigError for case 6.
Function exact_height(int number, const SphereConfig& config, double seconds);

}  // namespace tessera::weather::williamson
