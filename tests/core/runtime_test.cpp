// The tile runtime: superstep semantics, exchange plans, messages, reductions,
// errors. Every test holds for any number of MPI ranks and threads: CTest runs
// this binary on 1, 2 and 4 ranks, and each test checks only the tiles its
// rank hosts, or results every rank receives.
#include "tessera/core/runtime.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <mpi.h>

#include <cmath>
#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>

#include "tessera/core/error.hpp"

namespace tessera {
namespace {

using ::testing::HasSubstr;

// A small IPU machine: `ipus` x `tiles` tiles of `memory` bytes, 4 bytes/cycle.
Target small_target(int ipus, int tiles, std::size_t memory = 64 * 1024) {
  Target t = Target::preset(ipus == 1 ? "gc200" : "pod4");
  t.name = "small";
  t.ipus = ipus;
  t.tiles_per_ipu = tiles;
  t.tile_memory_bytes = memory;
  t.ipus_per_link_domain = std::max(1, std::min(ipus, 64));
  return t;
}

// Runs `check` on every local tile and passes only if it held on every tile of every rank.
bool on_every_tile(Runtime& rt, const std::function<bool(Tile&)>& check) {
  return rt.all_reduce<int>("test.check", ReduceOp::min,
                            [&](Tile& t) { return check(t) ? 1 : 0; }) == 1;
}

template <class F>
std::string error_of(F&& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  return "no error";
}

class RuntimeThreads : public ::testing::TestWithParam<int> {};
INSTANTIATE_TEST_SUITE_P(Threads, RuntimeThreads, ::testing::Values(1, 2, 3));

TEST_P(RuntimeThreads, TilesSplitContiguouslyOverRanks) {
  Runtime rt(small_target(2, 5), GetParam());
  const int n = rt.target().total_tiles();
  std::vector<int> owners = rt.gather<int>("owners", [&](Tile&) { return rt.rank(); });
  std::vector<int> ids = rt.gather<int>("ids", [](Tile& t) { return t.id(); });
  for (int i = 0; i < n; ++i) {
    EXPECT_EQ(ids[static_cast<std::size_t>(i)], i);
    EXPECT_EQ(owners[static_cast<std::size_t>(i)], rt.rank_of_tile(i));
    if (i > 0) {
      EXPECT_LE(owners[static_cast<std::size_t>(i) - 1], owners[static_cast<std::size_t>(i)]);
    }
  }
  EXPECT_TRUE(on_every_tile(
      rt, [](Tile& t) { return t.ipu() == t.id() / 5 && t.id_on_ipu() == t.id() % 5; }));
}

TEST_P(RuntimeThreads, WritesBecomeVisibleOnlyAfterTheSync) {
  Runtime rt(small_target(2, 4), GetParam());
  const int n = rt.target().total_tiles();
  auto x = rt.create_variable<int>("x", 1);
  auto y = rt.create_variable<int>("y", 1);
  ExchangePlanBuilder ring("ring");
  for (int i = 0; i < n; ++i) ring.copy(x, i, 0, y, (i + 1) % n, 0, 1);
  const ExchangePlan plan = rt.compile(ring);

  std::vector<int> seen_during_compute(static_cast<std::size_t>(n), -1);
  rt.superstep("write",
               [&](Tile& t) {
                 t.get(x)[0] = 100 + t.id();
                 seen_during_compute[static_cast<std::size_t>(t.id())] = t.get(y)[0];
               },
               {&plan});
  for (int i = 0; i < n; ++i)
    if (rt.is_local(i)) {
      EXPECT_EQ(seen_during_compute[static_cast<std::size_t>(i)], 0) << "tile " << i;
    }
  EXPECT_TRUE(
      on_every_tile(rt, [&](Tile& t) { return t.get(y)[0] == 100 + (t.id() + n - 1) % n; }));
}

TEST_P(RuntimeThreads, StridedCopiesMoveColumns) {
  // Each tile holds a 3 x 4 row-major block; column 0 goes to the next tile's column 3.
  Runtime rt(small_target(1, 6), GetParam());
  const int n = rt.target().total_tiles();
  auto block = rt.create_variable<double>("block", 12);
  ExchangePlanBuilder b("columns");
  for (int i = 0; i + 1 < n; ++i) b.copy_strided(block, i, 0, 4, block, i + 1, 3, 4, 3);
  const ExchangePlan plan = rt.compile(b);
  rt.superstep("fill",
               [&](Tile& t) {
                 for (int k = 0; k < 12; ++k)
                   t.get(block)[static_cast<std::size_t>(k)] = t.id() * 100 + k;
               },
               {&plan});
  EXPECT_TRUE(on_every_tile(rt, [&](Tile& t) {
    const auto v = t.get(block);
    for (int r = 0; r < 3; ++r) {
      const double expect_col3 = t.id() == 0 ? 3 + 4 * r : (t.id() - 1) * 100 + 4 * r;
      if (v[static_cast<std::size_t>(4 * r + 3)] != expect_col3) return false;
      if (v[static_cast<std::size_t>(4 * r)] != t.id() * 100 + 4 * r) return false;
    }
    return true;
  }));
  // 3 doubles per tile pair, each its own fragment; the busiest port moves 24 bytes in 3
  // fragments: 6 cycles at 4 bytes/cycle and 3 x 1.8 cycles.
  EXPECT_EQ(plan.bytes(), static_cast<std::uint64_t>(24 * (n - 1)));
  EXPECT_DOUBLE_EQ(plan.cost().exchange_cycles, 12.0);
}

TEST_P(RuntimeThreads, MessagesArriveOrderedBySourceThenPostingOrder) {
  Runtime rt(small_target(2, 3), GetParam());
  const int n = rt.target().total_tiles();
  rt.superstep("post", [&](Tile& t) {
    for (int k = 0; k < 2; ++k) {
      const std::int64_t payload[2] = {t.id(), k};
      t.post<std::int64_t>((t.id() + 1) % n, payload);
      t.post<std::int64_t>((t.id() + 3) % n, payload);
    }
  });
  EXPECT_TRUE(on_every_tile(rt, [&](Tile& t) {
    const auto& in = t.inbox();
    if (in.size() != 4) return false;
    std::vector<int> sources{(t.id() + n - 1) % n, (t.id() + n - 3) % n};
    std::sort(sources.begin(), sources.end());
    for (std::size_t m = 0; m < 4; ++m) {
      const auto v = in[m].as<std::int64_t>();
      if (in[m].source != sources[m / 2] || v.size() != 2 || v[0] != sources[m / 2] ||
          v[1] != static_cast<std::int64_t>(m % 2))
        return false;
    }
    return true;
  }));
  // Inboxes last one superstep.
  rt.superstep("nothing", [](Tile&) {});
  EXPECT_TRUE(on_every_tile(rt, [](Tile& t) { return t.inbox().empty(); }));
}

TEST_P(RuntimeThreads, ReductionsFollowAFixedTreeOverTiles) {
  Runtime rt(small_target(3, 7), GetParam());
  const int n = rt.target().total_tiles();
  // Values whose sum depends on the order of additions.
  auto value = [](int id) { return (id % 2 ? 1e16 : 1.0) * std::pow(-1.0, id / 2) + id * 0.1; };
  std::vector<double> tree(static_cast<std::size_t>(n));
  for (int i = 0; i < n; ++i) tree[static_cast<std::size_t>(i)] = value(i);
  for (std::size_t s = 1; s < tree.size(); s *= 2)
    for (std::size_t i = 0; i + s < tree.size(); i += 2 * s) tree[i] += tree[i + s];
  const double sum =
      rt.all_reduce<double>("sum", ReduceOp::sum, [&](Tile& t) { return value(t.id()); });
  EXPECT_EQ(sum, tree[0]);  // bitwise
  EXPECT_EQ(rt.all_reduce<double>("max", ReduceOp::max, [&](Tile& t) { return value(t.id()); }),
            1e16 + 1.3);
  EXPECT_EQ(rt.all_reduce<int>("min", ReduceOp::min, [](Tile& t) { return 5 - t.id(); }),
            5 - (n - 1));
  const std::vector<std::int64_t> v = rt.all_reduce<std::int64_t>(
      "vector", ReduceOp::sum, 3, [](Tile& t, std::span<std::int64_t> out) {
        out[0] = 1, out[1] = t.id(), out[2] = -2 * t.id();
      });
  EXPECT_EQ(v, (std::vector<std::int64_t>{n, n * (n - 1) / 2, -n * (n - 1)}));
}

TEST(Runtime, SameResultsOnOneAndTwoThreads) {
  auto run = [](int threads) {
    Runtime rt(small_target(1, 16), threads);
    auto x = rt.create_variable<double>("x", 4);
    ExchangePlanBuilder b("shift");
    for (int i = 0; i < 16; ++i) b.copy(x, i, 0, x, (i + 5) % 16, 3, 1);
    const ExchangePlan plan = rt.compile(b);
    for (int step = 0; step < 10; ++step)
      rt.superstep("step",
                   [&](Tile& t) {
                     auto v = t.get(x);
                     v[0] = std::sin(v[3] + t.id() * 0.37) * 1e3 + v[1];
                     v[1] = v[0] / 3.0;
                   },
                   {&plan});
    return rt.all_reduce<double>("sum", ReduceOp::sum,
                                 [&](Tile& t) { return t.get(x)[0] + t.get(x)[3]; });
  };
  EXPECT_EQ(run(1), run(2));
}

TEST(Runtime, TileOutOfMemoryReachesEveryRankNamingTheTile) {
  Runtime rt(small_target(2, 4, 1024), 2);
  const std::string what = error_of([&] { rt.create_variable<double>("too.big", 200); });
  EXPECT_THAT(what, HasSubstr("tile 0 is out of memory: 'too.big' asked for 1.56 KiB"));
  EXPECT_THAT(what, HasSubstr("of its 1 KiB in use"));
  try {
    rt.create_variable<double>("too.big", 200);
  } catch (const TileOutOfMemory& e) {
    EXPECT_TRUE(e.collective());
    EXPECT_EQ(e.tile(), 0);
  }
}

TEST(Runtime, TileOutOfMemoryWritesTheProfileFirst) {
  const std::string path = ::testing::TempDir() + "tessera_oom_profile.json";
  std::remove(path.c_str());
  MPI_Barrier(MPI_COMM_WORLD);
  Runtime rt(small_target(2, 4, 1024), 2);
  rt.set_profile_path(path);
  rt.create_variable<double>("fits", 100);
  const std::string what = error_of([&] { rt.create_variable<double>("too.big", 100); });
  EXPECT_THAT(what, HasSubstr("tile 0 is out of memory"));
  EXPECT_THAT(what, HasSubstr("is in " + path));
  MPI_Barrier(MPI_COMM_WORLD);  // rank 0 wrote it
  std::ifstream in(path);
  ASSERT_TRUE(in.good());
  const nlohmann::json j = nlohmann::json::parse(in);
  EXPECT_EQ(j["memory"]["tile_budget_bytes"], 1024);
  EXPECT_EQ(j["memory"]["tile_high_water_bytes"].size(), 8u);
  EXPECT_EQ(j["memory"]["worst_tile_high_water_bytes"], 800);
}

TEST(Runtime, TheLowestFailingTileIsReportedOnEveryRank) {
  Runtime rt(small_target(2, 4), 2);
  try {
    rt.superstep("fail", [](Tile& t) {
      if (t.id() == 5 || t.id() == 6)
        throw std::runtime_error("bad tile " + std::to_string(t.id()));
    });
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_TRUE(e.collective());
    EXPECT_STREQ(e.what(), "tile 5: bad tile 5");
  }
  // The runtime is still usable after an agreed error.
  EXPECT_TRUE(on_every_tile(rt, [](Tile&) { return true; }));
}

TEST(Runtime, ACopyPastTheEndOfAPieceIsAnExchangeError) {
  Runtime rt(small_target(1, 4), 2);
  auto x = rt.create_variable<float>("x", 4);
  ExchangePlanBuilder b("halo");
  b.copy(x, 0, 0, x, 3, 2, 2);
  const ExchangePlan plan = rt.compile(b);
  EXPECT_NO_THROW(rt.exchange("ok", {&plan}));
  rt.superstep("shrink", [&](Tile& t) { t.resize(x, 3); });
  const std::string what = error_of([&] { rt.exchange("too far", {&plan}); });
  EXPECT_THAT(what, HasSubstr("exchange plan 'halo': a copy to tile 3 runs past the end"));
}

TEST(Runtime, PlansNamingMissingTilesOrVariablesAreRejected) {
  Runtime rt(small_target(1, 4), 1);
  auto x = rt.create_variable<int>("x", 1);
  ExchangePlanBuilder bad_tile("bad");
  bad_tile.copy(x, 0, 0, x, 4, 0, 1);
  EXPECT_THAT(error_of([&] { rt.compile(bad_tile); }),
              HasSubstr("names tile 4, but the target has tiles 0..3"));
  ExchangePlanBuilder bad_var("bad");
  bad_var.copy(x, 0, 0, Variable<int>{7}, 1, 0, 1);
  EXPECT_THAT(error_of([&] { rt.compile(bad_var); }),
              HasSubstr("a variable this runtime did not create"));
}

// A program that builds and drops whole systems in one process (md_ipu's clear) must get the
// tiles' memory back: without destroy_variable, the second "fits" below is out of memory.
TEST(Runtime, DestroyedVariablesReturnTheirMemoryAndTheirIds) {
  Runtime rt(small_target(2, 4, 1024), 2);
  auto fits = rt.create_variable<double>("fits", 100);
  auto small = rt.create_variable<int>("small", 2);
  rt.destroy_variable(fits);
  EXPECT_TRUE(on_every_tile(rt, [](Tile& t) { return t.memory().used() == 2 * sizeof(int); }));
  auto again = rt.create_variable<double>("fits.again", 100);
  EXPECT_EQ(again.id, fits.id);  // the freed id is reused
  EXPECT_TRUE(on_every_tile(rt, [&](Tile& t) { return t.get(again).size() == 100; }));
  rt.destroy_variable(again);
  rt.destroy_variable(again);  // a second destroy does nothing
  ExchangePlanBuilder b("stale");
  b.copy(again, 0, 0, again, 1, 0, 1);
  EXPECT_THAT(error_of([&] { rt.compile(b); }), HasSubstr("a variable that was destroyed"));
  // Plans over the variables still alive keep working beside the freed slot.
  ExchangePlanBuilder live("live");
  live.copy(small, 0, 0, small, 1, 1, 1);
  const ExchangePlan plan = rt.compile(live);
  EXPECT_NO_THROW(rt.exchange("live", {&plan}));
}

TEST(Runtime, AMessageToANonexistentTileIsAnError) {
  Runtime rt(small_target(1, 4), 1);
  const std::string what = error_of([&] {
    rt.superstep("post", [](Tile& t) {
      if (t.id() == 2) t.post<int>(9, std::vector<int>{1});
    });
  });
  EXPECT_THAT(what, HasSubstr("tile 2 posted a message to tile 9"));
}

TEST(Runtime, PlansThatDifferBetweenRanksAreCaught) {
  int ranks = 1, rank = 0;
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (ranks == 1) GTEST_SKIP() << "needs more than one MPI rank";
  Runtime rt(small_target(1, 4), 1);
  auto x = rt.create_variable<int>("x", 2);
  ExchangePlanBuilder b("uneven");
  b.copy(x, 0, 0, x, 1, 1, 1);
  if (rank == 1) b.copy(x, 2, 0, x, 3, 1, 1);
  EXPECT_THAT(error_of([&] { rt.compile(b); }), HasSubstr("'uneven' differs between MPI ranks"));
}

TEST(Runtime, TooManyRanksForTheTilesIsAConfigError) {
  int ranks = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);
  if (ranks == 1) GTEST_SKIP() << "needs more than one MPI rank";
  EXPECT_THAT(error_of([] { Runtime rt(small_target(1, 1), 1); }), HasSubstr("fewer than the"));
}

TEST(Runtime, ProfileCountsSuperstepsAndHighWaterMarks) {
  Runtime rt(small_target(1, 8), 2);
  auto x = rt.create_variable<double>("x", 16);  // 128 bytes per tile
  ExchangePlanBuilder b("ring");
  for (int i = 0; i < 8; ++i) b.copy(x, i, 0, x, (i + 1) % 8, 8, 8);  // 64 bytes out, 64 in
  const ExchangePlan plan = rt.compile(b);
  const std::uint64_t before = rt.profile().supersteps();
  const double simulated_before = rt.profile().simulated_seconds();
  KernelWork kernel;
  kernel.int_ops = 2;  // plus a loop branch: 3 instruction cycles per item
  for (int k = 0; k < 3; ++k) rt.superstep("work", [&](Tile& t) { t.charge(kernel, 60); }, {&plan});
  EXPECT_EQ(rt.profile().supersteps(), before + 3);
  const auto hw = rt.tile_high_water();
  ASSERT_EQ(hw.size(), 8u);
  for (auto h : hw) EXPECT_EQ(h, 128u);
  // Per superstep: 120 + 6 x 10 x 3 = 300 cycles compute (six workers of 10 items taking
  // turns), 64 / 4 + 1.8 -> 18 exchange (one fragment), 130 sync.
  const double per_step = (300 + 18 + 130) / 1.33e9;
  EXPECT_NEAR(rt.profile().simulated_seconds() - simulated_before, 3 * per_step, 1e-15);
  const std::string summary = rt.summary();
  EXPECT_THAT(summary, HasSubstr("target small (1 IPU x 8 tiles)"));
  EXPECT_THAT(summary, HasSubstr("worst tile memory 128 B"));
}

// Tile::view: a piece that is the caller's memory, charged to the tile like an owned one.
// A ring of copies between views (a "disjoint" plan: between ranks, each pair's single
// copy goes straight from one caller's buffer into the other's) moves the callers' data.
TEST_P(RuntimeThreads, ViewsMakeACallersBufferATilesPiece) {
  Runtime rt(small_target(2, 4), GetParam());
  const int n = rt.target().total_tiles();
  auto v = rt.create_variable<float>("viewed", 0);
  std::vector<std::vector<float>> host(rt.local_tiles().size(), std::vector<float>(4));
  auto mine = [&](Tile& t) -> std::vector<float>& {
    return host[static_cast<std::size_t>(t.id() - rt.first_tile())];
  };
  ExchangePlanBuilder ring("ring");
  ring.disjoint();
  for (int i = 0; i < n; ++i) ring.copy(v, i, 0, v, (i + 1) % n, 2, 2);
  const ExchangePlan plan = rt.compile(ring);
  rt.superstep("view",
               [&](Tile& t) {
                 std::vector<float>& h = mine(t);
                 h = {static_cast<float>(t.id()), 0.5f, -1, -1};
                 t.view(v, std::span<float>(h));
               },
               {&plan});
  EXPECT_TRUE(on_every_tile(rt, [&](Tile& t) {
    const std::vector<float>& h = mine(t);
    return t.get(v).data() == h.data() && h[2] == static_cast<float>((t.id() + n - 1) % n) &&
           h[3] == 0.5f && t.memory().used() == 4 * sizeof(float);
  }));
  // Viewing the same number of bytes again changes no charge; resizing makes it owned.
  rt.superstep("again", [&](Tile& t) { t.view(v, std::span<float>(mine(t))); });
  EXPECT_TRUE(on_every_tile(rt, [](Tile& t) { return t.memory().used() == 4 * sizeof(float); }));
  rt.superstep("own", [&](Tile& t) { t.resize(v, 2); });
  EXPECT_TRUE(on_every_tile(rt, [&](Tile& t) {
    return t.get(v).data() != mine(t).data() && t.memory().used() == 2 * sizeof(float);
  }));
  // A view larger than the tile's memory is out of memory, like an owned piece.
  std::vector<float> huge(64 * 1024);
  EXPECT_THAT(error_of([&] {
                rt.superstep("too big", [&](Tile& t) { t.view(v, std::span<float>(huge)); });
              }),
              HasSubstr("out of memory: 'viewed' asked for 256 KiB"));
}

// SuperstepOptions: compute on a subset of tiles, no agreement, and a superstep recorded
// only when and as the caller says (Runtime::record_superstep).
TEST(Runtime, SuperstepOptionsRunSomeTilesWithoutAgreementOrRecord) {
  Runtime rt(small_target(2, 4), 2);
  auto x = rt.create_variable<int>("x", 1);
  std::vector<int> even;
  for (const auto& t : rt.local_tiles())
    if (t->id() % 2 == 0) even.push_back(t->id());
  SuperstepOptions options;
  options.tiles = even;
  options.agree = false;
  options.record = false;
  const std::uint64_t before = rt.profile().supersteps();
  rt.superstep(
      "some", [&](Tile& t) { t.get(x)[0] += 1; }, {}, options);
  EXPECT_EQ(rt.profile().supersteps(), before);
  EXPECT_TRUE(on_every_tile(rt, [&](Tile& t) { return t.get(x)[0] == (t.id() % 2 == 0); }));
  SuperstepCost cost;
  cost.compute_cycles = 1000;
  cost.sync_cycles = 10;
  const double simulated = rt.profile().simulated_seconds();
  rt.record_superstep("priced", cost, 0.5);
  EXPECT_NEAR(rt.profile().simulated_seconds() - simulated, rt.target().seconds(1010), 1e-15);
  // Without agreement, an error is this rank's alone (not collective).
  try {
    rt.superstep(
        "fails", [](Tile&) { throw Error("local trouble"); }, {}, options);
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_FALSE(e.collective());
    EXPECT_STREQ(e.what(), "local trouble");
  }
  EXPECT_THAT(error_of([&] {
                rt.superstep(
                    "posts", [](Tile& t) { t.post<int>(t.id(), std::vector<int>{1}); }, {},
                    options);
              }),
              HasSubstr("posted a message in a superstep without agreement"));
  const std::vector<int> elsewhere = {rt.first_tile() + static_cast<int>(rt.local_tiles().size())};
  if (elsewhere[0] < rt.target().total_tiles()) {
    options.tiles = elsewhere;
    EXPECT_THAT(error_of([&] {
                  rt.superstep(
                      "elsewhere", [](Tile&) {}, {}, options);
                }),
                HasSubstr("which this rank does not host"));
  }
}

}  // namespace
}  // namespace tessera
