// Kernels of the mcmc module: log-density gradients of the built-in models (analytic
// and forward-mode AD), one NUTS iteration and one ensemble sweep on the runtime.
//   build/bench/mcmc/mcmc_bench [--benchmark_filter=...]
// The anchor is BM_Gradient/std_normal_100 (a 100-dimensional dot product): compare
// the other figures with it, measured in the same run.
#include <benchmark/benchmark.h>

#include <cmath>

#include "tessera/core/rng.hpp"
#include "tessera/core/runtime.hpp"
#include "tessera/mcmc/models.hpp"
#include "tessera/mcmc/run.hpp"
#include "tessera/mcmc/sampler.hpp"

namespace {

using namespace tessera;
using namespace tessera::mcmc;

nlohmann::json series(int n) {
  nlohmann::json y = nlohmann::json::array();
  for (int t = 0; t < n; ++t) y.push_back(std::sin(0.37 * t) * (1.0 + 0.5 * std::cos(0.05 * t)));
  return y;
}

std::unique_ptr<Model> bench_model(const std::string& which) {
  if (which == "std_normal_100") return make_model("std_normal", {{"N", 100}}, "bench");
  if (which == "correlated_gaussian_100")
    return make_model("correlated_gaussian", {{"N", 100}, {"rho", 0.9}}, "bench");
  if (which == "garch11_500")
    return make_model("garch11", {{"T", 500}, {"y", series(500)}, {"sigma1", 1.0}}, "bench");
  if (which == "stochastic_volatility_500")
    return make_model("stochastic_volatility", {{"T", 500}, {"y", series(500)}}, "bench");
  return make_model(
      "eight_schools_noncentered",
      {{"J", 8}, {"y", {28, 8, -3, 7, -1, 1, 18, 12}}, {"sigma", {15, 10, 16, 11, 9, 11, 10, 18}}},
      "bench");
}

void gradient(benchmark::State& state, const std::string& which, bool autodiff) {
  const auto model = bench_model(which);
  RngEngine rng = rng_stream(1, 0);
  const Vector x = initial_point(*model, 0.5, rng);
  Vector g;
  for (auto _ : state) {
    const double lp =
        autodiff ? model->autodiff_log_density_gradient(x, g) : model->log_density_gradient(x, g);
    benchmark::DoNotOptimize(lp);
    benchmark::DoNotOptimize(g.data());
  }
  state.counters["dimension"] = model->dimension();
}

BENCHMARK_CAPTURE(gradient, std_normal_100, std::string("std_normal_100"), false);
BENCHMARK_CAPTURE(gradient, correlated_gaussian_100, std::string("correlated_gaussian_100"), false);
BENCHMARK_CAPTURE(gradient, correlated_gaussian_100_autodiff,
                  std::string("correlated_gaussian_100"), true);
BENCHMARK_CAPTURE(gradient, eight_schools_autodiff, std::string("eight_schools"), false);
BENCHMARK_CAPTURE(gradient, garch11_500_autodiff, std::string("garch11_500"), false);
BENCHMARK_CAPTURE(gradient, stochastic_volatility_500, std::string("stochastic_volatility_500"),
                  false);
BENCHMARK_CAPTURE(gradient, stochastic_volatility_500_autodiff,
                  std::string("stochastic_volatility_500"), true);

// One chain's NUTS iterations after warm-up on the 100-dimensional correlated Gaussian.
void nuts_iteration(benchmark::State& state) {
  const auto model = bench_model("correlated_gaussian_100");
  SamplerConfig config;
  config.warmup = 500;
  RngEngine rng = rng_stream(2, 0);
  Vector q = initial_point(*model, 2.0, rng);
  auto sampler =
      make_chain_sampler(*model, config, {q.data(), static_cast<std::size_t>(q.size())}, rng);
  for (int it = 0; it < config.warmup; ++it)
    sampler->iterate(it, {q.data(), static_cast<std::size_t>(q.size())}, rng);
  double leapfrogs = 0;
  for (auto _ : state)
    leapfrogs +=
        sampler->iterate(config.warmup, {q.data(), static_cast<std::size_t>(q.size())}, rng)
            .n_leapfrog;
  state.counters["leapfrog_per_iteration"] = leapfrogs / static_cast<double>(state.iterations());
}
BENCHMARK(nuts_iteration);

// Whole runs on the runtime (host target, one tile): the superstep overhead included.
void run_sampler(benchmark::State& state, SamplerKind kind, int chains) {
  const auto model = bench_model("correlated_gaussian_100");
  Target target = Target::preset("host", 1, 1);
  Runtime runtime(target, 1, MPI_COMM_SELF);
  RunSettings s;
  s.sampler.kind = kind;
  s.sampler.warmup = 100;
  s.sampler.draws = 100;
  s.chains = chains;
  for (auto _ : state) benchmark::DoNotOptimize(sample(runtime, *model, s).values.data());
  state.counters["iterations_per_s"] =
      benchmark::Counter(200.0 * chains, benchmark::Counter::kIsIterationInvariantRate);
}
BENCHMARK_CAPTURE(run_sampler, nuts_4_chains, SamplerKind::nuts, 4)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(run_sampler, ensemble_200_walkers, SamplerKind::ensemble, 200)
    ->Unit(benchmark::kMillisecond);

}  // namespace
