// The rotating shallow-water model on the plane: conservation of mass (to
// round-off), energy and potential enstrophy, a steady geostrophic jet, the
// speed of linear gravity waves, tracer transport, and bitwise-identical
// results for any tile count, thread count and MPI rank count.
#include "tessera/weather/shallow_water.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <numbers>

#include "tessera/core/rng.hpp"
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
// On the grid the balance holds to O(dx^2), so the jet sheds inertia-gravity
// oscillations of that size; the test takes the largest error over the run
// (sampled hourly), which does not depend on where the oscillation's phase is at
// the end.
struct Jet {
  double length = 2e6, f0 = 1e-4, u0 = 5;
  double ky = 2 * kPi / length;
  double amplitude = f0 * u0 / (kG * ky);
  double h(double y) const { return kDepth + amplitude * std::cos(ky * y); }
  ErrorNorms largest_error(int n, double days, int tiles = 4) const {
    Runtime rt(small_target(tiles), 1);
    ShallowWater m(rt, {.grid = square(n, length, true, true), .f0 = f0});
    m.initialize([&](double, double y) { return h(y); },
                 [&](double, double y) { return u0 * std::sin(ky * y); },
                 [](double, double) { return 0.0; });
    ErrorNorms largest;
    for (int hour = 0; hour < days * 24; ++hour) {
      run(m, "rk3", 3600, 0.4);
      const ErrorNorms e = m.errors(
          ShallowWater::kH, [&](double, double y) { return h(y); }, kDepth);
      largest = {std::max(largest.l1, e.l1), std::max(largest.l2, e.l2),
                 std::max(largest.linf, e.linf)};
    }
    return largest;
  }
};

TEST(ShallowWater, GeostrophicJetStaysSteady) {
  const Jet jet;
  const ErrorNorms coarse = jet.largest_error(24, 2), fine = jet.largest_error(48, 2);
  std::printf("jet largest l2 %.3g (24^2), %.3g (48^2), linf %.3g\n", coarse.l2, fine.l2,
              fine.linf);
  EXPECT_LT(coarse.l2, 2e-2);
  EXPECT_LT(fine.linf, 5e-3);
  EXPECT_NEAR(observed_order(coarse.l2, fine.l2), 2.0, 0.3);
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

// The semi-discrete equations themselves: on a random doubly periodic beta-plane
// state with random topography and dx != dy, the rates of change of total energy
// and potential enstrophy that the tendencies imply (central differences of the
// diagnostics along q +- eps F(q); E and Z are cubic in q, so the difference is
// exact up to eps^2 terms far below round-off here) vanish for Arakawa-Lamb to
// round-off, ~1e-14 per second relative; Sadourny's form keeps only energy, and
// its enstrophy rate (3.4e-6 per second) shows what a non-conserving form gives.
// (This test found that f must wrap with a periodic y axis: with f taken from the
// unwrapped position in the halo, both schemes leaked energy at 1.7e-10 per second.)
struct Rates {
  double energy, enstrophy;
};
Rates conservation_rates(const std::string& flux) {
  Runtime rt(small_target(4), 1);
  const Grid g{
      .nx = 12, .ny = 10, .dx = 1.3e5, .dy = 0.9e5, .periodic_x = true, .periodic_y = true};
  ShallowWater m(rt, {.grid = g, .f0 = 1e-4, .beta = 1.6e-11, .vorticity_flux = flux});
  // A value per staggered point, from a stream named by the point and the field.
  auto noise = [&](int field, double amplitude, double offset) {
    return [&g, field, amplitude, offset](double x, double y) {
      const auto i = static_cast<std::uint64_t>(std::llround(2 * x / g.dx) + 1000);
      const auto j = static_cast<std::uint64_t>(std::llround(2 * y / g.dy) + 1000);
      RngEngine engine = rng_stream(2026, (j * 100000 + i) * 8 + static_cast<std::uint64_t>(field));
      return offset + amplitude * (static_cast<double>(engine() >> 11) * 0x1.0p-53 - 0.5);
    };
  };
  m.set_topography(noise(0, 100, 50));
  m.initialize(noise(1, 200, 1000), noise(2, 10, 0), noise(3, 10, 0));
  State saved = m.make_state("test.saved"), dq = m.make_state("test.dq");
  combine(rt, saved, 1, m.state(), 0, m.state());
  m.tendency(m.state(), dq);
  auto at = [&](double eps) {
    combine(rt, m.state(), 1, saved, eps, dq);
    return m.diagnostics();
  };
  const double eps = 1e-2;  // s; the fastest time scale here is dx / sqrt(g h) ~ 1000 s
  const Diagnostics plus = at(eps), minus = at(-eps), start = at(0);
  return {(plus.energy - minus.energy) / (2 * eps) / start.energy,
          (plus.potential_enstrophy - minus.potential_enstrophy) / (2 * eps) /
              start.potential_enstrophy};
}

TEST(ShallowWater, ArakawaLambTendenciesConserveEnergyAndEnstrophy) {
  const Rates al = conservation_rates("arakawa-lamb"), sadourny = conservation_rates("energy");
  std::printf(
      "relative rates per second: Arakawa-Lamb energy %.2g enstrophy %.2g; Sadourny "
      "energy %.2g enstrophy %.2g\n",
      al.energy, al.enstrophy, sadourny.energy, sadourny.enstrophy);
  ASSERT_GT(std::abs(sadourny.enstrophy), 1e-7);
  EXPECT_LT(std::abs(al.enstrophy), 1e-12);
  EXPECT_LT(std::abs(al.energy), 1e-12);
  EXPECT_LT(std::abs(sadourny.energy), 1e-12);
}

// Energy and potential enstrophy drift over a day of a strongly nonlinear flow
// (a 100 m bump and a divergent jet) on a doubly periodic f-plane, where the
// Arakawa-Lamb form conserves both exactly in the semi-discrete equations. Energy
// drift is relative to the energy available above the rest state of the same mass
// (flat bottom: E_rest = g/2 (M/A)^2 A), enstrophy drift relative to the total.
struct Drift {
  double mass, energy, enstrophy;
};
Drift drifts(const std::string& flux, double courant) {
  Runtime rt(small_target(4), 2);
  const double length = 2e6;
  ShallowWater m(rt, {.grid = square(40, length, true, true), .f0 = 1e-4, .vorticity_flux = flux});
  m.initialize(
      bump(length, 100), [](double, double y) { return 3 * std::sin(2 * kPi * y / 2e6); },
      [](double x, double) { return 2 * std::cos(2 * kPi * x / 2e6); });
  const Diagnostics start = m.diagnostics();
  const double area = length * length;
  run(m, "rk3", 86400, courant);
  const Diagnostics end = m.diagnostics();
  const double rest = 0.5 * kG * std::pow(start.mass / area, 2) * area;
  return {
      std::abs(end.mass - start.mass) / start.mass,
      std::abs(end.energy - start.energy) / (start.energy - rest),
      std::abs(end.potential_enstrophy - start.potential_enstrophy) / start.potential_enstrophy};
}

TEST(ShallowWater, ArakawaLambConservesEnergyAndEnstrophyUpToTheTimeScheme) {
  // RK3 is third order, so over a fixed time the drift of a quantity the spatial
  // scheme conserves exactly is O(dt^3): halving dt divides it by ~8. A drift that
  // came from the spatial scheme would not shrink with dt.
  const Drift coarse = drifts("arakawa-lamb", 0.4), fine = drifts("arakawa-lamb", 0.2);
  std::printf("Arakawa-Lamb: energy drift %.3g (Courant 0.4), %.3g (0.2); enstrophy %.3g, %.3g\n",
              coarse.energy, fine.energy, coarse.enstrophy, fine.enstrophy);
  EXPECT_LT(coarse.mass, 1e-12);
  EXPECT_LT(fine.mass, 1e-12);
  EXPECT_LT(coarse.energy, 5e-3);
  EXPECT_LT(coarse.enstrophy, 1e-8);
  EXPECT_NEAR(observed_order(coarse.energy, fine.energy), 3.0, 0.5);
  EXPECT_NEAR(observed_order(coarse.enstrophy, fine.enstrophy), 3.0, 0.5);
}

TEST(ShallowWater, SadournyConservesEnergyButNotEnstrophy) {
  // The energy-conserving form: the energy drift is the time scheme's, O(dt^3); the
  // enstrophy drift is the spatial scheme's and does not shrink with dt. (This is
  // also what makes the test above able to fail.)
  const Drift coarse = drifts("energy", 0.4), fine = drifts("energy", 0.2);
  std::printf("Sadourny: energy drift %.3g (Courant 0.4), %.3g (0.2); enstrophy %.3g, %.3g\n",
              coarse.energy, fine.energy, coarse.enstrophy, fine.enstrophy);
  EXPECT_LT(fine.mass, 1e-12);
  EXPECT_NEAR(observed_order(coarse.energy, fine.energy), 3.0, 0.5);
  EXPECT_LT(observed_order(coarse.enstrophy, fine.enstrophy), 1.0);
  EXPECT_GT(fine.enstrophy, 1e-8);  // Arakawa-Lamb's coarse-dt drift is below this (above)
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
  // Sadourny's terms read nearest neighbours; Arakawa-Lamb's read q one corner
  // further out, and q reads one more.
  const ShallowWater sadourny(rt, {.grid = g, .vorticity_flux = "energy"});
  EXPECT_EQ(sadourny.halo_of(ShallowWater::kH), 1);
  EXPECT_EQ(sadourny.halo_of(ShallowWater::kU), 1);
  const ShallowWater arakawa_lamb(rt, {.grid = g});
  EXPECT_EQ(arakawa_lamb.halo_of(ShallowWater::kH), 2);
  EXPECT_EQ(arakawa_lamb.halo_of(ShallowWater::kV), 2);
  const ShallowWater limited(rt, {.grid = g, .tracer = true, .vorticity_flux = "energy"});
  EXPECT_EQ(limited.halo_of(ShallowWater::kTracerMass), 2);
  EXPECT_EQ(limited.halo_of(ShallowWater::kH), 2);  // c = (h c) / h is read two cells out
  EXPECT_EQ(limited.halo_of(ShallowWater::kV), 1);
  const ShallowWater upwind(
      rt, {.grid = g, .tracer = true, .tracer_scheme = "upwind", .vorticity_flux = "energy"});
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
  EXPECT_THAT(error_of([&] {
                ShallowWater(rt, {.grid = square(8, 1, true, true), .vorticity_flux = "enstrophy"});
              }),
              HasSubstr("unknown vorticity flux 'enstrophy'; use energy (Sadourny 1975) or "
                        "arakawa-lamb (Arakawa & Lamb 1981)"));
  ShallowWater m(rt, {.grid = square(8, 1, true, true)});
  EXPECT_THAT(error_of([&] { m.set_topography(std::vector<double>(10)); }),
              HasSubstr("topography has 10 values for a 8 x 8 grid"));
}

}  // namespace
}  // namespace tessera::weather
