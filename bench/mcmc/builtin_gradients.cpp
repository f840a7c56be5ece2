// The built-in models' gradients (analytic, or Eigen's forward mode) against the same models
// through StanMathModel (reverse mode; tests/mcmc/builtin_twins.hpp), at the sizes mcmc_ipu's
// users run them: which way each built-in model keeps (issue 14, docs/mcmc.md).
//
//   BM_BuiltIn   the built-in model's log_density_gradient
//   BM_Twin      its StanMathModel twin's log_density_gradient
//
// Each reports `ratio`: its time per call over the built-in model's log density in doubles
// (the anchor, timed in the same run), so BM_Twin's ratio over BM_BuiltIn's is the speed-up
// of keeping the built-in gradient.
#include <benchmark/benchmark.h>

#include <chrono>
#include <map>
#include <random>

#include "builtin_twins.hpp"
#include "tessera/mcmc/models.hpp"

namespace {

using tessera::mcmc::Model;
using tessera::mcmc::Vector;

// The cases, by index: name and data at a user's size.
struct Case {
  std::string name;
  nlohmann::json data;
};
const std::vector<Case>& cases() {
  static const std::vector<Case> all = [] {
    std::mt19937_64 rng(11);
    std::normal_distribution<double> normal;
    std::vector<std::vector<double>> x(1000, std::vector<double>(30));
    std::vector<int> y(1000);
    for (std::size_t n = 0; n < x.size(); ++n) {
      double eta = 0.3;
      for (std::size_t k = 0; k < 30; ++k) eta += 0.5 * (x[n][k] = normal(rng)) * normal(rng);
      y[n] = eta + normal(rng) > 0 ? 1 : 0;
    }
    std::vector<double> garch(200), returns(500);
    for (double& v : garch) v = 5 + normal(rng);
    for (double& v : returns) v = 0.02 * normal(rng);
    std::vector<double> schools_y(8), schools_sigma(8);
    for (std::size_t j = 0; j < 8; ++j) {
      schools_y[j] = 10 * normal(rng);
      schools_sigma[j] = 10 + 5 * std::abs(normal(rng));
    }
    return std::vector<Case>{
        {"std_normal", {{"N", 100}}},
        {"correlated_gaussian", {{"N", 100}, {"rho", 0.9}}},
        {"eight_schools_noncentered", {{"J", 8}, {"y", schools_y}, {"sigma", schools_sigma}}},
        {"logistic_regression", {{"N", 1000}, {"K", 30}, {"x", x}, {"y", y}}},
        {"garch11", {{"T", 200}, {"y", garch}, {"sigma1", 1.0}}},
        {"stochastic_volatility", {{"T", 500}, {"y", returns}}}};
  }();
  return all;
}

struct Pair {
  std::unique_ptr<Model> builtin, twin;
  double density_seconds = 0;  // the anchor
};

const Pair& pair_for(int index) {
  static std::map<int, Pair> pairs;
  auto it = pairs.find(index);
  if (it != pairs.end()) return it->second;
  const Case& c = cases()[static_cast<std::size_t>(index)];
  Pair p{tessera::mcmc::make_model(c.name, c.data, "bench"),
         tessera::mcmc::testing::stan_math_twin(c.name, c.data)};
  const Vector x = Vector::Constant(p.builtin->dimension(), 0.1);
  long calls = 0;
  const auto start = std::chrono::steady_clock::now();
  std::chrono::duration<double> elapsed{};
  do {
    for (int i = 0; i < 20; ++i) benchmark::DoNotOptimize(p.builtin->log_density(x));
    calls += 20;
    elapsed = std::chrono::steady_clock::now() - start;
  } while (elapsed.count() < 0.2);
  p.density_seconds = elapsed.count() / static_cast<double>(calls);
  return pairs.emplace(index, std::move(p)).first->second;
}

void run(benchmark::State& state, bool twin) {
  const Pair& p = pair_for(static_cast<int>(state.range(0)));
  const Model& m = twin ? *p.twin : *p.builtin;
  const Vector x = Vector::Constant(m.dimension(), 0.1);
  Vector g;
  const auto start = std::chrono::steady_clock::now();
  for (auto _ : state) benchmark::DoNotOptimize(m.log_density_gradient(x, g));
  const std::chrono::duration<double> elapsed = std::chrono::steady_clock::now() - start;
  state.SetLabel(cases()[static_cast<std::size_t>(state.range(0))].name);
  state.counters["d"] = m.dimension();
  state.counters["ratio"] =
      elapsed.count() / static_cast<double>(state.iterations()) / p.density_seconds;
}

void BM_BuiltIn(benchmark::State& state) { run(state, false); }
void BM_Twin(benchmark::State& state) { run(state, true); }

BENCHMARK(BM_BuiltIn)->DenseRange(0, 5);
BENCHMARK(BM_Twin)->DenseRange(0, 5);

}  // namespace

BENCHMARK_MAIN();
