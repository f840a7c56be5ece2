// Stan's warm-up adaptation (Stan Reference Manual, "HMC algorithm parameters";
// stan/mcmc/stepsize_adaptation.hpp, windowed_adaptation.hpp, var_adaptation.hpp).
//
// DualAveraging: Nesterov's dual averaging as in Hoffman & Gelman (2014), Alg. 5,
// with Stan's defaults gamma = 0.05, t0 = 10, kappa = 0.75 and mu = log(10 eps0).
// WindowedVariance: the diagonal inverse metric estimated over doubling windows
// after an initial buffer (75 iterations), ending before a terminal buffer (50),
// first window 25; each estimate is shrunk towards 1e-3 as Stan does.
// WindowedCovariance: the same windows for the dense inverse metric (Stan's
// covar_adaptation.hpp): at each window end the Welford sample covariance Sigma of
// the window's n draws becomes (n / (n + 5)) Sigma + 1e-3 (5 / (n + 5)) I.
// SimpleStepSize: TensorFlow Probability's make_simple_step_size_update_policy (the
// policy of Graphcore's MCMC benchmark; after Andrieu & Thoms 2008, section 4.2): after each
// transition the step size grows by the factor (1 + increment) when the acceptance
// probability reached the target, and shrinks by (1 - decrement / (1 + decrement)) when not.
#pragma once

#include "tessera/mcmc/model.hpp"

namespace tessera::mcmc {

class DualAveraging {
 public:
  explicit DualAveraging(double delta, double gamma = 0.05, double t0 = 10, double kappa = 0.75)
      : delta_(delta), gamma_(gamma), t0_(t0), kappa_(kappa) {}
  void set_mu(double mu) { mu_ = mu; }
  void restart() { counter_ = 0, s_bar_ = 0, x_bar_ = 0; }
  // The next step size, given the acceptance statistic of the last transition.
  double learn(double accept_stat);
  // The step size to sample with once adaptation ends: exp(x_bar).
  double final_step_size() const;

 private:
  double delta_, gamma_, t0_, kappa_;
  double mu_ = 0.5;
  double counter_ = 0, s_bar_ = 0, x_bar_ = 0;
};

class SimpleStepSize {
 public:
  // TFP's defaults as Graphcore's benchmark sets them: increment 0.01, decrement 0.1.
  explicit SimpleStepSize(double target, double increment = 0.01, double decrement = 0.1)
      : target_(target), increment_(increment), decrement_(decrement) {}
  // The next step size, given the current one and the last acceptance probability.
  double learn(double step_size, double accept_prob) const {
    return accept_prob < target_ ? step_size * (1.0 - decrement_ / (1.0 + decrement_))
                                 : step_size * (1.0 + increment_);
  }

 private:
  double target_, increment_, decrement_;
};

// Stan's windowed_adaptation.hpp: the schedule shared by the diagonal and dense estimators.
class AdaptationWindows {
 protected:
  // Stan's windows for `warmup` iterations (scaled to 15%/75%/10% when the defaults do
  // not fit; no metric adaptation below 20 iterations).
  AdaptationWindows(int warmup, int init_buffer, int term_buffer, int base_window);
  bool in_window() const;
  bool window_end() const;
  void next_window();
  // One warm-up iteration of an estimator: add() when the iteration lies in a window; at a
  // window's end, estimate() (which also restarts the estimator) and true.
  template <class Add, class Estimate>
  bool iterate(Add&& add, Estimate&& estimate) {
    if (!enabled_) return false;
    if (in_window()) add();
    const bool end = window_end();
    if (end) {
      next_window();
      estimate();
    }
    ++counter_;
    return end;
  }
  int warmup_, init_buffer_, term_buffer_, base_window_;
  bool enabled_ = true;
  int counter_ = 0, window_size_ = 0, next_window_ = 0;
};

class WindowedVariance : private AdaptationWindows {
 public:
  WindowedVariance(int dimension, int warmup, int init_buffer = 75, int term_buffer = 50,
                   int base_window = 25);
  // Adds the draw of this warm-up iteration; true when a window just ended and
  // `inverse_metric` received a new estimate.
  bool learn(const Vector& q, Vector& inverse_metric);

 private:
  // Welford's running mean and sum of squared deviations
  int n_ = 0;
  Vector mean_, m2_;
};

class WindowedCovariance : private AdaptationWindows {
 public:
  WindowedCovariance(int dimension, int warmup, int init_buffer = 75, int term_buffer = 50,
                     int base_window = 25);
  // As WindowedVariance::learn, for the full inverse metric.
  bool learn(const Vector& q, Matrix& inverse_metric);

 private:
  // Welford's running mean and sum of outer products of deviations
  int n_ = 0;
  Vector mean_;
  Matrix m2_;
};

}  // namespace tessera::mcmc
