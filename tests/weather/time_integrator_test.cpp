// Time integrators on the tile runtime against the exact solution of a linear
// oscillator, da/dt = -w b, db/dt = w a (one per grid point, with a different
// w at each point), with the observed order of accuracy under step refinement.
#include "tessera/weather/time_integrator.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>

#include "tessera/weather/halo_exchange.hpp"
#include "test_support.hpp"

namespace tessera::weather {
namespace {

using testing::error_of;
using ::testing::HasSubstr;
using testing::observed_order;
using testing::small_target;

class Oscillators final : public Model {
 public:
  explicit Oscillators(Runtime& rt) : rt_(rt), d_(Grid{.nx = 12, .ny = 4}, 4, 1) {}
  Runtime& runtime() override { return rt_; }
  const Decomposition& decomposition() const override { return d_; }
  State make_state(const char* label) override {
    State s;
    for (const char* name : {"a", "b"})
      s.fields.push_back(make_field(rt_, d_, label, name, Stagger::center, 0, nullptr, nullptr));
    s.halo = std::make_shared<const ExchangePlan>(
        compile_halo_exchange(rt_, d_, s.fields, std::string(label) + ".halo"));
    return s;
  }
  void tendency(const State& q, const State& dq) override {
    rt_.superstep("oscillators", [&](Tile& t) {
      const FieldView a = view(t, d_, q.fields[0]), b = view(t, d_, q.fields[1]);
      const FieldView da = view(t, d_, dq.fields[0]), db = view(t, d_, dq.fields[1]);
      for (int j = 0; j < a.height(); ++j)
        for (int i = 0; i < a.width(); ++i) {
          const double w = omega(t, i, j);
          da(i, j) = -w * b(i, j);
          db(i, j) = w * a(i, j);
        }
    });
  }
  double omega(const Tile& t, int i, int j) const {
    return 1.0 + 0.1 * (d_.x_begin(t.id()) + i) + 0.05 * (d_.y_begin(t.id()) + j);
  }

 private:
  Runtime& rt_;
  Decomposition d_;
};

// Max error over all oscillators at t = 2 after steps of 2 / steps, and the
// largest amplitude (for stability checks).
double max_error(const std::string& scheme, int steps, double asselin = 0) {
  Runtime rt(small_target(4), 1);
  Oscillators m(rt);
  State q = m.make_state("test.q");
  rt.superstep("init", [&](Tile& t) {
    const FieldView a = view(t, m.decomposition(), q.fields[0]);
    for (int j = 0; j < a.height(); ++j)
      for (int i = 0; i < a.width(); ++i) a(i, j) = 1;
  });
  auto integrator = make_integrator(scheme, m, asselin);
  const double T = 2, dt = T / steps;
  for (int s = 0; s < steps; ++s) integrator->step(q, dt);
  return rt.all_reduce<double>("error", ReduceOp::max, [&](Tile& t) {
    const FieldView a = view(t, m.decomposition(), q.fields[0]),
                    b = view(t, m.decomposition(), q.fields[1]);
    double e = 0;
    for (int j = 0; j < a.height(); ++j)
      for (int i = 0; i < a.width(); ++i) {
        const double w = m.omega(t, i, j);
        e = std::max({e, std::abs(a(i, j) - std::cos(w * T)), std::abs(b(i, j) - std::sin(w * T))});
      }
    return e;
  });
}

TEST(TimeIntegrator, Rk3IsThirdOrderOnLinearProblems) {
  EXPECT_NEAR(observed_order(max_error("rk3", 200), max_error("rk3", 400)), 3.0, 0.1);
}

TEST(TimeIntegrator, Rk4IsFourthOrder) {
  EXPECT_NEAR(observed_order(max_error("rk4", 100), max_error("rk4", 200)), 4.0, 0.1);
}

TEST(TimeIntegrator, LeapfrogIsSecondOrderWithoutTheFilter) {
  EXPECT_NEAR(observed_order(max_error("leapfrog", 400), max_error("leapfrog", 800)), 2.0, 0.1);
}

TEST(TimeIntegrator, RobertAsselinFilterMakesLeapfrogFirstOrder) {
  const double coarse = max_error("leapfrog", 400, 0.05), fine = max_error("leapfrog", 800, 0.05);
  EXPECT_NEAR(observed_order(coarse, fine), 1.0, 0.15);
  EXPECT_GT(fine, max_error("leapfrog", 800, 0));  // the price of damping the computational mode
}

TEST(TimeIntegrator, RejectsUnknownSchemesAndBadFilterCoefficients) {
  Runtime rt(small_target(4), 1);
  Oscillators m(rt);
  EXPECT_THAT(error_of([&] { make_integrator("euler", m); }),
              HasSubstr("unknown time integrator 'euler'; the integrators are rk3, rk4, leapfrog"));
  EXPECT_THAT(error_of([&] { make_integrator("leapfrog", m, 0.7); }),
              HasSubstr("Robert-Asselin coefficient must be in [0, 0.5)"));
}

}  // namespace
}  // namespace tessera::weather
