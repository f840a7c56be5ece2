// The hydrostatic primitive equations (PrimitiveEquations) against what must hold exactly and
// against Jablonowski & Williamson (2006, QJRMS 132, 2943-2975; JW06):
//  - an atmosphere at rest with T a function of pressure only, over flat ground, has no
//    tendency at all (the pressure-gradient and hydrostatic discretisations agree);
//  - mass is conserved to round-off, on any tiles and ranks, with the same bits;
//  - JW06's balanced jet stays steady: their zonal-mean norm l2(ubar(t) - ubar(0)) (section
//    4, Figs. 3-4) stays small, and the perturbed state grows a baroclinic wave.
#include "tessera/weather/primitive_equations.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <functional>
#include <numbers>

#include "tessera/weather/jablonowski_williamson.hpp"
#include "tessera/weather/time_integrator.hpp"
#include "test_support.hpp"

namespace tessera::weather {
namespace {

using testing::error_of;
using ::testing::HasSubstr;
using testing::small_target;
namespace jw = jablonowski_williamson;

constexpr double kDegree = std::numbers::pi / 180;

// The largest |tendency| of each kind over the grid: ps (Pa/s), u and v (m/s^2), T (K/s).
struct TendencySize {
  double ps = 0, u = 0, v = 0, t = 0;
};
TendencySize tendency_size(PrimitiveEquations& m) {
  State dq = m.make_state("test.atmosphere.dq");
  m.tendency(m.state(), dq);
  TendencySize r;
  auto largest = [&](int field) {
    double x = 0;
    for (double value : m.gather_state(field, &dq)) x = std::max(x, std::abs(value));
    return x;
  };
  r.ps = largest(PrimitiveEquations::ps_field);
  for (int k = 0; k < m.layers(); ++k) {
    r.u = std::max(r.u, largest(m.u_field(k)));
    r.v = std::max(r.v, largest(m.v_field(k)));
    r.t = std::max(r.t, largest(m.t_field(k)));
  }
  return r;
}

TEST(PrimitiveEquations, AtmosphereAtRestStaysAtRest) {
  Runtime rt(small_target(4, 64 << 20), 1);
  PrimitiveEquations m(rt, jw::configuration(32, 16));
  const double p0 = m.config().levels.reference_pressure;
  // A uniform surface pressure and a temperature that varies with height only.
  m.initialize([&](double, double) { return p0; }, [](double, double, double) { return 0.0; },
               [](double, double, double) { return 0.0; },
               [](double, double, double eta) { return 220 + 70 * eta; });
  const TendencySize r = tendency_size(m);
  EXPECT_EQ(r.ps, 0);
  EXPECT_EQ(r.u, 0);
  EXPECT_EQ(r.v, 0);
  EXPECT_EQ(r.t, 0);
}

// Air at rest over a mountain, isothermal at T0, with the surface pressure that makes the
// pressure uniform at every height: ps = p0 exp(-Phi_s / (R T0)). The geopotential gradient
// along the sloping layers and R T grad ln p cancel up to the difference between
// (ps_2 - ps_1) / mean(ps) and ln(ps_2 / ps_1), (d ln ps)^3 / 12 for a cell's change d ln ps:
// with each term alone about R T0 d ln ps / dx (7e-3 m/s^2 on the flanks of a 2 km mountain
// at 5.6 degrees, where d ln ps = 0.057), a residual of about 2e-6 m/s^2 that falls as dx^2.
// A pressure-gradient force out of step with the hydrostatic equation leaves the terms' own
// size. Mass does not move, so ps and T have no tendency at all.
// Sets `m` to air at T0 = 250 K with a uniform zonal wind u over a 2 km Gaussian mountain at
// (172 E, 0 N), ps = p0 exp(-Phi_s / (R T0)).
void isothermal_air_over_a_mountain(PrimitiveEquations& m, double u = 0) {
  const AtmosphereConfig& c = m.config();
  const double p0 = c.levels.reference_pressure, t0 = 250;
  auto phis = [&](double lambda, double phi) {
    return c.g * 2000 * std::exp(-std::pow((lambda - 3) / 0.5, 2) - std::pow(phi / 0.4, 2));
  };
  m.set_surface_geopotential(phis);
  m.initialize(
      [&](double lambda, double phi) { return p0 * std::exp(-phis(lambda, phi) / (c.rd * t0)); },
      [=](double, double, double) { return u; }, [](double, double, double) { return 0.0; },
      [&](double, double, double) { return t0; });
}

TendencySize mountain_at_rest(int nlon) {
  Runtime rt(small_target(4, 64 << 20), 1);
  PrimitiveEquations m(rt, jw::configuration(nlon, nlon / 2));
  isothermal_air_over_a_mountain(m);
  const TendencySize r = tendency_size(m);
  std::printf(
      "isothermal air at rest over a 2 km mountain, %d x %d: |du/dt| %.3g |dv/dt| %.3g "
      "m/s^2\n",
      nlon, nlon / 2, r.u, r.v);
  return r;
}

TEST(PrimitiveEquations, IsothermalAtmosphereAtRestOverAMountainIsBalanced) {
  const TendencySize coarse = mountain_at_rest(64), fine = mountain_at_rest(128);
  EXPECT_EQ(coarse.ps, 0);
  EXPECT_EQ(coarse.t, 0);
  EXPECT_LT(std::max(coarse.u, coarse.v), 4e-6);
  EXPECT_GT(testing::observed_order(coarse.u, fine.u), 1.8);
  EXPECT_GT(testing::observed_order(coarse.v, fine.v), 1.8);
}

struct JwRun {
  double mass_change = 0, energy_change = 0, zonal_change = 0;
  std::vector<double> ps_min;  // hPa, at the end of each day
  std::uint64_t checksum = 0;
};

// JW06's state on an nlon x nlon/2 grid with L26 for `days`, RK3 at 0.8 of its limit, a polar
// filter poleward of 60 degrees, no diffusion unless `diffused` (del^4 of 1e16 m^4/s and a
// sponge of 2.5e5 m^2/s in the top three layers).
JwRun run_jw(int nlon, int days, double perturbation, int tiles = 4, int threads = 1,
             double day_length = 86400, bool diffused = false) {
  Runtime rt(small_target(tiles, 64 << 20), threads);
  AtmosphereConfig c = jw::configuration(nlon, nlon / 2);
  c.polar_filter_latitude = 60 * kDegree;
  if (diffused) c.hyperdiffusion = 1e16, c.sponge_layers = 3, c.sponge_diffusion = 2.5e5;
  PrimitiveEquations m(rt, c);
  jw::initialize(m, {.perturbation = perturbation});
  auto rk3 = make_integrator("rk3", m);
  const std::vector<double> initial = m.zonal_mean_u();
  const double mass0 = m.mass(), energy0 = m.total_energy();
  const double dt_max = 0.8 * 0.5 * rk3->stability_limit() / m.max_frequency();
  const int steps = static_cast<int>(std::ceil(day_length / dt_max));
  JwRun r;
  for (int day = 1; day <= days; ++day) {
    for (int s = 0; s < steps; ++s) rk3->step(m.state(), day_length / steps);
    r.ps_min.push_back(m.surface_pressure_range().first / 100);
  }
  r.mass_change = (m.mass() - mass0) / mass0;
  r.energy_change = (m.total_energy() - energy0) / energy0;
  r.zonal_change = jw::zonal_mean_change(m, m.zonal_mean_u(), initial);
  r.checksum = m.checksum();
  std::printf(
      "JW06 %d x %d L26, u_p %g, steps of %.0f s: mass %.2e energy %.2e "
      "l2(ubar - ubar0) %.3g m/s; min ps by day (hPa):",
      nlon, nlon / 2, perturbation, day_length / steps, r.mass_change, r.energy_change,
      r.zonal_change);
  for (double p : r.ps_min) std::printf(" %.2f", p);
  std::printf("\n");
  return r;
}

// The balanced jet at 5.6 degrees for JW06's 9 days: nothing breaks its zonal symmetry, and
// the discrete adjustment to the discrete balance stays small (JW06 judge a steady state by
// this norm over 30 days, their Figs. 3-4); total energy is kept to the time scheme's error
// (no diffusion). Measured: see docs/weather.md.
TEST(PrimitiveEquations, JablonowskiWilliamsonSteadyStateStaysSteady) {
  const JwRun r = run_jw(64, 9, 0);
  EXPECT_LT(std::abs(r.mass_change), 1e-13);
  EXPECT_LT(std::abs(r.energy_change), 1e-7);
  EXPECT_LT(r.zonal_change, 0.15);
  EXPECT_GT(r.ps_min.back(), 998.5);
}

// The same jet with JW06's 1 m/s bump of u at (20 E, 40 N) grows a baroclinic wave: JW06
// (section 5) describe the surface low deepening from day 6 and the wave breaking around day
// 9. Their figures give the high-resolution evolution; at 5.6 degrees the measured minimum
// surface pressure is 996.4, 991.3, 980.0 and 961.8 hPa at days 6 to 9 (docs/weather.md), and
// this test holds days 7 and 9 to within a few hPa of that and the deepening to its order. A
// dynamical core without baroclinic growth keeps ps within 1.5 hPa of 1000 (the steady state
// above); one whose growth is much too fast or slow misses these by tens of hPa.
TEST(PrimitiveEquations, JablonowskiWilliamsonWaveGrows) {
  const JwRun r = run_jw(64, 9, 1);
  EXPECT_LT(std::abs(r.mass_change), 1e-13);
  EXPECT_LT(std::abs(r.energy_change), 1e-6);
  EXPECT_GT(r.ps_min[4], 997);  // day 5: still nearly flat
  EXPECT_NEAR(r.ps_min[6], 991.3, 3);
  EXPECT_NEAR(r.ps_min[8], 961.8, 8);
}

// With the diffusion, the pole's vorticity is a zonal sum over the tiles of a polar row: it
// is summed in fixed point, whose integer sums do not depend on the split (in floating point,
// 1 and 6 tiles would add the row in different orders, which can change the last bit).
TEST(PrimitiveEquations, SameBitsOnAnyTilesAndThreads) {
  for (const bool diffused : {false, true}) {
    const JwRun a = run_jw(32, 1, 1, 1, 1, 21600, diffused),
                b = run_jw(32, 1, 1, 6, 2, 21600, diffused);
    EXPECT_EQ(a.checksum, b.checksum) << (diffused ? "with" : "without") << " diffusion";
  }
}

TEST(PrimitiveEquations, RefusesBadLevels) {
  AtmosphereConfig c = jw::configuration(32, 16);
  c.levels.b.back() = 0.9;
  Runtime rt(small_target(4, 64 << 20), 1);
  EXPECT_THAT(error_of([&] { PrimitiveEquations m(rt, c); }),
              HasSubstr("the last hybrid interface must be the ground"));
}

}  // namespace
}  // namespace tessera::weather

namespace tessera::weather {
namespace {

namespace jw = jablonowski_williamson;
using testing::small_target;

// HS94's forcing at the points where their eqs. 1-4 give round numbers.
TEST(HeldSuarez, ForcingAtItsReferencePoints) {
  const HeldSuarez hs;
  const double day = 86400;
  EXPECT_DOUBLE_EQ(hs.equilibrium_temperature(0, 1e5), 315);                     // equator, surface
  EXPECT_DOUBLE_EQ(hs.equilibrium_temperature(std::numbers::pi / 2, 1e5), 255);  // pole: 315 - 60
  EXPECT_DOUBLE_EQ(hs.equilibrium_temperature(0, 1e3), 200);  // the stratospheric floor
  EXPECT_DOUBLE_EQ(hs.friction(1) * day, 1);                  // k_f at the ground
  EXPECT_DOUBLE_EQ(hs.friction(0.7), 0);                      // none above sigma_b
  EXPECT_DOUBLE_EQ(hs.relaxation(0, 1) * day, 0.25);          // k_s, equator, ground
  EXPECT_DOUBLE_EQ(hs.relaxation(0.3, 0.5) * day, 1.0 / 40);  // k_a aloft
}

// Air at rest, isothermal at 300 K over flat ground: the dynamics give nothing, so the
// tendency is HS94's alone: no wind tendency (friction of air at rest), and -k_T (T - T_eq) at
// each cell with sigma and p of the layer's midpoint. A forcing applied at the wrong level,
// latitude or sign fails here.
TEST(HeldSuarez, TendencyOfAirAtRestIsTheRelaxation) {
  Runtime rt(small_target(4, 64 << 20), 1);
  AtmosphereConfig c = jw::configuration(32, 16);
  c.levels = HybridLevels::uniform_sigma(20);
  c.held_suarez = HeldSuarez{};
  PrimitiveEquations m(rt, c);
  const double ps = 1e5 - 300;  // not p0: sigma and p / p0 differ
  m.initialize([&](double, double) { return ps; }, [](double, double, double) { return 0.0; },
               [](double, double, double) { return 0.0; },
               [](double, double, double) { return 300.0; });
  State dq = m.make_state("test.atmosphere.dq");
  m.tendency(m.state(), dq);
  double wind = 0, worst = 0;
  for (int k = 0; k < m.layers(); ++k) {
    for (const int f : {m.u_field(k), m.v_field(k)})
      for (double x : m.gather_state(f, &dq)) wind = std::max(wind, std::abs(x));
    const std::vector<double> dt = m.gather_state(m.t_field(k), &dq);
    const double sigma = m.layer_eta(k), p = sigma * ps;
    for (int j = 0; j < 16; ++j) {
      const double phi = -std::numbers::pi / 2 + (j + 0.5) * std::numbers::pi / 16;
      const double expected = -c.held_suarez->relaxation(phi, sigma) *
                              (300 - c.held_suarez->equilibrium_temperature(phi, p));
      for (int i = 0; i < 32; ++i)
        worst = std::max(worst, std::abs(dt[static_cast<std::size_t>(j * 32 + i)] - expected));
    }
  }
  EXPECT_EQ(wind, 0);
  EXPECT_LT(worst, 1e-15);  // K/s; the relaxation itself is up to 1e-5 K/s
}

TEST(HeldSuarez, RefusesANegativeRate) {
  AtmosphereConfig c = jw::configuration(32, 16);
  c.held_suarez = HeldSuarez{.surface_rate = -1};
  Runtime rt(small_target(4, 64 << 20), 1);
  EXPECT_THAT(testing::error_of([&] { PrimitiveEquations m(rt, c); }),
              ::testing::HasSubstr("the Held-Suarez relaxation rates must be >= 0 and finite"));
}

}  // namespace
}  // namespace tessera::weather

namespace tessera::weather {
namespace {

// The diffusion of the wind, nu (grad D + k x grad zeta + 2 v / a^2), leaves solid-body
// rotation u = U cos(phi) alone: its tendency with nu = 1e6 m^2/s less that without is the
// discretisation error only. Without the 2 v / a^2 term it would be -2 nu U cos(phi) / a^2,
// 9.9e-7 m/s^2 at the equator for U = 20 m/s; with the term, measured: see the printout.
TEST(PrimitiveEquations, DiffusionLeavesSolidBodyRotationAlone) {
  auto du = [](double nu) {
    Runtime rt(testing::small_target(4, 64 << 20), 1);
    AtmosphereConfig c = jablonowski_williamson::configuration(64, 32);
    c.diffusion = nu;
    PrimitiveEquations m(rt, c);
    m.initialize([](double, double) { return 1e5; },
                 [](double, double phi, double) { return 20 * std::cos(phi); },
                 [](double, double, double) { return 0.0; },
                 [](double, double, double) { return 280.0; });
    State dq = m.make_state("test.atmosphere.dq");
    m.tendency(m.state(), dq);
    return m.gather_state(m.u_field(13), &dq);
  };
  const std::vector<double> with = du(1e6), without = du(0);
  double worst = 0;
  for (int j = 2; j < 30; ++j)  // away from the polar rows (see Del4OnTheWind... below)
    for (int i = 0; i < 64; ++i) {
      const auto at = static_cast<std::size_t>(j * 64 + i);
      worst = std::max(worst, std::abs(with[at] - without[at]));
    }
  std::printf(
      "diffusion of solid-body rotation: largest tendency %.3g m/s^2 (uncorrected: "
      "9.9e-7)\n",
      worst);
  EXPECT_LT(worst, 1e-8);
}

}  // namespace
}  // namespace tessera::weather

namespace tessera::weather {
namespace {

// The diffusion tendency of one layer's T (K/s) or u (m/s^2, at its west faces), as the
// difference between the tendencies with `c`'s diffusion and without, for a state at rest
// (or in the wind u(lambda, phi)) with T = 280 + t_wave: the dynamics' own tendency cancels.
struct DiffusionProbe {
  std::function<double(double, double)> t_wave = [](double, double) { return 0.0; };
  std::function<double(double, double)> u = [](double, double) { return 0.0; };
};
std::vector<double> diffusion_tendency(const AtmosphereConfig& c, const DiffusionProbe& probe,
                                       bool wind, int layer) {
  auto tendency = [&](const AtmosphereConfig& config) {
    Runtime rt(testing::small_target(4, 64 << 20), 1);
    PrimitiveEquations m(rt, config);
    m.initialize(
        [](double, double) { return 1e5; },
        [&](double lambda, double phi, double) { return probe.u(lambda, phi); },
        [](double, double, double) { return 0.0; },
        [&](double lambda, double phi, double) { return 280 + probe.t_wave(lambda, phi); });
    State dq = m.make_state("test.atmosphere.dq");
    m.tendency(m.state(), dq);
    return m.gather_state(wind ? m.u_field(layer) : m.t_field(layer), &dq);
  };
  AtmosphereConfig none = c;
  none.diffusion = none.hyperdiffusion = none.sponge_diffusion = 0;
  none.sponge_layers = 0;
  std::vector<double> with = tendency(c);
  const std::vector<double> without = tendency(none);
  for (std::size_t i = 0; i < with.size(); ++i) with[i] -= without[i];
  return with;
}

// The largest |measured - rate * expected| over the rows within `latitude` degrees of the
// equator, relative to the largest |rate * expected| there; `at_faces` puts the points at u's
// west faces; `taper` (a function of latitude) multiplies rate.
struct Compare {
  bool at_faces = false;
  double latitude = 90;
  std::function<double(double)> taper = [](double) { return 1.0; };
};
double relative_error(const std::vector<double>& measured, double rate, int nlon,
                      const std::function<double(double, double)>& expected, Compare how = {}) {
  const int nlat = nlon / 2;
  double worst = 0, scale = 0;
  for (int j = 0; j < nlat; ++j)
    for (int i = 0; i < nlon; ++i) {
      const double lambda = (i + (how.at_faces ? 0.0 : 0.5)) * 2 * std::numbers::pi / nlon,
                   phi = -std::numbers::pi / 2 + (j + 0.5) * std::numbers::pi / nlat;
      if (std::abs(phi) > how.latitude * kDegree) continue;
      const double want = rate * how.taper(phi) * expected(lambda, phi);
      worst = std::max(worst, std::abs(measured[static_cast<std::size_t>(j * nlon + i)] - want));
      scale = std::max(scale, std::abs(want));
    }
  return worst / scale;
}

// del^4 of the spherical harmonic T' = cos^2(phi) cos(2 lambda) (degree 2, del^2 T' =
// -6 T' / a^2) is 36 T' / a^4: the tendency -nu4 36 T' / a^4, to second order in the grid
// spacing within 60 degrees of the equator (at 5.6 degrees the polar error below still shows
// at 70 degrees, at 2.8 degrees much less). Next to the poles the thin polar cells' zonal term
// makes the first Laplacian wrong by O(1) of its (small) value there, and the second one then
// errs by up to half the wave's largest rate in the polar row, at any resolution (1e-6 of the
// rate at which del^4 damps the shortest wave), without a polar filter; with one, the
// coefficient's taper takes it down by (cos(phi) / cos(phi_c))^4, 1e-4 in those rows.
// Measured: see the printout.
double degree_two_harmonic(double lambda, double phi) {
  return std::cos(phi) * std::cos(phi) * std::cos(2 * lambda);
}
double zonal_jet(double, double phi) { return 20 * std::sin(phi) * std::cos(phi); }
// del^4's coefficient poleward of a polar filter at 60 degrees: (cos(phi) / cos(60))^4.
double taper_at_60(double phi) { return std::pow(std::min(1.0, std::cos(phi) / 0.5), 4); }

// The relative error (relative_error) in layer 13 of del^4 of 1e17 m^4/s on an eigenfunction
// `shape` of the (vector, for `wind`) Laplacian with eigenvalue -lambda / a^2, in T or in u,
// against -nu4 (lambda / a^2)^2 shape, on an nlon x nlon / 2 grid with a polar filter at
// `filter_degrees` (0: none).
double del4_error(int nlon, const std::function<double(double, double)>& shape, bool wind,
                  double lambda, Compare how, double filter_degrees = 0) {
  AtmosphereConfig c = jablonowski_williamson::configuration(nlon, nlon / 2);
  c.hyperdiffusion = 1e17;
  c.polar_filter_latitude = filter_degrees * kDegree;
  const double rate = lambda / (c.radius * c.radius);
  const DiffusionProbe probe = wind ? DiffusionProbe{.u = shape} : DiffusionProbe{.t_wave = shape};
  how.at_faces = wind;
  return relative_error(diffusion_tendency(c, probe, wind, 13), -c.hyperdiffusion * rate * rate,
                        nlon, shape, how);
}

TEST(PrimitiveEquations, Del4DampsATemperatureHarmonicAtItsRate) {
  auto error = [&](int nlon, Compare how, double filter_degrees = 0) {
    return del4_error(nlon, degree_two_harmonic, false, 6, how, filter_degrees);
  };
  const double coarse = error(64, {.latitude = 60}), fine = error(128, {.latitude = 60});
  const double polar = error(64, {}), polar_fine = error(128, {});
  const double filtered = error(64, {.taper = taper_at_60}, 60);
  std::printf(
      "del4 of a degree-2 harmonic in T: relative error %.3g at 5.6 degrees, %.3g at 2.8 "
      "(away from the poles); %.3g and %.3g in all rows; %.3g with the polar filter's taper\n",
      coarse, fine, polar, polar_fine, filtered);
  EXPECT_LT(coarse, 0.02);
  EXPECT_GT(testing::observed_order(coarse, fine), 1.8);
  EXPECT_LT(polar_fine, 0.6);
  EXPECT_LT(filtered, 0.02);
}

// On the wind, del^4 is L(L(v)) with L the vector Laplacian plus 2 v / a^2: a non-divergent
// wind of streamfunction degree n has L(v) = -(n (n + 1) - 2) v / a^2. The zonal wind
// u = U sin(phi) cos(phi) (degree 2) decays at nu4 16 / a^4 (second order within 75 degrees
// of the equator; next to the poles as for T, the error growing as 1 / dphi there without a
// filter); solid-body rotation u = U cos(phi) (degree 1) not at all (uncorrected, del^4 would
// damp it at nu4 4 / a^4; the polar rows only with the filter's taper). The poles' vorticity
// comes from the polar caps' circulation: with 0 there instead, the jet's polar rows err by
// 137 times its largest rate at 5.6 degrees.
TEST(PrimitiveEquations, Del4OnTheWindDampsDegreeTwoAndLeavesSolidBodyRotation) {
  auto error = [&](int nlon, Compare how, double filter_degrees = 0) {
    return del4_error(nlon, zonal_jet, true, 4, how, filter_degrees);
  };
  const double coarse = error(64, {.latitude = 75}), fine = error(128, {.latitude = 75});
  const double polar = error(64, {});
  const double filtered = error(64, {.taper = taper_at_60}, 60);
  std::printf(
      "del4 of a degree-2 zonal jet: relative error %.3g at 5.6 degrees, %.3g at 2.8 (away "
      "from the poles); %.3g in all rows; %.3g with the polar filter's taper\n",
      coarse, fine, polar, filtered);
  EXPECT_LT(coarse, 0.05);
  EXPECT_GT(testing::observed_order(coarse, fine), 1.8);
  EXPECT_LT(polar, 4);
  EXPECT_LT(filtered, 0.05);

  for (const double filter_degrees : {0.0, 60.0}) {
    AtmosphereConfig c = jablonowski_williamson::configuration(64, 32);
    c.hyperdiffusion = 1e17;
    c.polar_filter_latitude = filter_degrees * kDegree;
    const std::vector<double> solid = diffusion_tendency(
        c, {.u = [](double, double phi) { return 20 * std::cos(phi); }}, true, 13);
    const double a2 = c.radius * c.radius, uncorrected = c.hyperdiffusion * 4 / (a2 * a2) * 20;
    double worst = 0;
    const std::size_t rows_skipped = filter_degrees > 0 ? 0 : 2;
    for (std::size_t at = 64 * rows_skipped; at < solid.size() - 64 * rows_skipped; ++at)
      worst = std::max(worst, std::abs(solid[at]));
    std::printf(
        "del4 of solid-body rotation, %s: largest tendency %.3g m/s^2 (uncorrected: %.3g)\n",
        filter_degrees > 0 ? "polar filter at 60 degrees, all rows"
                           : "no filter, without the two rows next to each pole",
        worst, uncorrected);
    EXPECT_LT(worst, 0.01 * uncorrected);
  }
}

// del^2 and del^4 take energy out, whatever the field: sum over cells of area T dT/dt < 0 for
// a T of random values, and sum over faces of area (u du/dt + v dv/dt) < 0 for a random wind
// (the operators are symmetric, L negative and L^2 positive semi-definite, on any grid
// including the polar caps). A sign slip at the poles or a non-symmetric stencil breaks it.
TEST(PrimitiveEquations, DiffusionTakesEnergyOutOfRandomFields) {
  auto noise = [](double lambda, double phi) {
    const double x = std::sin(12.9898 * lambda + 78.233 * phi) * 43758.5453;
    return x - std::floor(x) - 0.5;
  };
  for (const bool del4 : {false, true}) {
    AtmosphereConfig c = jablonowski_williamson::configuration(32, 16);
    (del4 ? c.hyperdiffusion : c.diffusion) = del4 ? 1e17 : 1e6;
    const std::vector<double> dT = diffusion_tendency(c, {.t_wave = noise}, false, 10),
                              du = diffusion_tendency(c, {.u = noise}, true, 10);
    double t_energy = 0, u_energy = 0;
    for (int j = 0; j < 16; ++j) {
      const double phi = -std::numbers::pi / 2 + (j + 0.5) * std::numbers::pi / 16;
      for (int i = 0; i < 32; ++i) {
        const double lambda = 2 * std::numbers::pi / 32;
        const auto at = static_cast<std::size_t>(j * 32 + i);
        t_energy += std::cos(phi) * noise((i + 0.5) * lambda, phi) * dT[at];
        u_energy += std::cos(phi) * noise(i * lambda, phi) * du[at];
      }
    }
    std::printf("%s: T energy change %.3g, wind %.3g (both must be < 0)\n", del4 ? "del4" : "del2",
                t_energy, u_energy);
    EXPECT_LT(t_energy, 0);
    EXPECT_LT(u_energy, 0);
  }
}

// The sponge: del^2 of nu_s 2^(n_s - 1 - k) in the top n_s layers in place of del^4, which
// acts below. On the degree-2 harmonic in T the top three layers decay at 4, 2 and 1 times
// nu_s 6 / a^2, the fourth at nu4 36 / a^4.
TEST(PrimitiveEquations, SpongeReplacesDel4InTheTopLayers) {
  AtmosphereConfig c = jablonowski_williamson::configuration(64, 32);
  c.hyperdiffusion = 1e16;
  c.sponge_layers = 3;
  c.sponge_diffusion = 2.5e5;
  EXPECT_EQ(c.del2_coefficient(0), 1e6);
  EXPECT_EQ(c.del2_coefficient(1), 5e5);
  EXPECT_EQ(c.del2_coefficient(2), 2.5e5);
  EXPECT_EQ(c.del2_coefficient(3), 0);
  EXPECT_EQ(c.del4_coefficient(2), 0);
  EXPECT_EQ(c.del4_coefficient(3), 1e16);
  const double a2 = c.radius * c.radius;
  for (int k = 0; k < 4; ++k) {
    const double rate =
        k < 3 ? -c.del2_coefficient(k) * 6 / a2 : -c.hyperdiffusion * 36 / (a2 * a2);
    EXPECT_LT(relative_error(diffusion_tendency(c, {.t_wave = degree_two_harmonic}, false, k), rate,
                             64, degree_two_harmonic, {.latitude = 75}),
              0.02)
        << "layer " << k;
  }
}

// The CFL frequency counts the diffusion's decay rate nu s + nu4 s^2, s = 4 / dx^2 + 4 / dy^2,
// largest on the row nearest a pole without a polar filter: at rest with T = 0 it is all
// there is.
TEST(PrimitiveEquations, TimeStepFrequencyCountsTheDiffusion) {
  Runtime rt(testing::small_target(4, 64 << 20), 1);
  AtmosphereConfig c = jablonowski_williamson::configuration(64, 32);
  c.polar_filter_latitude = 0;
  c.diffusion = 1e5;
  c.hyperdiffusion = 1e15;
  PrimitiveEquations m(rt, c);
  m.initialize([](double, double) { return 1e5; }, [](double, double, double) { return 0.0; },
               [](double, double, double) { return 0.0; },
               [](double, double, double) { return 0.0; });
  const double dx = c.radius * std::cos(std::numbers::pi / 2 - std::numbers::pi / 64) * 2 *
                    std::numbers::pi / 64,
               dy = c.radius * std::numbers::pi / 32;
  const double s = 4 / (dx * dx) + 4 / (dy * dy);
  EXPECT_NEAR(m.max_frequency(), c.diffusion * s + c.hyperdiffusion * s * s,
              1e-12 * m.max_frequency());
}

TEST(PrimitiveEquations, RefusesBadDiffusionAndSponges) {
  auto refusal = [](auto change) {
    AtmosphereConfig c = jablonowski_williamson::configuration(32, 16);
    change(c);
    return error_of([&] { c.validate(); });
  };
  EXPECT_THAT(refusal([](AtmosphereConfig& c) { c.hyperdiffusion = -1; }),
              HasSubstr("the del4 diffusion coefficient must be >= 0 and finite"));
  EXPECT_THAT(refusal([](AtmosphereConfig& c) { c.sponge_layers = 26, c.sponge_diffusion = 1; }),
              HasSubstr("the sponge must have 0 to 25 layers (fewer than the model's 26), got 26"));
  EXPECT_THAT(refusal([](AtmosphereConfig& c) { c.sponge_layers = -1; }),
              HasSubstr("the sponge must have 0 to 25 layers"));
  EXPECT_THAT(refusal([](AtmosphereConfig& c) { c.sponge_diffusion = -2; }),
              HasSubstr("the sponge's del2 coefficient must be >= 0 and finite"));
  EXPECT_THAT(refusal([](AtmosphereConfig& c) { c.sponge_layers = 3; }),
              HasSubstr("a sponge needs both a number of layers and a del2 coefficient, got 3 "
                        "layers and 0"));
  EXPECT_THAT(refusal([](AtmosphereConfig& c) { c.sponge_diffusion = 1e5; }),
              HasSubstr("a sponge needs both"));
}

}  // namespace
}  // namespace tessera::weather

namespace tessera::weather {
namespace {

// Pressure levels of isothermal air at rest (T0 = 250 K) over a 2 km mountain: above the
// lowest midpoint every layer is at T0, so T on any pressure surface there is T0 (then, to the
// ground, it goes to T*), and the model's hydrostatic integration is exact, Z = Phi_s / g +
// R T0 / g ln(ps / p); below the ground (p > ps on the
// mountain) T and Z follow the ECMWF extrapolation from T* = T_K (1 + gamma R / g (ps / p_K -
// 1)), and Z is continuous through the ground. A pressure given in hPa, or ps and p swapped,
// misses these by kilometres.
TEST(PrimitiveEquations, PressureLevelsOfIsothermalAirOverAMountain) {
  Runtime rt(small_target(4, 64 << 20), 1);
  const AtmosphereConfig c = jw::configuration(64, 32);
  PrimitiveEquations m(rt, c);
  isothermal_air_over_a_mountain(m, 7);
  const double p0 = c.levels.reference_pressure, t0 = 250;
  const std::vector<double> ps = m.gather("ps"), surface = m.gather("phis");
  const double gamma_r_g = 6.5e-3 * c.rd / c.g;
  const auto& lv = c.levels;
  for (const double p : {5e4, 9.5e4}) {
    const std::vector<double> t = m.gather_on_pressure_level("T", p),
                              z = m.gather_on_pressure_level("Z", p),
                              u = m.gather_on_pressure_level("u", p);
    int below = 0;
    for (std::size_t at = 0; at < ps.size(); ++at) {
      EXPECT_NEAR(u[at], 7.0, 1e-12);
      const double p_lowest = 0.5 * (lv.a[25] * p0 + lv.b[25] * ps[at] + ps[at]);
      const double t_star = t0 * (1 + gamma_r_g * (ps[at] / p_lowest - 1));
      if (p <= ps[at]) {
        // Between the lowest midpoint and the ground T goes to T*, linearly in ln p.
        const double w = p <= p_lowest ? 0 : std::log(p / p_lowest) / std::log(ps[at] / p_lowest);
        EXPECT_NEAR(t[at], (1 - w) * t0 + w * t_star, 1e-12);
        EXPECT_NEAR(z[at], surface[at] / c.g + c.rd * t0 / c.g * std::log(ps[at] / p), 1e-9);
        continue;
      }
      ++below;
      const double y = gamma_r_g * std::log(p / ps[at]);
      EXPECT_NEAR(t[at], t_star * (1 + y + y * y / 2 + y * y * y / 6), 1e-12);
      EXPECT_NEAR(
          z[at],
          (surface[at] - c.rd * t_star * std::log(p / ps[at]) * (1 + y / 2 + y * y / 6)) / c.g,
          1e-9);
    }
    EXPECT_EQ(below > 0, p > 9e4) << "cells below the ground at " << p << " Pa";
  }
  // Z through the ground at the summit.
  std::size_t summit = 0;
  for (std::size_t at = 0; at < ps.size(); ++at)
    if (ps[at] < ps[summit]) summit = at;
  const double above = m.gather_on_pressure_level("Z", ps[summit] * (1 - 1e-9))[summit],
               beneath = m.gather_on_pressure_level("Z", ps[summit] * (1 + 1e-9))[summit];
  EXPECT_NEAR(above, surface[summit] / c.g, 1e-3);
  EXPECT_NEAR(beneath, surface[summit] / c.g, 1e-3);
  EXPECT_GT(surface[summit] / c.g, 1900);
  EXPECT_THAT(error_of([&] { m.gather_on_pressure_level("q", 5e4); }),
              HasSubstr("no field 'q' on pressure levels; they are T, u, v, Z"));
  EXPECT_THAT(error_of([&] { m.gather_on_pressure_level("T", 0); }),
              HasSubstr("a pressure level must be a positive pressure in Pa"));
}

}  // namespace
}  // namespace tessera::weather
