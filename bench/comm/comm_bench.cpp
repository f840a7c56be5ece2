// All-reduce bus bandwidth of tessera::comm, next to anchors measured in the same run.
//
// Bus bandwidth as NCCL defines it (nccl-tests, doc/PERFORMANCE.md): algbw x 2(p-1)/p,
// algbw = bytes per member / time, for a sum of floats from 8 B to 64 MiB per member.
//
//   build-comm/bench/comm/comm_bench --benchmark_repetitions=5
//       --benchmark_report_aggregates_only=true
//     (a) one process: BM_AllReduceSimulated on the 4 IPUs of a pod4 (--threads, default
//         2), against BM_Memcpy of the same bytes on one thread, and BM_DirectAllReduce,
//         the least memory traffic any in-process all-reduce of 4 buffers can have;
//   mpirun -np 2 build-comm/bench/comm/comm_bench --benchmark_repetitions=5 ...
//     (b) two ranks, one IPU each (the host target, 1 thread per rank): BM_AllReduceRanks
//         against BM_MpiAllreduce (plain MPI_Allreduce, MPI_SUM) on the same buffer.
// Only rank 0 reports. Each case runs a fixed number of iterations, the same on every
// rank, so that ranks never wait on a collective the other has stopped calling.
#include <benchmark/benchmark.h>
#include <mpi.h>

#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include "tessera/comm/communicator.hpp"
#include "tessera/core/environment.hpp"

namespace {

using namespace tessera;
using namespace tessera::comm;

const std::vector<std::size_t> sizes = {8,      64,       512,      4096,      32768,
                                        262144, 1u << 20, 4u << 20, 16u << 20, 64u << 20};

int iterations_for(std::size_t bytes) {
  const std::size_t budget = std::size_t{512} << 20;  // about 0.1-1 s per case
  return static_cast<int>(std::clamp<std::size_t>(budget / bytes, 5, 2000));
}

void set_bandwidth(benchmark::State& state, std::size_t bytes, int members) {
  const double algbw = static_cast<double>(bytes) * static_cast<double>(state.iterations());
  state.counters["busbw"] =
      benchmark::Counter(algbw * 2.0 * (members - 1) / members, benchmark::Counter::kIsRate);
  state.counters["algbw"] = benchmark::Counter(algbw, benchmark::Counter::kIsRate);
}

void BM_Memcpy(benchmark::State& state, std::size_t bytes) {
  std::vector<std::byte> a(bytes, std::byte{1}), b(bytes);
  for (auto _ : state) {
    std::memcpy(b.data(), a.data(), bytes);
    benchmark::DoNotOptimize(b.data());
    benchmark::ClobberMemory();
  }
  state.counters["bw"] =
      benchmark::Counter(static_cast<double>(bytes) * static_cast<double>(state.iterations()),
                         benchmark::Counter::kIsRate);
}

// The floor for (a): the same all-reduce of p buffers in one process, done directly (each
// value read once from every buffer, the sum written once to every buffer, one thread).
// No in-process all-reduce of p separate buffers can move fewer bytes, so its busbw over
// memcpy's is what the simulation could at best reach: about 2(p-1)/p / p of memcpy
// when both are limited by memory bandwidth (37.5% for p = 4).
void BM_DirectAllReduce(benchmark::State& state, std::size_t bytes, int members) {
  std::vector<std::vector<float>> data(static_cast<std::size_t>(members),
                                       std::vector<float>(bytes / sizeof(float), 1.0f));
  const std::size_t n = bytes / sizeof(float), block = 2048;  // 8 KiB: stays in L1
  std::vector<float> sum(block);
  for (auto _ : state) {
    for (std::size_t at = 0; at < n; at += block) {
      const std::size_t len = std::min(block, n - at);
      std::memcpy(sum.data(), data[0].data() + at, len * sizeof(float));
      for (int m = 1; m < members; ++m) {
        float* __restrict s = sum.data();
        const float* __restrict x = data[static_cast<std::size_t>(m)].data() + at;
        for (std::size_t i = 0; i < len; ++i) s[i] += x[i];
      }
      for (int m = 0; m < members; ++m)
        std::memcpy(data[static_cast<std::size_t>(m)].data() + at, sum.data(), len * sizeof(float));
    }
    benchmark::ClobberMemory();
  }
  set_bandwidth(state, bytes, members);
}

// All-reduce (sum of floats, automatic algorithm) over the world of `runtime`.
void all_reduce_loop(benchmark::State& state, Runtime& runtime, std::size_t bytes) {
  Communicator world = Communicator::world(runtime);
  std::vector<std::vector<float>> data(world.local_ipus().size(),
                                       std::vector<float>(bytes / sizeof(float), 1.0f));
  std::vector<std::span<float>> views(data.begin(), data.end());
  CallReport last = world.all_reduce<float>(views, Op::sum);  // compiles the plans
  for (auto _ : state) last = world.all_reduce<float>(views, Op::sum);
  set_bandwidth(state, bytes, world.size());
  state.counters["ring"] = last.algorithm == Algorithm::ring ? 1 : 0;
  state.counters["sim_us"] = last.simulated_seconds * 1e6;
}

void BM_AllReduceSimulated(benchmark::State& state, std::size_t bytes, int threads) {
  Runtime runtime(Target::preset("pod4"), threads);
  all_reduce_loop(state, runtime, bytes);
}

void BM_AllReduceRanks(benchmark::State& state, std::size_t bytes) {
  Runtime runtime(Target::preset("host", 1, 2), 1);
  all_reduce_loop(state, runtime, bytes);
}

void BM_MpiAllreduce(benchmark::State& state, std::size_t bytes) {
  std::vector<float> send(bytes / sizeof(float), 1.0f), recv(send.size());
  MPI_Allreduce(send.data(), recv.data(), static_cast<int>(send.size()), MPI_FLOAT, MPI_SUM,
                MPI_COMM_WORLD);
  for (auto _ : state)
    MPI_Allreduce(send.data(), recv.data(), static_cast<int>(send.size()), MPI_FLOAT, MPI_SUM,
                  MPI_COMM_WORLD);
  set_bandwidth(state, bytes, 2);
}

class SilentReporter : public benchmark::BenchmarkReporter {
 public:
  bool ReportContext(const Context&) override { return true; }
  void ReportRuns(const std::vector<Run>&) override {}
};

}  // namespace

int main(int argc, char** argv) {
  Environment env(argc, argv);
  int threads = 2;
  for (int i = 1; i + 1 < argc; ++i)
    if (std::string(argv[i]) == "--threads") threads = std::stoi(argv[i + 1]);
  benchmark::Initialize(&argc, argv);
  for (std::size_t bytes : sizes) {
    const int iterations = iterations_for(bytes);
    const std::string size = std::to_string(bytes);
    if (env.size() == 1) {
      benchmark::RegisterBenchmark(("BM_Memcpy/" + size).c_str(), BM_Memcpy, bytes)
          ->Iterations(iterations)
          ->UseRealTime()
          ->Unit(benchmark::kMicrosecond);
      benchmark::RegisterBenchmark(("BM_DirectAllReduce/" + size).c_str(), BM_DirectAllReduce,
                                   bytes, 4)
          ->Iterations(iterations)
          ->UseRealTime()
          ->Unit(benchmark::kMicrosecond);
      benchmark::RegisterBenchmark(("BM_AllReduceSimulated/" + size).c_str(), BM_AllReduceSimulated,
                                   bytes, threads)
          ->Iterations(iterations)
          ->UseRealTime()
          ->Unit(benchmark::kMicrosecond);
    } else if (env.size() == 2) {
      benchmark::RegisterBenchmark(("BM_MpiAllreduce/" + size).c_str(), BM_MpiAllreduce, bytes)
          ->Iterations(iterations)
          ->UseRealTime()
          ->Unit(benchmark::kMicrosecond);
      benchmark::RegisterBenchmark(("BM_AllReduceRanks/" + size).c_str(), BM_AllReduceRanks, bytes)
          ->Iterations(iterations)
          ->UseRealTime()
          ->Unit(benchmark::kMicrosecond);
    }
  }
  if (env.size() > 2) {
    if (env.rank() == 0) std::fprintf(stderr, "comm_bench runs on 1 or 2 MPI ranks\n");
    return 1;
  }
  SilentReporter silent;
  if (env.rank() == 0)
    benchmark::RunSpecifiedBenchmarks();
  else
    benchmark::RunSpecifiedBenchmarks(&silent);
  benchmark::Shutdown();
  return 0;
}
