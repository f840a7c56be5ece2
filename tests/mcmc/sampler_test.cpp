// Samplers, one chain at a time: reversibility (detailed balance on a binned 1-D
// target), the 1-D normal in closed form, Stan's adaptation windows, dual averaging
// and adaptation reaching the target acceptance.
#include "tessera/mcmc/sampler.hpp"

#include <gtest/gtest.h>

#include <array>
#include <boost/random/normal_distribution.hpp>
#include <cmath>
#include <cstdio>

#include "tessera/core/rng.hpp"
#include "tessera/mcmc/adaptation.hpp"
#include "tessera/mcmc/diagnostics.hpp"
#include "tessera/mcmc/models.hpp"

namespace {

using namespace tessera;
using namespace tessera::mcmc;

// A user model through the public interface: independent normals with scales s_i.
class ScaledNormal final : public AutoDiffModel<ScaledNormal> {
 public:
  explicit ScaledNormal(std::vector<double> scales) : scales_(std::move(scales)) {}
  std::string name() const override { return "scaled_normal"; }
  int dimension() const override { return static_cast<int>(scales_.size()); }
  std::vector<std::string> parameter_names() const override {
    std::vector<std::string> n;
    for (std::size_t i = 0; i < scales_.size(); ++i)
      n.push_back("x[" + std::to_string(i + 1) + "]");
    return n;
  }
  template <class T>
  T log_density_t(const Eigen::Matrix<T, Eigen::Dynamic, 1>& x) const {
    T lp = T(0.0);
    for (Eigen::Index i = 0; i < x.size(); ++i) {
      const T z = x[i] / scales_[static_cast<std::size_t>(i)];
      lp -= 0.5 * z * z;
    }
    return lp;
  }
  std::vector<double> constrain(const Vector& x) const override {
    return {x.data(), x.data() + x.size()};
  }
  Vector unconstrain(std::span<const double> v) const override {
    return Eigen::Map<const Vector>(v.data(), static_cast<Eigen::Index>(v.size()));
  }

 private:
  std::vector<double> scales_;
};

// The test model's unconstrain() inverts constrain() (the identity).
TEST(ScaledNormal, UnconstrainInvertsConstrain) {
  const ScaledNormal model({1.0, 2.0, 3.0});
  const Vector x{{0.5, -1.25, 3.0}};
  EXPECT_EQ(model.unconstrain(model.parameter_block_values(x)), x);
  EXPECT_EQ(model.constrain(model.unconstrain(model.constrain(x))), model.constrain(x));
}

struct ChainRun {
  std::vector<double> x;          // first coordinate
  std::vector<Transition> stats;  // after warm-up
  Vector inverse_metric;
  double step_size;
};

ChainRun run_chain(const Model& model, SamplerConfig config, std::uint64_t seed,
                   std::span<double> q) {
  RngEngine rng = rng_stream(seed, 0);
  auto sampler = make_chain_sampler(model, config, q, rng);
  ChainRun out;
  for (int it = 0; it < config.warmup + config.draws; ++it) {
    const Transition t = sampler->iterate(it, q, rng);
    if (it >= config.warmup) {
      out.x.push_back(q[0]);
      out.stats.push_back(t);
    }
  }
  out.inverse_metric = sampler->inverse_metric();
  out.step_size = sampler->step_size();
  return out;
}

// A reversible kernel at stationarity makes (X_t, X_t+1) exchangeable: the number of
// transitions from bin i to bin j matches j to i. Bins are the quartiles of N(0, 1).
// Adaptation is off (no warm-up), as detailed balance holds for a fixed kernel only.
class DetailedBalance : public ::testing::TestWithParam<SamplerKind> {};

TEST_P(DetailedBalance, BinnedTransitionsAreSymmetric) {
  const auto model = make_model("std_normal", nlohmann::json{{"N", 1}}, "test");
  SamplerConfig config;
  config.kind = GetParam();
  config.warmup = 0;
  config.draws = 100000;
  config.step_size = GetParam() == SamplerKind::rwm ? 1.0 : 0.9;
  config.integration_time = 1.3;
  std::array<double, 1> q{0.3};
  const ChainRun run = run_chain(*model, config, 5, q);
  auto bin = [](double x) {
    return x < -0.6744897501960817 ? 0 : x < 0 ? 1 : x < 0.6744897501960817 ? 2 : 3;
  };
  std::array<std::array<double, 4>, 4> n{};
  std::array<double, 4> occupancy{};
  for (std::size_t t = 0; t + 1 < run.x.size(); ++t) {
    n[static_cast<std::size_t>(bin(run.x[t]))][static_cast<std::size_t>(bin(run.x[t + 1]))] += 1;
    occupancy[static_cast<std::size_t>(bin(run.x[t]))] += 1;
  }
  for (std::size_t i = 0; i < 4; ++i) {
    EXPECT_NEAR(occupancy[i] / static_cast<double>(run.x.size()), 0.25, 0.02) << "bin " << i;
    for (std::size_t j = i + 1; j < 4; ++j)
      EXPECT_LE(std::abs(n[i][j] - n[j][i]), 5 * std::sqrt(n[i][j] + n[j][i]) + 1)
          << "bins " << i << " and " << j << ": " << n[i][j] << " vs " << n[j][i];
  }
}

INSTANTIATE_TEST_SUITE_P(Samplers, DetailedBalance,
                         ::testing::Values(SamplerKind::nuts, SamplerKind::hmc, SamplerKind::rwm));

// NUTS on N(0, 1): mean 0, E x^2 = 1 and P(x < -1) = Phi(-1) within 4 Monte-Carlo
// standard errors; lp__ is exactly -x^2 / 2 and the energy at least -lp__.
TEST(Nuts, OneDimensionalNormalInClosedForm) {
  const auto model = make_model("std_normal", nlohmann::json{{"N", 1}}, "test");
  SamplerConfig config;
  config.warmup = 500;
  config.draws = 20000;
  std::array<double, 1> q{1.5};
  const ChainRun run = run_chain(*model, config, 9, q);
  std::vector<double> square, below;
  for (std::size_t i = 0; i < run.x.size(); ++i) {
    const double x = run.x[i];
    square.push_back(x * x);
    below.push_back(x < -1 ? 1.0 : 0.0);
    ASSERT_EQ(run.stats[i].lp, -0.5 * x * x);
    ASSERT_GE(run.stats[i].energy, -run.stats[i].lp);
    ASSERT_FALSE(run.stats[i].divergent);
  }
  auto check = [](const std::vector<double>& v, double expected, const char* what) {
    double mean = 0;
    for (double x : v) mean += x;
    mean /= static_cast<double>(v.size());
    EXPECT_NEAR(mean, expected, 4 * mcse_mean({v})) << what;
  };
  check(run.x, 0.0, "E x");
  check(square, 1.0, "E x^2");
  check(below, 0.5 * std::erfc(1 / std::sqrt(2.0)), "P(x < -1)");
}

// Stan's windows for 1000 warm-up iterations: 75 | 25, 50, 100, 200, 500 | 50, i.e.
// estimates after iterations 100, 150, 250, 450 and 950.
TEST(Adaptation, StanWindows) {
  WindowedVariance windows(1, 1000);
  Vector metric = Vector::Ones(1), q = Vector::Zero(1);
  std::vector<int> ends;
  for (int i = 0; i < 1000; ++i) {
    q[0] = i % 7;
    if (windows.learn(q, metric)) ends.push_back(i + 1);
  }
  EXPECT_EQ(ends, (std::vector<int>{100, 150, 250, 450, 950}));
  // Fewer iterations than the default buffers: 15% / 75% / 10%.
  WindowedVariance small(1, 100);
  ends.clear();
  for (int i = 0; i < 100; ++i)
    if (small.learn(q, metric)) ends.push_back(i + 1);
  EXPECT_EQ(ends, (std::vector<int>{90}));
}

// The last window's estimate is Stan's regularised variance: (n / (n + 5)) var + 1e-3 (5 / (n +
// 5)).
TEST(Adaptation, RegularisedVariance) {
  WindowedVariance windows(1, 1000);
  Vector metric = Vector::Ones(1), q(1);
  for (int i = 0; i < 100; ++i) {
    q[0] = i >= 75 ? (i % 2 ? 1.0 : -1.0) : 0.0;  // window 75..99: 25 values +-1
    windows.learn(q, metric);
  }
  const double n = 25, var = 25.0 / 24.0 * (1.0 - (1.0 / 25) * (1.0 / 25));
  EXPECT_NEAR(metric[0], n / (n + 5) * var + 1e-3 * 5 / (n + 5), 1e-14);
}

// The dense estimate uses the same windows and is Stan's regularised covariance:
// (n / (n + 5)) Sigma + 1e-3 (5 / (n + 5)) I, with Sigma the window's sample covariance.
TEST(Adaptation, RegularisedCovariance) {
  WindowedCovariance windows(2, 1000);
  Matrix metric = Matrix::Identity(2, 2);
  Vector q(2);
  std::vector<int> ends;
  for (int i = 0; i < 1000; ++i) {
    // In the first window (75..99): 25 points (i % 5, (i % 5) + (i % 2)).
    q << i % 5, i % 5 + i % 2;
    if (windows.learn(q, metric)) ends.push_back(i + 1);
    if (i == 99) {
      Matrix x(25, 2);
      for (int k = 0; k < 25; ++k) x.row(k) << (75 + k) % 5, (75 + k) % 5 + (75 + k) % 2;
      const Matrix centred = x.rowwise() - x.colwise().mean();
      const Matrix sigma = centred.transpose() * centred / 24.0;
      const double n = 25;
      Matrix expected = n / (n + 5) * sigma;
      expected.diagonal().array() += 1e-3 * 5 / (n + 5);
      EXPECT_LT((metric - expected).cwiseAbs().maxCoeff(), 1e-13) << metric << "\n" << expected;
      EXPECT_NE(metric(0, 1), 0.0);
    }
  }
  EXPECT_EQ(ends, (std::vector<int>{100, 150, 250, 450, 950}));
}

// Dual averaging finds the root of accept(eps) = delta: with accept = exp(-eps), eps = -log(0.8).
TEST(Adaptation, DualAveragingFindsTheTargetStepSize) {
  DualAveraging da(0.8);
  da.set_mu(std::log(10.0));
  double eps = 1.0;
  for (int i = 0; i < 5000; ++i) eps = da.learn(std::exp(-eps));
  EXPECT_NEAR(da.final_step_size(), -std::log(0.8), 0.01);
}

// After Stan's warm-up on independent normals with scales 0.1 ... 10, the inverse metric
// is near the variances and the mean acceptance statistic reaches delta. It may
// overshoot: the step size kept after warm-up is exp(x_bar), the dual-averaging mean,
// which on Gaussians lies below the last iterate (Stan behaves alike; its realised
// acceptance commonly exceeds adapt_delta, see numpyro issue #1786 for the same effect).
// Stan 2.21 (rstan) on this target, 8 seeds of 1000 + 1000 iterations: 0.68-0.85 at delta
// 0.6, 0.88-0.92 at 0.8, 0.95-0.97 at 0.95. We require delta - 0.03 ... delta + 0.25 and a
// realised acceptance that grows with delta.
TEST(Adaptation, NutsReachesTheTargetAcceptance) {
  const std::vector<double> scales{0.1, 0.3, 1.0, 3.0, 10.0};
  const ScaledNormal model(scales);
  double previous = 0;
  for (double delta : {0.6, 0.8, 0.95}) {
    SamplerConfig config;
    config.delta = delta;
    std::array<double, 5> q{0.1, 0.2, -0.3, 1.0, -2.0};
    const ChainRun run = run_chain(model, config, 21, q);
    double accept = 0;
    for (const Transition& t : run.stats) accept += t.accept_stat;
    accept /= static_cast<double>(run.stats.size());
    std::printf("delta %.2f: mean accept_stat %.3f, step size %.3f\n", delta, accept,
                run.step_size);
    EXPECT_GE(accept, delta - 0.03) << "delta " << delta;
    EXPECT_LE(accept, delta + 0.25) << "delta " << delta;
    EXPECT_GT(accept, previous);
    previous = accept;
    for (std::size_t i = 0; i < scales.size(); ++i) {
      const double ratio =
          run.inverse_metric[static_cast<Eigen::Index>(i)] / (scales[i] * scales[i]);
      EXPECT_GT(ratio, 0.6) << i;
      EXPECT_LT(ratio, 1.6) << i;
    }
  }
}

TEST(Adaptation, RandomWalkReachesTheOptimalAcceptance) {
  const ScaledNormal model({0.1, 1.0, 10.0, 2.0, 0.5});
  SamplerConfig config;
  config.kind = SamplerKind::rwm;
  config.warmup = 3000;
  config.draws = 5000;
  std::array<double, 5> q{};
  const ChainRun run = run_chain(model, config, 3, q);
  double accept = 0;
  for (const Transition& t : run.stats) accept += t.accept_stat;
  EXPECT_NEAR(accept / static_cast<double>(run.stats.size()), 0.234, 0.05);
}

}  // namespace

namespace {

// Stan's stepsize_jitter: each transition's step size is uniform on nominal x (1 +- jitter),
// the nominal one being the adapted step size; hmc keeps L = floor(T / nominal), so its
// integration time L epsilon varies too. Without jitter every step size is the nominal one.
TEST(StepSizeJitter, SpreadsTheStepSizeUniformlyAroundTheAdaptedOne) {
  const auto model = tessera::mcmc::make_model("std_normal", nlohmann::json{{"N", 3}}, "test");
  for (tessera::mcmc::SamplerKind kind :
       {tessera::mcmc::SamplerKind::nuts, tessera::mcmc::SamplerKind::hmc}) {
    tessera::mcmc::SamplerConfig config;
    config.kind = kind;
    config.warmup = 200;
    config.draws = 4000;
    config.step_size_jitter = 0.4;
    std::array<double, 3> q{0.1, -0.2, 0.3};
    const ChainRun run = run_chain(*model, config, 5, q);
    double low = 1e300, high = 0, mean = 0;
    for (const auto& t : run.stats) {
      low = std::min(low, t.step_size / run.step_size);
      high = std::max(high, t.step_size / run.step_size);
      mean += t.step_size / run.step_size / static_cast<double>(run.stats.size());
    }
    EXPECT_GE(low, 0.6);
    EXPECT_LT(low, 0.61);
    EXPECT_LE(high, 1.4);
    EXPECT_GT(high, 1.39);
    EXPECT_NEAR(mean, 1.0, 0.02);  // uniform: sd 0.4 / sqrt(3 x 4000) = 0.0037
    if (kind == tessera::mcmc::SamplerKind::hmc) {
      const int steps = static_cast<int>(std::floor(config.integration_time / run.step_size));
      for (const auto& t : run.stats) EXPECT_EQ(t.n_leapfrog, std::max(1, steps));
    }
    config.step_size_jitter = 0;
    const ChainRun fixed = run_chain(*model, config, 5, q);
    for (const auto& t : fixed.stats) EXPECT_EQ(t.step_size, fixed.step_size);
  }
}

}  // namespace
