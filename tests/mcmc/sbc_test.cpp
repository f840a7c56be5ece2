// Simulation-based calibration (Talts, Betancourt, Simpson, Vehtari & Gelman 2018,
// arXiv:1804.06788, Algorithm 2) of every sampler on five small models.
//
// One replication draws parameters theta~ from the prior and data y~ from the model given
// theta~, samples the posterior given y~, keeps L = 99 draws thinned far enough apart to be
// nearly independent, and records for each parameter the rank of theta~ among them (0..99).
// If the sampler draws from the right posterior, each rank is uniform on 0..99 whatever the
// model. Two tests of uniformity, each at a false-alarm rate of 1e-4:
//   - Pearson's chi-squared over B = 20 bins of 5 ranks (19 degrees of freedom, fails above
//     50.8): any departure;
//   - the dispersion of the ranks about 49.5 as a z-score (fails beyond 3.89): a posterior
//     whose scale is wrong, the error a sampler's bias most often makes.
// With ~200 parameter x sampler x test checks, a correct sampler fails one with probability
// ~2 % for an arbitrary seed; the seeds are fixed, so the test is deterministic.
//
// TESSERA_SBC_REPLICATIONS sets the replications per model and sampler: 200 in the default
// suite, 1000 in the labelled slow test. What they can see (SeesAWrongPosteriorScale): a
// posterior sd wrong by 25-30 % with 200, by 12.5-15 % with 1000. SBC at this size cannot see the
// NUTS error that validation_test.cpp catches (sds 3-7 % too large on correlated targets: the
// 1000-replication run passed with it); it guards against other errors, such as a wrong
// Jacobian or a sampler that ignores part of the data.
#include <gtest/gtest.h>

#include <boost/math/distributions/chi_squared.hpp>
#include <boost/random/bernoulli_distribution.hpp>
#include <boost/random/gamma_distribution.hpp>
#include <boost/random/normal_distribution.hpp>
#include <boost/random/poisson_distribution.hpp>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <string>

#include "tessera/core/rng.hpp"
#include "tessera/core/runtime.hpp"
#include "tessera/mcmc/model.hpp"
#include "tessera/mcmc/run.hpp"

namespace {

using namespace tessera;
using namespace tessera::mcmc;

constexpr int kKept = 99, kBins = 20;

double normal(RngEngine& rng, double mean = 0, double sd = 1) {
  return boost::random::normal_distribution<double>(mean, sd)(rng);
}

// A model with its simulated truth: the reported values theta~ that generated its data.
struct Problem {
  std::unique_ptr<Model> model;
  std::vector<double> truth;
};

// mu ~ N(0, 1), y_i ~ N(mu, 1), i = 1..5: the conjugate normal mean.
class NormalMean final : public AutoDiffModel<NormalMean, 1> {
 public:
  explicit NormalMean(std::vector<double> y) : y_(std::move(y)) {}
  std::string name() const override { return "normal_mean"; }
  int dimension() const override { return 1; }
  std::vector<std::string> parameter_names() const override { return {"mu"}; }
  template <class T>
  T log_density_t(const Eigen::Matrix<T, Eigen::Dynamic, 1>& x) const {
    T lp = -0.5 * x[0] * x[0];
    for (double y : y_) lp -= 0.5 * (y - x[0]) * (y - x[0]);
    return lp;
  }
  std::vector<double> constrain(const Vector& x) const override { return {x[0]}; }
  Vector unconstrain(std::span<const double> v) const override { return Vector{{v[0]}}; }
  static Problem simulate(RngEngine& rng) {
    const double mu = normal(rng);
    std::vector<double> y;
    for (int i = 0; i < 5; ++i) y.push_back(normal(rng, mu));
    return {std::make_unique<NormalMean>(y), {mu}};
  }

 private:
  std::vector<double> y_;
};

// theta ~ N(0, [[1, 0.95], [0.95, 1]]), y_i ~ N(theta, 0.5^2 I), i = 1..3: a strongly
// correlated posterior (correlation ~0.9), the geometry where the NUTS error showed.
class CorrelatedNormal final : public AutoDiffModel<CorrelatedNormal, 2> {
 public:
  static constexpr double kRho = 0.95, kNoise = 0.5;
  explicit CorrelatedNormal(std::vector<std::array<double, 2>> y) : y_(std::move(y)) {}
  std::string name() const override { return "correlated_normal"; }
  int dimension() const override { return 2; }
  std::vector<std::string> parameter_names() const override { return {"theta[1]", "theta[2]"}; }
  template <class T>
  T log_density_t(const Eigen::Matrix<T, Eigen::Dynamic, 1>& x) const {
    T lp = -0.5 * (x[0] * x[0] - 2 * kRho * x[0] * x[1] + x[1] * x[1]) / (1 - kRho * kRho);
    for (const auto& y : y_)
      lp -=
          0.5 * ((y[0] - x[0]) * (y[0] - x[0]) + (y[1] - x[1]) * (y[1] - x[1])) / (kNoise * kNoise);
    return lp;
  }
  std::vector<double> constrain(const Vector& x) const override { return {x[0], x[1]}; }
  Vector unconstrain(std::span<const double> v) const override { return Vector{{v[0], v[1]}}; }
  static Problem simulate(RngEngine& rng) {
    const double a = normal(rng), b = normal(rng);
    const double t0 = a, t1 = kRho * a + std::sqrt(1 - kRho * kRho) * b;
    std::vector<std::array<double, 2>> y;
    for (int i = 0; i < 3; ++i) y.push_back({normal(rng, t0, kNoise), normal(rng, t1, kNoise)});
    return {std::make_unique<CorrelatedNormal>(y), {t0, t1}};
  }

 private:
  std::vector<std::array<double, 2>> y_;
};

// Non-centred hierarchical normal (eight schools' shape with J = 4): mu ~ N(0, 1),
// tau ~ N+(0, 1), eta_j ~ N(0, 1), y_j ~ N(mu + tau eta_j, 1); tau on the log scale.
class Hierarchical final : public AutoDiffModel<Hierarchical, 6> {
 public:
  explicit Hierarchical(std::vector<double> y) : y_(std::move(y)) {}
  std::string name() const override { return "hierarchical"; }
  int dimension() const override { return 6; }
  std::vector<std::string> parameter_names() const override {
    return {"mu", "tau", "eta[1]", "eta[2]", "eta[3]", "eta[4]"};
  }
  template <class T>
  T log_density_t(const Eigen::Matrix<T, Eigen::Dynamic, 1>& x) const {
    T lp = T(0.0);
    const T tau = lower_bounded(x[1], 0.0, lp);
    lp -= 0.5 * (x[0] * x[0] + tau * tau);
    for (int j = 0; j < 4; ++j) {
      const T r = y_[static_cast<std::size_t>(j)] - (x[0] + tau * x[2 + j]);
      lp -= 0.5 * (x[2 + j] * x[2 + j] + r * r);
    }
    return lp;
  }
  std::vector<double> constrain(const Vector& x) const override {
    return {x[0], std::exp(x[1]), x[2], x[3], x[4], x[5]};
  }
  Vector unconstrain(std::span<const double> v) const override {
    return Vector{{v[0], std::log(v[1]), v[2], v[3], v[4], v[5]}};
  }
  static Problem simulate(RngEngine& rng) {
    const double mu = normal(rng), tau = std::abs(normal(rng));
    std::vector<double> truth{mu, tau}, y;
    for (int j = 0; j < 4; ++j) {
      const double eta = normal(rng);
      truth.push_back(eta);
      y.push_back(normal(rng, mu + tau * eta));
    }
    return {std::make_unique<Hierarchical>(y), truth};
  }

 private:
  std::vector<double> y_;
};

// alpha, beta ~ N(0, 1), y_i ~ Bernoulli(inv_logit(alpha + beta x_i)), 20 fixed x_i.
class Logistic final : public AutoDiffModel<Logistic, 2> {
 public:
  Logistic(std::vector<double> x, std::vector<int> y) : x_(std::move(x)), y_(std::move(y)) {}
  std::string name() const override { return "logistic"; }
  int dimension() const override { return 2; }
  std::vector<std::string> parameter_names() const override { return {"alpha", "beta"}; }
  template <class T>
  T log_density_t(const Eigen::Matrix<T, Eigen::Dynamic, 1>& p) const {
    using std::exp;
    using std::log;
    T lp = -0.5 * (p[0] * p[0] + p[1] * p[1]);
    for (std::size_t i = 0; i < x_.size(); ++i) {
      const T eta = p[0] + p[1] * x_[i];
      // log inv_logit(eta) = -log1p(exp(-eta)), written stably on both sides.
      const T log1p_exp = eta > 0.0 ? T(eta + log(1.0 + exp(-eta))) : T(log(1.0 + exp(eta)));
      lp += (y_[i] ? eta : T(0.0)) - log1p_exp;
    }
    return lp;
  }
  std::vector<double> constrain(const Vector& p) const override { return {p[0], p[1]}; }
  Vector unconstrain(std::span<const double> v) const override { return Vector{{v[0], v[1]}}; }
  static Problem simulate(RngEngine& rng) {
    const double alpha = normal(rng), beta = normal(rng);
    std::vector<double> x;
    std::vector<int> y;
    for (int i = 0; i < 20; ++i) {
      x.push_back(-2.0 + 4.0 * i / 19.0);
      const double p = 1.0 / (1.0 + std::exp(-(alpha + beta * x.back())));
      y.push_back(boost::random::bernoulli_distribution<double>(p)(rng) ? 1 : 0);
    }
    return {std::make_unique<Logistic>(x, y), {alpha, beta}};
  }

 private:
  std::vector<double> x_;
  std::vector<int> y_;
};

// lambda ~ Gamma(2, 1), y_i ~ Poisson(lambda), i = 1..5; lambda on the log scale (the
// Jacobian of a constraining transform is what this model checks).
class PoissonRate final : public AutoDiffModel<PoissonRate, 1> {
 public:
  explicit PoissonRate(int sum) : sum_(sum) {}
  std::string name() const override { return "poisson_rate"; }
  int dimension() const override { return 1; }
  std::vector<std::string> parameter_names() const override { return {"lambda"}; }
  template <class T>
  T log_density_t(const Eigen::Matrix<T, Eigen::Dynamic, 1>& x) const {
    using std::log;
    T lp = T(0.0);
    const T lambda = lower_bounded(x[0], 0.0, lp);
    return lp + (1.0 + sum_) * log(lambda) - 6.0 * lambda;  // Gamma(2, 1) prior, 5 counts
  }
  std::vector<double> constrain(const Vector& x) const override { return {std::exp(x[0])}; }
  Vector unconstrain(std::span<const double> v) const override { return Vector{{std::log(v[0])}}; }
  static Problem simulate(RngEngine& rng) {
    const double lambda = boost::random::gamma_distribution<double>(2.0, 1.0)(rng);
    int sum = 0;
    for (int i = 0; i < 5; ++i) sum += boost::random::poisson_distribution<int>(lambda)(rng);
    return {std::make_unique<PoissonRate>(sum), {lambda}};
  }

 private:
  int sum_;
};

using Simulator = std::function<Problem(RngEngine&)>;

struct Config {
  std::string label;
  SamplerKind kind;
  Metric metric = Metric::diag_e;
  int chains = 1, warmup = 300, thin = 2;  // kKept draws are kept, every `thin`-th
  double jitter = 0;
  // For the test of the test: the kept draws of each parameter moved away from (scale > 1) or
  // towards (< 1) their mean, as a sampler with the posterior's scale wrong by that factor.
  double scale = 1;
};

// The ranks of every parameter over `replications` replications.
std::vector<std::vector<int>> sbc_ranks(const Simulator& simulate, const Config& c,
                                        int replications, std::uint64_t seed) {
  std::vector<std::vector<int>> ranks;
  for (int r = 0; r < replications; ++r) {
    RngEngine rng = rng_stream(seed, static_cast<std::uint64_t>(r));
    const Problem p = simulate(rng);
    Target target = Target::preset("host", 1, 1);
    target.tiles_per_ipu = 1;
    Runtime runtime(target, 1, MPI_COMM_SELF);
    RunSettings s;
    s.sampler.kind = c.kind;
    s.sampler.metric = c.metric;
    s.sampler.warmup = c.warmup;
    s.sampler.step_size_jitter = c.jitter;
    s.sampler.integration_time = 3.0;
    const int per_chain = (kKept + c.chains - 1) / c.chains;
    s.sampler.draws = per_chain * c.thin;
    s.chains = c.chains;
    s.seed = seed + 1000003 * static_cast<std::uint64_t>(r + 1);
    const Draws d = sample(runtime, *p.model, s);
    ranks.resize(p.truth.size());
    for (std::size_t i = 0; i < p.truth.size(); ++i) {
      const std::size_t column = d.index(p.model->parameter_names()[i]);
      std::vector<double> kept;
      for (int n = c.thin - 1; n < d.draws; n += c.thin)
        for (int ch = 0; ch < d.chains; ++ch) kept.push_back(d.at(ch, n, column));
      kept.resize(kKept);
      double mean = 0;
      for (double v : kept) mean += v / kKept;
      int below = 0;
      for (double v : kept) below += mean + c.scale * (v - mean) < p.truth[i] ? 1 : 0;
      ranks[i].push_back(below);
    }
  }
  return ranks;
}

int replications() {
  const char* env = std::getenv("TESSERA_SBC_REPLICATIONS");
  return env ? std::atoi(env) : 200;
}

// Pearson's chi-squared statistic of each parameter's ranks against uniform.
std::vector<double> chi_squared(const std::vector<std::vector<int>>& ranks,
                                const std::string& label, const std::vector<std::string>& names) {
  std::vector<double> out;
  for (std::size_t i = 0; i < ranks.size(); ++i) {
    std::vector<int> bins(kBins, 0);
    for (int r : ranks[i]) ++bins[static_cast<std::size_t>(r * kBins / (kKept + 1))];
    const double expected = static_cast<double>(ranks[i].size()) / kBins;
    double chi2 = 0;
    std::string histogram;
    for (int b : bins) {
      chi2 += (b - expected) * (b - expected) / expected;
      histogram += ' ';
      histogram += std::to_string(b);
    }
    std::printf("SBC %s, %s: chi-squared %.1f; bins%s\n", label.c_str(), names[i].c_str(), chi2,
                histogram.c_str());
    out.push_back(chi2);
  }
  return out;
}

// The dispersion of the ranks about their uniform mean L / 2, as a z-score: a posterior too
// narrow puts the truth in the tails (z > 0), too wide puts it in the middle (z < 0). Under
// uniform ranks E (r - L/2)^2 = ((L + 1)^2 - 1) / 12 with variance (mu_4 - sigma^4) / N.
std::vector<double> dispersion_z(const std::vector<std::vector<int>>& ranks) {
  double sigma2 = 0, mu4 = 0;
  for (int r = 0; r <= kKept; ++r) {
    const double e = r - kKept / 2.0;
    sigma2 += e * e / (kKept + 1);
    mu4 += e * e * e * e / (kKept + 1);
  }
  std::vector<double> out;
  for (const auto& rs : ranks) {
    double v = 0;
    for (int r : rs) v += (r - kKept / 2.0) * (r - kKept / 2.0) / static_cast<double>(rs.size());
    out.push_back((v - sigma2) /
                  std::sqrt((mu4 - sigma2 * sigma2) / static_cast<double>(rs.size())));
  }
  return out;
}

// Both tests at a false-alarm rate of 1e-4 each.
const double kCriticalZ = 3.89;
const double kCritical =
    boost::math::quantile(boost::math::complement(boost::math::chi_squared(kBins - 1), 1e-4));

void expect_uniform_ranks(const Simulator& simulate, const std::vector<std::string>& names,
                          const Config& c, std::uint64_t seed) {
  ASSERT_GE(replications(), 10 * kBins) << "TESSERA_SBC_REPLICATIONS";
  const auto ranks = sbc_ranks(simulate, c, replications(), seed);
  const std::vector<double> chi2 = chi_squared(ranks, c.label, names), z = dispersion_z(ranks);
  for (std::size_t i = 0; i < chi2.size(); ++i) {
    std::printf("SBC %s, %s: dispersion z %.2f\n", c.label.c_str(), names[i].c_str(), z[i]);
    EXPECT_LT(chi2[i], kCritical) << c.label << ", " << names[i] << ": the ranks of the true "
                                  << "value are not uniform over " << replications()
                                  << " replications (chi-squared above " << kCritical << ")";
    EXPECT_LT(std::abs(z[i]), kCriticalZ)
        << c.label << ", " << names[i]
        << ": the posterior's scale is wrong (rank dispersion z = " << z[i]
        << "; positive: too narrow, negative: too wide)";
  }
}

const Config kConfigs[] = {
    {"nuts diag_e", SamplerKind::nuts},
    {"nuts dense_e", SamplerKind::nuts, Metric::dense_e},
    {"hmc diag_e", SamplerKind::hmc, Metric::diag_e, 1, 300, 2, 0.5},
    {"hmc dense_e", SamplerKind::hmc, Metric::dense_e, 1, 300, 2, 0.5},
    {"rwm", SamplerKind::rwm, Metric::diag_e, 1, 1000, 20},
    {"ensemble", SamplerKind::ensemble, Metric::diag_e, 12, 1000, 20},
    {"pt", SamplerKind::pt, Metric::diag_e, 1, 1000, 20},
};

class Sbc : public ::testing::TestWithParam<Config> {};

TEST_P(Sbc, NormalMean) { expect_uniform_ranks(NormalMean::simulate, {"mu"}, GetParam(), 101); }
TEST_P(Sbc, CorrelatedNormal) {
  expect_uniform_ranks(CorrelatedNormal::simulate, {"theta[1]", "theta[2]"}, GetParam(), 202);
}
TEST_P(Sbc, Hierarchical) {
  expect_uniform_ranks(Hierarchical::simulate,
                       {"mu", "tau", "eta[1]", "eta[2]", "eta[3]", "eta[4]"}, GetParam(), 303);
}
TEST_P(Sbc, Logistic) {
  expect_uniform_ranks(Logistic::simulate, {"alpha", "beta"}, GetParam(), 404);
}
TEST_P(Sbc, PoissonRate) {
  expect_uniform_ranks(PoissonRate::simulate, {"lambda"}, GetParam(), 505);
}

INSTANTIATE_TEST_SUITE_P(Samplers, Sbc, ::testing::ValuesIn(kConfigs),
                         [](const ::testing::TestParamInfo<Config>& info) {
                           std::string name = info.param.label;
                           for (char& ch : name)
                             if (ch == ' ') ch = '_';
                           return name;
                         });

// The test of the test: NUTS's draws of the normal mean spread narrower or wider than the
// posterior by a factor must fail. With 200 replications, sds 30 % too small or 25 % too
// large fail (z = 4.5 and -4.4; 0.75 gives 3.4 and passes); with 1000, 15 % too small or
// 12.5 % too large (z = 6.7 and -4.0; 1.1 gives -3.2).
TEST(Sbc, SeesAWrongPosteriorScale) {
  const double error = replications() >= 1000 ? 0.15 : 0.3;
  for (double scale : {1 - error, 1 + error * 5 / 6}) {
    Config c{"nuts diag_e, draws scaled by " + std::to_string(scale), SamplerKind::nuts};
    c.scale = scale;
    const auto ranks = sbc_ranks(NormalMean::simulate, c, replications(), 101);
    const double z = dispersion_z(ranks)[0];
    std::printf("draws scaled by %.3f: dispersion z %.2f\n", scale, z);
    EXPECT_GT(std::abs(z), kCriticalZ) << "SBC did not see the posterior's sd scaled by " << scale;
  }
}

}  // namespace
