// Pins the cycle estimators and the BSP cost model to hand-computed figures.
#include "tessera/core/cost_model.hpp"

#include <gtest/gtest.h>

#include "tessera/core/cycle_estimate.hpp"

namespace tessera {
namespace {

TEST(CycleEstimate, OverheadPlusIterationsOverWorkersAndVectorWidth) {
  const Target t = Target::preset("gc200");  // 6 workers
  // 1000 elements, 2 per vector, 6 workers: ceil(1000 / 12) = 84 iterations.
  EXPECT_EQ(estimate_cycles(t, {40, 5.0, 2}, 1000), 40u + 5u * 84u);
  EXPECT_EQ(estimate_cycles(t, {40, 5.0, 2}, 0), 40u);
  EXPECT_EQ(estimate_cycles(t, {0, 1.0, 1}, 6), 1u);
  EXPECT_EQ(estimate_cycles(t, {0, 1.0, 1}, 7), 2u);
  // Fractional cycles per iteration round up once, over the whole loop.
  EXPECT_EQ(estimate_cycles(t, {0, 2.5, 1}, 13), 8u);  // 3 iterations * 2.5 = 7.5
}

TEST(CycleEstimate, ExchangeIsBytesOverBandwidth) {
  const Target t = Target::preset("gc200");  // 4 bytes/cycle
  EXPECT_EQ(exchange_cycles(t, 1000), 250u);
  EXPECT_EQ(exchange_cycles(t, 1001), 251u);
  EXPECT_EQ(exchange_cycles(t, 0), 0u);
}

TEST(TrafficTally, OnChipExchangeIsTheBusiestTilePort) {
  const Target t = Target::preset("gc200");
  TrafficTally tally(t);
  tally.add(0, 1, 400);
  tally.add(2, 1, 400);   // tile 1 receives 800 bytes: the busiest port
  tally.add(3, 3, 9999);  // a tile copying to itself moves nothing
  const SuperstepCost c = tally.cost();
  EXPECT_EQ(c.exchange_bytes, 800u);
  EXPECT_DOUBLE_EQ(c.exchange_cycles, 200.0);
  EXPECT_DOUBLE_EQ(c.sync_cycles, 130.0);
  EXPECT_EQ(c.link_bytes, 0u);
  EXPECT_DOUBLE_EQ(c.link_seconds, 0.0);
}

TEST(TrafficTally, CrossIpuTrafficUsesTheLinksAndThePodSync) {
  const Target t = Target::preset("pod4");
  TrafficTally tally(t);
  const int second_ipu = t.tiles_per_ipu;
  tally.add(0, second_ipu, 1'600'000);
  const SuperstepCost c = tally.cost();
  EXPECT_EQ(c.link_bytes, 1'600'000u);
  // 1.6 MB over 10 links of 16 GB/s: 10 us, plus 1 us of latency.
  EXPECT_NEAR(c.link_seconds, 11e-6, 1e-12);
  EXPECT_DOUBLE_EQ(c.sync_cycles, 600.0);
  EXPECT_DOUBLE_EQ(c.exchange_cycles, 400'000.0);
}

TEST(TrafficTally, TrafficBetweenPod64sGoesThroughTheGateways) {
  const Target t = Target::preset("pod256");
  TrafficTally tally(t);
  const int other_pod = 64 * t.tiles_per_ipu;
  tally.add(0, other_pod, 4'000'000);
  const SuperstepCost c = tally.cost();
  EXPECT_EQ(c.gateway_bytes, 4'000'000u);
  EXPECT_EQ(c.link_bytes, 0u);
  // A POD64 has 16 M2000s of 25 GB/s each: 4 MB / 400 GB/s = 10 us, plus 3 us.
  EXPECT_NEAR(c.gateway_seconds, 13e-6, 1e-12);
}

TEST(SuperstepCost, SecondsAddCyclesAtTheClockAndLinkTime) {
  const Target t = Target::preset("gc200");
  SuperstepCost c;
  c.compute_cycles = 1.33e6;
  c.exchange_cycles = 1.33e6;
  c.link_seconds = 0.5e-3;
  EXPECT_NEAR(c.seconds(t), 2.5e-3, 1e-15);
}

TEST(ReductionCost, TreeOverTilesThenIpus) {
  const Target t = Target::preset("pod4");
  const SuperstepCost c = reduction_cost(t, 8, 8);
  // ceil(log2 1472) = 11 on-chip levels: 2 exchange cycles, 1 combine cycle, one IPU sync each.
  EXPECT_DOUBLE_EQ(c.exchange_cycles, 11 * 2.0);
  EXPECT_DOUBLE_EQ(c.compute_cycles, 11 * 1.0);
  // Then log2(4) = 2 levels between IPUs, each a POD sync and one link hop.
  EXPECT_DOUBLE_EQ(c.sync_cycles, 11 * 130.0 + 2 * 600.0);
  EXPECT_NEAR(c.link_seconds, 2 * (1e-6 + 8 / 160e9), 1e-15);
}

}  // namespace
}  // namespace tessera
