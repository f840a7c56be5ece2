// The collectives on a 12-IPU target, against serial references. CTest runs this
// binary on 1, 2, 3 and 4 MPI ranks (4, 6, 3 IPUs per rank ... all whole IPUs),
// each with 1 and 2 threads: every check is of the IPUs this rank hosts, and the
// float references follow the documented reduction order bit for bit, so passing
// on every rank count shows the results do not depend on it.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <functional>
#include <nlohmann/json.hpp>
#include <set>

#include "tessera/comm/communicator.hpp"
#include "tessera/core/error.hpp"
#include "tessera/core/rng.hpp"

namespace tessera::comm {
namespace {

using ::testing::HasSubstr;

// 12 IPUs of 3 tiles, link domains of 4 IPUs (so rings cross gateways too).
Target twelve_ipus() {
  Target t = Target::preset("pod16");
  t.name = "twelve";
  t.ipus = 12;
  t.tiles_per_ipu = 3;
  t.tile_memory_bytes = 256 * 1024;
  t.ipus_per_link_domain = 4;
  return t;
}

// One buffer per local IPU, filled by value(ipu, i).
template <class T>
struct Buffers {
  std::vector<std::vector<T>> store;
  std::vector<std::span<T>> spans;
  std::vector<std::span<const T>> cspans;
  Buffers(const Communicator& c, std::size_t n, const std::function<T(int, std::size_t)>& value) {
    for (int ipu : c.local_ipus()) {
      std::vector<T> v(n);
      for (std::size_t i = 0; i < n; ++i) v[i] = value(ipu, i);
      store.push_back(std::move(v));
    }
    refresh();
  }
  void refresh() {
    spans.clear(), cspans.clear();
    for (auto& v : store) spans.emplace_back(v), cspans.emplace_back(v);
  }
  PerIpu<T> out() { return spans; }
  PerIpu<const T> in() { return cspans; }
};

// Small integers: every op's exact result is representable in every type, so any
// order of combining gives the same answer as the serial reference.
template <class T>
T exact_value(Op op, int ipu, std::size_t i) {
  const auto k = static_cast<long long>(i);
  switch (op) {
    case Op::sum:
      return static_cast<T>((ipu * 7 + k * 3) % 11 - 5);
    case Op::product:
      return static_cast<T>((ipu + k) % 5 == 0 ? 2 : ((ipu + k) % 3 == 0 ? -1 : 1));
    default:
      return static_cast<T>((ipu * 13 + k * 7) % 17 - 8);
  }
}

template <class T>
T apply(Op op, T a, T b) {
  switch (op) {
    case Op::sum:
      return a + b;
    case Op::product:
      return a * b;
    case Op::max:
      return a < b ? b : a;
    case Op::min:
      return b < a ? b : a;
  }
  return a;
}

// op over the members of `ipu`'s group of element i, members in rank order.
template <class T>
T reference(const Communicator& c, Op op, int ipu, std::size_t i,
            const std::function<T(int, std::size_t)>& value) {
  const int g = c.group_of_ipu(ipu);
  T acc = value(c.ipu(g, 0), i);
  for (int m = 1; m < c.size(); ++m) acc = apply(op, acc, value(c.ipu(g, m), i));
  return acc;
}

class Collectives : public ::testing::TestWithParam<int> {
 protected:
  // Thread counts are covered by the one-rank run; under mpirun on a small machine, pool
  // threads on top of ranks only oversubscribe the cores.
  void SetUp() override {
    if (rt_.ranks() > 1 && GetParam() > 1) GTEST_SKIP() << "threads are tested on one rank";
  }
  Runtime rt_{twelve_ipus(), GetParam()};
  // 64 bytes per tile: even short buffers spread over all 3 tiles of an IPU.
  Communicator world_ = [this] {
    Communicator c = Communicator::world(rt_);
    c.set_min_tile_bytes(64);
    return c;
  }();
};
INSTANTIATE_TEST_SUITE_P(Threads, Collectives, ::testing::Values(1, 2));

template <class T>
void check_all_reduce(Communicator& c) {
  for (Op op : {Op::sum, Op::product, Op::max, Op::min})
    for (Algorithm a :
         {Algorithm::ring, Algorithm::tree, Algorithm::hierarchical, Algorithm::automatic})
      for (std::size_t n : {0u, 7u, 37u}) {  // 7 < 12: some chunks are empty
        SCOPED_TRACE(std::string(to_string(data_type_of<T>())) + " " + to_string(op) + " " +
                     to_string(a) + " n=" + std::to_string(n) + " on " + c.name());
        std::function<T(int, std::size_t)> value = [op](int ipu, std::size_t i) {
          return exact_value<T>(op, ipu, i);
        };
        Buffers<T> send(c, n, value), recv(c, n, [](int, std::size_t) { return T(99); });
        c.all_reduce<T>(send.in(), recv.out(), op, a);
        Buffers<T> data(c, n, value);
        c.all_reduce<T>(data.out(), op, a);
        for (std::size_t l = 0; l < c.local_ipus().size(); ++l)
          for (std::size_t i = 0; i < n; ++i) {
            const T expected = reference<T>(c, op, c.local_ipus()[l], i, value);
            ASSERT_EQ(recv.store[l][i], expected) << "IPU " << c.local_ipus()[l] << " i " << i;
            ASSERT_EQ(data.store[l][i], expected);
            ASSERT_EQ(send.store[l][i], value(c.local_ipus()[l], i));  // send untouched
          }
      }
}

TEST_P(Collectives, AllReduceEveryTypeOperationAndAlgorithm) {
  check_all_reduce<float>(world_);
  check_all_reduce<double>(world_);
  check_all_reduce<std::int32_t>(world_);
  check_all_reduce<std::int64_t>(world_);
}

// Groups of every 3rd IPU: on 4 ranks (3 IPUs each) no two members share a rank, so small
// tree all-reduces are combined from the agreement's packets; the results must be the same.
TEST_P(Collectives, AllReduceOnGroupsSpreadOverTheRanks) {
  Communicator fours = world_.split(Grouping::orthogonal, 4, "fours");
  EXPECT_EQ(fours.spread(), rt_.ranks() == 4);
  EXPECT_FALSE(world_.spread());
  check_all_reduce<float>(fours);
  check_all_reduce<double>(fours);
  check_all_reduce<std::int32_t>(fours);
  check_all_reduce<std::int64_t>(fours);
}

TEST_P(Collectives, AllReduceOnReplicaGroups) {
  Communicator every_fourth = world_.split(Grouping::orthogonal, 3, "every_fourth");
  EXPECT_EQ(every_fourth.groups(), 4);
  EXPECT_EQ(every_fourth.ipu(1, 2), 9);  // group 1 = IPUs {1, 5, 9}
  EXPECT_EQ(every_fourth.rank_of_ipu(5), 1);
  Communicator blocks = world_.split(Grouping::consecutive, 4, "blocks");
  EXPECT_EQ(blocks.ipu(2, 1), 9);  // group 2 = IPUs {8, 9, 10, 11}
  EXPECT_EQ(blocks.group_of_ipu(7), 1);
  Communicator pairs = blocks.split(Grouping::orthogonal, 2, "pairs");  // {0,2}, {1,3}, {4,6}...
  EXPECT_EQ(pairs.ipu(1, 1), 3);
  EXPECT_EQ(pairs.ipu(2, 0), 4);
  check_all_reduce<float>(every_fourth);
  check_all_reduce<std::int64_t>(blocks);
  check_all_reduce<double>(pairs);
  EXPECT_THROW(world_.split(Grouping::consecutive, 5, "fives"), ConfigError);
}

template <class T>
void check_others(Communicator& c) {
  const int p = c.size();
  const auto& local = c.local_ipus();
  for (Algorithm a : {Algorithm::ring, Algorithm::tree})
    for (std::size_t count : {0u, 1u, 5u}) {
      SCOPED_TRACE(std::string(to_string(data_type_of<T>())) + " " + to_string(a) +
                   " count=" + std::to_string(count) + " on " + c.name());
      const std::size_t n = count * static_cast<std::size_t>(p);
      std::function<T(int, std::size_t)> value = [](int ipu, std::size_t i) {
        return exact_value<T>(Op::max, ipu, i);
      };
      // reduce_scatter, out of place and in place (result in block r).
      Buffers<T> send(c, n, value), part(c, count, [](int, std::size_t) { return T(99); });
      c.reduce_scatter<T>(send.in(), part.out(), Op::max, a);
      Buffers<T> whole(c, n, value);
      c.reduce_scatter<T>(whole.out(), Op::max, a);
      for (std::size_t l = 0; l < local.size(); ++l) {
        const std::size_t r = static_cast<std::size_t>(c.rank_of_ipu(local[l]));
        for (std::size_t i = 0; i < count; ++i) {
          const T expected = reference<T>(c, Op::max, local[l], r * count + i, value);
          ASSERT_EQ(part.store[l][i], expected);
          ASSERT_EQ(whole.store[l][r * count + i], expected);
        }
      }
      // all_gather, out of place and in place (contribution from block r).
      Buffers<T> mine(c, count, [&](int ipu, std::size_t i) {
        return static_cast<T>(100 * c.rank_of_ipu(ipu) + static_cast<int>(i));
      });
      Buffers<T> gathered(c, n, [](int, std::size_t) { return T(-1); });
      c.all_gather<T>(mine.in(), gathered.out(), a);
      Buffers<T> in_place(c, n, [&](int ipu, std::size_t i) {
        const auto r = static_cast<std::size_t>(c.rank_of_ipu(ipu));
        return i / count == r ? static_cast<T>(100 * r + i % count) : T(-1);
      });
      c.all_gather<T>(in_place.out(), a);
      for (std::size_t l = 0; l < local.size(); ++l)
        for (std::size_t i = 0; i < n; ++i) {
          const T expected = static_cast<T>(100 * (i / count) + i % count);
          ASSERT_EQ(gathered.store[l][i], expected);
          ASSERT_EQ(in_place.store[l][i], expected);
        }
      // broadcast and reduce from every root.
      for (int root : std::set<int>{0, 1, p - 1}) {
        Buffers<T> data(c, n, value);
        c.broadcast<T>(root, data.out(), a);
        Buffers<T> reduced(c, n, [](int, std::size_t) { return T(99); });
        c.reduce<T>(root, send.in(), reduced.out(), Op::sum, a);
        for (std::size_t l = 0; l < local.size(); ++l) {
          const int g = c.group_of_ipu(local[l]);
          const bool is_root = c.rank_of_ipu(local[l]) == root;
          for (std::size_t i = 0; i < n; ++i) {
            ASSERT_EQ(data.store[l][i], value(c.ipu(g, root), i));
            ASSERT_EQ(reduced.store[l][i],
                      is_root ? reference<T>(c, Op::sum, local[l], i, value) : T(99));
          }
        }
      }
    }
  // send_recv: in every group, the last member sends to member 0; bystanders pass nothing.
  const std::size_t n = 9;
  Buffers<T> out(
      c, n, [](int ipu, std::size_t i) { return static_cast<T>(ipu * 10 + static_cast<int>(i)); });
  Buffers<T> in(c, n, [](int, std::size_t) { return T(-3); });
  std::vector<std::span<const T>> send_views;
  std::vector<std::span<T>> recv_views;
  for (std::size_t l = 0; l < local.size(); ++l) {
    const int r = c.rank_of_ipu(local[l]);
    send_views.push_back(r == p - 1 ? out.cspans[l] : std::span<const T>());
    recv_views.push_back(r == 0 ? in.spans[l] : std::span<T>());
  }
  c.send_recv<T>(p - 1, 0, n, send_views, recv_views);
  for (std::size_t l = 0; l < local.size(); ++l)
    if (c.rank_of_ipu(local[l]) == 0) {
      for (std::size_t i = 0; i < n; ++i)
        ASSERT_EQ(in.store[l][i], static_cast<T>(c.ipu(c.group_of_ipu(local[l]), p - 1) * 10 +
                                                 static_cast<int>(i)));
    }
}

TEST_P(Collectives, ReduceScatterAllGatherBroadcastReduceSendRecv) {
  check_others<float>(world_);
  check_others<double>(world_);
  check_others<std::int32_t>(world_);
  check_others<std::int64_t>(world_);
  Communicator every_fourth = world_.split(Grouping::orthogonal, 3, "every_fourth");
  check_others<float>(every_fourth);
}

// Random floats, combined in the documented order: ring chunk c is
// ((x[c+1] + x[c+2]) + ...) + x[c], where chunk c of an all-reduce is the c-th part of
// each tile's slice (tile-major layout, 3 tiles here); the tree is a binomial tree from
// member 0.
// (A table, drawn once: seeding a stream per value would dominate the test's time.)
float random_value(int ipu, std::size_t i) {
  static const std::vector<std::vector<float>> table = [] {
    std::vector<std::vector<float>> t;
    for (int k = 0; k < 12; ++k) {
      auto engine = rng_stream(2026, static_cast<std::uint64_t>(k));
      std::vector<float> v(4096);
      for (auto& x : v)
        x = static_cast<float>(static_cast<double>(engine() >> 11) * 0x1.0p-53 - 0.3);
      t.push_back(std::move(v));
    }
    return t;
  }();
  return table.at(static_cast<std::size_t>(ipu)).at(i);
}

std::uint32_t bits(float x) {
  std::uint32_t b;
  std::memcpy(&b, &x, sizeof b);
  return b;
}

TEST_P(Collectives, FloatSumsFollowTheDocumentedOrderBitForBit) {
  for (const Communicator& c : {world_, world_.split(Grouping::orthogonal, 6, "halves"),
                                world_.split(Grouping::consecutive, 3, "threes"),
                                world_.split(Grouping::orthogonal, 4, "fours")}) {
    const int p = c.size();
    const std::size_t n = 1001;
    for (Algorithm a : {Algorithm::ring, Algorithm::tree}) {
      Buffers<float> data(c, n, random_value);
      Communicator(c).all_reduce<float>(data.out(), Op::sum, a);
      for (std::size_t l = 0; l < c.local_ipus().size(); ++l) {
        const int g = c.group_of_ipu(c.local_ipus()[l]);
        for (std::size_t i = 0; i < n; ++i) {
          float expected;
          if (a == Algorithm::ring) {
            // Chunk of i: on the tile whose slice holds i, the part of the slice it is in.
            const Layout l = layout_for(Collective::all_reduce, n, p,
                                        tiles_for(rt_.target(), n * sizeof(float), 64));
            int k = 0, ch = 0;
            while (l.tile_begin(k + 1) <= i) ++k;
            while (l.slice_begin(ch + 1, k) <= i) ++ch;
            expected = random_value(c.ipu(g, (ch + 1) % p), i);
            for (int j = 2; j <= p; ++j) expected += random_value(c.ipu(g, (ch + j) % p), i);
          } else {
            std::vector<float> v(static_cast<std::size_t>(p));
            for (int m = 0; m < p; ++m)
              v[static_cast<std::size_t>(m)] = random_value(c.ipu(g, m), i);
            for (int d = 1; d < p; d *= 2)
              for (int q = 0; q + d < p; q += 2 * d)
                v[static_cast<std::size_t>(q)] += v[static_cast<std::size_t>(q + d)];
            expected = v[0];
          }
          ASSERT_EQ(bits(data.store[l][i]), bits(expected))
              << c.name() << " " << to_string(a) << " IPU " << c.local_ipus()[l] << " i " << i;
        }
      }
    }
  }
}

// max and min keep the schedule's operand order: of +0 and -0, or of a NaN and a
// number, `a < b ? b : a` returns the first operand, so the bits show which came first.
// "pairs" ({0, 6}, {1, 7}, ...) is spread on 2, 3 and 4 ranks and "fours" on 4: there the
// results are combined from the agreement's packets, with the rank's own member first,
// last or in between in the fold, in place and out of place, for sizes sent in one round
// and in several; on 1 rank by the supersteps.
TEST_P(Collectives, MaxAndMinKeepTheOperandOrderBitForBit) {
  auto value = [](int ipu, std::size_t i) {
    static const float choices[] = {0.0f, -0.0f, std::nanf("1"), std::nanf("2"), 1.0f, -1.0f};
    return choices[(static_cast<std::size_t>(ipu) * 5 + static_cast<std::size_t>(ipu) / 6 + i * 3 +
                    i / 6) %
                   6];
  };
  Communicator pairs = world_.split(Grouping::orthogonal, 2, "pairs");
  EXPECT_EQ(pairs.spread(), rt_.ranks() > 1);
  for (const Communicator& c : {pairs, world_.split(Grouping::orthogonal, 4, "fours")}) {
    const int p = c.size();
    // 1001 floats: 12-24 KB a rank, sent in a few rounds of messages on 3 and 4 ranks.
    for (std::size_t n : {37u, 1001u})
      for (Op op : {Op::max, Op::min})
        for (Algorithm a : {Algorithm::ring, Algorithm::tree})
          for (bool in_place : {true, false}) {
            Buffers<float> send(c, n, value), data(c, n, [](int, std::size_t) { return 99.0f; });
            if (in_place)
              Communicator(c).all_reduce<float>(send.out(), op, a);
            else
              Communicator(c).all_reduce<float>(send.in(), data.out(), op, a);
            const Buffers<float>& result = in_place ? send : data;
            for (std::size_t l = 0; l < c.local_ipus().size(); ++l) {
              const int g = c.group_of_ipu(c.local_ipus()[l]);
              const Layout layout = layout_for(Collective::all_reduce, n, p,
                                               tiles_for(rt_.target(), n * sizeof(float), 64));
              for (std::size_t i = 0; i < n; ++i) {
                auto x = [&](int m) { return value(c.ipu(g, m % p), i); };
                float expected;
                if (a == Algorithm::ring) {
                  int k = 0, ch = 0;
                  while (layout.tile_begin(k + 1) <= i) ++k;
                  while (layout.slice_begin(ch + 1, k) <= i) ++ch;
                  expected = x(ch + 1);
                  for (int j = 2; j <= p; ++j) expected = apply(op, expected, x(ch + j));
                } else {
                  std::vector<float> v(static_cast<std::size_t>(p));
                  for (int m = 0; m < p; ++m) v[static_cast<std::size_t>(m)] = x(m);
                  for (int d = 1; d < p; d *= 2)
                    for (int q = 0; q + d < p; q += 2 * d)
                      v[static_cast<std::size_t>(q)] = apply(op, v[static_cast<std::size_t>(q)],
                                                             v[static_cast<std::size_t>(q + d)]);
                  expected = v[0];
                }
                ASSERT_EQ(bits(result.store[l][i]), bits(expected))
                    << c.name() << " " << to_string(op) << " " << to_string(a)
                    << (in_place ? " in place" : " out of place") << " IPU " << c.local_ipus()[l]
                    << " i " << i;
              }
            }
          }
  }
}

TEST_P(Collectives, ReportsTheSimulatedTimeOfTheCallAndRecordsItInTheProfile) {
  const std::size_t n = 4000;
  Buffers<float> data(world_, n, random_value);
  for (Algorithm a : {Algorithm::ring, Algorithm::tree, Algorithm::hierarchical}) {
    const std::uint64_t before = rt_.profile().supersteps();
    const CallReport r = world_.all_reduce<float>(data.out(), Op::sum, a);
    const Estimate e = estimate(rt_.target(), world_.group_table(), Collective::all_reduce, a,
                                DataType::float32, n, 0, 0, world_.min_tile_bytes());
    EXPECT_EQ(r.algorithm, a);
    EXPECT_EQ(r.supersteps, e.supersteps);
    EXPECT_EQ(rt_.profile().supersteps() - before, static_cast<std::uint64_t>(e.supersteps));
    // The estimate treats an IPU's tiles as one wide port; only rounding differs.
    EXPECT_NEAR(r.simulated_seconds, e.seconds, 0.01 * e.seconds);
    EXPECT_EQ(r.cost.link_bytes, e.cost.link_bytes);
    EXPECT_EQ(r.cost.gateway_bytes, e.cost.gateway_bytes);
    EXPECT_GT(r.cost.gateway_bytes, 0u);  // link domains of 4 IPUs
  }
  // A small all-reduce on a communicator spread over the ranks (one round of messages on
  // 2-4 ranks) reports and records the supersteps of its schedule all the same.
  Communicator pairs = world_.split(Grouping::orthogonal, 2, "pairs");
  Buffers<float> small(pairs, 7, random_value);
  CallReport spread_report;
  for (int call = 0; call < 3; ++call)
    spread_report = pairs.all_reduce<float>(small.out(), Op::sum, Algorithm::ring);
  const Estimate spread_estimate =
      estimate(rt_.target(), pairs.group_table(), Collective::all_reduce, Algorithm::ring,
               DataType::float32, 7, 0, 0, pairs.min_tile_bytes());
  EXPECT_EQ(spread_report.supersteps, spread_estimate.supersteps);
  EXPECT_NEAR(spread_report.simulated_seconds, spread_estimate.seconds,
              0.01 * spread_estimate.seconds);
  // The profile has every step by name and in the timeline, in the order of the calls.
  const nlohmann::json j = nlohmann::json::parse(rt_.profile().to_json({}).dump());
  bool found = false;
  for (const auto& s : j["supersteps_by_name"]) {
    found = found || s["name"] == "comm.world.all_reduce.ring";
    if (s["name"] == "comm.pairs.all_reduce.ring") {
      EXPECT_EQ(s["count"], 3 * spread_estimate.supersteps);
      EXPECT_NEAR(s["simulated_seconds"].get<double>(), 3 * spread_report.simulated_seconds,
                  1e-6 * spread_report.simulated_seconds);
    }
  }
  EXPECT_TRUE(found);
  int in_timeline = 0;
  for (const auto& s : j["timeline"]) in_timeline += s["name"] == "comm.pairs.all_reduce.ring";
  EXPECT_EQ(in_timeline, 3 * spread_estimate.supersteps);
  EXPECT_EQ(j["timeline"].back()["name"], "comm.pairs.all_reduce.ring");
  const CallReport b = world_.barrier();
  EXPECT_EQ(b.supersteps, 1);
  EXPECT_GT(b.simulated_seconds, 0.0);
}

template <class F>
std::string error_of(F&& f) {
  try {
    f();
  } catch (const Error& e) {
    EXPECT_TRUE(e.collective()) << e.what();
    return e.what();
  }
  return "no error";
}

TEST_P(Collectives, MismatchedSizesEndWithTheSameErrorOnEveryRank) {
  // IPU 7 passes one element more than the others.
  Buffers<float> data(world_, 10, random_value);
  for (std::size_t l = 0; l < world_.local_ipus().size(); ++l)
    if (world_.local_ipus()[l] == 7) data.store[l].resize(11);
  data.refresh();
  EXPECT_THAT(error_of([&] { world_.all_reduce<float>(data.out(), Op::sum); }),
              HasSubstr("communicator 'world' (1 group of 12 IPUs), all_reduce: members passed "
                        "buffers of different sizes (from 10 to 11 elements)"));
  // A receive buffer of the wrong size names the IPU.
  Buffers<double> send(world_, 6, [](int, std::size_t) { return 1.0; });
  Buffers<double> recv(world_, 6, [](int, std::size_t) { return 1.0; });
  for (std::size_t l = 0; l < world_.local_ipus().size(); ++l)
    if (world_.local_ipus()[l] == 4) recv.store[l].resize(5);
  recv.refresh();
  EXPECT_THAT(error_of([&] { world_.all_reduce<double>(send.in(), recv.out(), Op::max); }),
              HasSubstr("IPU 4 passed a buffer of the wrong size: this call needs a receive "
                        "buffer of 6 elements"));
  Buffers<float> odd(world_, 13, random_value);
  EXPECT_THAT(error_of([&] { world_.reduce_scatter<float>(odd.out(), Op::sum); }),
              HasSubstr("not a multiple of 12"));
  EXPECT_THAT(error_of([&] { world_.broadcast<float>(12, odd.out()); }),
              HasSubstr("root or peer outside the group's ranks 0..11"));
  // The same on groups spread over the ranks (agreement by point-to-point packets on 4 ranks).
  Communicator fours = world_.split(Grouping::orthogonal, 4, "fours");
  EXPECT_THAT(error_of([&] { fours.all_reduce<float>(data.out(), Op::sum); }),
              HasSubstr("communicator 'fours' (3 groups of 4 IPUs), all_reduce: members passed "
                        "buffers of different sizes (from 10 to 11 elements)"));
  // Members' buffers must not overlap: all-reduce works in them.
  Buffers<float> shared(world_, 8, random_value);
  std::vector<std::span<float>> same(world_.local_ipus().size(), shared.spans.front());
  EXPECT_THAT(
      error_of([&] { world_.all_reduce<float>(same, Op::sum); }),
      HasSubstr("passed a buffer that overlaps another member's buffer (or, out of place, its "
                "own send buffer in part)"));
  // After the errors the communicator still works.
  Buffers<float> ok(world_, 3, [](int, std::size_t) { return 1.0f; });
  world_.all_reduce<float>(ok.out(), Op::sum);
  for (const auto& v : ok.store) EXPECT_EQ(v[0], 12.0f);
}

TEST_P(Collectives, RanksThatDisagreeOnTypeOrCollectiveAllStop) {
  if (rt_.ranks() == 1) GTEST_SKIP() << "needs two ranks to disagree";
  std::string message;
  if (rt_.rank() == 0) {
    Buffers<float> data(world_, 4, random_value);
    message = error_of([&] { world_.all_reduce<float>(data.out(), Op::sum); });
  } else {
    Buffers<std::int32_t> data(world_, 4, [](int, std::size_t) { return 1; });
    message = error_of([&] { world_.all_reduce<std::int32_t>(data.out(), Op::sum); });
  }
  EXPECT_THAT(message, HasSubstr("members passed different element types (float and int32)"));
  Buffers<float> data(world_, 4, random_value);
  message = rt_.rank() == 0 ? error_of([&] { world_.all_reduce<float>(data.out(), Op::sum); })
                            : error_of([&] { world_.broadcast<float>(0, data.out()); });
  EXPECT_THAT(message, HasSubstr("MPI ranks called different collectives (all_reduce and "
                                 "broadcast)"));
  message =
      error_of([&] { world_.all_reduce<float>(data.out(), rt_.rank() == 0 ? Op::sum : Op::max); });
  EXPECT_THAT(message, HasSubstr("different operations (sum and max)"));
}

TEST(CommPlacement, RanksMustHoldWholeIpus) {
  Target two = twelve_ipus();
  two.ipus = 2;
  int ranks = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);
  if (ranks <= 2) GTEST_SKIP() << "needs more ranks than IPUs";
  Runtime rt(two, 1);
  EXPECT_THAT(error_of([&] { Communicator::world(rt); }),
              HasSubstr("target 'twelve' has 2 IPUs over " + std::to_string(ranks) +
                        " MPI ranks, so some rank holds part of an IPU"));
}

TEST(CommPlacement, BuffersMustStillFitTheTiles) {
  // 100 000 floats over 3 tiles of 256 KiB: data and incoming need 2 x 133 KB per tile.
  Runtime rt(twelve_ipus(), 1);
  Communicator world = Communicator::world(rt);
  Buffers<float> data(world, 100000, [](int, std::size_t) { return 1.0f; });
  EXPECT_THAT(error_of([&] { world.all_reduce<float>(data.out(), Op::sum, Algorithm::ring); }),
              HasSubstr("out of memory: 'comm.incoming'"));
}

}  // namespace
}  // namespace tessera::comm
