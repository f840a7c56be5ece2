// Chains on the tile runtime: the draws are bitwise identical for any tile, thread and
// rank count; the cost model is charged per gradient and leapfrog step; chain state
// counts against tile memory. Runs as a plain test and under mpirun (2 and 4 ranks).
#include "tessera/core/runtime.hpp"

#include <gtest/gtest.h>
#include <mpi.h>

#include <algorithm>
#include <cstring>

#include "tessera/core/error.hpp"
#include "tessera/mcmc/models.hpp"
#include "tessera/mcmc/run.hpp"

namespace {

using namespace tessera;
using namespace tessera::mcmc;

Target host_with_tiles(int tiles) {
  Target t = Target::preset("host", 1, 1);
  t.tiles_per_ipu = tiles;
  t.ipus_per_process = 0;  // one target, whatever the rank count
  return t;
}

RunSettings settings(SamplerKind kind, int chains) {
  RunSettings s;
  s.sampler.kind = kind;
  s.sampler.warmup = 150;
  s.sampler.draws = 100;
  s.chains = chains;
  s.seed = 42;
  return s;
}

bool same_bits(const std::vector<double>& a, const std::vector<double>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(double)) == 0;
}

class AnyLayout : public ::testing::TestWithParam<SamplerKind> {};

// The reference runs on this rank alone with one tile; the others spread the same
// chains over 5 and 8 tiles, 1 and 2 threads, and every rank of MPI_COMM_WORLD.
TEST_P(AnyLayout, DrawsAreBitwiseIdentical) {
  const auto model =
      make_model("eight_schools_noncentered",
                 nlohmann::json{{"J", 3}, {"y", {10, -2, 5}}, {"sigma", {8, 9, 10}}}, "test");
  const int chains = GetParam() == SamplerKind::ensemble ? 12 : 5;
  const RunSettings s = settings(GetParam(), chains);
  Runtime alone(host_with_tiles(1), 1, MPI_COMM_SELF);
  const Draws reference = sample(alone, *model, s);
  ASSERT_EQ(reference.values.size(), static_cast<std::size_t>(chains) *
                                         static_cast<std::size_t>(s.sampler.draws) *
                                         reference.width());
  for (int tiles : {5, 8})
    for (int threads : {1, 2}) {
      Runtime runtime(host_with_tiles(tiles), threads, MPI_COMM_WORLD);
      const Draws draws = sample(runtime, *model, s);
      if (runtime.rank() != 0) {
        EXPECT_TRUE(draws.values.empty());
        continue;
      }
      EXPECT_TRUE(same_bits(draws.values, reference.values))
          << tiles << " tiles, " << threads << " threads";
      EXPECT_EQ(draws.step_size, reference.step_size);
      EXPECT_EQ(draws.inverse_metric, reference.inverse_metric);
    }
}

INSTANTIATE_TEST_SUITE_P(Samplers, AnyLayout,
                         ::testing::Values(SamplerKind::nuts, SamplerKind::hmc, SamplerKind::rwm,
                                           SamplerKind::ensemble, SamplerKind::pt));

// Different chains differ (each has its own stream), and a different seed changes them.
TEST(Chains, StreamsDifferByChainAndSeed) {
  const auto model = make_model("std_normal", nlohmann::json{{"N", 2}}, "test");
  RunSettings s = settings(SamplerKind::nuts, 2);
  Runtime runtime(host_with_tiles(2), 1, MPI_COMM_SELF);
  const Draws a = sample(runtime, *model, s);
  EXPECT_NE(a.column(0, a.index("x[1]")), a.column(1, a.index("x[1]")));
  s.seed = 43;
  const Draws b = sample(runtime, *model, s);
  EXPECT_NE(a.column(0, a.index("x[1]")), b.column(0, b.index("x[1]")));
}

// On an IPU target the compute phase of each iteration costs the cycle estimates of its
// gradient evaluations and leapfrog steps: one chain, no warm-up, so every iteration makes
// n_leapfrog steps and n_leapfrog + 1 gradient evaluations (one at the start).
TEST(CostModel, ChargesPerGradientAndLeapfrog) {
  const auto model = make_model("std_normal", nlohmann::json{{"N", 10}}, "test");
  RunSettings s = settings(SamplerKind::nuts, 1);
  s.sampler.warmup = 0;
  s.sampler.step_size = 0.5;
  Target gc200 = Target::preset("gc200");
  Runtime runtime(gc200, 1, MPI_COMM_WORLD);
  const Draws draws = sample(runtime, *model, s);
  const double compute = runtime.profile().total().compute_cycles;
  if (runtime.rank() == 0) {
    // The default gradient work (5 double operations, 2 loads and a store per coordinate)
    // and the leapfrog's (4 operations, 3 loads, 2 stores), over the 10 coordinates.
    const std::uint64_t gradient = model->gradient_cycles(gc200);
    EXPECT_EQ(gradient, estimate_cycles(gc200, model->gradient_work(), 10));
    const std::uint64_t leapfrog = estimate_cycles(gc200, leapfrog_work(), 10);
    // gc200: 120 + 6 x 2 x (5 x 40 + 3 + 1) and 120 + 6 x 2 x (4 x 40 + 5 + 1).
    EXPECT_EQ(gradient, 120u + 12u * 204u);
    EXPECT_EQ(leapfrog, 120u + 12u * 166u);
    double expected = 0;
    for (double n : draws.column(0, draws.index("n_leapfrog__")))
      expected += (n + 1) * static_cast<double>(gradient) + n * static_cast<double>(leapfrog);
    // Plus the combines of the run's few reductions (draw statistics), under 1 %.
    EXPECT_GE(compute, expected);
    EXPECT_LT(compute, 1.01 * expected);
  }
  EXPECT_GT(runtime.profile().simulated_seconds(), 0.0);
}

// The simulated time of a run does not depend on the threads or ranks.
TEST(CostModel, SimulatedTimeIsDeterministic) {
  const auto model = make_model("std_normal", nlohmann::json{{"N", 4}}, "test");
  const RunSettings s = settings(SamplerKind::nuts, 8);
  Target small = Target::preset("gc200");
  small.tiles_per_ipu = 16;
  Runtime alone(small, 1, MPI_COMM_SELF);
  sample(alone, *model, s);
  Runtime world(small, 2, MPI_COMM_WORLD);
  sample(world, *model, s);
  EXPECT_EQ(alone.profile().total().compute_cycles, world.profile().total().compute_cycles);
}

// Chain state lives in tile memory: a tile too small for a 100-dimensional NUTS chain's
// working memory fails with the tile, the budget and the allocation named.
TEST(TileMemory, ChainStateCountsAgainstTheTile) {
  const auto model = make_model("std_normal", nlohmann::json{{"N", 100}}, "test");
  const RunSettings s = settings(SamplerKind::nuts, 2);
  Target tiny = Target::preset("gc200");
  tiny.tiles_per_ipu = 4;
  tiny.tile_memory_bytes = 16 * 1024;
  Runtime runtime(tiny, 1, MPI_COMM_WORLD);
  try {
    sample(runtime, *model, s);
    FAIL() << "a 100-dimensional NUTS chain fitted in 16 KiB";
  } catch (const TileOutOfMemory& e) {
    EXPECT_NE(std::string(e.what()).find("'mcmc.sampler'"), std::string::npos) << e.what();
  }
  Target roomy = tiny;
  roomy.tile_memory_bytes = 624 * 1024;
  Runtime ok(roomy, 1, MPI_COMM_WORLD);
  sample(ok, *model, s);
  const std::vector<std::uint64_t> high_water = ok.tile_high_water();
  // position (800 B) + NUTS workspace ((16 + 60) x 100 doubles) + the RNG state
  EXPECT_GE(*std::max_element(high_water.begin(), high_water.end()), 800u + 76u * 800u);
}

}  // namespace
