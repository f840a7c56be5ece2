// Schedules, layouts, combining and the cost estimate of the collectives, without a
// runtime: each schedule is run by a plain serial interpreter on tagged values.
#include "tessera/comm/schedule.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>

#include "tessera/comm/combine.hpp"
#include "tessera/core/error.hpp"

namespace tessera::comm {
namespace {

// Runs a schedule serially: member r's buffer holds `per_chunk` copies of each chunk's
// value; transfers of one step read the state before the step, as the exchange does.
// Values are bit masks combined by sum, so a result says exactly which members'
// contributions it holds (each at most once, or a bit carries over).
std::vector<std::vector<std::int64_t>> interpret(const std::vector<Step>& steps, int p,
                                                 std::vector<std::vector<std::int64_t>> chunks) {
  for (const Step& step : steps) {
    auto before = chunks;
    for (const Transfer& t : step.transfers)
      for (int c = t.first_chunk; c < t.last_chunk; ++c) {
        auto& own = chunks[static_cast<std::size_t>(t.destination)][static_cast<std::size_t>(c)];
        const auto in = before[static_cast<std::size_t>(t.source)][static_cast<std::size_t>(c)];
        own = t.combine ? own + in : in;
      }
  }
  (void)p;
  return chunks;
}

std::vector<std::vector<std::int64_t>> own_bits(int p) {
  std::vector<std::vector<std::int64_t>> v(static_cast<std::size_t>(p));
  for (int r = 0; r < p; ++r)
    v[static_cast<std::size_t>(r)].assign(static_cast<std::size_t>(p), 1LL << r);
  return v;
}

TEST(Schedule, EveryCollectiveDeliversEachContributionExactlyOnce) {
  for (int p = 1; p <= 9; ++p) {
    const std::int64_t everyone = (1LL << p) - 1;
    for (Algorithm a : {Algorithm::ring, Algorithm::tree}) {
      SCOPED_TRACE(std::string(to_string(a)) + " p=" + std::to_string(p));
      auto all = interpret(make_schedule(Collective::all_reduce, a, p), p, own_bits(p));
      for (int r = 0; r < p; ++r)
        for (int c = 0; c < p; ++c) EXPECT_EQ(all[r][c], everyone);
      auto scattered = interpret(make_schedule(Collective::reduce_scatter, a, p), p, own_bits(p));
      for (int r = 0; r < p; ++r) EXPECT_EQ(scattered[r][r], everyone);
      // All-gather: member r contributes chunk r only.
      std::vector<std::vector<std::int64_t>> pieces(static_cast<std::size_t>(p),
                                                    std::vector<std::int64_t>(p, -1));
      for (int r = 0; r < p; ++r) pieces[r][r] = 1LL << r;
      auto gathered = interpret(make_schedule(Collective::all_gather, a, p), p, pieces);
      for (int r = 0; r < p; ++r)
        for (int c = 0; c < p; ++c) EXPECT_EQ(gathered[r][c], 1LL << c);
      for (int root = 0; root < p; ++root) {
        auto reduced = interpret(make_schedule(Collective::reduce, a, p, root), p, own_bits(p));
        for (int c = 0; c < p; ++c) EXPECT_EQ(reduced[root][c], everyone);
        auto sent = interpret(make_schedule(Collective::broadcast, a, p, root), p, own_bits(p));
        for (int r = 0; r < p; ++r)
          for (int c = 0; c < p; ++c) EXPECT_EQ(sent[r][c], 1LL << root);
      }
    }
  }
}

TEST(Schedule, HierarchicalAllReduceDeliversEachContributionExactlyOnce) {
  for (auto [p, block] : {std::pair{4, 2}, {6, 2}, {6, 3}, {12, 4}, {9, 3}, {8, 4}}) {
    SCOPED_TRACE("p=" + std::to_string(p) + " block=" + std::to_string(block));
    const auto steps =
        make_schedule(Collective::all_reduce, Algorithm::hierarchical, p, 0, 0, block);
    EXPECT_EQ(steps.size(), static_cast<std::size_t>(2 * (block - 1) + 2 * (p / block - 1)));
    auto all = interpret(steps, p, own_bits(p));
    for (int r = 0; r < p; ++r)
      for (int c = 0; c < p; ++c) EXPECT_EQ(all[r][c], (1LL << p) - 1);
  }
  // Without blocks that divide the group it is the ring.
  EXPECT_EQ(make_schedule(Collective::all_reduce, Algorithm::hierarchical, 6, 0, 0, 4).size(), 10u);
  EXPECT_EQ(make_schedule(Collective::all_gather, Algorithm::hierarchical, 6, 0, 0, 3).size(), 5u);
}

TEST(Schedule, LinkDomainBlocksOfTheGroups) {
  Target t = Target::preset("pod16");
  t.ipus_per_link_domain = 4;
  std::vector<std::vector<int>> world(1);
  for (int i = 0; i < 16; ++i) world[0].push_back(i);
  EXPECT_EQ(link_domain_block(t, world), 4);
  // Every 4th IPU: one IPU per domain; pairs {0, 8}, ... cross domains member by member.
  EXPECT_EQ(link_domain_block(t, {{0, 4, 8, 12}, {1, 5, 9, 13}}), 1);
  EXPECT_EQ(link_domain_block(t, {{0, 1, 4, 5, 2, 3}}), 0);  // domain 0 split in two blocks
}

TEST(Schedule, StepCountsAreTheTextbookOnes) {
  // Ring all-reduce: 2(p-1) steps; tree: 2 ceil(log2 p).
  EXPECT_EQ(make_schedule(Collective::all_reduce, Algorithm::ring, 6).size(), 10u);
  EXPECT_EQ(make_schedule(Collective::all_reduce, Algorithm::tree, 6).size(), 6u);
  EXPECT_EQ(make_schedule(Collective::all_reduce, Algorithm::tree, 8).size(), 6u);
  EXPECT_EQ(make_schedule(Collective::send_recv, Algorithm::tree, 4, 1, 3).size(), 1u);
  EXPECT_TRUE(make_schedule(Collective::all_reduce, Algorithm::ring, 1).empty());
}

TEST(Schedule, NoStepWritesWhatItReads) {
  // The exchange forbids a plan that writes a chunk it reads in the same step.
  for (int p = 2; p <= 7; ++p)
    for (Collective c : {Collective::all_reduce, Collective::reduce_scatter, Collective::all_gather,
                         Collective::broadcast, Collective::reduce})
      for (Algorithm a : {Algorithm::ring, Algorithm::tree})
        for (const Step& step : make_schedule(c, a, p, p - 1))
          for (const Transfer& w : step.transfers)
            for (const Transfer& r : step.transfers)
              if (!w.combine && w.destination == r.source) {
                EXPECT_TRUE(w.last_chunk <= r.first_chunk || r.last_chunk <= w.first_chunk)
                    << to_string(c) << " " << to_string(a) << " p=" << p;
              }
}

TEST(Layout, SlicesPartitionTheBufferChunkByChunk) {
  for (std::size_t n : {0u, 1u, 5u, 17u, 1000u})
    for (int p : {1, 3, 4})
      for (int tiles : {1, 2, 7}) {
        Layout l(n, p, tiles);
        std::size_t total = 0;
        for (int k = 0; k < tiles; ++k) {
          for (int c = 0; c < p; ++c)
            EXPECT_EQ(l.piece_offset(k, c + 1) - l.piece_offset(k, c),
                      l.slice_begin(c, k + 1) - l.slice_begin(c, k));
          total += l.piece_offset(k, p);
        }
        EXPECT_EQ(total, n);
        EXPECT_EQ(l.chunk_begin(p), n);
        for (int c = 0; c < p; ++c) EXPECT_EQ(l.slice_begin(c, tiles), l.chunk_begin(c + 1));
      }
}

TEST(Combine, FollowsTheOperandOrderAndWrapsIntegers) {
  // max(-0, +0) and max(NaN, 1) depend on the order: the schedule's order is kept.
  float own[2] = {-0.0f, std::numeric_limits<float>::quiet_NaN()};
  float in[2] = {0.0f, 1.0f};
  float a[2], b[2];
  std::memcpy(a, own, sizeof a);
  detail::combine(DataType::float32, Op::max, reinterpret_cast<std::byte*>(a),
                  reinterpret_cast<const std::byte*>(in), 2, false);
  std::memcpy(b, own, sizeof b);
  detail::combine(DataType::float32, Op::max, reinterpret_cast<std::byte*>(b),
                  reinterpret_cast<const std::byte*>(in), 2, true);
  EXPECT_TRUE(std::signbit(a[0]));  // own first: max(-0, +0) = -0
  EXPECT_FALSE(std::signbit(b[0]));
  EXPECT_TRUE(std::isnan(a[1]));
  EXPECT_EQ(b[1], 1.0f);
  std::int32_t big = std::numeric_limits<std::int32_t>::max(), one = 1;
  detail::combine(DataType::int32, Op::sum, reinterpret_cast<std::byte*>(&big),
                  reinterpret_cast<const std::byte*>(&one), 1, false);
  EXPECT_EQ(big, std::numeric_limits<std::int32_t>::min());
  std::int64_t x = 3, y = -7;
  detail::combine(DataType::int64, Op::product, reinterpret_cast<std::byte*>(&x),
                  reinterpret_cast<const std::byte*>(&y), 1, false);
  EXPECT_EQ(x, -21);
}

TEST(Combine, CycleEstimateIsPinned) {
  // float: half a vector add, 1.5 accesses of 8 bytes and half a loop branch per element;
  // 600 float2 vectors, 100 per worker: 120 + 6 x 200 x 2.5.
  const Target gc200 = Target::preset("gc200");
  EXPECT_DOUBLE_EQ(worker_cycles_per_item(gc200, combine_work(DataType::float32)), 2.5);
  EXPECT_EQ(estimate_cycles(gc200, combine_work(DataType::float32), 1200), 3120u);
  // double, emulated: 40 + 3 accesses + 1 branch per element, 200 per worker.
  EXPECT_EQ(estimate_cycles(gc200, combine_work(DataType::float64), 1200), 120u + 6u * 200u * 44u);
  // int32 is scalar: 1 + 3 + 1; int64 two halves and a carry: 3 + 3 (8-byte accesses) + 1.
  EXPECT_DOUBLE_EQ(worker_cycles_per_item(gc200, combine_work(DataType::int32)), 5.0);
  EXPECT_DOUBLE_EQ(worker_cycles_per_item(gc200, combine_work(DataType::int64)), 7.0);
}

std::vector<std::vector<int>> world_of(const Target& t) {
  std::vector<std::vector<int>> g(1);
  for (int i = 0; i < t.ipus; ++i) g[0].push_back(i);
  return g;
}

TEST(Estimate, RingAllReduceIsAboveTheBandwidthBoundAndNearItForLargeBuffers) {
  // 2 (p-1)/p n / B with B the bandwidth of the ring's step between two IPUs of one M2000
  // (8/3 links of 16 GB/s): the ring's in-chassis steps are its slowest.
  const Target pod16 = Target::preset("pod16");
  const std::size_t n = 25'000'000;  // 100 MB of float
  const double bound = 2.0 * 15 / 16 * 4.0 * n / (8.0 / 3 * 16e9);
  const Estimate e = estimate(pod16, world_of(pod16), Collective::all_reduce, Algorithm::ring,
                              DataType::float32, n);
  EXPECT_GT(e.seconds, bound);
  EXPECT_LT(e.seconds, 1.2 * bound);
  EXPECT_EQ(e.supersteps, 2 * 15);  // the last step only copies: no combining superstep
  // Every IPU sends 2 (p-1)/p of its buffer over the links.
  EXPECT_EQ(e.cost.link_bytes, 16u * 2u * 15u * (n / 16) * 4u);
}

TEST(Estimate, RingsAreRoutedOverTheLadderAndContendForItsLinks) {
  // Groups of every 4th IPU of a pod16: IPUs 0, 4, 8, 12 (one per M2000) form a ring whose
  // last step, 12 -> 0, runs back down the ladder. The links are full duplex, so the way
  // back uses the other direction of the links the way up uses: on this ring a ladder is
  // as fast as a torus.
  Target ladder = Target::preset("pod16");
  Target torus = ladder;
  torus.link_topology = LinkTopology::torus;
  std::vector<std::vector<int>> columns(4);
  for (int g = 0; g < 4; ++g)
    for (int m = 0; m < 4; ++m) columns[static_cast<std::size_t>(g)].push_back(g + 4 * m);
  const std::size_t n = 4'000'000;
  auto seconds = [&](const Target& t, const std::vector<std::vector<int>>& groups) {
    return estimate(t, groups, Collective::all_reduce, Algorithm::ring, DataType::float32, n)
        .seconds;
  };
  EXPECT_NEAR(seconds(ladder, columns), seconds(torus, columns), 1e-9);
  // Pairs 0-12 and 4-8: on the ladder both cross the links between the middle M2000s, in
  // both directions; on the torus 0-12 wraps round and the two share no link.
  const double shared = seconds(ladder, {{0, 12}, {4, 8}});
  EXPECT_GT(shared, 1.8 * seconds(torus, {{0, 12}, {4, 8}}));
  EXPECT_GT(shared, 1.8 * seconds(ladder, {{0, 12}}));
  // One ring alone has the links to itself: faster than four sharing them.
  EXPECT_LT(seconds(ladder, {columns[0]}), seconds(ladder, columns));
  // Groups inside one M2000 each use their own chassis' links: as fast as pod4's world.
  std::vector<std::vector<int>> boxes(4);
  for (int g = 0; g < 4; ++g)
    for (int m = 0; m < 4; ++m) boxes[static_cast<std::size_t>(g)].push_back(4 * g + m);
  const Target pod4 = Target::preset("pod4");
  EXPECT_DOUBLE_EQ(seconds(ladder, boxes), seconds(pod4, {{0, 1, 2, 3}}));
}

TEST(Estimate, AutomaticChoosesTreeForSmallAndRingForLargeBuffers) {
  const Target pod16 = Target::preset("pod16");
  EXPECT_EQ(choose_algorithm(pod16, world_of(pod16), Collective::all_reduce, DataType::float32, 2),
            Algorithm::tree);
  EXPECT_EQ(
      choose_algorithm(pod16, world_of(pod16), Collective::all_reduce, DataType::float32, 1 << 22),
      Algorithm::ring);
  // Across gateways, two levels beat the flat ring for a 100 MB gradient.
  const Target pod256 = Target::preset("pod256");
  EXPECT_EQ(choose_algorithm(pod256, world_of(pod256), Collective::all_reduce, DataType::float32,
                             25'000'000),
            Algorithm::hierarchical);
}

TEST(Estimate, CrossingAGatewayCostsItsLatencyAndBandwidth) {
  // Two link domains of 2 IPUs: the tree's exchanges between IPU 0 and 2 use the gateway.
  Target t = Target::preset("pod4");
  t.ipus_per_link_domain = 2;
  const Estimate e =
      estimate(t, world_of(t), Collective::all_reduce, Algorithm::tree, DataType::float32, 1000);
  EXPECT_EQ(e.cost.gateway_bytes, 2u * 4000u);  // one hop up, one down
  EXPECT_GE(e.cost.gateway_seconds, 2 * t.gateway_latency_s);
  EXPECT_THROW(estimate(t, {}, Collective::all_reduce, Algorithm::tree, DataType::float32, 1),
               ConfigError);
}

}  // namespace
}  // namespace tessera::comm
