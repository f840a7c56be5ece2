// Declared parameters and Stan Math models: every constraint's transform, its inverse and
// its log Jacobian (against the determinant of the transform's Jacobian by central
// differences), reverse-mode gradients against central differences and against a
// hand-written model, rejection on Stan Math's domain errors, declaration and support
// errors with their messages, and the same gradients from threads at once.
#include "tessera/mcmc/stan_math_model.hpp"

#include <gtest/gtest.h>

#include <Eigen/LU>
#include <cmath>
#include <functional>
#include <limits>
#include <random>
#include <thread>

#include "builtin_twins.hpp"
#include "tessera/core/error.hpp"
#include "tessera/mcmc/models.hpp"
#include "test_support.hpp"

namespace {

using namespace tessera;
using namespace tessera::mcmc;
using namespace tessera::mcmc::testing;

Vector random_point(int d, unsigned seed) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> normal(0.0, 0.8);
  Vector x(d);
  for (int i = 0; i < d; ++i) x[i] = normal(rng);
  return x;
}

// log |det d f(x) / dx| by central differences, f: R^d -> R^d.
double log_abs_det(const std::function<Vector(const Vector&)>& f, const Vector& x) {
  const Eigen::Index d = x.size();
  Eigen::MatrixXd jacobian(d, d);
  const double h = 1e-6;
  for (Eigen::Index j = 0; j < d; ++j) {
    Vector up = x, down = x;
    up[j] += h;
    down[j] -= h;
    jacobian.col(j) = (f(up) - f(down)) / (2 * h);
  }
  return std::log(std::abs(jacobian.determinant()));
}

// One parameter of each kind, and the constrained values that determine it (the free
// coordinates, as many as its unconstrained ones): the Jacobian of the map from x to these
// is what Stan's log Jacobian adjusts for.
struct Case {
  const char* kind;
  std::function<void(ParameterSet&)> declare;
  std::function<Vector(const std::vector<double>&)> free_coordinates;
};

Vector all(const std::vector<double>& v) {
  return Eigen::Map<const Vector>(v.data(), std::ssize(v));
}

// The entries of a column-major K x K (or M x N) matrix at or below (or strictly below) the
// diagonal.
std::function<Vector(const std::vector<double>&)> lower_triangle(int rows, int cols, bool strict) {
  return [=](const std::vector<double>& v) {
    std::vector<double> out;
    for (int j = 0; j < cols; ++j)
      for (int i = 0; i < rows; ++i)
        if (strict ? i > j : i >= j) out.push_back(v[static_cast<std::size_t>(j * rows + i)]);
    return all(out);
  };
}

std::vector<Case> cases() {
  return {
      {"real", [](ParameterSet& p) { p.real("a"); }, all},
      {"lower", [](ParameterSet& p) { p.real("a", lower(1.5)); }, all},
      {"upper", [](ParameterSet& p) { p.real("a", upper(-2.0)); }, all},
      {"lower_upper", [](ParameterSet& p) { p.vector("a", 3, lower_upper(-1.0, 4.0)); }, all},
      {"bound_on_a_parameter",
       [](ParameterSet& p) {
         const RealParameter alpha = p.real("alpha", lower_upper(0.0, 1.0));
         p.real("beta", lower_upper(0.0, 1.0 - alpha));
         p.real("gamma", lower(2.0 * alpha));
       },
       all},
      {"matrix", [](ParameterSet& p) { p.matrix("a", 2, 3, lower(0.0)); }, all},
      {"simplex", [](ParameterSet& p) { p.simplex("a", 4); },
       [](const std::vector<double>& v) {
         return all({v.begin(), v.end() - 1});
       }},
      {"ordered", [](ParameterSet& p) { p.ordered("a", 4); }, all},
      {"positive_ordered", [](ParameterSet& p) { p.positive_ordered("a", 4); }, all},
      {"cholesky_factor_corr", [](ParameterSet& p) { p.cholesky_factor_corr("a", 4); },
       lower_triangle(4, 4, true)},
      {"cholesky_factor_cov", [](ParameterSet& p) { p.cholesky_factor_cov("a", 4, 3); },
       lower_triangle(4, 3, false)},
      {"corr_matrix", [](ParameterSet& p) { p.corr_matrix("a", 4); }, lower_triangle(4, 4, true)},
      {"cov_matrix", [](ParameterSet& p) { p.cov_matrix("a", 3); }, lower_triangle(3, 3, false)},
  };
}

TEST(Parameters, LogJacobianIsTheTransformsLogDeterminant) {
  for (const Case& c : cases()) {
    SCOPED_TRACE(c.kind);
    ParameterSet params;
    c.declare(params);
    for (unsigned seed = 1; seed <= 3; ++seed) {
      const Vector x = random_point(params.dimension(), seed);
      const Point<double> point = params.constrain(x);
      const auto free = [&](const Vector& u) {
        return c.free_coordinates(params.values(params.constrain(u)));
      };
      ASSERT_EQ(free(x).size(), params.dimension());
      EXPECT_NEAR(point.log_jacobian(), log_abs_det(free, x), 1e-6);
    }
  }
}

TEST(Parameters, UnconstrainInvertsConstrain) {
  for (const Case& c : cases()) {
    SCOPED_TRACE(c.kind);
    ParameterSet params;
    c.declare(params);
    const Vector x = random_point(params.dimension(), 7);
    const std::vector<double> values = params.values(params.constrain(x));
    ASSERT_EQ(values.size(), params.value_count());
    EXPECT_LT((params.unconstrain(values) - x).cwiseAbs().maxCoeff(), 1e-9);
  }
}

TEST(Parameters, UnitVectorHasUnitLengthAndAStandardNormalAdjustment) {
  // A unit vector is not a bijection: Stan adds -|x|^2 / 2 so that the unconstrained
  // point has a proper density (Reference Manual, "Unit vector").
  ParameterSet params;
  const VectorParameter u = params.unit_vector("u", 3);
  const Vector x = random_point(3, 3);
  const Point<double> point = params.constrain(x);
  EXPECT_NEAR(point[u].norm(), 1.0, 1e-14);
  EXPECT_NEAR(point.log_jacobian(), -0.5 * x.squaredNorm(), 1e-14);
  EXPECT_LT((point[u] - x.normalized()).cwiseAbs().maxCoeff(), 1e-14);
}

TEST(Parameters, ConstrainedValuesHaveTheirStructure) {
  ParameterSet params;
  const VectorParameter w = params.simplex("w", 5);
  const VectorParameter c = params.ordered("c", 4);
  const VectorParameter pos = params.positive_ordered("p", 4);
  const MatrixParameter l = params.cholesky_factor_corr("L", 4);
  const MatrixParameter s = params.cov_matrix("S", 3);
  const MatrixParameter r = params.corr_matrix("R", 3);
  const Point<double> p = params.constrain(random_point(params.dimension(), 11));
  EXPECT_NEAR(p[w].sum(), 1.0, 1e-14);
  EXPECT_GT(p[w].minCoeff(), 0.0);
  for (int i = 1; i < 4; ++i) EXPECT_GT(p[c][i], p[c][i - 1]);
  EXPECT_GT(p[pos][0], 0.0);
  for (int i = 1; i < 4; ++i) EXPECT_GT(p[pos][i], p[pos][i - 1]);
  const Eigen::MatrixXd omega = p[l] * p[l].transpose();
  for (int i = 0; i < 4; ++i) EXPECT_NEAR(omega(i, i), 1.0, 1e-14);
  EXPECT_EQ(p[l](0, 1), 0.0);
  EXPECT_LT((p[s] - p[s].transpose()).cwiseAbs().maxCoeff(), 1e-14);
  EXPECT_GT(Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd>(p[s]).eigenvalues().minCoeff(), 0.0);
  for (int i = 0; i < 3; ++i) EXPECT_NEAR(p[r](i, i), 1.0, 1e-14);
}

TEST(Parameters, NamesAndSizesFollowStan) {
  ParameterSet params;
  params.real("mu");
  params.vector("theta", 2);
  params.simplex("w", 3);
  params.matrix("B", 2, 2);
  params.cholesky_factor_corr("L", 3);
  params.cov_matrix("S", 2);
  EXPECT_EQ(params.dimension(), 1 + 2 + 2 + 4 + 3 + 3);
  const std::vector<std::string> names = params.names();
  const std::vector<std::string> expected = {
      "mu",     "theta[1]", "theta[2]", "w[1]",   "w[2]",   "w[3]",   "B[1,1]", "B[2,1]",
      "B[1,2]", "B[2,2]",   "L[1,1]",   "L[2,1]", "L[3,1]", "L[1,2]", "L[2,2]", "L[3,2]",
      "L[1,3]", "L[2,3]",   "L[3,3]",   "S[1,1]", "S[2,1]", "S[1,2]", "S[2,2]"};
  EXPECT_EQ(names, expected);
  EXPECT_EQ(params.value_count(), expected.size());
}

TEST(Parameters, DeclarationErrorsSayWhatIsWrong) {
  ParameterSet params;
  const RealParameter a = params.real("a");
  EXPECT_EQ(message_of([&] { params.real("a"); }), "parameter 'a' is declared twice");
  EXPECT_EQ(message_of([&] { params.real(""); }), "a parameter needs a name");
  EXPECT_EQ(message_of([&] { params.simplex("w", 0); }),
            "parameter 'w': a simplex's size must be at least 1, not 0");
  EXPECT_EQ(message_of([&] { params.unit_vector("u", 1); }),
            "parameter 'u': a unit vector's size must be at least 2, not 1");
  EXPECT_EQ(message_of([&] { params.cholesky_factor_cov("L", 2, 3); }),
            "parameter 'L': a Cholesky factor's rows (at least its columns) must be at least 3, "
            "not 2");
  ParameterSet other;
  EXPECT_EQ(message_of([&] { other.real("b", lower(a)); }),
            "parameter 'b': its bound names a real parameter not declared before it");
  EXPECT_EQ(message_of([&] { params.real("c", upper(INFINITY)); }),
            "parameter 'c': a bound must be finite (leave it out instead)");
}

TEST(Parameters, UnconstrainNamesTheValueOutsideItsSupport) {
  ParameterSet params;
  const RealParameter alpha = params.real("alpha", lower_upper(0.0, 1.0));
  params.real("beta", lower_upper(0.0, 1.0 - alpha));
  params.vector("sigma", 2, lower(0.0));
  params.simplex("w", 3);
  params.cov_matrix("S", 2);
  const std::vector<double> good = {0.3, 0.5, 1.0, 2.0, 0.2, 0.3, 0.5, 2.0, 0.5, 0.5, 1.0};
  EXPECT_NO_THROW(params.unconstrain(good));
  const auto with = [&](std::size_t i, double v) {
    std::vector<double> values = good;
    values[i] = v;
    return message_of([&] { params.unconstrain(values); });
  };
  // beta's upper bound is 1 - alpha = 0.7.
  EXPECT_EQ(with(1, 0.75), "parameter 'beta' = 0.75 lies outside its support (0, 0.7)");
  EXPECT_EQ(with(3, -1.0), "parameter 'sigma[2]' = -1 lies outside its support (0, inf)");
  EXPECT_EQ(with(0, NAN), "parameter 'alpha' = nan lies outside its support (0, 1)");
  EXPECT_NE(with(4, 0.3).find("parameter 'w' is not a simplex (Stan Math:"), std::string::npos);
  EXPECT_NE(with(8, 0.4).find("parameter 'S' is not a covariance matrix (Stan Math:"),
            std::string::npos);
  EXPECT_EQ(with(9, INFINITY), "parameter 'S[1,2]' = inf is not finite");
  EXPECT_EQ(message_of([&] { params.unconstrain(std::vector<double>(3, 0.5)); }),
            "unconstrain takes the 11 values of the parameters, not 3");
}

const std::vector<double> kY = {28, 8, -3, 7, -1, 1, 18, 12};
const std::vector<double> kSigma = {15, 10, 16, 11, 9, 11, 10, 18};

// posteriordb's eight_schools_noncentered through the new interface: the same lp__ (Stan's
// `~` statements drop the same constants as the hand-written built-in model), gradient,
// reported values (theta as a derived quantity) and inverse transform.
TEST(StanMathModel, MatchesTheHandWrittenModel) {
  const EightSchoolsTwin model(kY, kSigma);
  nlohmann::json data{{"J", 8}, {"y", kY}, {"sigma", kSigma}};
  const auto builtin = make_model("eight_schools_noncentered", data, "test");
  ASSERT_EQ(model.dimension(), builtin->dimension());
  EXPECT_EQ(model.parameter_names(), builtin->parameter_names());
  EXPECT_EQ(model.parameter_block_names(), builtin->parameter_block_names());
  for (unsigned seed = 1; seed <= 5; ++seed) {
    const Vector x = random_point(model.dimension(), seed);
    Vector g, g_ref;
    const double lp = model.log_density_gradient(x, g);
    const double lp_ref = builtin->log_density_gradient(x, g_ref);
    EXPECT_NEAR(lp, lp_ref, 1e-12 * std::abs(lp_ref));
    EXPECT_EQ(lp, model.log_density(x));
    EXPECT_LT((g - g_ref).cwiseAbs().maxCoeff(), 1e-12);
    const std::vector<double> values = model.constrain(x), values_ref = builtin->constrain(x);
    ASSERT_EQ(values.size(), values_ref.size());
    for (std::size_t i = 0; i < values.size(); ++i)
      EXPECT_NEAR(values[i], values_ref[i], 1e-12 * (1 + std::abs(values_ref[i])));
    EXPECT_LT((model.unconstrain(model.parameter_block_values(x)) - x).cwiseAbs().maxCoeff(),
              1e-12);
  }
}

// Every kind in one model, its density a sum of Stan Math distributions over them.
class EveryKind final : public StanMathModel<EveryKind> {
 public:
  EveryKind()
      : sigma_(params().real("sigma", lower(0.0))),
        rho_(params().real("rho", lower_upper(-1.0, 1.0 - 0.5 * sigma_))),
        w_(params().simplex("w", 4)),
        c_(params().ordered("c", 3)),
        u_(params().unit_vector("u", 3)),
        l_(params().cholesky_factor_corr("L", 3)),
        s_(params().cov_matrix("S", 3)) {}
  std::string name() const override { return "every_kind"; }
  template <class T>
  T log_density_t(const Point<T>& p) const {
    using namespace stan::math;
    const Eigen::VectorXd alpha = Eigen::VectorXd::Constant(4, 2.0);
    const Eigen::VectorXd y = Eigen::VectorXd::LinSpaced(3, -1.0, 1.0);
    // Stan Math 3.0 names the Dirichlet density dirichlet_lpmf.
    return exponential_lpdf(p[sigma_], 1.0) + normal_lpdf(p[rho_], 0.2, 0.5) +
           dirichlet_lpmf(p[w_], alpha) + normal_lpdf(p[c_], 0.0, 2.0) +
           normal_lpdf(dot_product(p[u_], y), 0.5, 0.3) + lkj_corr_cholesky_lpdf(p[l_], 2.0) +
           multi_normal_cholesky_lpdf(y, p[c_], p[l_]) +
           wishart_lpdf(p[s_], 5.0, Eigen::MatrixXd(Eigen::MatrixXd::Identity(3, 3)));
  }

 private:
  RealParameter sigma_, rho_;
  VectorParameter w_, c_, u_;
  MatrixParameter l_, s_;
};

TEST(StanMathModel, ReverseGradientMatchesCentralDifferences) {
  const EveryKind model;
  for (unsigned seed = 1; seed <= 4; ++seed) {
    const Vector x = random_point(model.dimension(), seed) * 0.5;
    Vector g;
    const double lp = model.log_density_gradient(x, g);
    ASSERT_TRUE(std::isfinite(lp));
    EXPECT_EQ(lp, model.log_density(x));
    for (Eigen::Index i = 0; i < x.size(); ++i) {
      const double h = 1e-6;
      Vector up = x, down = x;
      up[i] += h;
      down[i] -= h;
      const double fd = (model.log_density(up) - model.log_density(down)) / (2 * h);
      EXPECT_NEAR(g[i], fd, 1e-6 * (1 + std::abs(fd))) << "coordinate " << i;
    }
  }
}

// sigma = exp(u) underflows to 0 at u = -800: Stan Math's normal_lpdf throws
// std::domain_error ("Scale parameter is 0"), which rejects the point as Stan does.
class Underflow final : public StanMathModel<Underflow> {
 public:
  Underflow() : sigma_(params().real("sigma", lower(0.0))) {}
  std::string name() const override { return "underflow"; }
  template <class T>
  T log_density_t(const Point<T>& p) const {
    return stan::math::normal_lpdf(1.0, 0.0, p[sigma_]);
  }

 private:
  RealParameter sigma_;
};

TEST(StanMathModel, DomainErrorsRejectThePoint) {
  const Underflow model;
  Vector g;
  const Vector x = Vector::Constant(1, -800.0);
  EXPECT_EQ(model.log_density(x), -std::numeric_limits<double>::infinity());
  EXPECT_EQ(model.log_density_gradient(x, g), -std::numeric_limits<double>::infinity());
  EXPECT_EQ(g, Vector::Zero(1));
  // The tape recovered: the next point evaluates.
  EXPECT_TRUE(std::isfinite(model.log_density_gradient(Vector::Zero(1), g)));
}

// Every built-in model against its StanMathModel twin (builtin_twins.hpp): the analytic or
// forward-mode gradients the built-in models keep give the reverse mode's lp and gradient.
TEST(StanMathModel, BuiltInModelsMatchTheirStanMathTwins) {
  std::mt19937_64 rng(3);
  std::normal_distribution<double> normal;
  std::vector<std::vector<double>> x(40, std::vector<double>(3));
  std::vector<int> y(40);
  for (std::size_t n = 0; n < 40; ++n) {
    for (double& v : x[n]) v = normal(rng);
    y[n] = x[n][0] - 0.5 * x[n][2] + normal(rng) > 0 ? 1 : 0;
  }
  std::vector<double> returns(30);
  for (double& r : returns) r = 0.02 * normal(rng);
  const std::vector<std::pair<std::string, nlohmann::json>> cases{
      {"std_normal", {{"N", 5}}},
      {"correlated_gaussian", {{"N", 6}, {"rho", 0.7}}},
      {"eight_schools_noncentered", {{"J", 8}, {"y", kY}, {"sigma", kSigma}}},
      {"logistic_regression", {{"N", 40}, {"K", 3}, {"x", x}, {"y", y}}},
      {"garch11", {{"T", 5}, {"y", {4.9, 5.2, 3.8, 6.0, 5.1}}, {"sigma1", 0.5}}},
      {"stochastic_volatility", {{"T", 30}, {"y", returns}}}};
  for (const auto& [name, data] : cases) {
    SCOPED_TRACE(name);
    const auto builtin = make_model(name, data, "test");
    const auto twin = stan_math_twin(name, data);
    ASSERT_EQ(twin->dimension(), builtin->dimension());
    for (unsigned seed = 1; seed <= 5; ++seed) {
      const Vector point = random_point(builtin->dimension(), seed);
      Vector g, g_twin;
      const double lp = builtin->log_density_gradient(point, g);
      const double lp_twin = twin->log_density_gradient(point, g_twin);
      EXPECT_NEAR(lp_twin, lp, 1e-11 * (1 + std::abs(lp)));
      EXPECT_LT((g_twin - g).cwiseAbs().maxCoeff(), 1e-10 * (1 + g.cwiseAbs().maxCoeff()));
    }
  }
}

TEST(StanMathModel, ThreadsDifferentiateAtOnceOnTheirOwnTapes) {
  const EveryKind model;
  std::vector<Vector> points, serial(8);
  for (unsigned i = 0; i < 8; ++i) points.push_back(random_point(model.dimension(), 100 + i) * 0.5);
  for (std::size_t i = 0; i < 8; ++i) model.log_density_gradient(points[i], serial[i]);
  std::vector<Vector> threaded(8);
  std::vector<std::thread> threads;
  for (std::size_t t = 0; t < 2; ++t)
    threads.emplace_back([&, t] {
      for (int repeat = 0; repeat < 50; ++repeat)
        for (std::size_t i = t; i < 8; i += 2) model.log_density_gradient(points[i], threaded[i]);
    });
  for (std::thread& t : threads) t.join();
  for (std::size_t i = 0; i < 8; ++i) EXPECT_EQ(threaded[i], serial[i]);
}

}  // namespace
