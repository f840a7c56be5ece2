// BM_StreamTriad/T: McCalpin's STREAM triad a = b + s c over 3 x 64 MiB arrays on T threads,
// the memory-bandwidth anchor that bandwidth-bound benchmarks are compared with in the same
// run; bytes/s counts 24 bytes per element, as STREAM does. Linked into the benchmark
// programs that report their kernels' bytes/s.
#include <benchmark/benchmark.h>

#include <cstddef>
#include <thread>
#include <vector>

namespace {

void BM_StreamTriad(benchmark::State& state) {
  const int threads = static_cast<int>(state.range(0));
  const std::size_t n = std::size_t{1} << 23;  // 64 MiB per array
  std::vector<double> a(n, 0.0), b(n, 1.0), c(n, 2.0);
  const double s = 3.0;
  auto triad = [&](std::size_t begin, std::size_t end) {
    for (std::size_t i = begin; i < end; ++i) a[i] = b[i] + s * c[i];
  };
  for (auto _ : state) {
    std::vector<std::thread> pool;
    for (int t = 1; t < threads; ++t)
      pool.emplace_back(triad, n * static_cast<std::size_t>(t) / static_cast<std::size_t>(threads),
                        n * static_cast<std::size_t>(t + 1) / static_cast<std::size_t>(threads));
    triad(0, n / static_cast<std::size_t>(threads));
    for (auto& p : pool) p.join();
    benchmark::DoNotOptimize(a.data());
    benchmark::ClobberMemory();
  }
  state.counters["bytes/s"] = benchmark::Counter(24.0 * static_cast<double>(n),
                                                 benchmark::Counter::kIsIterationInvariantRate);
}
BENCHMARK(BM_StreamTriad)->Arg(1)->Arg(2)->UseRealTime()->Unit(benchmark::kMillisecond);

}  // namespace
