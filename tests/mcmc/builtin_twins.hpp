// The built-in models of models.hpp written again through StanMathModel (declared parameters,
// Stan Math's distributions, reverse-mode gradients), from the same JSON data. The built-in
// models keep their analytic or forward-mode gradients where those are faster (measured by
// bench/mcmc/builtin_gradients); these twins show that both ways give the same log density and
// gradient (stan_math_model_test) and time the reverse mode against them.
//
// Each twin's unconstrained point has the built-in model's layout, and its `~` statements
// drop the constants the built-in model drops, so lp and gradient agree to rounding.
#pragma once

#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "tessera/mcmc/model.hpp"
#include "tessera/mcmc/stan_math_model.hpp"

namespace tessera::mcmc::testing {

class StdNormalTwin final : public StanMathModel<StdNormalTwin> {
 public:
  explicit StdNormalTwin(int n) : x_(params().vector("x", n)) {}
  std::string name() const override { return "std_normal (StanMathModel)"; }
  template <class T>
  T log_density_t(const Point<T>& p) const {
    return stan::math::std_normal_lpdf<true>(p[x_]);
  }

 private:
  VectorParameter x_;
};

// x ~ multi_normal_cholesky(0, L), L L' = S with S_ij = rho^|i-j|, as a Stan user writes it
// (O(N^2) per evaluation; the built-in model uses the tridiagonal precision, O(N)).
class CorrelatedGaussianTwin final : public StanMathModel<CorrelatedGaussianTwin> {
 public:
  CorrelatedGaussianTwin(int n, double rho)
      : x_(params().vector("x", n)), mean_(Eigen::VectorXd::Zero(n)) {
    Eigen::MatrixXd s(n, n);
    for (int i = 0; i < n; ++i)
      for (int j = 0; j < n; ++j) s(i, j) = std::pow(rho, std::abs(i - j));
    cholesky_ = s.llt().matrixL();
  }
  std::string name() const override { return "correlated_gaussian (StanMathModel)"; }
  template <class T>
  T log_density_t(const Point<T>& p) const {
    return stan::math::multi_normal_cholesky_lpdf<true>(p[x_], mean_, cholesky_);
  }

 private:
  VectorParameter x_;
  Eigen::VectorXd mean_;  // Stan Math 3.0 takes the location as a vector, not an expression
  Eigen::MatrixXd cholesky_;
};

class EightSchoolsTwin final : public StanMathModel<EightSchoolsTwin> {
 public:
  EightSchoolsTwin(std::vector<double> y, std::vector<double> sigma)
      : y_(std::move(y)),
        sigma_(std::move(sigma)),
        theta_trans_(params().vector("theta_trans", static_cast<int>(y_.size()))),
        mu_(params().real("mu")),
        tau_(params().real("tau", lower(0.0))) {}
  std::string name() const override { return "eight_schools_noncentered (StanMathModel)"; }
  template <class T>
  T log_density_t(const Point<T>& p) const {
    using stan::math::cauchy_lpdf;
    using stan::math::normal_lpdf;
    const T mu = p[mu_], tau = p[tau_];
    const auto& eta = p[theta_trans_];
    T lp =
        normal_lpdf<true>(eta, 0, 1) + normal_lpdf<true>(mu, 0, 5) + cauchy_lpdf<true>(tau, 0, 5);
    for (std::size_t j = 0; j < y_.size(); ++j)
      lp += normal_lpdf<true>(y_[j], mu + tau * eta[static_cast<Eigen::Index>(j)], sigma_[j]);
    return lp;
  }
  void quantities(const Point<double>& p, Quantities& out) const {
    out.add("theta", (p[mu_] + p[tau_] * p[theta_trans_].array()).eval());
  }

 private:
  std::vector<double> y_, sigma_;
  VectorParameter theta_trans_;
  RealParameter mu_, tau_;
};

class LogisticRegressionTwin final : public StanMathModel<LogisticRegressionTwin> {
 public:
  LogisticRegressionTwin(Eigen::MatrixXd x, std::vector<int> y)
      : x_(std::move(x)),
        y_(std::move(y)),
        alpha_(params().real("alpha")),
        beta_(params().vector("beta", static_cast<int>(x_.cols()))) {}
  std::string name() const override { return "logistic_regression (StanMathModel)"; }
  template <class T>
  T log_density_t(const Point<T>& p) const {
    using stan::math::normal_lpdf;
    const auto& beta = p[beta_];
    const T alpha = p[alpha_];
    return normal_lpdf<true>(alpha, 0, 5) + normal_lpdf<true>(beta, 0, 2.5) +
           stan::math::bernoulli_logit_lpmf<true>(
               y_, stan::math::add(alpha, stan::math::multiply(x_, beta)));
  }

 private:
  Eigen::MatrixXd x_;
  std::vector<int> y_;
  RealParameter alpha_;
  VectorParameter beta_;
};

// posteriordb's garch11, the upper bound of beta1 being 1 - alpha1.
class Garch11Twin final : public StanMathModel<Garch11Twin> {
 public:
  Garch11Twin(std::vector<double> y, double sigma1)
      : y_(std::move(y)),
        sigma1_(sigma1),
        mu_(params().real("mu")),
        alpha0_(params().real("alpha0", lower(0.0))),
        alpha1_(params().real("alpha1", lower_upper(0.0, 1.0))),
        beta1_(params().real("beta1", lower_upper(0.0, 1.0 - alpha1_))) {}
  std::string name() const override { return "garch11 (StanMathModel)"; }
  template <class T>
  T log_density_t(const Point<T>& p) const {
    const T mu = p[mu_], alpha0 = p[alpha0_], alpha1 = p[alpha1_], beta1 = p[beta1_];
    T sigma = sigma1_, lp = 0.0;
    for (std::size_t t = 0; t < y_.size(); ++t) {
      if (t > 0) {
        const T e = y_[t - 1] - mu;
        sigma = stan::math::sqrt(alpha0 + alpha1 * e * e + beta1 * sigma * sigma);
      }
      lp += stan::math::normal_lpdf<true>(y_[t], mu, sigma);
    }
    return lp;
  }

 private:
  std::vector<double> y_;
  double sigma1_;
  RealParameter mu_, alpha0_, alpha1_, beta1_;
};

// The Stan User's Guide's non-centred stochastic volatility model (mcmc_ipu's built-in).
class StochasticVolatilityTwin final : public StanMathModel<StochasticVolatilityTwin> {
 public:
  explicit StochasticVolatilityTwin(std::vector<double> y)
      : y_(std::move(y)),
        mu_(params().real("mu")),
        phi_(params().real("phi", lower_upper(-1.0, 1.0))),
        sigma_(params().real("sigma", lower(0.0))),
        z_(params().vector("z", static_cast<int>(y_.size()))) {}
  std::string name() const override { return "stochastic_volatility (StanMathModel)"; }
  template <class T>
  T log_density_t(const Point<T>& p) const {
    using stan::math::normal_lpdf;
    const T mu = p[mu_], phi = p[phi_], sigma = p[sigma_];
    const auto& z = p[z_];
    T lp = stan::math::cauchy_lpdf<true>(mu, 0, 10) + stan::math::cauchy_lpdf<true>(sigma, 0, 5) +
           stan::math::std_normal_lpdf<true>(z);
    T h = mu + sigma * z[0] / stan::math::sqrt(1.0 - phi * phi);
    for (std::size_t t = 0; t < y_.size(); ++t) {
      if (t > 0) h = mu + phi * (h - mu) + sigma * z[static_cast<Eigen::Index>(t)];
      lp += normal_lpdf<true>(y_[t], 0, stan::math::exp(h / 2));
    }
    return lp;
  }

 private:
  std::vector<double> y_;
  RealParameter mu_, phi_, sigma_;
  VectorParameter z_;
};

// The twin of built-in model `name` from the data make_model() takes.
inline std::unique_ptr<Model> stan_math_twin(const std::string& name, const nlohmann::json& data) {
  const auto reals = [&](const char* field) { return data.at(field).get<std::vector<double>>(); };
  if (name == "std_normal") return std::make_unique<StdNormalTwin>(data.at("N").get<int>());
  if (name == "correlated_gaussian")
    return std::make_unique<CorrelatedGaussianTwin>(data.at("N").get<int>(),
                                                    data.at("rho").get<double>());
  if (name == "eight_schools_noncentered")
    return std::make_unique<EightSchoolsTwin>(reals("y"), reals("sigma"));
  if (name == "logistic_regression") {
    const auto rows = data.at("x").get<std::vector<std::vector<double>>>();
    Eigen::MatrixXd x(static_cast<Eigen::Index>(rows.size()),
                      static_cast<Eigen::Index>(rows.at(0).size()));
    for (std::size_t n = 0; n < rows.size(); ++n)
      for (std::size_t k = 0; k < rows[n].size(); ++k)
        x(static_cast<Eigen::Index>(n), static_cast<Eigen::Index>(k)) = rows[n][k];
    return std::make_unique<LogisticRegressionTwin>(std::move(x),
                                                    data.at("y").get<std::vector<int>>());
  }
  if (name == "garch11")
    return std::make_unique<Garch11Twin>(reals("y"), data.at("sigma1").get<double>());
  if (name == "stochastic_volatility")
    return std::make_unique<StochasticVolatilityTwin>(reals("y"));
  return nullptr;
}

}  // namespace tessera::mcmc::testing
