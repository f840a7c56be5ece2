// Core runtime benchmarks: superstep overhead and exchange-plan copy bandwidth,
// each next to its anchor measured in the same run.
//
//   build/bench/core_bench --benchmark_repetitions=5 --benchmark_report_aggregates_only=true
//
// BM_EmptySuperstep: a superstep with no work on all 1472 tiles of a GC200
// (the runtime's fixed cost per superstep). Anchor: BM_TileLoop, the same tile
// loop run directly on one thread with nothing but the call per tile.
// BM_PlanCopy: every tile copies `bytes` to the next tile through an exchange
// plan. Anchor: BM_Memcpy, memcpy of the same blocks between two buffers.
#include <benchmark/benchmark.h>

#include <cstring>
#include <vector>

#include "tessera/core/runtime.hpp"

namespace {

using namespace tessera;

Target gc200_with(std::size_t tile_memory) {
  Target t = Target::preset("gc200");
  t.tile_memory_bytes = tile_memory;
  return t;
}

void BM_EmptySuperstep(benchmark::State& state) {
  Runtime rt(Target::preset("gc200"), static_cast<int>(state.range(0)));
  for (auto _ : state) rt.superstep("empty", [](Tile&) {});
  state.counters["tiles"] = rt.target().total_tiles();
  state.counters["threads"] = rt.threads();
}
BENCHMARK(BM_EmptySuperstep)->Arg(1)->Arg(2)->Unit(benchmark::kMicrosecond)->UseRealTime();

void BM_TileLoop(benchmark::State& state) {
  const Target t = Target::preset("gc200");
  std::vector<std::unique_ptr<Tile>> tiles;
  for (int i = 0; i < t.total_tiles(); ++i) tiles.push_back(std::make_unique<Tile>(t, i));
  const TileFunction f = [](Tile& tile) { benchmark::DoNotOptimize(tile.id()); };
  for (auto _ : state)
    for (auto& tile : tiles) f(*tile);
}
BENCHMARK(BM_TileLoop)->Unit(benchmark::kMicrosecond)->UseRealTime();

// Per tile: a source piece and a destination piece of `bytes` each.
void BM_PlanCopy(benchmark::State& state) {
  const auto bytes = static_cast<std::size_t>(state.range(0));
  Runtime rt(gc200_with(2 * bytes + 4096), static_cast<int>(state.range(1)));
  const int n = rt.target().total_tiles();
  auto src = rt.create_variable<std::byte>("bench.src", bytes);
  auto dst = rt.create_variable<std::byte>("bench.dst", bytes);
  ExchangePlanBuilder b("bench.ring");
  for (int i = 0; i < n; ++i) b.copy(src, i, 0, dst, (i + 1) % n, 0, bytes);
  const ExchangePlan plan = rt.compile(b);
  for (auto _ : state) rt.exchange("bench.ring", {&plan});
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations()) * n *
                          static_cast<std::int64_t>(bytes));
  state.counters["threads"] = rt.threads();
}
BENCHMARK(BM_PlanCopy)
    ->ArgsProduct({{256, 4096, 65536, 262144}, {1, 2}})
    ->ArgNames({"bytes", "threads"})
    ->UseRealTime();

void BM_Memcpy(benchmark::State& state) {
  const auto bytes = static_cast<std::size_t>(state.range(0));
  const std::size_t n = 1472;
  std::vector<std::vector<std::byte>> src(n, std::vector<std::byte>(bytes, std::byte{1})),
      dst(n, std::vector<std::byte>(bytes));
  for (auto _ : state) {
    for (std::size_t i = 0; i < n; ++i) std::memcpy(dst[(i + 1) % n].data(), src[i].data(), bytes);
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations()) *
                          static_cast<std::int64_t>(n * bytes));
}
BENCHMARK(BM_Memcpy)->Arg(256)->Arg(4096)->Arg(65536)->Arg(262144)->ArgName("bytes")->UseRealTime();

}  // namespace
