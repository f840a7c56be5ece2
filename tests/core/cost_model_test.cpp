// Pins the cycle estimators and the BSP cost model to hand-computed figures.
#include "tessera/core/cost_model.hpp"

#include <gtest/gtest.h>

#include "tessera/core/cycle_estimate.hpp"

namespace tessera {
namespace {

// a[i] = b[i] + s * c[i] in float: a multiply and an add, two loads and a store.
KernelWork triad(int vector_width) {
  KernelWork w;
  w.flops_fp32 = 2;
  w.bytes_loaded = 8;
  w.bytes_stored = 4;
  w.vector_width = vector_width;
  return w;
}

TEST(IssueModel, ScalarWorkerCyclesCountEveryInstruction) {
  const Target t = Target::preset("gc200");
  // 2 flops + 3 accesses of 4 bytes + 1 loop branch.
  EXPECT_DOUBLE_EQ(worker_cycles_per_item(t, triad(1)), 6.0);
  // float2: 1 vector flop pair, 1.5 accesses of 8 bytes, half a branch per item.
  EXPECT_DOUBLE_EQ(worker_cycles_per_item(t, triad(2)), 3.0);
  // Wider than the 2 float lanes: no faster arithmetic, no wider accesses than 8 bytes.
  EXPECT_DOUBLE_EQ(worker_cycles_per_item(t, triad(8)), 1.0 + 1.5 + 0.125);
}

TEST(IssueModel, SixWorkersShareOneIssueSlotPerCycle) {
  const Target t = Target::preset("gc200");  // 6 workers, 120 launch cycles
  // 600 items: 100 per worker, 6 x 100 x 6 cycles: the six workers do not multiply the rate.
  EXPECT_EQ(estimate_cycles(t, triad(1), 600), 120u + 3600u);
  // Vectorised: 300 float2 vectors, 50 per worker.
  EXPECT_EQ(estimate_cycles(t, triad(2), 600), 120u + 6u * 100u * 3u);
  // Fewer items than workers: the tile still waits 6 turns per instruction of the longest.
  EXPECT_EQ(estimate_cycles(t, triad(1), 3), 120u + 6u * 6u);
  EXPECT_EQ(estimate_cycles(t, triad(1), 0), 120u);
  // An uneven split costs six times the longest worker.
  const std::uint64_t split[] = {10, 4, 4, 4, 4, 4};
  EXPECT_EQ(estimate_cycles(t, triad(1), split), 120u + 6u * 10u * 6u);
}

TEST(IssueModel, Fp64IsEmulatedAtTheTargetsOneFigure) {
  const Target t = Target::preset("gc200");  // 40 cycles per FP64 operation
  KernelWork w;
  w.flops_fp64 = 1;
  w.bytes_loaded = 16;
  w.bytes_stored = 8;
  w.value_bytes = 8;
  EXPECT_DOUBLE_EQ(worker_cycles_per_item(t, w), 40.0 + 3.0 + 1.0);
  EXPECT_EQ(estimate_cycles(t, w, 6), 120u + 6u * 44u);
  Target cheap = t;
  cheap.fp64_cycles_per_flop = 10;
  EXPECT_DOUBLE_EQ(worker_cycles_per_item(cheap, w), 14.0);
  w.flops_fp64 = 0;
  w.transcendentals_fp64 = 1;  // 20 double operations
  EXPECT_DOUBLE_EQ(worker_cycles_per_item(t, w), 20.0 * 40.0 + 4.0);
}

TEST(IssueModel, CoIssuePairsMemoryWithArithmetic) {
  const Target t = Target::preset("gc2");
  KernelWork w = triad(2);
  w.co_issue = true;
  // max(1.5 accesses + 0.5 branch, 1 flop pair) per item.
  EXPECT_DOUBLE_EQ(worker_cycles_per_item(t, w), 2.0);
}

TEST(IssueModel, MatrixProductsRunOnTheAmp) {
  Target t = Target::preset("gc200");  // 32 FP32 flop per cycle per tile
  KernelWork w;
  w.matmul_flops_fp32 = 64;
  // 100 items: 17 per worker of 1 loop cycle each, plus 2 AMP cycles per item.
  EXPECT_EQ(estimate_cycles(t, w, 100), 120u + 6u * 17u + 200u);
  t.amp_flops_per_cycle_fp32 = 0;  // no AMP: scalar vector-unit operations
  EXPECT_EQ(estimate_cycles(t, w, 100), 120u + 6u * 17u * 65u);
}

TEST(IssueModel, MemoryBandwidthIsACeiling) {
  Target t = Target::preset("gc200");
  KernelWork w;
  w.bytes_loaded = 64;
  w.value_bytes = 8;
  w.co_issue = true;
  // 8 accesses + 1 branch per item: 6 x 100 x 9 = 5400 issue cycles; 600 x 64 / 24 = 1600.
  EXPECT_EQ(estimate_cycles(t, w, 600), 120u + 5400u);
  t.memory_bytes_per_cycle = 4;  // now the bytes bind: 600 x 64 / 4
  EXPECT_EQ(estimate_cycles(t, w, 600), 120u + 9600u);
}

TEST(CycleEstimate, ExchangeIsBytesOverBandwidthPlusFragments) {
  const Target t = Target::preset("gc200");  // 4 bytes/cycle, 1.8 cycles per fragment
  EXPECT_EQ(exchange_cycles(t, 1000), 250u);
  EXPECT_EQ(exchange_cycles(t, 1001), 251u);
  EXPECT_EQ(exchange_cycles(t, 0), 0u);
  EXPECT_EQ(exchange_cycles(t, 1000, 10), 268u);  // 250 + 18
}

TEST(CycleEstimate, OnTileCopiesPayPerBlockAndPerByte) {
  const Target t = Target::preset("gc200");  // 8 bytes/cycle, 7 cycles per block
  EXPECT_EQ(copy_cycles(t, 800, 10), 170u);
  EXPECT_EQ(copy_cycles(t, 0, 10), 0u);
}

TEST(TrafficTally, OnChipExchangeIsTheBusiestTilePort) {
  const Target t = Target::preset("gc200");
  TrafficTally tally(t);
  tally.add(0, 1, 400);
  tally.add(2, 1, 400);  // tile 1 receives 800 bytes in 2 fragments: the busiest port
  const SuperstepCost c = tally.cost();
  EXPECT_EQ(c.exchange_bytes, 800u);
  EXPECT_DOUBLE_EQ(c.exchange_cycles, 204.0);  // 200 + 2 x 1.8
  EXPECT_DOUBLE_EQ(c.sync_cycles, 130.0);
  EXPECT_DOUBLE_EQ(c.rearrange_cycles, 0.0);
  EXPECT_EQ(c.link_bytes, 0u);
  EXPECT_DOUBLE_EQ(c.link_seconds, 0.0);
}

TEST(TrafficTally, StridedCopiesAreFragmentsAndOnTileCopiesRearrangements) {
  const Target t = Target::preset("gc200");
  TrafficTally tally(t);
  tally.add(0, 1, 47 * 16, 47);  // a column of 47 pixels: 47 fragments at both ends
  tally.add(3, 3, 9999);         // a copy within tile 3: an on-tile copy of one block
  tally.add(5, 5, 800, 10);      // ten blocks within tile 5
  const SuperstepCost c = tally.cost();
  EXPECT_DOUBLE_EQ(c.exchange_cycles, 273.0);    // 188 + 47 x 1.8
  EXPECT_DOUBLE_EQ(c.rearrange_cycles, 1257.0);  // 7 + 9999 / 8, the busier tile
  EXPECT_EQ(c.exchange_bytes, 47u * 16u);        // on-tile copies cross no port
}

TEST(TrafficTally, InsideAnM2000TrafficUsesTheLinksBetweenItsIpus) {
  const Target t = Target::preset("pod4");
  TrafficTally tally(t);
  tally.add(0, t.tiles_per_ipu, 1'600'000);
  const SuperstepCost c = tally.cost();
  EXPECT_EQ(c.link_bytes, 1'600'000u);
  // 8 internal links shared by 3 peers: 8/3 x 16 GB/s; plus 1.9 us set-up and 1 fragment.
  EXPECT_NEAR(c.link_seconds, 1.9e-6 + 1.6e6 / (8.0 / 3 * 16e9) + 1e-9, 1e-12);
  EXPECT_DOUBLE_EQ(c.sync_cycles, 600.0);
  EXPECT_DOUBLE_EQ(c.exchange_cycles, 400'002.0);
}

TEST(TrafficTally, BetweenM2000sTrafficSpreadsOverTheColumnsOfTheLadder) {
  const Target t = Target::preset("pod16");
  const int tiles = t.tiles_per_ipu;
  auto seconds = [&](std::initializer_list<std::pair<int, int>> flows) {
    TrafficTally tally(t);
    for (auto [from, to] : flows) tally.add(from * tiles, to * tiles, 1'600'000);
    return tally.cost().link_seconds;
  };
  // IPU 0 to IPU 4 (the next M2000): a quarter over each column's external link (1 link
  // each way, 16 GB/s): 25 us.
  const double one_hop = 1.9e-6 + 400e3 / 16e9 + 1e-9;
  EXPECT_NEAR(seconds({{0, 4}}), one_hop, 1e-12);
  // Three M2000s down the ladder: the same links' load, one after the other.
  EXPECT_NEAR(seconds({{0, 12}}), one_hop, 1e-12);
  // Two flows between the same M2000s share the external links: contention.
  EXPECT_NEAR(seconds({{0, 4}, {1, 5}}), 1.9e-6 + 800e3 / 16e9 + 1e-9, 1e-12);
  // Opposite directions use the two directions of each link.
  EXPECT_NEAR(seconds({{0, 4}, {4, 0}}), one_hop, 1e-12);
}

TEST(TrafficTally, APod64IsATorus) {
  const Target ladder = Target::preset("pod16"), torus = Target::preset("pod64");
  EXPECT_EQ(ladder.link_topology, LinkTopology::ladder);
  EXPECT_EQ(torus.link_topology, LinkTopology::torus);
  const int tiles = torus.tiles_per_ipu;
  // IPU 0 to IPU 60 (the last M2000) wraps round: one hop, as to IPU 4. Sent with IPU 4's
  // traffic to IPU 0's M2000 neighbour above, they use different links.
  TrafficTally tally(torus);
  tally.add(0, 60 * tiles, 1'600'000);
  tally.add(0, 4 * tiles, 1'600'000);
  EXPECT_NEAR(tally.cost().link_seconds, 1.9e-6 + 400e3 / 16e9 + 2e-9, 1e-12);
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

TEST(TrafficTally, CountersOfSeveralRanksAddUp) {
  const Target t = Target::preset("pod4");
  TrafficTally a(t), b(t), both(t);
  a.add(0, t.tiles_per_ipu, 1000);
  both.add(0, t.tiles_per_ipu, 1000);
  b.add(2 * t.tiles_per_ipu, 5, 3000, 3);
  both.add(2 * t.tiles_per_ipu, 5, 3000, 3);
  for (std::size_t i = 0; i < a.counters().size(); ++i) a.counters()[i] += b.counters()[i];
  EXPECT_EQ(a.counters(), both.counters());
  EXPECT_DOUBLE_EQ(a.cost().link_seconds, both.cost().link_seconds);
}

TEST(SuperstepCost, SecondsAddCyclesAtTheClockAndLinkTime) {
  const Target t = Target::preset("gc200");
  SuperstepCost c;
  c.compute_cycles = 1.33e6;
  c.exchange_cycles = 0.665e6;
  c.rearrange_cycles = 0.665e6;
  c.link_seconds = 0.5e-3;
  EXPECT_NEAR(c.seconds(t), 2.5e-3, 1e-15);
}

TEST(SuperstepCost, EveryFieldAddsAndSubtracts) {
  SuperstepCost a, b;
  int n = 0;
  SuperstepCost::for_each_field([&](const char*, auto member) {
    a.*member = static_cast<std::remove_reference_t<decltype(a.*member)>>(10 + n);
    b.*member = static_cast<std::remove_reference_t<decltype(b.*member)>>(++n);
  });
  EXPECT_EQ(n, 11);
  SuperstepCost sum = a;
  sum += b;
  const SuperstepCost back = sum - b;
  SuperstepCost::for_each_field(
      [&](const char* name, auto member) { EXPECT_EQ(back.*member, a.*member) << name; });
  SuperstepCost ex = a;
  ex.add_exchange(b);
  EXPECT_EQ(ex.compute_cycles, a.compute_cycles);  // not part of an exchange
  EXPECT_EQ(ex.sync_cycles, std::max(a.sync_cycles, b.sync_cycles));
  EXPECT_EQ(ex.exchange_cycles, a.exchange_cycles + b.exchange_cycles);
  EXPECT_EQ(ex.host_bytes, a.host_bytes + b.host_bytes);
}

TEST(ReductionCost, TreeOverTilesThenIpusThenTheHost) {
  const Target t = Target::preset("pod4");
  KernelWork add;  // one double add
  add.flops_fp64 = 1;
  add.bytes_loaded = 16;
  add.bytes_stored = 8;
  add.value_bytes = 8;
  const SuperstepCost c = reduction_cost(t, 8, 8, add, 1);
  // ceil(log2 1472) = 11 on-chip levels and log2(4) = 2 IPU levels: each 8 bytes in one
  // fragment (2 + 1.8 -> 4 cycles) and one combine of 120 + 6 x 44 cycles.
  EXPECT_DOUBLE_EQ(c.exchange_cycles, 13 * 4.0);
  EXPECT_DOUBLE_EQ(c.compute_cycles, 13 * 384.0);
  EXPECT_DOUBLE_EQ(c.sync_cycles, 11 * 130.0 + 2 * 600.0);
  EXPECT_NEAR(c.link_seconds, 2 * (1.9e-6 + 8 / (8.0 / 3 * 16e9) + 1e-9), 1e-15);
  EXPECT_EQ(c.host_bytes, 8u);
  EXPECT_NEAR(c.host_seconds, 3e-6 + 8 / 25e9, 1e-15);
}

}  // namespace
}  // namespace tessera
