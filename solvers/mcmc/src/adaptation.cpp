#include "tessera/mcmc/adaptation.hpp"

#include <algorithm>
#include <cmath>

namespace tessera::mcmc {

double DualAveraging::learn(double accept_stat) {
  counter_ += 1;
  accept_stat = std::min(1.0, accept_stat);
  const double eta = 1.0 / (counter_ + t0_);
  s_bar_ = (1.0 - eta) * s_bar_ + eta * (delta_ - accept_stat);
  const double x = mu_ - s_bar_ * std::sqrt(counter_) / gamma_;
  const double x_eta = std::pow(counter_, -kappa_);
  x_bar_ = (1.0 - x_eta) * x_bar_ + x_eta * x;
  return std::exp(x);
}

double DualAveraging::final_step_size() const { return std::exp(x_bar_); }

AdaptationWindows::AdaptationWindows(int warmup, int init_buffer, int term_buffer, int base_window)
    : warmup_(warmup),
      init_buffer_(init_buffer),
      term_buffer_(term_buffer),
      base_window_(base_window) {
  if (warmup < 20) {
    enabled_ = false;
  } else if (init_buffer + term_buffer + base_window > warmup) {
    init_buffer_ = static_cast<int>(0.15 * warmup);
    term_buffer_ = static_cast<int>(0.1 * warmup);
    base_window_ = warmup - (init_buffer_ + term_buffer_);
  }
  window_size_ = base_window_;
  next_window_ = init_buffer_ + window_size_ - 1;
}

bool AdaptationWindows::in_window() const {
  return counter_ >= init_buffer_ && counter_ < warmup_ - term_buffer_ && counter_ != warmup_;
}

bool AdaptationWindows::window_end() const {
  return counter_ == next_window_ && counter_ != warmup_;
}

void AdaptationWindows::next_window() {
  const int last = warmup_ - term_buffer_ - 1;
  if (next_window_ == last) return;
  window_size_ *= 2;
  next_window_ = counter_ + window_size_;
  // A window that would leave less than its double before the terminal buffer absorbs the rest.
  if (next_window_ != last && next_window_ + 2 * window_size_ >= warmup_ - term_buffer_)
    next_window_ = last;
}

WindowedVariance::WindowedVariance(int dimension, int warmup, int init_buffer, int term_buffer,
                                   int base_window)
    : AdaptationWindows(warmup, init_buffer, term_buffer, base_window),
      mean_(Vector::Zero(dimension)),
      m2_(Vector::Zero(dimension)) {}

bool WindowedVariance::learn(const Vector& q, Vector& inverse_metric) {
  return iterate(
      [&] {
        ++n_;
        const Vector delta = q - mean_;
        mean_ += delta / n_;
        m2_ += delta.cwiseProduct(q - mean_);
      },
      [&] {
        const double n = n_;
        const Vector variance = n > 1 ? Vector(m2_ / (n - 1.0)) : Vector::Ones(q.size());
        inverse_metric = (n / (n + 5.0)) * variance.array() + 1e-3 * (5.0 / (n + 5.0));
        n_ = 0;
        mean_.setZero();
        m2_.setZero();
      });
}

WindowedCovariance::WindowedCovariance(int dimension, int warmup, int init_buffer, int term_buffer,
                                       int base_window)
    : AdaptationWindows(warmup, init_buffer, term_buffer, base_window),
      mean_(Vector::Zero(dimension)),
      m2_(Matrix::Zero(dimension, dimension)) {}

bool WindowedCovariance::learn(const Vector& q, Matrix& inverse_metric) {
  return iterate(
      [&] {
        // Welford's update of the co-moment matrix (Stan's welford_covar_estimator.hpp).
        ++n_;
        const Vector delta = q - mean_;
        mean_ += delta / n_;
        m2_ += (q - mean_) * delta.transpose();
      },
      [&] {
        const double n = n_;
        const auto d = q.size();
        Matrix covariance = n > 1 ? Matrix(m2_ / (n - 1.0)) : Matrix::Identity(d, d);
        // Welford's co-moment (q - mean_new)(q - mean_old)^T is symmetric only up to rounding;
        // the kinetic energy and its gradient M^-1 p must use the same, exactly symmetric
        // matrix.
        covariance = 0.5 * (covariance + covariance.transpose()).eval();
        inverse_metric = (n / (n + 5.0)) * covariance;
        inverse_metric.diagonal().array() += 1e-3 * (5.0 / (n + 5.0));
        n_ = 0;
        mean_.setZero();
        m2_.setZero();
      });
}

}  // namespace tessera::mcmc
