// The rotating shallow-water model on the plane: conservation of mass (to
// round-off), energy and potential enstrophy, a steady geostrophic jet, the
// speed of linear gravity waves, tracer transport, and bitwise-identical
// results for any tile count, thread count and MPI rank count.
#include "tessera/weather/shallow_water.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <numbers>

#include "tessera/weather/time_integrator.hpp"
#include "test_support.hpp"

namespace tessera::weather {
namespace {

using testing::error_of;
using ::testing::HasSubstr;
using testing::observed_order;
using testing::small_target;
constexpr double kPi = std::numbers::pi;
constexpr double kG = 9.80616, kDepth = 1000;

Grid square(int n, double length, bool periodic_x, bool periodic_y) {
  return {.nx = n,
          .ny = n,
          .dx = length / n,
          .dy = length / n,
          .periodic_x = periodic_x,
          .periodic_y = periodic_y};
}

void run(ShallowWater& m, const std::string& scheme, double t_end, double courant) {
  const double c = std::sqrt(kG * kDepth);
  const Grid& g = m.config().grid;
  const int steps = static_cast<int>(std::ceil(t_end / (courant * std::min(g.dx, g.dy) / c)));
  auto integrator = make_integrator(scheme, m);
  for (int s = 0; s < steps; ++s) integrator->step(m.state(), t_end / steps);
}

// A standing gravity wave h = H + a cos(kx) cos(wt), u = 0, f = 0 (linear: a << H).
struct GravityWave {
  double length = 1e6, a = 0.01;
  double k = 2 * kPi / length;
  double c = std::sqrt(kG * kDepth);
  double t_end = 0.3 * length / c;
  // Errors of h - H against the continuous solution and against the C grid's
  // semi-discrete one, whose frequency is (2c/dx) sin(k dx / 2).
  std::pair<ErrorNorms, ErrorNorms> errors(int n, int tiles) const {
    Runtime rt(small_target(tiles), 1);
    ShallowWater m(rt, {.grid = square(n, length, true, true)});
    m.initialize([&](double x, double) { return kDepth + a * std::cos(k * x); },
                 [](double, double) { return 0.0; }, [](double, double) { return 0.0; });
    run(m, "rk3", t_end, 0.2);
    const double dx = length / n, w_discrete = 2 * c / dx * std::sin(k * dx / 2);
    auto exact = [&](double w) {
      return [=, this](double x, double) {
        return kDepth + a * std::cos(k * x) * std::cos(w * t_end);
      };
    };
    return {m.errors(ShallowWater::kH, exact(c * k), kDepth),
            m.errors(ShallowWater::kH, exact(w_discrete), kDepth)};
  }
};

TEST(ShallowWater, GravityWavesTravelAtTheDiscreteCGridSpeed) {
  const GravityWave wave;
  const auto [continuous32, discrete32] = wave.errors(32, 4);
  const auto [continuous64, discrete64] = wave.errors(64, 4);
  std::printf("wave l2 vs continuous %.3g, %.3g; vs discrete %.3g, %.3g\n", continuous32.l2,
              continuous64.l2, discrete32.l2, discrete64.l2);
  // The semi-discrete dispersion relation holds up to time and nonlinear errors.
  EXPECT_LT(discrete32.l2, 2e-4);
  EXPECT_LT(discrete64.l2, 2e-4);
  // ... and the continuous phase speed is reached at second order.
  EXPECT_NEAR(observed_order(continuous32.l2, continuous64.l2), 2.0, 0.1);
  EXPECT_GT(continuous32.l2, 10 * discrete32.l2);
}

// A zonal jet u = U0 sin(2 pi y / L) in geostrophic balance f u = -g dh/dy on
// a doubly periodic f-plane: an exact steady solution of the nonlinear equations.
struct Jet {
  double length = 2e6, f0 = 1e-4, u0 = 5;
  double ky = 2 * kPi / length;
  double amplitude = f0 * u0 / (kG * ky);
  double h(double y) const { return kDepth + amplitude * std::cos(ky * y); }
  ErrorNorms error_after(int n, double days, int tiles = 4) const {
    Runtime rt(small_target(tiles), 1);
    ShallowWater m(rt, {.grid = square(n, length, true, true), .f0 = f0});
    m.initialize([&](double, double y) { return h(y); },
                 [&](double, double y) { return u0 * std::sin(ky * y); },
                 [](double, double) { return 0.0; });
    run(m, "rk3", days * 86400, 0.4);
    return m.errors(
        ShallowWater::kH, [&](double, double y) { return h(y); }, kDepth);
  }
};

TEST(ShallowWater, GeostrophicJetStaysSteady) {
  const Jet jet;
  const ErrorNorms coarse = jet.error_after(24, 2), fine = jet.error_after(48, 2);
  std::printf("jet l2 %.3g (24^2), %.3g (48^2), linf %.3g\n", coarse.l2, fine.l2, fine.linf);
  EXPECT_LT(coarse.l2, 5e-3);
  EXPECT_LT(fine.linf, 2e-3);
  EXPECT_GT(observed_order(coarse.l2, fine.l2), 1.8);
}

// A nonlinear flow on a beta-plane channel (walls north and south) over a
// bottom ridge, started from a large height bump.
ShallowWater::Function bump(double length, double amplitude) {
  return [=](double x, double y) {
    const double r2 = (std::pow(x - 0.4 * length, 2) + std::pow(y - 0.55 * length, 2)) /
                      std::pow(0.1 * length, 2);
    return kDepth + amplitude * std::exp(-r2);
  };
}
struct Channel {
  ShallowWaterConfig config(int n) const {
    return {.grid = square(n, 2e6, true, false),
            .f0 = 1e-4,
            .beta = 1.6e-11,
            .tracer = true,
            .tracer_diffusivity = 50};
  }
  void init(ShallowWater& m, bool ridge) const {
    if (ridge)
      m.set_topography(
          [](double x, double) { return 200 * std::exp(-std::pow((x - 1.2e6) / 2e5, 2)); });
    m.initialize(
        bump(2e6, 100), [](double, double y) { return 3 * std::sin(kPi * y / 2e6); },
        [](double, double) { return 0.0; },
        [](double x, double y) { return x < 1e6 && y < 1e6 ? 1.0 : 0.0; });
  }
};

TEST(ShallowWater, ConservesMassAndTracerToRoundOff) {
  Runtime rt(small_target(6), 2);
  const Channel ch;
  ShallowWater m(rt, ch.config(48));
  ch.init(m, true);
  const Diagnostics start = m.diagnostics();
  run(m, "rk3", 86400, 0.4);
  const Diagnostics end = m.diagnostics();
  ASSERT_TRUE(end.finite);
  EXPECT_LT(std::abs(end.mass - start.mass) / start.mass, 1e-13);
  EXPECT_LT(std::abs(end.tracer_mass - start.tracer_mass) / start.tracer_mass, 1e-13);
  EXPECT_GT(end.min_depth, 700);
}

// Energy and potential enstrophy drift relative to the energy available above
// the rest state of the same mass (flat bottom: E_rest = g/2 (M/A)^2 A).
std::pair<double, double> drifts(int n, double courant) {
  Runtime rt(small_target(4), 2);
  const Channel ch;
  ShallowWater m(rt, ch.config(n));
  ch.init(m, false);
  const Diagnostics start = m.diagnostics();
  const double area = 2e6 * 2e6;
  const double rest = 0.5 * kG * std::pow(start.mass / area, 2) * area;
  run(m, "rk3", 86400, courant);
  const Diagnostics end = m.diagnostics();
  return {
      std::abs(end.energy - start.energy) / (start.energy - rest),
      std::abs(end.potential_enstrophy - start.potential_enstrophy) / start.potential_enstrophy};
}

TEST(ShallowWater, ConservesEnergyUpToTheTimeSchemesSmallDissipation) {
  const auto [energy, enstrophy] = drifts(48, 0.4);
  const auto [energy_half_dt, enstrophy_half_dt] = drifts(48, 0.2);
  std::printf("energy drift %.3g (Courant 0.4), %.3g (0.2); enstrophy drift %.3g, %.3g\n", energy,
              energy_half_dt, enstrophy, enstrophy_half_dt);
  EXPECT_LT(energy, 5e-3);  // of the available energy, over one day with a steep bump
  EXPECT_LT(enstrophy, 1e-2);
  // The semi-discrete scheme conserves energy: what drifts is RK3's dissipation, O(dt^3).
  EXPECT_GT(energy / energy_half_dt, 6.0);
}

TEST(ShallowWater, UniformTracerStaysUniform) {
  Runtime rt(small_target(4), 1);
  const Channel ch;
  ShallowWater m(rt, ch.config(32));
  ch.init(m, true);
  m.initialize(
      bump(2e6, 100), [](double, double y) { return 3 * std::sin(kPi * y / 2e6); },
      [](double, double) { return 0.0; }, [](double, double) { return 1.0; });
  run(m, "rk3", 6 * 3600, 0.4);
  const ErrorNorms e = m.errors(ShallowWater::kTracerMass, [](double, double) { return 1.0; });
  EXPECT_LT(e.linf, 1e-13);
}

// Solid-body rotation of a cosine bell in prescribed flow (kinematic mode): after
// one revolution the exact solution is the initial bell.
ErrorNorms rotation_error(int n, const std::string& scheme) {
  Runtime rt(small_target(4), 1);
  const double length = 1.0, omega = 2 * kPi;  // one revolution per unit time
  ShallowWater m(rt, {.grid = square(n, length, false, false),
                      .tracer = true,
                      .tracer_scheme = scheme,
                      .kinematic = true});
  auto bell = [](double x, double y) {
    const double r = std::hypot(x - 0.5, y - 0.75) / 0.15;
    return r < 1 ? 0.5 * (1 + std::cos(kPi * r)) : 0.0;
  };
  m.initialize([](double, double) { return 1.0; },
               [&](double, double y) { return -omega * (y - 0.5); },
               [&](double x, double) { return omega * (x - 0.5); }, bell);
  const double dt = 0.5 / (omega * 0.5 * n);  // Courant number 0.5 at the corners' speed
  auto integrator = make_integrator("rk3", m);
  const int steps = static_cast<int>(std::ceil(1.0 / dt));
  for (int s = 0; s < steps; ++s) integrator->step(m.state(), 1.0 / steps);
  return m.errors(ShallowWater::kTracerMass, bell);
}

TEST(ShallowWater, TracerRotationConverges) {
  const ErrorNorms coarse = rotation_error(40, "limited"), fine = rotation_error(80, "limited");
  std::printf("rotation l2 %.3g (40^2), %.3g (80^2)\n", coarse.l2, fine.l2);
  EXPECT_LT(fine.l2, 0.2);
  EXPECT_GT(observed_order(coarse.l2, fine.l2), 1.3);
  EXPECT_GT(rotation_error(80, "upwind").l2, 2 * fine.l2);
}

// The same run split over 4, 5, 6 and 12 tiles (blocks 2 x 2, 5 x 1, 3 x 2,
// 4 x 3), on 1 or 2 threads (and, under mpirun, 2 or 4 ranks): the same bits.
std::uint64_t channel_checksum(int tiles, int threads) {
  Runtime rt(small_target(tiles), threads);
  const Channel ch;
  ShallowWater m(rt, ch.config(30));
  ch.init(m, true);
  auto integrator = make_integrator("rk3", m);
  for (int s = 0; s < 20; ++s) integrator->step(m.state(), 60);
  return m.checksum();
}

TEST(ShallowWater, SameBitsForAnyTileAndThreadCount) {
  const std::uint64_t reference = channel_checksum(4, 1);
  EXPECT_EQ(channel_checksum(5, 1), reference);
  EXPECT_EQ(channel_checksum(6, 2), reference);
  EXPECT_EQ(channel_checksum(12, 2), reference);
}

TEST(ShallowWater, DerivesHalosFromTheStencilsReadingEachField) {
  Runtime rt(small_target(4), 1);
  const Grid g = square(16, 1, true, true);
  const ShallowWater dynamics(rt, {.grid = g});
  EXPECT_EQ(dynamics.halo_of(ShallowWater::kH), 1);
  EXPECT_EQ(dynamics.halo_of(ShallowWater::kU), 1);
  const ShallowWater limited(rt, {.grid = g, .tracer = true});
  EXPECT_EQ(limited.halo_of(ShallowWater::kTracerMass), 2);
  EXPECT_EQ(limited.halo_of(ShallowWater::kH), 2);  // c = (h c) / h is read two cells out
  EXPECT_EQ(limited.halo_of(ShallowWater::kV), 1);
  const ShallowWater upwind(rt, {.grid = g, .tracer = true, .tracer_scheme = "upwind"});
  EXPECT_EQ(upwind.halo_of(ShallowWater::kTracerMass), 1);
  EXPECT_EQ(upwind.halo_of(ShallowWater::kH), 1);
}

TEST(ShallowWater, RejectsInvalidConfigurations) {
  Runtime rt(small_target(2), 1);
  EXPECT_THAT(error_of([&] { ShallowWater(rt, {.grid = {.nx = 8, .ny = 8, .dx = -1}}); }),
              HasSubstr("grid spacings must be positive"));
  EXPECT_THAT(error_of([&] {
                ShallowWater(
                    rt,
                    {.grid = square(8, 1, true, true), .tracer = true, .tracer_scheme = "weno"});
              }),
              HasSubstr("unknown tracer scheme 'weno'; use upwind or limited"));
  EXPECT_THAT(
      error_of([&] { ShallowWater(rt, {.grid = square(8, 1, true, true), .kinematic = true}); }),
      HasSubstr("kinematic mode moves only the tracer"));
  ShallowWater m(rt, {.grid = square(8, 1, true, true)});
  EXPECT_THAT(error_of([&] { m.set_topography(std::vector<double>(10)); }),
              HasSubstr("topography has 10 values for a 8 x 8 grid"));
}

}  // namespace
}  // namespace tessera::weather
