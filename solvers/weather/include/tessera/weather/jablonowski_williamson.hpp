// The baroclinic instability test of Jablonowski & Williamson (2006, Q. J. R. Meteorol. Soc.
// 132, 2943-2975; "JW06") for PrimitiveEquations: a zonal jet in hydrostatic and gradient-wind
// balance (their eqs. 2-7 with Table 1's constants), steady as long as nothing breaks its
// symmetry, and the same state with a Gaussian bump of u (eq. 10) that grows into a baroclinic
// wave over about nine days.
//
// Formulas as JW06 and the reference implementations that follow them (NCAR HOMME's
// jw_baroclinic and asp_tests, DCMIP-2012 test 4), with eta_v = (eta - eta_0) pi / 2:
//   u       = u0 cos^{3/2}(eta_v) sin^2(2 phi),  v = 0,  ps = p0
//   T       = Tbar(eta) + (3/4) (eta pi u0 / R) sin(eta_v) cos^{1/2}(eta_v)
//             { [-2 sin^6 phi (cos^2 phi + 1/3) + 10/63] 2 u0 cos^{3/2}(eta_v)
//               + [8/5 cos^3 phi (sin^2 phi + 2/3) - pi/4] a Omega }
//   Tbar    = T0 eta^{R Gamma / g} (+ Delta T (eta_t - eta)^5 above eta_t)
//   Phi_s   = u0 cos^{3/2}(eta_v(1)) { [...] u0 cos^{3/2}(eta_v(1)) + [...] a Omega }
//   u'      = u_p exp(-(r / (a / 10))^2), r the great-circle distance to (20 E, 40 N).
#pragma once

#include <vector>

#include "tessera/weather/primitive_equations.hpp"

namespace tessera::weather::jablonowski_williamson {

struct Parameters {
  double u0 = 35;               // jet maximum, m/s
  double t0 = 288;              // K
  double lapse_rate = 0.005;    // Gamma, K/m
  double eta_tropopause = 0.2;  // eta_t
  double eta_0 = 0.252;
  double delta_t = 4.8e5;   // K, the stratospheric temperature term
  double perturbation = 1;  // u_p, m/s (0: the steady state)
};

// JW06's grid-independent configuration: their constants (a = 6.371229e6 m, Omega =
// 7.29212e-5 /s, g = 9.80616 m/s^2, R = 287.04, cp = 1004.64 J/kg/K) and CAM's 26 levels.
AtmosphereConfig configuration(int nlon, int nlat);

// The analytic fields at (lambda, phi, eta), radians.
double zonal_wind(const Parameters& p, double lambda, double phi, double eta);
double temperature(const AtmosphereConfig& c, const Parameters& p, double phi, double eta);
double surface_geopotential(const AtmosphereConfig& c, const Parameters& p, double phi);

// Sets `model` to JW06's initial state (perturbed when p.perturbation != 0) and its surface
// geopotential, rotated with the model's rotation axis when its config tilts it (Lauritzen et
// al. 2010: the whole state, perturbation included, in the frame whose pole is the axis).
// Collective.
void initialize(PrimitiveEquations& model, const Parameters& p = {});

// JW06's steady-state norm l2(ubar(t) - ubar(0)), m/s: the change of the zonal-mean zonal wind,
// weighted by area and by layer depth d eta (as NCAR HOMME's steady.ncl computes it). Both
// arguments as PrimitiveEquations::zonal_mean_u gives them.
double zonal_mean_change(const PrimitiveEquations& model, const std::vector<double>& now,
                         const std::vector<double>& initial);
// l2(ps(t) - ps(0)), Pa, area-weighted, as Lauritzen et al. (2010) measure the rotated steady
// state; both arguments as PrimitiveEquations::gather("ps") gives them (on rank 0).
double surface_pressure_change(const PrimitiveEquations& model, const std::vector<double>& now,
                               const std::vector<double>& initial);

}  // namespace tessera::weather::jablonowski_williamson
