// Diagnostics against values computed by hand on fixed draws, and against closed
// forms for long iid and AR(1) sequences.
#include "tessera/mcmc/diagnostics.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <boost/random/normal_distribution.hpp>
#include <cmath>
#include <cstdio>
#include <functional>

#include "tessera/core/rng.hpp"

namespace {

using namespace tessera;
using namespace tessera::mcmc;

// Two chains 1..4 and 2..5, split into [1,2] [3,4] [2,3] [4,5]: chain means 1.5, 3.5,
// 2.5, 4.5 (variance 5/3), within-chain variance 1/2, n = 2:
// B = 2 * 5/3, R = sqrt((B / W + n - 1) / n) = sqrt((20/3 + 1) / 2) = sqrt(23/6).
TEST(Diagnostics, SplitRhatByHand) {
  const Chains chains{{1, 2, 3, 4}, {2, 3, 4, 5}};
  EXPECT_NEAR(rhat_basic(split_chains(chains)), std::sqrt(23.0 / 6.0), 1e-14);
  // Odd lengths drop the middle draw.
  const Chains odd = split_chains({{1, 2, 9, 3, 4}});
  ASSERT_EQ(odd.size(), 2u);
  EXPECT_EQ(odd[0], (std::vector<double>{1, 2}));
  EXPECT_EQ(odd[1], (std::vector<double>{3, 4}));
}

// Ranks of {3, 1, 2, 2} are 4, 1, 2.5, 2.5 (ties averaged); S = 4, so the z-scores are
// Phi^-1((r - 3/8) / 4.25): Phi(z) = 3.625/4.25, 0.625/4.25, and exactly 0 for the ties.
TEST(Diagnostics, RankNormalisationByHand) {
  const Chains z = z_scale({{3, 1}, {2, 2}});
  auto phi = [](double x) { return 0.5 * std::erfc(-x / std::sqrt(2.0)); };
  EXPECT_NEAR(phi(z[0][0]), 3.625 / 4.25, 1e-14);
  EXPECT_NEAR(phi(z[0][1]), 0.625 / 4.25, 1e-14);
  EXPECT_NEAR(z[1][0], 0.0, 1e-15);
  EXPECT_EQ(z[1][0], z[1][1]);
}

// Type 7 quantiles: h = (n - 1) p, linear between order statistics.
TEST(Diagnostics, QuantilesByHand) {
  EXPECT_DOUBLE_EQ(quantile({4, 1, 3, 2}, 0.05), 1.15);
  EXPECT_DOUBLE_EQ(quantile({4, 1, 3, 2}, 0.5), 2.5);
  EXPECT_DOUBLE_EQ(quantile({4, 1, 3, 2}, 0.95), 3.85);
}

// Energies 1, 2, 4, 3: squared differences 1, 4, 1 (mean 2), variance 1.25 (divide by n).
TEST(Diagnostics, EbfmiByHand) { EXPECT_DOUBLE_EQ(ebfmi({1, 2, 4, 3}), 1.6); }

// Two positively autocorrelated chains of 16 draws. The expected values were computed
// step by step (biased autocovariances, Geyer's truncation and monotone sequence) with a
// literal transcription of posterior's .ess() (R/convergence.R) as a calculator.
TEST(Diagnostics, EssByHandOnFixedDraws) {
  const Chains chains{
      {0.1, 0.4, 0.9, 1.3, 1.0, 0.6, 0.2, -0.3, -0.5, -0.1, 0.4, 0.8, 1.1, 0.7, 0.3, -0.2},
      {1.5, 1.2, 0.8, 1.0, 0.4, -0.2, -0.6, -0.3, 0.2, 0.9, 1.4, 1.1, 0.5, 0.1, 0.3, 0.6}};
  EXPECT_NEAR(ess_of(chains), 14.12937827843722, 1e-10);
  EXPECT_NEAR(ess_mean(chains), 17.019185171867484, 1e-10);
  // Antithetic chains: the estimate is capped at S log10(S) (tau >= 1 / log10 S).
  const Chains alternating{{1, -1, 1, -1, 1, -1, 1, -1}, {-1, 1, -1, 1, -1, 1, -1, 1}};
  EXPECT_NEAR(ess_of(alternating), 16 * std::log10(16.0), 1e-10);
}

TEST(Diagnostics, UnusableDrawsGiveNaN) {
  EXPECT_TRUE(std::isnan(rhat({{1, 1, 1, 1}, {1, 1, 1, 1}})));
  EXPECT_TRUE(std::isnan(ess_bulk({{1, 2}, {3, 4}})));
  EXPECT_TRUE(std::isnan(ess_mean({{1, 2, NAN, 4, 5, 6}})));
}

Chains ar1(double phi, int chains, int n, std::uint64_t seed) {
  Chains out;
  for (int c = 0; c < chains; ++c) {
    RngEngine rng = rng_stream(seed, static_cast<std::uint64_t>(c));
    boost::random::normal_distribution<double> normal;
    std::vector<double> x(static_cast<std::size_t>(n));
    double v = normal(rng) / std::sqrt(1 - phi * phi);
    for (double& xi : x) xi = v = phi * v + normal(rng);
    out.push_back(std::move(x));
  }
  return out;
}

// iid draws: ESS ~ S and R-hat ~ 1. AR(1) with phi = 0.5: ESS = S (1 - phi) / (1 + phi) = S / 3.
TEST(Diagnostics, ClosedFormsOnLongSequences) {
  const Chains iid = ar1(0.0, 4, 5000, 11);
  EXPECT_NEAR(ess_bulk(iid) / 20000, 1.0, 0.06);
  EXPECT_NEAR(ess_tail(iid) / 20000, 1.0, 0.1);
  EXPECT_LT(rhat(iid), 1.005);
  const Chains correlated = ar1(0.5, 4, 5000, 12);
  EXPECT_NEAR(ess_mean(correlated) / (20000.0 / 3.0), 1.0, 0.1);
  EXPECT_NEAR(mcse_mean(correlated), std::sqrt(1.0 / (1 - 0.25)) / std::sqrt(20000.0 / 3.0), 0.002);
  // One chain shifted by one standard deviation is detected.
  Chains shifted = iid;
  for (double& v : shifted[0]) v += 1.0;
  EXPECT_GT(rhat(shifted), 1.1);
}

// nuts-shaped draws: the seven sampler columns and x; x, lp__ and energy__ iid normal (so
// every diagnostic is healthy), tree depth 3, no divergence, unless `change` alters a row.
Draws nuts_draws(int chains, int n, const std::function<void(int, int, double*)>& change = {}) {
  Draws d;
  d.columns = {"lp__",         "accept_stat__", "stepsize__", "treedepth__",
               "n_leapfrog__", "divergent__",   "energy__",   "x"};
  d.sampler_columns = 7;
  d.chains = chains;
  d.draws = n;
  d.values.resize(static_cast<std::size_t>(chains * n) * d.width());
  for (int c = 0; c < chains; ++c) {
    RngEngine rng = rng_stream(21, static_cast<std::uint64_t>(c));
    boost::random::normal_distribution<double> normal;
    for (int i = 0; i < n; ++i) {
      double* row = &d.values[(static_cast<std::size_t>(c * n + i)) * d.width()];
      const double x = normal(rng);
      const double row_values[] = {-0.5 * x * x, 0.9, 0.8, 3, 7, 0, 1 + normal(rng), x};
      std::copy(std::begin(row_values), std::end(row_values), row);
      if (change) change(c, i, row);
    }
  }
  return d;
}

std::vector<std::string> warnings_of(const Draws& d, int max_depth = 10,
                                     const WarningThresholds& limits = {}) {
  return diagnostic_warnings(d, summarize(d), max_depth, limits);
}

std::string joined(const std::vector<std::string>& lines) {
  std::string out;
  for (const std::string& l : lines) out += l + "\n";
  return out;
}

bool contains(const std::vector<std::string>& lines, const std::string& text) {
  return std::find(lines.begin(), lines.end(), text) != lines.end();
}

// A healthy run (4 chains of 1000 iid draws) prints no warning.
TEST(Warnings, HealthyDrawsGiveNone) {
  const std::vector<std::string> lines = warnings_of(nuts_draws(4, 1000));
  EXPECT_TRUE(lines.empty()) << joined(lines);
}

TEST(Warnings, DivergencesInCmdStansWords) {
  const Draws d = nuts_draws(4, 1000, [](int c, int i, double* row) {
    if (c == 2 && i % 250 == 0) row[5] = 1;  // 4 of 4000
  });
  EXPECT_EQ(warnings_of(d), (std::vector<std::string>{
                                "4 of 4000 (0.10%) transitions ended with a divergence.",
                                "These divergent transitions indicate that HMC is not fully able "
                                "to explore the posterior distribution.",
                                "Try increasing adapt delta closer to 1.",
                                "If this doesn't remove all divergences, try to reparameterize "
                                "the model."}));
}

TEST(Warnings, TransitionsAtTheMaximumTreeDepth) {
  const Draws d = nuts_draws(4, 1000, [](int c, int i, double* row) {
    if (c == 0 && i < 8) row[3] = 10;
  });
  EXPECT_EQ(warnings_of(d),
            (std::vector<std::string>{
                "8 of 4000 (0.20%) transitions hit the maximum treedepth limit of 10, or 2^10 "
                "leapfrog steps.",
                "Trajectories that are prematurely terminated due to this limit will result in "
                "slow exploration.",
                "For optimal performance, increase this limit."}));
  EXPECT_TRUE(warnings_of(d, 11).empty());  // depth 10 is below a limit of 11
}

// A chain whose energy wanders (a random walk: E-BFMI far below 0.3) is named alone.
TEST(Warnings, LowEbfmiNamesTheChain) {
  double walk = 0;
  const Draws d = nuts_draws(3, 1000, [&](int c, int, double* row) {
    if (c != 1) return;
    walk += row[6] - 1;
    row[6] = walk;
  });
  const std::vector<std::string> lines = warnings_of(d);
  ASSERT_EQ(lines.size(), 2u) << joined(lines);
  const double e = ebfmi(d.column(1, 6));
  EXPECT_LT(e, 0.3);
  char expected[256];
  std::snprintf(expected, sizeof expected,
                "Chain 2: the E-BFMI, %.2f, is below the nominal threshold of 0.30 which suggests "
                "that HMC may have trouble exploring the target distribution.",
                e);
  EXPECT_EQ(lines[0], expected);
  EXPECT_EQ(lines[1], "If possible, try to reparameterize the model.");
}

// One chain shifted by one standard deviation: R-hat well above 1.01, x named (lp__ is not,
// as in CmdStan's diagnose). The ESS checks are switched off to see this one alone.
TEST(Warnings, HighRhatNamesTheParameters) {
  const Draws d = nuts_draws(4, 1000, [](int c, int, double* row) {
    if (c == 0) row[7] += 1.0;
  });
  EXPECT_GT(summarize(d)[1].rhat, 1.01);
  WarningThresholds rhat_only;
  rhat_only.ess_per_chain = 0;
  EXPECT_EQ(warnings_of(d, 10, rhat_only),
            (std::vector<std::string>{
                "The following parameters had rank-normalized split R-hat greater than 1.01:",
                "  x", "Such high values indicate incomplete mixing and biased estimation.",
                "You should consider regularizing your model with additional prior information or "
                "a more effective parameterization."}));
}

// AR(1) draws with phi = 0.99: ESS about S / 200, far below 100 per chain, for the bulk and
// the tail (R-hat switched off).
TEST(Warnings, LowEssNamesTheParameters) {
  const Chains slow = ar1(0.99, 4, 1000, 5);
  const Draws d = nuts_draws(4, 1000, [&](int c, int i, double* row) {
    row[7] = slow[static_cast<std::size_t>(c)][static_cast<std::size_t>(i)];
  });
  WarningThresholds ess_only;
  ess_only.rhat = INFINITY;
  const std::vector<std::string> lines = warnings_of(d, 10, ess_only);
  EXPECT_EQ(lines, (std::vector<std::string>{
                       "The following parameters had a bulk effective sample size (ESS_bulk) "
                       "below 400 (100 per chain):",
                       "  x",
                       "Such low values indicate that posterior means and medians may be "
                       "unreliable.",
                       "Running the chains for more iterations may help.", "",
                       "The following parameters had a tail effective sample size (ESS_tail) "
                       "below 400 (100 per chain):",
                       "  x",
                       "Such low values indicate that posterior variances and tail quantiles may "
                       "be unreliable.",
                       "Running the chains for more iterations may help."}));
  // Without the summary (mcmc_ipu --no-summary) R-hat and ESS are not checked.
  EXPECT_TRUE(diagnostic_warnings(d, {}, 10).empty());
}

// The case of issue 13: R-hat 1.2 and ESS 14 together, all in CmdStan's order.
TEST(Warnings, EveryProblemAtOnceInDiagnosesOrder) {
  const Chains slow = ar1(0.995, 4, 200, 6);
  const Draws d = nuts_draws(4, 200, [&](int c, int i, double* row) {
    row[7] = slow[static_cast<std::size_t>(c)][static_cast<std::size_t>(i)] + (c == 0 ? 3 : 0);
    if (i == 0) row[3] = 10, row[5] = 1;
  });
  const std::vector<std::string> lines = warnings_of(d);
  const auto at = [&](const std::string& start) {
    for (std::size_t i = 0; i < lines.size(); ++i)
      if (lines[i].rfind(start, 0) == 0) return static_cast<long>(i);
    return -1L;
  };
  EXPECT_EQ(at("4 of 800 (0.50%) transitions hit"), 0);
  EXPECT_GT(at("4 of 800 (0.50%) transitions ended with a divergence."), at("4 of 800"));
  EXPECT_GT(at("The following parameters had a bulk"), at("4 of 800 (0.50%) transitions ended"));
  EXPECT_GT(at("The following parameters had a tail"), at("The following parameters had a bulk"));
  EXPECT_GT(at("The following parameters had rank-normalized split R-hat"),
            at("The following parameters had a tail"));
  EXPECT_TRUE(contains(lines, "  x"));
}

}  // namespace
