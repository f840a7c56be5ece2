// Shallow-water step throughput on the host target, next to a STREAM triad
// (McCalpin) measured in the same run, and the simulated time per step on IPU
// targets.
//
//   BM_StreamTriad/T          bench/support/stream_triad.cpp.
//   BM_ShallowWaterStep/N/T/AL  one RK3 step of the 2-D shallow-water model (C grid, doubly
//                             periodic, no tracer; AL = 0: Sadourny's energy-conserving
//                             vorticity flux, 1: Arakawa-Lamb, the default) on an N x N grid,
//                             host target with T tiles and T threads. points/s = N^2 per step;
//                             bytes/s = the arrays its loops stream per step
//                             (kKernelBytesPerPoint, the same for both fluxes).
//   BM_SimulatedStep/IPUS/N   the cost model's simulated seconds per RK3 step on gc200 (1 IPU)
//                             or pod16 (16 IPUs) for an N x N grid (counter sim_us_per_step).
#include <benchmark/benchmark.h>

#include <cmath>

#include "tessera/core/runtime.hpp"
#include "tessera/weather/shallow_water.hpp"
#include "tessera/weather/time_integrator.hpp"

namespace {

using namespace tessera;
using namespace tessera::weather;

// Arrays each RK3 stage streams per grid point, as the loops are written: the
// mass fluxes U, V (read h and u or v, write: 3 + 3), the Bernoulli function
// (h, b, u, v -> B: 5), the potential vorticity (h, u, v -> q: 4), the
// tendencies (q, U, V, B -> du, dv, dh: 7) and the stage combination (3 fields
// of q and k -> 3 fields: 9). 31 doubles per stage, 3 stages.
constexpr double kKernelBytesPerPoint = 3 * 31 * 8;

ShallowWaterConfig periodic_grid(int nx, int ny, bool arakawa_lamb = true) {
  const double length = 2e6;
  return {.grid = {.nx = nx,
                   .ny = ny,
                   .dx = length / nx,
                   .dy = length / ny,
                   .periodic_x = true,
                   .periodic_y = true},
          .f0 = 1e-4,
          .vorticity_flux = arakawa_lamb ? "arakawa-lamb" : "energy"};
}

void initialise(ShallowWater& m) {
  m.initialize(
      [](double x, double y) { return 1000 + 10 * std::sin(3e-6 * x) * std::cos(4e-6 * y); },
      [](double, double y) { return 5 * std::sin(3.14159e-6 * y); },
      [](double x, double) { return std::cos(3.14159e-6 * x); });
}

void BM_ShallowWaterStep(benchmark::State& state) {
  const int n = static_cast<int>(state.range(0)), threads = static_cast<int>(state.range(1));
  Runtime runtime(Target::preset("host", threads, 1), threads);
  ShallowWater model(runtime, periodic_grid(n, n, state.range(2) != 0));
  initialise(model);
  auto rk3 = make_integrator("rk3", model);
  rk3->step(model.state(), 100);  // warm the caches and the pool
  for (auto _ : state) rk3->step(model.state(), 100);
  const double points = static_cast<double>(n) * n;
  state.counters["points/s"] =
      benchmark::Counter(points, benchmark::Counter::kIsIterationInvariantRate);
  state.counters["bytes/s"] = benchmark::Counter(points * kKernelBytesPerPoint,
                                                 benchmark::Counter::kIsIterationInvariantRate);
}
BENCHMARK(BM_ShallowWaterStep)
    ->Args({1024, 1, 0})
    ->Args({1024, 2, 0})
    ->Args({1024, 1, 1})
    ->Args({1024, 2, 1})
    ->UseRealTime()
    ->Unit(benchmark::kMillisecond);

void BM_SimulatedStep(benchmark::State& state) {
  const int ipus = static_cast<int>(state.range(0)), n = static_cast<int>(state.range(1));
  Target target = Target::preset(ipus == 1 ? "gc200" : "pod16");
  Runtime runtime(target, 2);
  ShallowWater model(runtime, periodic_grid(n, n));
  initialise(model);
  auto rk3 = make_integrator("rk3", model);
  rk3->step(model.state(), 10);
  const double before = runtime.profile().simulated_seconds();
  int steps = 0;
  for (auto _ : state) {
    rk3->step(model.state(), 10);
    ++steps;
  }
  state.counters["sim_us_per_step"] =
      1e6 * (runtime.profile().simulated_seconds() - before) / steps;
  state.counters["sim_points/s"] =
      static_cast<double>(n) * n * steps / (runtime.profile().simulated_seconds() - before);
}
BENCHMARK(BM_SimulatedStep)
    ->Args({1, 512})
    ->Args({1, 1024})
    ->Args({16, 2048})
    ->Iterations(3)
    ->Unit(benchmark::kMillisecond);

}  // namespace
