// Gradient cost of a log density against the log density itself, by automatic
// differentiation library (issue 14's choice between Stan Math and ADOL-C, docs/mcmc.md):
//
//   BM_Density       the log density in doubles: the anchor
//   BM_Forward       Eigen's forward-mode AutoDiffScalar (today's AutoDiffModel)
//   BM_StanReverse   Stan Math's reverse mode (stan::math::gradient) on the same code
//   BM_StanModel     the model through StanMathModel: declared parameters, Stan Math's
//                    distributions, reverse mode (what a user writes)
//   BM_AdolcRetape   ADOL-C: the density recorded on a tape and differentiated at each point
//                    (what a sampler must do when the density branches on the point)
//   BM_AdolcReplay   ADOL-C: one tape recorded once, replayed at each point (valid only
//                    while the control flow does not depend on the point)
//
// Models, each written once as a template over the scalar type: a hierarchical normal
// (eight schools' non-centred form grown to J groups: d = J + 2 = 100 and 1000), a
// Bernoulli-logit regression (d = 31, N = 1000) and GARCH(1,1) (d = 4, T = 200)
// (gradient_models.hpp). Each benchmark reports `ratio`: its time per call over the log
// density's in doubles, timed in the same run.
#include <benchmark/benchmark.h>

#include "gradient_models.hpp"
#include "tessera/mcmc/model.hpp"
#include "tessera/mcmc/stan_math_model.hpp"

namespace gradient_bench {
namespace {

// The hierarchical model as a user writes it with StanMathModel.
class HierarchicalStan final : public tessera::mcmc::StanMathModel<HierarchicalStan> {
 public:
  explicit HierarchicalStan(const Hierarchical& m)
      : y_(Eigen::Map<const Eigen::VectorXd>(m.y.data(), std::ssize(m.y))),
        sigma_(Eigen::Map<const Eigen::VectorXd>(m.sigma.data(), std::ssize(m.sigma))),
        eta_(params().vector("eta", static_cast<int>(m.y.size()))),
        mu_(params().real("mu")),
        tau_(params().real("tau", tessera::mcmc::lower(0.0))) {}
  std::string name() const override { return "hierarchical"; }
  template <class T>
  T log_density_t(const tessera::mcmc::Point<T>& p) const {
    using stan::math::cauchy_lpdf;
    using stan::math::normal_lpdf;
    const T mu = p[mu_], tau = p[tau_];
    const auto& eta = p[eta_];
    const Eigen::Matrix<T, Eigen::Dynamic, 1> theta = (tau * eta.array() + mu).matrix();
    return normal_lpdf<true>(eta, 0, 1) + normal_lpdf<true>(mu, 0, 5) +
           cauchy_lpdf<true>(tau, 0, 5) + normal_lpdf<true>(y_, theta, sigma_);
  }

 private:
  Eigen::VectorXd y_, sigma_;
  tessera::mcmc::VectorParameter eta_;
  tessera::mcmc::RealParameter mu_, tau_;
};

// Adapts a benchmark model to autodiff_gradient's log_density_t.
template <class M>
struct ForwardMode {
  const M& m;
  template <class T>
  T log_density_t(const Eigen::Matrix<T, Eigen::Dynamic, 1>& v) const {
    return m(v);
  }
};

template <class M>
void BM_Density(benchmark::State& state) {
  const M& m = model_for<M>(static_cast<int>(state.range(0)));
  const Vector x = Vector::Constant(m.dimension(), 0.1);
  report(state, m, seconds_per_call(state, [&] { benchmark::DoNotOptimize(m(x)); }));
}

template <class M>
void BM_Forward(benchmark::State& state) {
  const M& m = model_for<M>(static_cast<int>(state.range(0)));
  const Vector x = Vector::Constant(m.dimension(), 0.1);
  Vector g;
  const ForwardMode<M> wrap{m};
  report(state, m, seconds_per_call(state, [&] {
           benchmark::DoNotOptimize(tessera::mcmc::autodiff_gradient(wrap, x, g));
         }));
}

template <class M>
void BM_StanReverse(benchmark::State& state) {
  const M& m = model_for<M>(static_cast<int>(state.range(0)));
  const Vector x = Vector::Constant(m.dimension(), 0.1);
  Vector g;
  double lp;
  tessera::mcmc::use_thread_ad_tape();
  report(state, m, seconds_per_call(state, [&] {
           stan::math::gradient(m, x, lp, g);
           benchmark::DoNotOptimize(lp);
         }));
}

void BM_StanModel(benchmark::State& state) {
  const Hierarchical& m = model_for<Hierarchical>(static_cast<int>(state.range(0)));
  const HierarchicalStan model(m);
  const Vector x = Vector::Constant(m.dimension(), 0.1);
  Vector g;
  report(state, m, seconds_per_call(state, [&] {
           benchmark::DoNotOptimize(model.log_density_gradient(x, g));
         }));
}

#define EACH_BACKEND(M, d)                   \
  BENCHMARK_TEMPLATE(BM_Density, M)->Arg(d); \
  BENCHMARK_TEMPLATE(BM_Forward, M)->Arg(d); \
  BENCHMARK_TEMPLATE(BM_StanReverse, M)->Arg(d)

EACH_BACKEND(Hierarchical, 100);
BENCHMARK(BM_StanModel)->Arg(100);
EACH_BACKEND(Hierarchical, 1000);
BENCHMARK(BM_StanModel)->Arg(1000);
EACH_BACKEND(Logistic, 31);
EACH_BACKEND(Garch, 4);

}  // namespace
}  // namespace gradient_bench
