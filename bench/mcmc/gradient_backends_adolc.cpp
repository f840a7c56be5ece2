// ADOL-C's side of the gradient-backend benchmark (gradient_backends.cpp says what is
// measured): the same models on ADOL-C's tapes. Its own translation unit: ADOL-C and Stan
// Math cannot share one.
#include <adolc/adolc.h>
#include <benchmark/benchmark.h>

#include "gradient_models.hpp"

namespace gradient_bench {
namespace {

template <class M>
void record_tape(const M& m, short tag, const Vector& x) {
  const int d = m.dimension();
  trace_on(tag);
  Eigen::Matrix<adouble, Eigen::Dynamic, 1> ax(d);
  for (int i = 0; i < d; ++i) ax[i] <<= x[i];
  adouble lp = m(ax);
  double value;
  lp >>= value;
  trace_off();
}

// Recorded and differentiated at each point: what a sampler must do when the density
// branches on the point.
template <class M>
void BM_AdolcRetape(benchmark::State& state) {
  const M& m = model_for<M>(static_cast<int>(state.range(0)));
  const Vector x = Vector::Constant(m.dimension(), 0.1);
  Vector g(m.dimension());
  report(state, m, seconds_per_call(state, [&] {
           record_tape(m, 1, x);
           gradient(1, m.dimension(), x.data(), g.data());
           benchmark::DoNotOptimize(g.data());
         }));
}

// One tape recorded once and replayed at each point: valid only while the control flow
// does not depend on the point.
template <class M>
void BM_AdolcReplay(benchmark::State& state) {
  const M& m = model_for<M>(static_cast<int>(state.range(0)));
  const Vector x = Vector::Constant(m.dimension(), 0.1);
  Vector g(m.dimension());
  record_tape(m, 2, x);
  report(state, m, seconds_per_call(state, [&] {
           gradient(2, m.dimension(), x.data(), g.data());
           benchmark::DoNotOptimize(g.data());
         }));
}

#define EACH_ADOLC(M, d)                         \
  BENCHMARK_TEMPLATE(BM_AdolcRetape, M)->Arg(d); \
  BENCHMARK_TEMPLATE(BM_AdolcReplay, M)->Arg(d)

EACH_ADOLC(Hierarchical, 100);
EACH_ADOLC(Hierarchical, 1000);
EACH_ADOLC(Logistic, 31);
EACH_ADOLC(Garch, 4);

}  // namespace
}  // namespace gradient_bench
