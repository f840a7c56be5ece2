// Stencil operators against analytic derivatives, with the observed order of
// accuracy under grid refinement; advection by the flux-form operators.
#include "tessera/weather/operators.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <numbers>
#include <vector>

#include "tessera/weather/time_integrator.hpp"
#include "test_support.hpp"

namespace tessera::weather {
namespace {

using testing::observed_order;
constexpr double kPi = std::numbers::pi;

// One periodic block of n x n cells on the unit square, halo filled analytically.
struct Periodic2D {
  int n;
  int halo;
  BlockLayout layout{n, n, halo};
  double d = 1.0 / n;
  std::vector<double> data = std::vector<double>(layout.size());
  FieldView view() { return {data.data(), layout}; }
  // f(x, y) sampled at the stagger's points, halo included.
  void sample(Stagger s, const std::function<double(double, double)>& f) {
    for (int j = -halo; j < n + halo; ++j)
      for (int i = -halo; i < n + halo; ++i) {
        const double x = (i + (s == Stagger::face_x ? 0.0 : 0.5)) * d;
        const double y = (j + (s == Stagger::face_y ? 0.0 : 0.5)) * d;
        view()(i, j) = f(x, y);
      }
  }
  double max_error(Stagger s, const std::function<double(double, double)>& exact) {
    double e = 0;
    for (int j = 0; j < n; ++j)
      for (int i = 0; i < n; ++i) {
        const double x = (i + (s == Stagger::face_x ? 0.0 : 0.5)) * d;
        const double y = (j + (s == Stagger::face_y ? 0.0 : 0.5)) * d;
        e = std::max(e, std::abs(view()(i, j) - exact(x, y)));
      }
    return e;
  }
};

double f(double x, double y) { return std::sin(2 * kPi * x) * std::cos(4 * kPi * y); }
double fx(double x, double y) { return 2 * kPi * std::cos(2 * kPi * x) * std::cos(4 * kPi * y); }
double fy(double x, double y) { return -4 * kPi * std::sin(2 * kPi * x) * std::sin(4 * kPi * y); }
double lap_f(double x, double y) { return -20 * kPi * kPi * f(x, y); }

// Max-norm errors of each operator on n x n cells.
struct Errors {
  double grad_x, grad_y, div, lap;
};
Errors operator_errors(int n) {
  Periodic2D in{n, 1}, out{n, 1}, u{n, 1}, v{n, 1};
  in.sample(Stagger::center, f);
  GradientX::apply(out.view(), in.view(), in.d);
  Errors e{};
  e.grad_x = out.max_error(Stagger::face_x, fx);
  GradientY::apply(out.view(), in.view(), in.d);
  e.grad_y = out.max_error(Stagger::face_y, fy);
  // div of (f, f) at centres is fx + fy.
  u.sample(Stagger::face_x, f);
  v.sample(Stagger::face_y, f);
  Divergence::apply(out.view(), u.view(), v.view(), in.d, in.d);
  e.div = out.max_error(Stagger::center, [](double x, double y) { return fx(x, y) + fy(x, y); });
  Laplacian::apply(out.view(), in.view(), in.d, in.d);
  e.lap = out.max_error(Stagger::center, lap_f);
  return e;
}

TEST(Operators, ConvergeAtSecondOrder) {
  const Errors coarse = operator_errors(32), fine = operator_errors(64);
  for (const auto& [name, c, f2] : {std::tuple{"grad_x", coarse.grad_x, fine.grad_x},
                                    {"grad_y", coarse.grad_y, fine.grad_y},
                                    {"div", coarse.div, fine.div},
                                    {"laplacian", coarse.lap, fine.lap}}) {
    SCOPED_TRACE(name);
    EXPECT_LT(c, 0.05 * 20 * kPi * kPi);
    EXPECT_NEAR(observed_order(c, f2), 2.0, 0.05);
  }
}

// 1-D advection of a sine by a uniform flow (flux 1 at every face) over one
// period with RK3 (Wicker-Skamarock), Courant number 0.4: the l1 error.
template <class Op>
double advection_error(int n) {
  Periodic2D c{n, 2}, k{n, 2}, fu{n, 2}, fv{n, 2}, c0{n, 2};
  auto wave = [](double x, double) { return std::sin(2 * kPi * x); };
  c.sample(Stagger::center, wave);
  fu.sample(Stagger::face_x, [](double, double) { return 1.0; });
  fv.sample(Stagger::face_y, [](double, double) { return 0.0; });
  const double dt = 0.4 * c.d;
  const int steps = static_cast<int>(std::lround(1.0 / dt));
  auto wrap = [&](Periodic2D& a) {  // periodic halo along x (the field is uniform in y)
    for (int j = -2; j < n + 2; ++j)
      for (int i = 1; i <= 2; ++i) {
        a.view()(-i, j) = a.view()(n - i, std::clamp(j, 0, n - 1));
        a.view()(n - 1 + i, j) = a.view()(i - 1, std::clamp(j, 0, n - 1));
      }
    for (int i = -2; i < n + 2; ++i)
      for (int j = 1; j <= 2; ++j) a.view()(i, -j) = a.view()(i, n - 1 + j) = a.view()(i, 0);
  };
  for (int s = 0; s < steps; ++s) {
    c0.data = c.data;
    for (double frac : {1.0 / 3, 0.5, 1.0}) {
      wrap(c);
      Op::apply(k.view(), c.view(), fu.view(), fv.view(), c.d, c.d);
      for (int j = 0; j < n; ++j)
        for (int i = 0; i < n; ++i) c.view()(i, j) = c0.view()(i, j) + frac * dt * k.view()(i, j);
    }
  }
  double e = 0;
  for (int i = 0; i < n; ++i) e += std::abs(c.view()(i, 0) - wave((i + 0.5) * c.d, 0)) / n;
  return e;
}

TEST(Operators, UpwindAdvectionIsFirstOrder) {
  const double order =
      observed_order(advection_error<UpwindAdvection>(64), advection_error<UpwindAdvection>(128));
  EXPECT_NEAR(order, 1.0, 0.15);
}

TEST(Operators, LimitedAdvectionIsNearlySecondOrderAndBoundsTheSolution) {
  const double coarse = advection_error<LimitedAdvection>(64);
  const double fine = advection_error<LimitedAdvection>(128);
  // The limiter clips slopes at the extrema, so l1 order falls a little short of 2.
  EXPECT_GT(observed_order(coarse, fine), 1.6);
  EXPECT_LT(fine, advection_error<UpwindAdvection>(128) / 5);
}

TEST(Operators, LimitedFaceValuesCreateNoNewExtrema) {
  // A step: face values stay within the neighbouring cell values.
  for (double w : {1.0, -1.0})
    for (const auto& c : {std::array{0.0, 0.0, 1.0, 1.0}, std::array{0.0, 1.0, 1.0, 0.0},
                          std::array{1.0, 0.0, 0.0, 1.0}}) {
      const double v = VanLeerFace::value(w, c[0], c[1], c[2], c[3]);
      EXPECT_GE(v, std::min(c[1], c[2]));
      EXPECT_LE(v, std::max(c[1], c[2]));
    }
}

}  // namespace
}  // namespace tessera::weather

namespace tessera::weather {
namespace {

// Each operator's counted work, and its price on a GC200 (40 cycles per emulated double
// operation, 20 operations a division, 8-byte accesses, a loop branch per point).
TEST(Operators, WorkIsCountedFromTheLoops) {
  const Target t = Target::preset("gc200");
  EXPECT_DOUBLE_EQ(GradientX::work.flops_fp64, 1);
  EXPECT_DOUBLE_EQ(GradientX::work.transcendentals_fp64, 1);
  EXPECT_DOUBLE_EQ(worker_cycles_per_item(t, GradientX::work), 40 + 800 + 3 + 1);
  EXPECT_DOUBLE_EQ(worker_cycles_per_item(t, Divergence::work), 3 * 40 + 2 * 800 + 5 + 1);
  EXPECT_DOUBLE_EQ(worker_cycles_per_item(t, Laplacian::work), 9 * 40 + 6 + 1);
  EXPECT_GT(worker_cycles_per_item(t, LimitedAdvection::work),
            worker_cycles_per_item(t, UpwindAdvection::work));
  // The stage combinations: out = a x + b y (+ c z), and the filtered leapfrog.
  EXPECT_DOUBLE_EQ(worker_cycles_per_item(t, combine_work(2)), 3 * 40 + 3 + 1);
  EXPECT_DOUBLE_EQ(worker_cycles_per_item(t, combine_work(3)), 5 * 40 + 4 + 1);
  EXPECT_DOUBLE_EQ(worker_cycles_per_item(t, leapfrog_work()), 7 * 40 + 5 + 1);
}

}  // namespace
}  // namespace tessera::weather
