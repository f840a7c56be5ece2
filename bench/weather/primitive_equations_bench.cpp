// The 3-D dynamical core's step throughput on the host target, next to a STREAM triad measured
// in the same run, and the simulated time per step on IPU targets.
//
//   BM_StreamTriad/T             bench/support/stream_triad.cpp.
//   BM_PrimitiveEquationsStep/D/T/H  one RK3 step of Jablonowski & Williamson's baroclinic wave
//                                (PrimitiveEquations, L26, polar filter at 60 degrees) at D/100
//                                degrees on the host target with T tiles and T threads; H = 1
//                                adds del^4 of 1e16 m^4/s and a sponge of 2.5e5 m^2/s in the
//                                top three layers. points/s = nlon x nlat x 26 per step; without
//                                diffusion, bytes/s = the doubles its loops stream per point and
//                                layer (kBytesPerPointLayer).
//   BM_PrimitiveEquationsSimulated/IPUS/D  the cost model's simulated seconds per step on gc200
//                                (1 IPU) or pod16 (16 IPUs) at D/100 degrees (sim_ms_per_step).
#include <benchmark/benchmark.h>

#include <cmath>
#include <numbers>

#include "tessera/core/runtime.hpp"
#include "tessera/weather/jablonowski_williamson.hpp"
#include "tessera/weather/primitive_equations.hpp"
#include "tessera/weather/time_integrator.hpp"

namespace {

using namespace tessera;
using namespace tessera::weather;

// Doubles each RK3 stage streams per point and layer, as the loops are written: mass fluxes
// and their divergence (u, v, U, V read; U, V, M written: 7), the column pass (M, T, u, v read;
// eta-dot dp, P, Phi, dT written; T read again bottom up: 9), Bernoulli function, vorticity and
// potential vorticity (Phi, u, v read twice, zeta read back; B, zeta, q written: 9), the
// momentum and temperature tendencies (u, v, T, their neighbours above and below, U, V, B, P,
// q, two interface fluxes and dT read; du, dv, dT written: 20) and the stage combination
// (three fields of q and k read, one written, for u, v, T: 9). 54 doubles per stage, 3 stages.
constexpr double kBytesPerPointLayer = 3 * 54 * 8;

AtmosphereConfig wave_config(double degrees, bool diffused = false) {
  const int nlon = static_cast<int>(std::lround(360 / degrees));
  AtmosphereConfig c = jablonowski_williamson::configuration(nlon, nlon / 2);
  c.polar_filter_latitude = 60 * std::numbers::pi / 180;
  if (diffused) c.hyperdiffusion = 1e16, c.sponge_layers = 3, c.sponge_diffusion = 2.5e5;
  return c;
}

void BM_PrimitiveEquationsStep(benchmark::State& state) {
  const double degrees = static_cast<double>(state.range(0)) / 100;
  const int threads = static_cast<int>(state.range(1));
  const bool diffused = state.range(2) != 0;
  Runtime runtime(Target::preset("host", threads, 1), threads);
  PrimitiveEquations model(runtime, wave_config(degrees, diffused));
  jablonowski_williamson::initialize(model);
  auto rk3 = make_integrator("rk3", model);
  rk3->step(model.state(), 100);  // warm the caches and the pool
  for (auto _ : state) rk3->step(model.state(), 100);
  const double points = static_cast<double>(model.config().nlon) * model.config().nlat *
                        static_cast<double>(model.layers());
  state.counters["points/s"] =
      benchmark::Counter(points, benchmark::Counter::kIsIterationInvariantRate);
  if (!diffused)
    state.counters["bytes/s"] = benchmark::Counter(points * kBytesPerPointLayer,
                                                   benchmark::Counter::kIsIterationInvariantRate);
}
BENCHMARK(BM_PrimitiveEquationsStep)
    ->Args({281, 1, 0})
    ->Args({281, 2, 0})
    ->Args({281, 2, 1})
    ->Args({100, 2, 0})
    ->UseRealTime()
    ->Unit(benchmark::kMillisecond);

void BM_PrimitiveEquationsSimulated(benchmark::State& state) {
  const int ipus = static_cast<int>(state.range(0));
  const double degrees = static_cast<double>(state.range(1)) / 100;
  Runtime runtime(Target::preset(ipus == 1 ? "gc200" : "pod16"), 2);
  PrimitiveEquations model(runtime, wave_config(degrees));
  jablonowski_williamson::initialize(model);
  auto rk3 = make_integrator("rk3", model);
  rk3->step(model.state(), 10);
  const double before = runtime.profile().simulated_seconds();
  int steps = 0;
  for (auto _ : state) {
    rk3->step(model.state(), 10);
    ++steps;
  }
  state.counters["sim_ms_per_step"] =
      1e3 * (runtime.profile().simulated_seconds() - before) / steps;
}
BENCHMARK(BM_PrimitiveEquationsSimulated)
    ->Args({1, 100})
    ->Args({16, 25})
    ->Iterations(2)
    ->Unit(benchmark::kMillisecond);

}  // namespace
