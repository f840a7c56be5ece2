#include "tessera/core/rng.hpp"

#include <gtest/gtest.h>

#include <boost/random/normal_distribution.hpp>
#include <boost/random/uniform_real_distribution.hpp>
#include <cmath>

namespace tessera {
namespace {

TEST(Rng, AStreamIsAFunctionOfSeedAndStreamOnly) {
  RngEngine a = rng_stream(2026, 7), b = rng_stream(2026, 7);
  for (int i = 0; i < 1000; ++i) ASSERT_EQ(a(), b());
}

TEST(Rng, StreamsAndSeedsDiffer) {
  const auto first = [](std::uint64_t seed, std::uint64_t stream) {
    return rng_stream(seed, stream)();
  };
  EXPECT_NE(first(1, 0), first(1, 1));
  EXPECT_NE(first(1, 0), first(2, 0));
  // The high halves of seed and stream count too.
  EXPECT_NE(first(1, 0), first(1, std::uint64_t{1} << 32));
  EXPECT_NE(first(1, 0), first(1 + (std::uint64_t{1} << 32), 0));
}

TEST(Rng, StreamsLookIndependent) {
  // Correlation of uniform draws of neighbouring streams: |r| < 4 / sqrt(n).
  const int n = 20000;
  RngEngine a = rng_stream(5, 10), b = rng_stream(5, 11);
  boost::random::uniform_real_distribution<double> u(-1.0, 1.0);
  double sab = 0, saa = 0, sbb = 0;
  for (int i = 0; i < n; ++i) {
    const double x = u(a), y = u(b);
    sab += x * y, saa += x * x, sbb += y * y;
  }
  EXPECT_LT(std::abs(sab / std::sqrt(saa * sbb)), 4.0 / std::sqrt(n));
}

TEST(Rng, DrawsArePinnedAcrossBuilds) {
  // std::seed_seq and mt19937_64 are fixed by the standard, and Boost's normal
  // distribution (ziggurat) by its source: a change here changes every result
  // of the project, so it must be deliberate.
  RngEngine e = rng_stream(42, 0);
  EXPECT_EQ(e(), 9033786554787212662ULL);
  boost::random::normal_distribution<double> normal;
  EXPECT_EQ(normal(e), -0x1.2704367029182p-2);
}

}  // namespace
}  // namespace tessera
