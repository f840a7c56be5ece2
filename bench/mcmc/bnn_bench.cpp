// The Bayesian neural-network alpha model (bnn.hpp) on the host:
//   build/bench/mcmc/bnn_bench [--benchmark_filter=...]
// BM_EigenGemm/512 (float and double) is the anchor: Eigen's rate on a 512^3 GEMM in the
// same run and build flags. BM_BnnGradient reports gradient evaluations per second and
// their flop rate from BnnAlphaModel::gradient_flops() (forward and backward pass),
// with `of_gemm` = that rate over the anchor's (goal: >= 0.4 in float32).
// BM_BnnTimeToResult runs the published configuration (4 chains, 1000 leapfrog steps,
// simple step-size adaptation) on the host target with 2 threads for a few transitions
// and extrapolates to the published 100 + 400: static HMC does exactly 1001 gradient
// evaluations per transition whatever is accepted, so time is linear in transitions.
#include <benchmark/benchmark.h>

#include <Eigen/Core>
#include <chrono>
#include <type_traits>

#include "tessera/core/runtime.hpp"
#include "tessera/mcmc/bnn.hpp"
#include "tessera/mcmc/run.hpp"

namespace {

using namespace tessera;
using namespace tessera::mcmc;

const AlphaData& alpha_data() {
  static const AlphaData data = load_alpha_data(TESSERA_EXAMPLE_DATA "/eu_stock_markets.csv");
  return data;
}

template <class S>
double gemm_rate(int n, double min_seconds) {
  using M = Eigen::Matrix<S, Eigen::Dynamic, Eigen::Dynamic>;
  const M a = M::Random(n, n), b = M::Random(n, n);
  M c(n, n);
  int reps = 0;
  const auto start = std::chrono::steady_clock::now();
  double elapsed = 0;
  do {
    c.noalias() = a * b;
    benchmark::DoNotOptimize(c.data());
    ++reps;
    elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  } while (elapsed < min_seconds);
  return 2.0 * n * n * n * reps / elapsed;
}

// The anchor rate of precision S, measured once per run.
template <class S>
double anchor_rate() {
  static const double rate = gemm_rate<S>(512, 1.0);
  return rate;
}

template <class S>
void BM_EigenGemm(benchmark::State& state) {
  using M = Eigen::Matrix<S, Eigen::Dynamic, Eigen::Dynamic>;
  const auto n = static_cast<int>(state.range(0));
  const M a = M::Random(n, n), b = M::Random(n, n);
  M c(n, n);
  for (auto _ : state) {
    c.noalias() = a * b;
    benchmark::DoNotOptimize(c.data());
  }
  state.counters["flops"] =
      benchmark::Counter(2.0 * n * n * n, benchmark::Counter::kIsIterationInvariantRate);
}
BENCHMARK(BM_EigenGemm<float>)->Arg(512)->UseRealTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_EigenGemm<double>)->Arg(512)->UseRealTime()->Unit(benchmark::kMillisecond);

template <class S>
void BM_BnnGradient(benchmark::State& state) {
  const Precision precision = std::is_same_v<S, float> ? Precision::float32 : Precision::float64;
  const BnnAlphaModel model(alpha_data().train, Eigen::MatrixXd(), 40, precision);
  Vector x = Vector::Random(model.dimension()), g;
  const double anchor = anchor_rate<S>();
  const auto start = std::chrono::steady_clock::now();
  for (auto _ : state) {
    benchmark::DoNotOptimize(model.log_density_gradient(x, g));
    benchmark::DoNotOptimize(g.data());
  }
  const double elapsed =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  state.counters["of_gemm"] =
      model.gradient_flops() * static_cast<double>(state.iterations()) / elapsed / anchor;
  state.counters["gradients_per_s"] =
      benchmark::Counter(1.0, benchmark::Counter::kIsIterationInvariantRate);
  state.counters["flops"] =
      benchmark::Counter(model.gradient_flops(), benchmark::Counter::kIsIterationInvariantRate);
  state.counters["gemm_anchor_flops"] = anchor;
  state.counters["flops_per_gradient"] = model.gradient_flops();
  state.SetLabel("N=" + std::to_string(model.observations()) +
                 " d=" + std::to_string(model.dimension()));
}
BENCHMARK(BM_BnnGradient<float>)->UseRealTime()->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_BnnGradient<double>)->UseRealTime()->Unit(benchmark::kMicrosecond);

void BM_BnnTimeToResult(benchmark::State& state) {
  const int transitions = static_cast<int>(state.range(0));
  const BnnAlphaModel model(alpha_data().train, alpha_data().test.features, 40, Precision::float32);
  const RunSettings s = case_study_sampler(1000, transitions / 2, transitions - transitions / 2, 4);
  double seconds = 0;
  for (auto _ : state) {
    Runtime runtime(Target::preset("host", 2, 1), 2, MPI_COMM_SELF);
    const auto start = std::chrono::steady_clock::now();
    const Draws draws = sample(runtime, model, s);
    seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    benchmark::DoNotOptimize(draws.values.data());
  }
  state.counters["measured_s"] = seconds;
  state.counters["published_500_transitions_s"] = seconds * 500.0 / transitions;
  state.counters["gradients_per_s"] = 4.0 * 1001.0 * transitions / seconds;
}
BENCHMARK(BM_BnnTimeToResult)->Arg(4)->Iterations(1)->UseRealTime()->Unit(benchmark::kSecond);

}  // namespace
