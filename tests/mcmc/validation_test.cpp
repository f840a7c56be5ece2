// Every sampler against targets whose answers are known in closed form, with checks strong
// enough to see a 2 % error in a variance.
//
// For a target with mean mu and covariance S = V diag(lambda) V^T, the draws must give
//   E x_i                      = mu_i,
//   E (x_i - mu_i)^2           = S_ii                (the marginal variances),
//   E (v_k . (x - mu))^2 / l_k = 1                   (the variance along each principal axis),
// each within 4 Monte-Carlo standard errors, where the MCSE of each statistic comes from the
// ESS of that statistic's own draws (mcse_mean). Each test also checks its own power: the
// largest relative error of a variance that could still pass (4 MCSE / expected value, the
// smallest bias the test is sure to see) must be at most `detectable`, 2 % unless the case
// says otherwise, so that a test with too few draws fails instead of passing vacuously. The
// run prints the figure each case reached; on 2026-12-01 they were (%, smallest variance
// error each case detects):
//   AR(1) d = 10:    nuts 1.51 / 1.38 (diag_e / dense_e), hmc 1.66 / 1.26, ensemble 1.39
//   AR(1) d = 4:     rwm 1.85, pt 1.46
//   d = 100, 1e3:    nuts 2.0 / 1.94, hmc 4.28 / 3.28 (held to 5 %)
//   banana:          nuts 1.60 / 1.62, hmc 1.27 / 1.80, rwm 1.79, ensemble 1.42, pt 1.42
//   logmesquite:     nuts 1.85 / 1.84, hmc 1.82 / 1.94, ensemble 1.71
//
// What these checks see that the earlier ones did not: NUTS's old tree building (the end
// momenta of the old tree taken from the wrong side before a new subtree; fixed to follow
// Stan's base_nuts::transition) inflated the variance along the principal axis of the 10-d
// AR(1) Gaussian by 15 % (z = 30 here) and logmesquite's beta variances by 2-5 % (z = 4-6).
// The test it replaces ran 4 x 1000 draws of a 20-d AR(1) Gaussian and checked only the
// marginal variances, whose 4 MCSE was then about 18 %: it could not see a bias of that size.
//
// The seeds are fixed, so the suite is deterministic; with ~1 500 checks at 4 MCSE, a correct
// sampler would fail one of them by chance with probability about 10 % for an arbitrary
// seed, which is why a failure here is investigated on a second seed before it is believed.
#include <gtest/gtest.h>

#include <Eigen/Eigenvalues>
#include <Eigen/QR>
#include <boost/random/normal_distribution.hpp>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <string>

#include "tessera/core/error.hpp"
#include "tessera/core/rng.hpp"
#include "tessera/core/runtime.hpp"
#include "tessera/mcmc/diagnostics.hpp"
#include "tessera/mcmc/models.hpp"
#include "tessera/mcmc/run.hpp"

namespace {

using namespace tessera;
using namespace tessera::mcmc;

// A distribution's first two moments, over the reported values named `names`.
struct Known {
  std::vector<std::string> names;
  Vector mean;
  Matrix covariance;
};

struct Case {
  SamplerKind kind = SamplerKind::nuts;
  Metric metric = Metric::diag_e;
  int chains = 4, warmup = 1000, draws = 1000;
  std::uint64_t seed = 1;
  double integration_time = 4.0;  // hmc: a quarter period of the slowest axes here
  double jitter = 0.0;            // nuts, hmc: step_size_jitter
  int thin = 1;                   // keep every thin-th draw (iterations = draws x thin)
  // Host threads. The draws do not depend on them; one suits the small models, whose
  // iterations are too short to pay for a superstep barrier between two threads.
  int threads = 1;
  double detectable = 0.02;  // the largest variance error that may pass
};

Draws run(const Model& model, const Case& c) {
  Target target = Target::preset("host", 1, 1);
  target.tiles_per_ipu = 2;
  Runtime runtime(target, c.threads, MPI_COMM_SELF);
  RunSettings s;
  s.sampler.kind = c.kind;
  s.sampler.metric = c.metric;
  s.sampler.warmup = c.warmup;
  s.sampler.draws = c.draws * c.thin;
  s.sampler.thin = c.thin;
  s.sampler.integration_time = c.integration_time;
  s.sampler.step_size_jitter = c.jitter;
  s.chains = c.chains;
  s.seed = c.seed;
  return sample(runtime, model, s);
}

// f applied to every draw of every chain: one column per chain.
template <class F>
Chains statistic(const Draws& d, const std::vector<std::size_t>& columns, F f) {
  Chains out(static_cast<std::size_t>(d.chains));
  Vector x(static_cast<Eigen::Index>(columns.size()));
  for (int c = 0; c < d.chains; ++c) {
    auto& chain = out[static_cast<std::size_t>(c)];
    chain.reserve(static_cast<std::size_t>(d.draws));
    for (int n = 0; n < d.draws; ++n) {
      for (std::size_t i = 0; i < columns.size(); ++i)
        x[static_cast<Eigen::Index>(i)] = d.at(c, n, columns[i]);
      chain.push_back(f(x));
    }
  }
  return out;
}

double mean_of(const Chains& chains) {
  double s = 0, n = 0;
  for (const auto& c : chains)
    for (double v : c) s += v, n += 1;
  return s / n;
}

// Checks E f = expected within 4 MCSE; returns 4 MCSE, the error the check cannot see.
double expect_within_4_mcse(const Chains& f, double expected, const std::string& what) {
  const double m = mean_of(f), e = mcse_mean(f);
  EXPECT_TRUE(std::isfinite(e)) << what;
  EXPECT_NEAR(m, expected, 4 * e) << what << ": " << m << " against " << expected << " (MCSE " << e
                                  << ", z = " << (m - expected) / e << ")";
  return 4 * e;
}

// The checks of the file comment; prints the smallest variance error the run could see.
void expect_known_moments(const Draws& d, const Known& k, const Case& c, const std::string& label) {
  std::vector<std::size_t> columns;
  for (const auto& name : k.names) columns.push_back(d.index(name));
  const Eigen::Index n = k.mean.size();
  double blind = 0;  // the largest relative variance error that would pass
  std::string weakest;
  const auto note = [&](double relative, const std::string& what) {
    if (relative > blind) blind = relative, weakest = what;
  };
  for (Eigen::Index i = 0; i < n; ++i) {
    const std::string& name = k.names[static_cast<std::size_t>(i)];
    const double mu = k.mean[i];
    const Chains x = statistic(d, columns, [&](const Vector& v) { return v[i]; });
    const double sd = std::sqrt(k.covariance(i, i));
    EXPECT_LT(expect_within_4_mcse(x, mu, label + " mean of " + name), 0.1 * sd)
        << label << " " << name << ": too few draws to see a mean error of a tenth of an sd";
    EXPECT_LT(rhat(x), 1.01) << label << " " << name;
    const Chains square =
        statistic(d, columns, [&](const Vector& v) { return (v[i] - mu) * (v[i] - mu); });
    const std::string what = "variance of " + name;
    note(expect_within_4_mcse(square, k.covariance(i, i), label + " " + what) / k.covariance(i, i),
         what);
  }
  // The draws along the principal axes, whitened: y = Lambda^-1/2 V^T (x - mu), one matrix
  // product per chain.
  const Eigen::SelfAdjointEigenSolver<Matrix> eigen(k.covariance);
  const Matrix whiten = eigen.eigenvalues().cwiseSqrt().cwiseInverse().asDiagonal() *
                        eigen.eigenvectors().transpose();
  std::vector<Matrix> whitened;
  for (int c = 0; c < d.chains; ++c) {
    Matrix x(n, d.draws);
    for (int j = 0; j < d.draws; ++j)
      for (Eigen::Index i = 0; i < n; ++i)
        x(i, j) = d.at(c, j, columns[static_cast<std::size_t>(i)]) - k.mean[i];
    whitened.push_back(whiten * x);
  }
  for (Eigen::Index a = 0; a < n; ++a) {
    Chains projected(static_cast<std::size_t>(d.chains));
    for (int c = 0; c < d.chains; ++c) {
      const auto row = whitened[static_cast<std::size_t>(c)].row(a);
      auto& chain = projected[static_cast<std::size_t>(c)];
      chain.resize(static_cast<std::size_t>(d.draws));
      for (int j = 0; j < d.draws; ++j) chain[static_cast<std::size_t>(j)] = row[j] * row[j];
    }
    const std::string what = "variance along principal axis " + std::to_string(a + 1) + " of " +
                             std::to_string(n) + " (eigenvalue " +
                             std::to_string(eigen.eigenvalues()[a]) + ")";
    note(expect_within_4_mcse(projected, 1.0, label + " " + what), what);
  }
  double accept = 0;
  for (int c = 0; c < d.chains; ++c)
    for (double v : d.column(c, d.index("accept_stat__"))) accept += v;
  std::printf("%s: mean accept_stat %.3f, step size of chain 1 %.4g\n", label.c_str(),
              accept / (d.chains * d.draws), d.step_size.empty() ? 0.0 : d.step_size[0]);
  std::printf("%s, %d x %d draws: a variance error of %.2f %% or more fails the test (%s)\n",
              label.c_str(), d.chains, d.draws, 100 * blind, weakest.c_str());
  EXPECT_LE(blind, c.detectable) << label << ": too few draws to see a variance error of "
                                 << 100 * c.detectable << " %";
}

std::string label_of(const Case& c, const std::string& target) {
  std::string label = target + ", " + sampler_name(c.kind);
  if (c.kind == SamplerKind::nuts || c.kind == SamplerKind::hmc)
    label += ' ' + metric_name(c.metric);
  return label;
}

// ---- Targets ----

// N(mu, S) for any mean and covariance, with the analytic gradient -P (x - mu).
class Gaussian final : public Model {
 public:
  Gaussian(std::string name, Vector mean, const Matrix& covariance)
      : name_(std::move(name)), mean_(std::move(mean)), precision_(covariance.inverse()) {}
  std::string name() const override { return name_; }
  int dimension() const override { return static_cast<int>(mean_.size()); }
  std::vector<std::string> parameter_names() const override {
    std::vector<std::string> names;
    for (int i = 1; i <= dimension(); ++i) names.push_back("x[" + std::to_string(i) + "]");
    return names;
  }
  double log_density(const Vector& x) const override {
    const Vector r = x - mean_;
    return -0.5 * r.dot(precision_ * r);
  }
  double log_density_gradient(const Vector& x, Vector& g) const override {
    const Vector r = x - mean_;
    g = -(precision_ * r);
    return 0.5 * r.dot(g);
  }
  double autodiff_log_density_gradient(const Vector& x, Vector& g) const override {
    return log_density_gradient(x, g);
  }
  std::vector<double> constrain(const Vector& x) const override {
    return {x.data(), x.data() + x.size()};
  }
  Vector unconstrain(std::span<const double> v) const override {
    return Eigen::Map<const Vector>(v.data(), static_cast<Eigen::Index>(v.size()));
  }

 private:
  std::string name_;
  Vector mean_;
  Matrix precision_;
};

Known known_of(const Model& model, Vector mean, Matrix covariance) {
  return {model.parameter_names(), std::move(mean), std::move(covariance)};
}

// The built-in correlated_gaussian, S_ij = rho^|i - j|: with N = 10 and rho = 0.9 its
// principal axis has variance 6.4 and its condition number is 77.
Known ar1_known(int n, double rho) {
  Matrix s(n, n);
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j) s(i, j) = std::pow(rho, std::abs(i - j));
  return {make_model("correlated_gaussian", nlohmann::json{{"N", n}, {"rho", rho}}, "test")
              ->parameter_names(),
          Vector::Zero(n), s};
}

// d = 100, eigenvalues log-spaced from 1 to 1000 (condition number 1e3) along a random
// rotation (QR of a Gaussian matrix, fixed seed), mean 1, 2, ..., 100 / 10.
Matrix ill_conditioned_covariance(int d) {
  RngEngine rng = rng_stream(2018, 0);
  boost::random::normal_distribution<double> normal;
  Matrix g(d, d);
  for (int j = 0; j < d; ++j)
    for (int i = 0; i < d; ++i) g(i, j) = normal(rng);
  const Matrix q = Eigen::HouseholderQR<Matrix>(g).householderQ();
  Vector lambda(d);
  for (int k = 0; k < d; ++k) lambda[k] = std::pow(1000.0, static_cast<double>(k) / (d - 1));
  return q * lambda.asDiagonal() * q.transpose();
}

// A banana (Haario, Saksman & Tamminen's twisted Gaussian): x1 ~ N(0, s^2),
// x2 | x1 ~ N(b (x1^2 - s^2), 1). E x = 0, Var x1 = s^2, Cov(x1, x2) = b E[x1^3 - s^2 x1] = 0,
// Var x2 = 1 + b^2 Var(x1^2) = 1 + 2 b^2 s^4.
class Banana final : public AutoDiffModel<Banana, 2> {
 public:
  static constexpr double kS = 2.0, kB = 0.1;
  std::string name() const override { return "banana"; }
  int dimension() const override { return 2; }
  std::vector<std::string> parameter_names() const override { return {"x[1]", "x[2]"}; }
  template <class T>
  T log_density_t(const Eigen::Matrix<T, Eigen::Dynamic, 1>& x) const {
    const T a = x[0] / kS, r = x[1] - kB * (x[0] * x[0] - kS * kS);
    return -0.5 * (a * a + r * r);
  }
  std::vector<double> constrain(const Vector& x) const override { return {x[0], x[1]}; }
  Vector unconstrain(std::span<const double> v) const override { return Vector{{v[0], v[1]}}; }
  static Known known() {
    Matrix s = Matrix::Zero(2, 2);
    s(0, 0) = kS * kS;
    s(1, 1) = 1 + 2 * kB * kB * kS * kS * kS * kS;
    return {{"x[1]", "x[2]"}, Vector::Zero(2), s};
  }
};

// posteriordb's logmesquite (the built-in model): log weight ~ normal(X beta, sigma) with
// X = [1, log diam1, log diam2, log canopy_height, log total_height, log density, group],
// N = 46, k = 7, flat priors on beta and on sigma > 0 (the Stan program has no prior
// statements). The posterior is known in closed form: with A = X^T X, beta_hat the least-
// squares fit and S0 its residual sum of squares,
//   beta | y    ~ multivariate t, nu = N - k - 1 = 38 degrees of freedom, location beta_hat,
//                 covariance S0 / (N - k - 3) A^-1,
//   sigma^2 | y ~ inverse gamma((N - k - 1) / 2, S0 / 2)
// (integrate sigma^-N exp(-S(beta) / 2 sigma^2) over sigma, then over beta).
struct MesquitePosterior {
  Known beta;
  double sigma_mean, sigma_square_mean;
};

MesquitePosterior mesquite_posterior(const nlohmann::json& data) {
  const int n = data.at("N").get<int>(), k = 7;
  Matrix x(n, k);
  Vector y(n);
  const char* logged[] = {"diam1", "diam2", "canopy_height", "total_height", "density"};
  for (int i = 0; i < n; ++i) {
    x(i, 0) = 1.0;
    for (int j = 0; j < 5; ++j) x(i, j + 1) = std::log(data.at(logged[j]).at(i).get<double>());
    x(i, 6) = data.at("group").at(i).get<double>();
    y[i] = std::log(data.at("weight").at(i).get<double>());
  }
  const Matrix a = x.transpose() * x;
  const Vector beta_hat = a.ldlt().solve(x.transpose() * y);
  const double s0 = (y - x * beta_hat).squaredNorm();
  std::vector<std::string> names;
  for (int j = 1; j <= k; ++j) names.push_back("beta[" + std::to_string(j) + "]");
  // sigma = sqrt of an inverse-gamma(alpha, b): E sigma = sqrt(b) Gamma(alpha - 1/2) /
  // Gamma(alpha).
  const double alpha = (n - k - 1) / 2.0, b = s0 / 2;
  return {{names, beta_hat, s0 / (n - k - 3) * a.inverse()},
          std::sqrt(b) * std::exp(std::lgamma(alpha - 0.5) - std::lgamma(alpha)),
          b / (alpha - 1)};
}

// ---- The cases ----

const Case kNutsDiag{SamplerKind::nuts, Metric::diag_e};
const Case kNutsDense{SamplerKind::nuts, Metric::dense_e};
// Static HMC with a fixed integration time resonates on a Gaussian (an axis whose period
// divides the time never moves); a jittered step size varies the time, as Stan users do.
const Case kHmcDiag{SamplerKind::hmc, Metric::diag_e, 4, 1000, 1000, 1, 4.0, 0.5};
const Case kHmcDense{SamplerKind::hmc, Metric::dense_e, 4, 1000, 1000, 1, 2.0, 0.5};

Case with(Case c, int chains, int warmup, int draws, std::uint64_t seed, int thin = 1) {
  c.thin = thin;
  c.chains = chains;
  c.warmup = warmup;
  c.draws = draws;
  c.seed = seed;
  return c;
}

void check_ar1(const Case& c) {
  const Known k = ar1_known(10, 0.9);
  const auto model =
      make_model("correlated_gaussian", nlohmann::json{{"N", 10}, {"rho", 0.9}}, "test");
  expect_known_moments(run(*model, c), k, c, label_of(c, "AR(1) Gaussian d = 10, rho = 0.9"));
}

TEST(Validation, Ar1GaussianNutsDiag) { check_ar1(with(kNutsDiag, 4, 1000, 175000, 7)); }
TEST(Validation, Ar1GaussianNutsDense) { check_ar1(with(kNutsDense, 4, 1000, 100000, 7)); }
TEST(Validation, Ar1GaussianHmcDiag) { check_ar1(with(kHmcDiag, 4, 1000, 100000, 7)); }
TEST(Validation, Ar1GaussianHmcDense) { check_ar1(with(kHmcDense, 4, 1000, 100000, 7)); }
TEST(Validation, Ar1GaussianEnsemble) {
  check_ar1(with(Case{SamplerKind::ensemble}, 32, 1000, 30000, 7, 10));
}

// The random-walk samplers on a smaller correlated Gaussian: their ESS per draw falls as 1/d
// and with the condition number, so d = 10 would take millions of draws.
void check_small_ar1(const Case& c) {
  const Known k = ar1_known(4, 0.7);
  const auto model =
      make_model("correlated_gaussian", nlohmann::json{{"N", 4}, {"rho", 0.7}}, "test");
  expect_known_moments(run(*model, c), k, c, label_of(c, "AR(1) Gaussian d = 4, rho = 0.7"));
}

TEST(Validation, SmallAr1GaussianRwm) {
  check_small_ar1(with(Case{SamplerKind::rwm}, 4, 1000, 100000, 13, 8));
}
TEST(Validation, SmallAr1GaussianPt) {
  check_small_ar1(with(Case{SamplerKind::pt}, 4, 1000, 400000, 13));
}

void check_ill_conditioned(const Case& c) {
  const int d = 100;
  Vector mean(d);
  for (int i = 0; i < d; ++i) mean[i] = (i + 1) / 10.0;
  const Matrix covariance = ill_conditioned_covariance(d);
  const Gaussian model("ill_conditioned_gaussian", mean, covariance);
  expect_known_moments(run(model, c), known_of(model, mean, covariance), c,
                       label_of(c, "Gaussian d = 100, condition number 1e3"));
}

// d = 100 costs O(d^2) per gradient: the chains run on two threads, and HMC, which needs
// several times NUTS's gradients per effective draw here, is held to 5 % (it meets 2 % on the
// other three targets).
TEST(Validation, IllConditionedGaussianNutsDiag) {
  Case c = with(kNutsDiag, 4, 1000, 25000, 3, 4);
  c.threads = 2;
  check_ill_conditioned(c);
}
TEST(Validation, IllConditionedGaussianNutsDense) {
  Case c = with(kNutsDense, 4, 1000, 23000, 3, 4);
  c.threads = 2;
  check_ill_conditioned(c);
}
TEST(Validation, IllConditionedGaussianHmcDiag) {
  Case c = with(kHmcDiag, 4, 1000, 10000, 3, 2);
  c.integration_time = 10.0;
  c.detectable = 0.05;
  c.threads = 2;
  check_ill_conditioned(c);
}
TEST(Validation, IllConditionedGaussianHmcDense) {
  Case c = with(kHmcDense, 4, 2000, 10000, 3, 2);
  c.integration_time = 10.0;
  c.detectable = 0.05;
  c.threads = 2;
  check_ill_conditioned(c);
}

void check_banana(const Case& c) {
  const Banana model;
  expect_known_moments(run(model, c), Banana::known(), c, label_of(c, "banana"));
}

TEST(Validation, BananaNutsDiag) { check_banana(with(kNutsDiag, 4, 1000, 200000, 5)); }
TEST(Validation, BananaNutsDense) { check_banana(with(kNutsDense, 4, 1000, 200000, 5)); }
TEST(Validation, BananaHmcDiag) { check_banana(with(kHmcDiag, 4, 1000, 200000, 5)); }
TEST(Validation, BananaHmcDense) { check_banana(with(kHmcDense, 4, 1000, 200000, 5)); }
TEST(Validation, BananaRwm) { check_banana(with(Case{SamplerKind::rwm}, 4, 1000, 100000, 5, 4)); }
TEST(Validation, BananaEnsemble) {
  check_banana(with(Case{SamplerKind::ensemble}, 16, 1000, 200000, 5));
}
TEST(Validation, BananaPt) { check_banana(with(Case{SamplerKind::pt}, 4, 1000, 200000, 5)); }

// logmesquite's data stay in ../shared (posteriordb's licence); the test skips without them.
void check_logmesquite(const Case& c) {
  const std::string file =
      std::string(TESSERA_SHARED_DATA) + "/posteriordb/mesquite-logmesquite/data.json";
  if (!std::filesystem::exists(file))
    GTEST_SKIP() << "posteriordb data absent: " << file << " (../shared/data is not next to the "
                 << "project)";
  const nlohmann::json data = read_data_file(file);
  const auto model = make_model("logmesquite", data, file);
  const MesquitePosterior exact = mesquite_posterior(data);
  const Draws d = run(*model, c);
  const std::string label = label_of(c, "logmesquite");
  expect_known_moments(d, exact.beta, c, label);
  const std::vector<std::size_t> column{d.index("sigma")};
  expect_within_4_mcse(statistic(d, column, [](const Vector& v) { return v[0]; }), exact.sigma_mean,
                       label + " mean of sigma");
  const double blind =
      expect_within_4_mcse(statistic(d, column, [](const Vector& v) { return v[0] * v[0]; }),
                           exact.sigma_square_mean, label + " E sigma^2") /
      exact.sigma_square_mean;
  EXPECT_LE(blind, c.detectable) << label << ": too few draws to see a 2 % error in E sigma^2";
}

TEST(Validation, LogmesquiteNutsDiag) { check_logmesquite(with(kNutsDiag, 4, 1000, 60000, 11)); }
TEST(Validation, LogmesquiteNutsDense) { check_logmesquite(with(kNutsDense, 4, 1000, 60000, 11)); }
TEST(Validation, LogmesquiteHmcDiag) { check_logmesquite(with(kHmcDiag, 4, 1000, 80000, 11)); }
TEST(Validation, LogmesquiteHmcDense) { check_logmesquite(with(kHmcDense, 4, 1000, 50000, 11)); }
TEST(Validation, LogmesquiteEnsemble) {
  check_logmesquite(with(Case{SamplerKind::ensemble}, 32, 1000, 40000, 11, 4));
}

}  // namespace
