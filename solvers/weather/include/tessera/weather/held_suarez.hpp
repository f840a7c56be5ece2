// The Held & Suarez (1994, Bull. Amer. Meteor. Soc. 75, 1825-1830; "HS94") forcing of a dry
// dynamical core: Newtonian relaxation of the temperature towards a zonally symmetric
// radiative-equilibrium profile, and Rayleigh friction of the wind in a boundary layer below
// sigma_b, with HS94's eqs. 1-4 and constants:
//   dv/dt = -k_v(sigma) v,    k_v = k_f max(0, (sigma - sigma_b) / (1 - sigma_b))
//   dT/dt = -k_T(phi, sigma) (T - T_eq),
//   k_T   = k_a + (k_s - k_a) max(0, (sigma - sigma_b) / (1 - sigma_b)) cos^4 phi
//   T_eq  = max(200 K, [315 K - dT_y sin^2 phi - dtheta_z ln(p / p0) cos^2 phi] (p / p0)^kappa)
// with k_f = 1/day, k_a = 1/40 day^-1, k_s = 1/4 day^-1, sigma_b = 0.7, dT_y = 60 K,
// dtheta_z = 10 K, p0 = 1000 hPa, kappa = 2/7. sigma = p / ps at the point. Pure functions;
// PrimitiveEquations applies them when its config holds a HeldSuarez.
#pragma once

#include <algorithm>
#include <cmath>

namespace tessera::weather {

struct HeldSuarez {
  double friction_rate = 1.0 / 86400;              // k_f, 1/s
  double free_atmosphere_rate = 1.0 / 40 / 86400;  // k_a
  double surface_rate = 1.0 / 4 / 86400;           // k_s
  double boundary_layer_top = 0.7;                 // sigma_b
  double meridional_contrast = 60;                 // Delta T_y, K
  double static_stability = 10;                    // Delta theta_z, K
  double reference_pressure = 1e5;                 // p0, Pa
  double kappa = 2.0 / 7.0;

  // The boundary-layer weight max(0, (sigma - sigma_b) / (1 - sigma_b)).
  double boundary_weight(double sigma) const {
    return std::max(0.0, (sigma - boundary_layer_top) / (1 - boundary_layer_top));
  }
  // k_v (1/s) at sigma.
  double friction(double sigma) const { return friction_rate * boundary_weight(sigma); }
  // k_T (1/s) at latitude phi (radians) and sigma.
  double relaxation(double phi, double sigma) const {
    const double c = std::cos(phi);
    return free_atmosphere_rate +
           (surface_rate - free_atmosphere_rate) * boundary_weight(sigma) * c * c * c * c;
  }
  // T_eq (K) at latitude phi and pressure p (Pa).
  double equilibrium_temperature(double phi, double p) const {
    const double s = std::sin(phi), c = std::cos(phi), ratio = p / reference_pressure;
    return std::max(
        200.0, (315 - meridional_contrast * s * s - static_stability * std::log(ratio) * c * c) *
                   std::pow(ratio, kappa));
  }
};

}  // namespace tessera::weather
