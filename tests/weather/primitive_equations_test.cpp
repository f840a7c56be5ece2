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
TendencySize mountain_at_rest(int nlon) {
  Runtime rt(small_target(4, 64 << 20), 1);
  const AtmosphereConfig c = jw::configuration(nlon, nlon / 2);
  PrimitiveEquations m(rt, c);
  const double p0 = c.levels.reference_pressure, t0 = 250;
  auto phis = [&](double lambda, double phi) {
    return c.g * 2000 * std::exp(-std::pow((lambda - 3) / 0.5, 2) - std::pow(phi / 0.4, 2));
  };
  m.set_surface_geopotential(phis);
  m.initialize(
      [&](double lambda, double phi) { return p0 * std::exp(-phis(lambda, phi) / (c.rd * t0)); },
      [](double, double, double) { return 0.0; }, [](double, double, double) { return 0.0; },
      [&](double, double, double) { return t0; });
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
// filter poleward of 60 degrees, no diffusion.
JwRun run_jw(int nlon, int days, double perturbation, int tiles = 4, int threads = 1,
             double day_length = 86400) {
  Runtime rt(small_target(tiles, 64 << 20), threads);
  AtmosphereConfig c = jw::configuration(nlon, nlon / 2);
  c.polar_filter_latitude = 60 * kDegree;
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

TEST(PrimitiveEquations, SameBitsOnAnyTilesAndThreads) {
  const JwRun a = run_jw(32, 1, 1, 1, 1, 21600), b = run_jw(32, 1, 1, 6, 2, 21600);
  EXPECT_EQ(a.checksum, b.checksum);
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
  for (int j = 2; j < 30; ++j)  // away from the rows next to the poles, where zeta is 0
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
