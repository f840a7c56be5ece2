// Diagnostics against values computed by hand on fixed draws, and against closed
// forms for long iid and AR(1) sequences.
#include "tessera/mcmc/diagnostics.hpp"

#include <gtest/gtest.h>

#include <boost/random/normal_distribution.hpp>
#include <cmath>

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

}  // namespace
