// The models of the gradient-backend benchmark (gradient_backends.cpp), each written once
// as a template over the scalar type, and the timing it reports them with. A header of its
// own because ADOL-C and Stan Math cannot share a translation unit (both declare a global
// `forward`).
#pragma once

#include <benchmark/benchmark.h>

#include <Eigen/Core>
#include <chrono>
#include <cmath>
#include <map>
#include <random>
#include <string>
#include <vector>

namespace gradient_bench {

using Vector = Eigen::VectorXd;

inline std::vector<double> normal_draws(std::size_t n, unsigned seed, double scale) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> normal(0.0, scale);
  std::vector<double> out(n);
  for (double& v : out) v = normal(rng);
  return out;
}

// x = (eta[1..J], mu, log tau): eta ~ N(0, 1), y_j ~ N(mu + tau eta_j, sigma_j),
// mu ~ N(0, 5), tau ~ half-Cauchy(0, 5).
struct Hierarchical {
  explicit Hierarchical(int groups)
      : y(normal_draws(static_cast<std::size_t>(groups), 1, 10.0)),
        sigma(static_cast<std::size_t>(groups), 12.0) {}
  int dimension() const { return static_cast<int>(y.size()) + 2; }
  template <class T>
  T operator()(const Eigen::Matrix<T, Eigen::Dynamic, 1>& x) const {
    using std::exp;
    using std::log;
    const Eigen::Index J = static_cast<Eigen::Index>(y.size());
    const T mu = x[J], log_tau = x[J + 1], tau = exp(log_tau);
    T lp = log_tau - 0.5 * (mu / 5.0) * (mu / 5.0) - log(1.0 + (tau / 5.0) * (tau / 5.0));
    for (Eigen::Index j = 0; j < J; ++j) {
      const std::size_t k = static_cast<std::size_t>(j);
      const T r = (y[k] - (mu + tau * x[j])) / sigma[k];
      lp -= 0.5 * x[j] * x[j] + 0.5 * r * r;
    }
    return lp;
  }
  std::vector<double> y, sigma;
};

// x = (alpha, beta[1..K]): y_n ~ Bernoulli(inv_logit(alpha + X_n beta)), alpha ~ N(0, 5),
// beta ~ N(0, 2.5). Branch-free softplus, so that one ADOL-C tape serves every point.
struct Logistic {
  Logistic() : X(1000, 30), y(1000) {
    const std::vector<double> v = normal_draws(30000, 2, 1.0);
    for (int n = 0; n < 1000; ++n)
      for (int k = 0; k < 30; ++k) X(n, k) = v[static_cast<std::size_t>(n * 30 + k)];
    for (int n = 0; n < 1000; ++n) y[n] = (X(n, 0) + 0.5 * X(n, 1) > 0) ? 1.0 : 0.0;
  }
  int dimension() const { return 31; }
  template <class T>
  T operator()(const Eigen::Matrix<T, Eigen::Dynamic, 1>& p) const {
    using std::exp;
    using std::log;
    T lp = -0.5 * (p[0] / 5.0) * (p[0] / 5.0);
    for (int k = 1; k <= 30; ++k) lp -= 0.5 * (p[k] / 2.5) * (p[k] / 2.5);
    for (Eigen::Index n = 0; n < X.rows(); ++n) {
      T eta = p[0];
      for (int k = 0; k < 30; ++k) eta += X(n, k) * p[k + 1];
      lp += y[n] * eta - log(1.0 + exp(eta));
    }
    return lp;
  }
  Eigen::MatrixXd X;
  Eigen::VectorXd y;
};

// x = (mu, log alpha0, logit alpha1, logit beta1) with flat priors, sigma_1 = 1.
struct Garch {
  Garch() : y(normal_draws(200, 3, 1.0)) {}
  int dimension() const { return 4; }
  template <class T>
  T operator()(const Eigen::Matrix<T, Eigen::Dynamic, 1>& x) const {
    using std::exp;
    using std::log;
    using std::sqrt;
    const T mu = x[0], alpha0 = exp(x[1]), alpha1 = 1.0 / (1.0 + exp(-x[2])),
            beta1 = (1.0 - alpha1) / (1.0 + exp(-x[3]));
    T lp = x[1] + log(alpha1) + log(1.0 - alpha1) + log(beta1) + log(1.0 - alpha1 - beta1) -
           log(1.0 - alpha1);
    T sigma = T(1.0);
    for (std::size_t t = 0; t < y.size(); ++t) {
      if (t > 0) {
        const T e = y[t - 1] - mu;
        sigma = sqrt(alpha0 + alpha1 * e * e + beta1 * sigma * sigma);
      }
      const T r = (y[t] - mu) / sigma;
      lp -= log(sigma) + 0.5 * r * r;
    }
    return lp;
  }
  std::vector<double> y;
};

template <class M>
const M& model_for(int size) {
  static std::map<int, M> models;
  if constexpr (std::is_same_v<M, Hierarchical>)
    return models.try_emplace(size, size - 2).first->second;
  else
    return models.try_emplace(size).first->second;
}

template <class F>
double seconds_per_call(benchmark::State& state, F&& f) {
  const auto start = std::chrono::steady_clock::now();
  for (auto _ : state) f();
  const std::chrono::duration<double> elapsed = std::chrono::steady_clock::now() - start;
  return elapsed.count() / static_cast<double>(state.iterations());
}

// Seconds per log-density evaluation in doubles: the anchor, timed once per model in this
// run (0.2 s of calls) before the first ratio that needs it.
template <class M>
double density_seconds(const M& m) {
  static std::map<const M*, double> measured;
  const auto it = measured.find(&m);
  if (it != measured.end()) return it->second;
  const Vector x = Vector::Constant(m.dimension(), 0.1);
  long calls = 0;
  const auto start = std::chrono::steady_clock::now();
  std::chrono::duration<double> elapsed{};
  do {
    for (int i = 0; i < 100; ++i) benchmark::DoNotOptimize(m(x));
    calls += 100;
    elapsed = std::chrono::steady_clock::now() - start;
  } while (elapsed.count() < 0.2);
  return measured[&m] = elapsed.count() / static_cast<double>(calls);
}

// The counters each benchmark reports: d, and its time per call over the density's.
template <class M>
void report(benchmark::State& state, const M& m, double seconds) {
  state.counters["d"] = m.dimension();
  state.counters["ratio"] = seconds / density_seconds(m);
}

}  // namespace gradient_bench
