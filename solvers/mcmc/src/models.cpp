#include "tessera/mcmc/models.hpp"

#include <charconv>
#include <cmath>
#include <numbers>
#include <sstream>

#include "stan_names.hpp"
#include "tessera/core/error.hpp"
#include "tessera/core/json_file.hpp"

namespace tessera::mcmc {

// A log-density term and its derivative: a handful of double operations (5) on a
// coordinate and its data, which the IPU emulates (it has no FP64 unit).
KernelWork Model::gradient_work() const {
  KernelWork w;
  w.flops_fp64 = 5;
  w.bytes_loaded = 16;
  w.bytes_stored = 8;
  w.value_bytes = 8;
  return w;
}

KernelWork leapfrog_work() {
  KernelWork w;
  w.flops_fp64 = 4;
  w.bytes_loaded = 24;
  w.bytes_stored = 16;
  w.value_bytes = 8;
  return w;
}

Vector Model::unconstrain(std::span<const double>) const {
  throw ConfigError("model " + name() + " does not define unconstrain(), which initial values " +
                    "from a file need; give an --init radius instead, or add unconstrain() to " +
                    "the model");
}

std::vector<double> Model::parameter_block_values(const Vector& x) const {
  std::vector<double> values = constrain(x);
  values.resize(parameter_block_names().size());
  return values;
}

double lower_bounded_inverse(double value, double lower, const std::string& name) {
  if (!(value > lower) || !std::isfinite(value))
    throw SupportError(name, "= " + number_text(value) + " lies outside its support (" +
                                 number_text(lower) + ", inf)");
  return std::log(value - lower);
}

double bounded_inverse(double value, double lower, double upper, const std::string& name) {
  if (!(value > lower && value < upper))
    throw SupportError(name, "= " + number_text(value) + " lies outside its support (" +
                                 number_text(lower) + ", " + number_text(upper) + ")");
  const double p = (value - lower) / (upper - lower);
  return std::log(p) - std::log1p(-p);
}

std::vector<double> simplex_inverse(const std::vector<double>& x, const std::string& name) {
  double total = 0;
  for (std::size_t k = 0; k < x.size(); ++k) {
    if (!(x[k] > 0) || !std::isfinite(x[k]))
      throw SupportError(name + "[" + std::to_string(k + 1) + "]",
                         "= " + number_text(x[k]) + " must be positive (a simplex)");
    total += x[k];
  }
  if (x.size() < 2 || std::abs(total - 1.0) > 1e-8)
    throw SupportError(name, "sums to " + number_text(total) + ", not 1 (a simplex of " +
                                 std::to_string(x.size()) + " entries)");
  const std::size_t k_minus_1 = x.size() - 1;
  std::vector<double> u(k_minus_1);
  double stick = 1.0;
  for (std::size_t k = 0; k < k_minus_1; ++k) {
    const double z = x[k] / stick;
    u[k] = std::log(z) - std::log1p(-z) + std::log(static_cast<double>(k_minus_1 - k));
    stick -= x[k];
  }
  return u;
}

namespace {

// Appends name[1] .. name[n], Stan's names of a vector's elements.
void append_indexed(std::vector<std::string>& names, const std::string& name, std::size_t n) {
  for (std::size_t i = 1; i <= n; ++i) names.push_back(name + "[" + std::to_string(i) + "]");
}

// Reading data fields, with errors that name the source and the field.
class Data {
 public:
  Data(const nlohmann::json& json, std::string source, std::string model)
      : json_(json), source_(std::move(source)), model_(std::move(model)) {
    if (!json_.is_object())
      throw FormatError("data '" + source_ + "' for model " + model_ + " is not a JSON object");
  }
  bool has(const std::string& field) const { return json_.contains(field); }
  [[noreturn]] void fail(const std::string& field, const std::string& what) const {
    throw FormatError("data '" + source_ + "' for model " + model_ + ": field '" + field + "' " +
                      what);
  }
  const nlohmann::json& field(const std::string& name) const {
    if (!json_.contains(name)) fail(name, "is missing");
    return json_.at(name);
  }
  double number(const std::string& name, const nlohmann::json& v, const std::string& where) const {
    if (!v.is_number()) fail(name, where + "is not a number (" + v.dump() + ")");
    const double x = v.get<double>();
    if (!std::isfinite(x)) fail(name, where + "is not finite");
    return x;
  }
  double real(const std::string& name) const { return number(name, field(name), ""); }
  int integer(const std::string& name, int min) const {
    const nlohmann::json& v = field(name);
    if (!v.is_number_integer()) fail(name, "must be an integer, not " + v.dump());
    const long long n = v.get<long long>();
    if (n < min || n > 100000000)
      fail(name, "is " + std::to_string(n) + "; it must be at least " + std::to_string(min));
    return static_cast<int>(n);
  }
  std::vector<double> vector(const std::string& name, std::size_t n, const std::string& size_name,
                             double lower = -INFINITY) const {
    const nlohmann::json& v = field(name);
    if (!v.is_array()) fail(name, "must be an array of " + std::to_string(n) + " numbers");
    if (v.size() != n)
      fail(name, "has " + std::to_string(v.size()) + " values but " + size_name + " = " +
                     std::to_string(n));
    std::vector<double> out(n);
    for (std::size_t i = 0; i < n; ++i) {
      out[i] = number(name, v[i], "element " + std::to_string(i + 1) + " ");
      if (out[i] < lower)
        fail(name, "element " + std::to_string(i + 1) + " is " + std::to_string(out[i]) +
                       "; it must be at least " + std::to_string(lower));
    }
    return out;
  }

 private:
  const nlohmann::json& json_;
  std::string source_, model_;
};

// The length check every unconstrain() starts with.
void expect_length(const Model& model, std::span<const double> values) {
  const std::size_t n = model.parameter_block_names().size();
  if (values.size() != n)
    throw ConfigError(model.name() + ": unconstrain() takes the " + std::to_string(n) +
                      " values of the parameters block, not " + std::to_string(values.size()));
}

// An unconstrained real parameter's value: any finite number.
double real_value(double value, const std::string& name) {
  if (!std::isfinite(value)) throw SupportError(name, "= " + number_text(value) + " is not finite");
  return value;
}

// The parameters block's values as they are, each checked by real_value; the caller then
// transforms the constrained entries.
Vector identity(const Model& model, std::span<const double> values) {
  expect_length(model, values);
  const std::vector<std::string> names = model.parameter_block_names();
  Vector x(static_cast<Eigen::Index>(values.size()));
  for (std::size_t i = 0; i < values.size(); ++i)
    x[static_cast<Eigen::Index>(i)] = real_value(values[i], names[i]);
  return x;
}

double log1p_exp(double x) {
  return x > 0 ? x + std::log1p(std::exp(-x)) : std::log1p(std::exp(x));
}

class StdNormal final : public AutoDiffModel<StdNormal> {
 public:
  explicit StdNormal(int n) : n_(n) {}
  std::string name() const override { return "std_normal"; }
  int dimension() const override { return n_; }
  std::vector<std::string> parameter_names() const override {
    std::vector<std::string> names;
    append_indexed(names, "x", static_cast<std::size_t>(n_));
    return names;
  }
  template <class T>
  T log_density_t(const Eigen::Matrix<T, Eigen::Dynamic, 1>& x) const {
    T lp = T(0.0);
    for (Eigen::Index i = 0; i < x.size(); ++i) lp -= 0.5 * x[i] * x[i];
    return lp;
  }
  double analytic_gradient(const Vector& x, Vector& g) const {
    g = -x;
    return -0.5 * x.squaredNorm();
  }
  std::vector<double> constrain(const Vector& x) const override {
    return {x.data(), x.data() + x.size()};
  }
  Vector unconstrain(std::span<const double> values) const override {
    return identity(*this, values);
  }

 private:
  int n_;
};

// N(0, S) with S_ij = rho^|i-j| (an AR(1) correlation matrix): every marginal is N(0, 1),
// and the precision S^-1 is tridiagonal, (1 - rho^2)^-1 times diag(1, 1 + rho^2, ..., 1 + rho^2, 1)
// with -rho off the diagonal, so the density costs O(N).
class CorrelatedGaussian final : public AutoDiffModel<CorrelatedGaussian> {
 public:
  CorrelatedGaussian(int n, double rho) : n_(n), rho_(rho) {}
  std::string name() const override { return "correlated_gaussian"; }
  int dimension() const override { return n_; }
  std::vector<std::string> parameter_names() const override {
    std::vector<std::string> names;
    append_indexed(names, "x", static_cast<std::size_t>(n_));
    return names;
  }
  template <class T>
  T log_density_t(const Eigen::Matrix<T, Eigen::Dynamic, 1>& x) const {
    const Eigen::Index n = x.size();
    T q = T(0.0);
    for (Eigen::Index i = 0; i < n; ++i)
      q += (i == 0 || i == n - 1 ? 1.0 : 1.0 + rho_ * rho_) * x[i] * x[i];
    if (n == 1) q = x[0] * x[0] * (1.0 - rho_ * rho_);
    for (Eigen::Index i = 0; i + 1 < n; ++i) q -= 2.0 * rho_ * x[i] * x[i + 1];
    return -0.5 * q / (1.0 - rho_ * rho_);
  }
  double analytic_gradient(const Vector& x, Vector& g) const {
    const Eigen::Index n = x.size();
    const double s = 1.0 / (1.0 - rho_ * rho_);
    g.resize(n);
    double lp = 0;
    for (Eigen::Index i = 0; i < n; ++i) {
      const double diagonal =
          n == 1 ? 1.0 - rho_ * rho_ : (i == 0 || i == n - 1 ? 1.0 : 1.0 + rho_ * rho_);
      double qx = diagonal * x[i];
      if (i > 0) qx -= rho_ * x[i - 1];
      if (i + 1 < n) qx -= rho_ * x[i + 1];
      g[i] = -s * qx;
      lp -= 0.5 * s * qx * x[i];
    }
    return lp;
  }
  std::vector<double> constrain(const Vector& x) const override {
    return {x.data(), x.data() + x.size()};
  }
  Vector unconstrain(std::span<const double> values) const override {
    return identity(*this, values);
  }

 private:
  int n_;
  double rho_;
};

// Goodman & Weare (2010), "Ensemble samplers with affine invariance", eq. (18):
// p(x1, x2) ~ exp(-(100 (x2 - x1^2)^2 + (1 - x1)^2) / 20). Exactly: x1 ~ N(1, 10),
// x2 | x1 ~ N(x1^2, 1/10), so E x2 = 11 and Var x2 = 240.1.
class Rosenbrock final : public AutoDiffModel<Rosenbrock, 2> {
 public:
  std::string name() const override { return "rosenbrock"; }
  int dimension() const override { return 2; }
  std::vector<std::string> parameter_names() const override { return {"x[1]", "x[2]"}; }
  template <class T>
  T log_density_t(const Eigen::Matrix<T, Eigen::Dynamic, 1>& x) const {
    const T a = x[1] - x[0] * x[0];
    const T b = 1.0 - x[0];
    return -(100.0 * a * a + b * b) / 20.0;
  }
  double analytic_gradient(const Vector& x, Vector& g) const {
    const double a = x[1] - x[0] * x[0], b = 1.0 - x[0];
    g.resize(2);
    g[0] = (400.0 * x[0] * a + 2.0 * b) / 20.0;
    g[1] = -10.0 * a;
    return -(100.0 * a * a + b * b) / 20.0;
  }
  std::vector<double> constrain(const Vector& x) const override { return {x[0], x[1]}; }
  Vector unconstrain(std::span<const double> values) const override {
    return identity(*this, values);
  }
};

// posteriordb eight_schools_noncentered: theta = mu + tau * theta_trans,
// theta_trans ~ N(0, 1), y ~ N(theta, sigma), mu ~ N(0, 5), tau ~ Cauchy+(0, 5).
// x = (theta_trans[1..J], mu, log tau).
class EightSchools final : public AutoDiffModel<EightSchools> {
 public:
  EightSchools(std::vector<double> y, std::vector<double> sigma)
      : y_(std::move(y)), sigma_(std::move(sigma)) {}
  std::string name() const override { return "eight_schools_noncentered"; }
  int dimension() const override { return static_cast<int>(y_.size()) + 2; }
  std::vector<std::string> parameter_names() const override {
    std::vector<std::string> names;
    append_indexed(names, "theta_trans", y_.size());
    names.push_back("mu");
    names.push_back("tau");
    append_indexed(names, "theta", y_.size());
    return names;
  }
  template <class T>
  T log_density_t(const Eigen::Matrix<T, Eigen::Dynamic, 1>& x) const {
    using std::log;
    const Eigen::Index J = static_cast<Eigen::Index>(y_.size());
    T lp = T(0.0);
    const T mu = x[J];
    const T tau = lower_bounded(x[J + 1], 0.0, lp);
    for (Eigen::Index j = 0; j < J; ++j) {
      const T theta = mu + tau * x[j];
      const T r = (y_[static_cast<std::size_t>(j)] - theta) / sigma_[static_cast<std::size_t>(j)];
      lp -= 0.5 * x[j] * x[j] + 0.5 * r * r;
    }
    lp -= 0.5 * (mu / 5.0) * (mu / 5.0);
    lp -= log(1.0 + (tau / 5.0) * (tau / 5.0));
    return lp;
  }
  std::vector<double> constrain(const Vector& x) const override {
    const std::size_t J = y_.size();
    std::vector<double> out(x.data(), x.data() + J);
    const double mu = x[static_cast<Eigen::Index>(J)],
                 tau = std::exp(x[static_cast<Eigen::Index>(J) + 1]);
    out.push_back(mu);
    out.push_back(tau);
    for (std::size_t j = 0; j < J; ++j) out.push_back(mu + tau * x[static_cast<Eigen::Index>(j)]);
    return out;
  }
  // The parameters block is (theta_trans, mu, tau); theta is a transformed parameter.
  std::vector<std::string> parameter_block_names() const override {
    std::vector<std::string> names = parameter_names();
    names.resize(y_.size() + 2);
    return names;
  }
  Vector unconstrain(std::span<const double> values) const override {
    Vector x = identity(*this, values);
    x[x.size() - 1] = lower_bounded_inverse(values.back(), 0.0, "tau");
    return x;
  }

 private:
  std::vector<double> y_, sigma_;
};

// Bernoulli-logit regression: y_n ~ Bernoulli(inv_logit(alpha + x_n . beta)),
// alpha ~ N(0, 5), beta_k ~ N(0, 2.5). x = (alpha, beta[1..K]).
class LogisticRegression final : public AutoDiffModel<LogisticRegression> {
 public:
  LogisticRegression(int k, Eigen::MatrixXd x, Eigen::VectorXd y)
      : k_(k), x_(std::move(x)), y_(std::move(y)) {}
  std::string name() const override { return "logistic_regression"; }
  int dimension() const override { return k_ + 1; }
  std::vector<std::string> parameter_names() const override {
    std::vector<std::string> names{"alpha"};
    append_indexed(names, "beta", static_cast<std::size_t>(k_));
    return names;
  }
  template <class T>
  T log_density_t(const Eigen::Matrix<T, Eigen::Dynamic, 1>& p) const {
    using std::exp;
    using std::log;
    T lp = -0.5 * (p[0] / 5.0) * (p[0] / 5.0);
    for (int k = 1; k <= k_; ++k) lp -= 0.5 * (p[k] / 2.5) * (p[k] / 2.5);
    for (Eigen::Index n = 0; n < x_.rows(); ++n) {
      T eta = p[0];
      for (int k = 0; k < k_; ++k) eta += x_(n, k) * p[k + 1];
      // log(1 + exp(eta)) without overflow
      const T softplus = eta > 0.0 ? T(eta + log(1.0 + exp(-eta))) : T(log(1.0 + exp(eta)));
      lp += y_[n] * eta - softplus;
    }
    return lp;
  }
  double analytic_gradient(const Vector& p, Vector& g) const {
    g.resize(k_ + 1);
    g[0] = -p[0] / 25.0;
    g.tail(k_) = -p.tail(k_) / 6.25;
    double lp = -0.5 * (p[0] / 5.0) * (p[0] / 5.0) - 0.5 * p.tail(k_).squaredNorm() / 6.25;
    const Vector eta = (x_ * p.tail(k_)).array() + p[0];
    for (Eigen::Index n = 0; n < x_.rows(); ++n) {
      lp += y_[n] * eta[n] - log1p_exp(eta[n]);
      const double r = y_[n] - 1.0 / (1.0 + std::exp(-eta[n]));
      g[0] += r;
      g.tail(k_) += r * x_.row(n).transpose();
    }
    return lp;
  }
  std::vector<double> constrain(const Vector& p) const override {
    return {p.data(), p.data() + p.size()};
  }
  Vector unconstrain(std::span<const double> values) const override {
    return identity(*this, values);
  }
  std::uint64_t gradient_elements() const override {
    return static_cast<std::uint64_t>(x_.rows()) * static_cast<std::uint64_t>(k_ + 1);
  }

 private:
  int k_;
  Eigen::MatrixXd x_;
  Eigen::VectorXd y_;
};

// posteriordb logmesquite: log weight_n ~ N(x_n . beta, sigma) with
// x_n = (1, log diam1, log diam2, log canopy_height, log total_height, log density, group),
// flat priors on beta[1..7] and on sigma > 0 (the Stan program has no prior statements).
// x = (beta, log sigma). With A = X^T X, b = X^T y and c = y^T y kept from the data,
// S(beta) = c - 2 beta.b + beta.A beta, so a gradient costs O(k^2), not O(N k).
class LogMesquite final : public AutoDiffModel<LogMesquite, 8> {
 public:
  static constexpr int kBeta = 7;
  LogMesquite(Eigen::MatrixXd x, Eigen::VectorXd y)
      : x_(std::move(x)),
        y_(std::move(y)),
        xtx_(x_.transpose() * x_),
        xty_(x_.transpose() * y_),
        yty_(y_.squaredNorm()) {}
  std::string name() const override { return "logmesquite"; }
  int dimension() const override { return kBeta + 1; }
  std::vector<std::string> parameter_names() const override {
    std::vector<std::string> names;
    append_indexed(names, "beta", kBeta);
    names.push_back("sigma");
    return names;
  }
  template <class T>
  T log_density_t(const Eigen::Matrix<T, Eigen::Dynamic, 1>& u) const {
    T lp = T(0.0);
    const T sigma = lower_bounded(u[kBeta], 0.0, lp);
    T sum_squares = T(0.0);
    for (Eigen::Index n = 0; n < x_.rows(); ++n) {
      T r = T(y_[n]);
      for (int j = 0; j < kBeta; ++j) r -= x_(n, j) * u[j];
      sum_squares += r * r;
    }
    return lp - static_cast<double>(x_.rows()) * u[kBeta] - 0.5 * sum_squares / (sigma * sigma);
  }
  double analytic_gradient(const Vector& u, Vector& g) const {
    const auto beta = u.head<kBeta>();
    const Eigen::Matrix<double, kBeta, 1> a_beta = xtx_ * beta;
    const double s = yty_ - 2 * beta.dot(xty_) + beta.dot(a_beta);
    const double precision = std::exp(-2 * u[kBeta]), n = static_cast<double>(x_.rows());
    g.resize(kBeta + 1);
    g.head<kBeta>() = precision * (xty_ - a_beta);
    g[kBeta] = 1 - n + s * precision;
    return (1 - n) * u[kBeta] - 0.5 * s * precision;
  }
  std::vector<double> constrain(const Vector& u) const override {
    std::vector<double> out(u.data(), u.data() + kBeta);
    out.push_back(std::exp(u[kBeta]));
    return out;
  }
  Vector unconstrain(std::span<const double> values) const override {
    Vector u = identity(*this, values);
    u[kBeta] = lower_bounded_inverse(values.back(), 0.0, "sigma");
    return u;
  }
  std::uint64_t gradient_elements() const override { return kBeta * (kBeta + 1); }

 private:
  Eigen::MatrixXd x_;
  Eigen::VectorXd y_;
  Eigen::Matrix<double, kBeta, kBeta> xtx_;
  Eigen::Matrix<double, kBeta, 1> xty_;
  double yty_;
};

// posteriordb garch11: sigma_1 = sigma1, sigma_t^2 = alpha0 + alpha1 (y_{t-1} - mu)^2 +
// beta1 sigma_{t-1}^2, y_t ~ N(mu, sigma_t), flat priors on mu, alpha0 > 0,
// 0 < alpha1 < 1, 0 < beta1 < 1 - alpha1. x = (mu, log alpha0, logit alpha1, logit-scaled beta1).
class Garch11 final : public AutoDiffModel<Garch11, 4> {
 public:
  Garch11(std::vector<double> y, double sigma1) : y_(std::move(y)), sigma1_(sigma1) {}
  std::string name() const override { return "garch11"; }
  int dimension() const override { return 4; }
  std::vector<std::string> parameter_names() const override {
    return {"mu", "alpha0", "alpha1", "beta1", "sigma_next"};
  }
  template <class T>
  void parameters(const Eigen::Matrix<T, Eigen::Dynamic, 1>& x, T& mu, T& alpha0, T& alpha1,
                  T& beta1, T& log_jacobian) const {
    mu = x[0];
    alpha0 = lower_bounded(x[1], 0.0, log_jacobian);
    alpha1 = bounded(x[2], 0.0, 1.0, log_jacobian);
    beta1 = bounded(x[3], T(0.0), T(1.0 - alpha1), log_jacobian);
  }
  template <class T>
  T log_density_t(const Eigen::Matrix<T, Eigen::Dynamic, 1>& x) const {
    using std::log;
    using std::sqrt;
    T lp = T(0.0), mu, alpha0, alpha1, beta1;
    parameters(x, mu, alpha0, alpha1, beta1, lp);
    T sigma = T(sigma1_);
    for (std::size_t t = 0; t < y_.size(); ++t) {
      if (t > 0) {
        const T e = y_[t - 1] - mu;
        sigma = sqrt(alpha0 + alpha1 * e * e + beta1 * sigma * sigma);
      }
      const T r = (y_[t] - mu) / sigma;
      lp -= log(sigma) + 0.5 * r * r;
    }
    return lp;
  }
  // The reported values, and the one-step-ahead volatility sigma_{T+1} (a forecast).
  std::vector<double> constrain(const Vector& x) const override {
    double lj = 0, mu, alpha0, alpha1, beta1;
    parameters<double>(x, mu, alpha0, alpha1, beta1, lj);
    double sigma = sigma1_;
    for (std::size_t t = 1; t <= y_.size(); ++t) {
      const double e = y_[t - 1] - mu;
      sigma = std::sqrt(alpha0 + alpha1 * e * e + beta1 * sigma * sigma);
    }
    return {mu, alpha0, alpha1, beta1, sigma};
  }
  // sigma_next is a generated quantity.
  std::vector<std::string> parameter_block_names() const override {
    return {"mu", "alpha0", "alpha1", "beta1"};
  }
  Vector unconstrain(std::span<const double> values) const override {
    Vector x = identity(*this, values);
    x[1] = lower_bounded_inverse(values[1], 0.0, "alpha0");
    x[2] = bounded_inverse(values[2], 0.0, 1.0, "alpha1");
    // beta1's upper bound is 1 - alpha1, as in posteriordb's program.
    x[3] = bounded_inverse(values[3], 0.0, 1.0 - values[2], "beta1");
    return x;
  }
  std::uint64_t gradient_elements() const override { return y_.size() * 4; }

 private:
  std::vector<double> y_;
  double sigma1_;
};

// Stochastic volatility (Kim, Shephard & Chib 1998; Stan User's Guide, "Stochastic
// volatility models", non-centred form): h_1 = mu + sigma h_std_1 / sqrt(1 - phi^2),
// h_t = mu + phi (h_{t-1} - mu) + sigma h_std_t, h_std ~ N(0, 1), y_t ~ N(0, exp(h_t / 2)),
// mu ~ Cauchy(0, 10), phi ~ U(-1, 1), sigma ~ Cauchy+(0, 5).
// x = (mu, logit-scaled phi, log sigma, h_std[1..T]). Reports mu, phi, sigma, h[1..T] and
// the one-day-ahead volatility forecast exp(h_{T+1} / 2) with h_{T+1} drawn from the AR(1).
class StochasticVolatility final : public AutoDiffModel<StochasticVolatility> {
 public:
  explicit StochasticVolatility(std::vector<double> y) : y_(std::move(y)) {}
  std::string name() const override { return "stochastic_volatility"; }
  int dimension() const override { return static_cast<int>(y_.size()) + 3; }
  std::vector<std::string> parameter_names() const override {
    std::vector<std::string> names{"mu", "phi", "sigma"};
    append_indexed(names, "h", y_.size());
    names.push_back("h_next_mean");
    return names;
  }
  template <class T>
  T log_density_t(const Eigen::Matrix<T, Eigen::Dynamic, 1>& x) const {
    using std::exp;
    using std::log;
    using std::sqrt;
    T lp = T(0.0);
    const T mu = x[0];
    const T phi = bounded(x[1], -1.0, 1.0, lp);
    const T sigma = lower_bounded(x[2], 0.0, lp);
    lp -= log(1.0 + (mu / 10.0) * (mu / 10.0)) + log(1.0 + (sigma / 5.0) * (sigma / 5.0));
    T h_previous = mu;
    for (std::size_t t = 0; t < y_.size(); ++t) {
      const T z = x[static_cast<Eigen::Index>(t) + 3];
      const T h = t == 0 ? T(mu + sigma * z / sqrt(1.0 - phi * phi))
                         : T(mu + phi * (h_previous - mu) + sigma * z);
      lp -= 0.5 * z * z + 0.5 * h + 0.5 * y_[t] * y_[t] * exp(-h);
      h_previous = h;
    }
    return lp;
  }
  // Reverse sweep through the AR(1) recursion: a_t = dL/dh_t (total) = g_t + phi a_{t+1}.
  double analytic_gradient(const Vector& x, Vector& g) const {
    const std::size_t T = y_.size();
    g.setZero(static_cast<Eigen::Index>(T) + 3);
    double lp = 0;
    const double mu = x[0];
    const double phi = bounded(x[1], -1.0, 1.0, lp);
    const double sigma = lower_bounded(x[2], 0.0, lp);
    lp -= std::log1p((mu / 10.0) * (mu / 10.0)) + std::log1p((sigma / 5.0) * (sigma / 5.0));
    const double s1 = 1.0 / std::sqrt(1.0 - phi * phi);
    std::vector<double> h(T);
    for (std::size_t t = 0; t < T; ++t) {
      const double z = x[static_cast<Eigen::Index>(t) + 3];
      h[t] = t == 0 ? mu + sigma * z * s1 : mu + phi * (h[t - 1] - mu) + sigma * z;
      lp -= 0.5 * z * z + 0.5 * h[t] + 0.5 * y_[t] * y_[t] * std::exp(-h[t]);
    }
    double d_mu = -2.0 * mu / (100.0 + mu * mu), d_phi = 0,
           d_sigma = -2.0 * sigma / (25.0 + sigma * sigma);
    double a = 0;
    for (std::size_t t = T; t-- > 0;) {
      const double z = x[static_cast<Eigen::Index>(t) + 3];
      a = -0.5 + 0.5 * y_[t] * y_[t] * std::exp(-h[t]) + phi * a;
      if (t > 0) {
        g[static_cast<Eigen::Index>(t) + 3] = sigma * a - z;
        d_mu += a * (1.0 - phi);
        d_phi += a * (h[t - 1] - mu);
        d_sigma += a * z;
      } else {
        g[3] = sigma * s1 * a - z;
        d_mu += a;
        d_phi += a * sigma * z * phi * s1 * s1 * s1;
        d_sigma += a * z * s1;
      }
    }
    // Chain rule through the transforms, plus the derivatives of their log-Jacobians:
    // phi = -1 + 2 inv_logit(u): dphi/du = (1 - phi^2) / 2, d log J / du = -phi;
    // sigma = exp(v): dsigma/dv = sigma, d log J / dv = 1.
    g[0] = d_mu;
    g[1] = d_phi * (1.0 - phi * phi) / 2.0 - phi;
    g[2] = d_sigma * sigma + 1.0;
    return lp;
  }
  std::vector<double> constrain(const Vector& x) const override {
    double lj = 0;
    const double mu = x[0], phi = bounded(x[1], -1.0, 1.0, lj), sigma = std::exp(x[2]);
    std::vector<double> out{mu, phi, sigma};
    double h = 0;
    for (std::size_t t = 0; t < y_.size(); ++t) {
      const double z = x[static_cast<Eigen::Index>(t) + 3];
      h = t == 0 ? mu + sigma * z / std::sqrt(1.0 - phi * phi) : mu + phi * (h - mu) + sigma * z;
      out.push_back(h);
    }
    out.push_back(mu + phi * (h - mu));  // E[h_{T+1} | h_T]
    return out;
  }
  // The parameters block of the non-centred program: mu, phi, sigma and h_std (h is a
  // transformed parameter).
  std::vector<std::string> parameter_block_names() const override {
    std::vector<std::string> names{"mu", "phi", "sigma"};
    append_indexed(names, "h_std", y_.size());
    return names;
  }
  std::vector<double> parameter_block_values(const Vector& x) const override {
    double lj = 0;
    std::vector<double> out{x[0], bounded(x[1], -1.0, 1.0, lj), std::exp(x[2])};
    out.insert(out.end(), x.data() + 3, x.data() + x.size());
    return out;
  }
  Vector unconstrain(std::span<const double> values) const override {
    Vector x = identity(*this, values);
    x[1] = bounded_inverse(values[1], -1.0, 1.0, "phi");
    x[2] = lower_bounded_inverse(values[2], 0.0, "sigma");
    return x;
  }

 private:
  std::vector<double> y_;
};

}  // namespace

std::vector<std::string> builtin_models() {
  return {"std_normal",          "correlated_gaussian",
          "rosenbrock",          "eight_schools_noncentered",
          "logistic_regression", "garch11",
          "logmesquite",         "stochastic_volatility"};
}

std::unique_ptr<Model> make_model(const std::string& name, const nlohmann::json& json,
                                  const std::string& source) {
  const Data data(json, source, name);
  if (name == "std_normal")
    return std::make_unique<StdNormal>(data.has("N") ? data.integer("N", 1) : 1);
  if (name == "correlated_gaussian") {
    const int n = data.has("N") ? data.integer("N", 1) : 100;
    const double rho = data.has("rho") ? data.real("rho") : 0.9;
    if (!(rho > -1.0 && rho < 1.0))
      data.fail("rho", "is " + std::to_string(rho) + "; it must lie in (-1, 1)");
    return std::make_unique<CorrelatedGaussian>(n, rho);
  }
  if (name == "rosenbrock") return std::make_unique<Rosenbrock>();
  if (name == "eight_schools_noncentered") {
    const int J = data.integer("J", 1);
    std::vector<double> y = data.vector("y", static_cast<std::size_t>(J), "J");
    std::vector<double> sigma = data.vector("sigma", static_cast<std::size_t>(J), "J", 0.0);
    for (std::size_t j = 0; j < sigma.size(); ++j)
      if (sigma[j] <= 0)
        data.fail("sigma", "element " + std::to_string(j + 1) + " must be positive");
    return std::make_unique<EightSchools>(std::move(y), std::move(sigma));
  }
  if (name == "logistic_regression") {
    const int n = data.integer("N", 1), k = data.integer("K", 1);
    const nlohmann::json& x = data.field("x");
    if (!x.is_array() || x.size() != static_cast<std::size_t>(n))
      data.fail("x", "must be an array of N = " + std::to_string(n) + " rows");
    // Every row's length is checked before the N x K matrix is allocated: N and K alone (two
    // numbers in the file) could ask for any size.
    for (int i = 0; i < n; ++i)
      if (!x[static_cast<std::size_t>(i)].is_array() ||
          x[static_cast<std::size_t>(i)].size() != static_cast<std::size_t>(k))
        data.fail("x", "row " + std::to_string(i + 1) + " must have K = " + std::to_string(k) +
                           " values");
    Eigen::MatrixXd xm(n, k);
    for (int i = 0; i < n; ++i) {
      for (int j = 0; j < k; ++j)
        xm(i, j) = data.number("x", x[static_cast<std::size_t>(i)][static_cast<std::size_t>(j)],
                               "row " + std::to_string(i + 1) + " ");
    }
    const std::vector<double> y = data.vector("y", static_cast<std::size_t>(n), "N");
    for (std::size_t i = 0; i < y.size(); ++i)
      if (y[i] != 0.0 && y[i] != 1.0)
        data.fail("y", "element " + std::to_string(i + 1) + " must be 0 or 1");
    return std::make_unique<LogisticRegression>(k, std::move(xm),
                                                Eigen::Map<const Eigen::VectorXd>(y.data(), n));
  }
  if (name == "garch11") {
    const int T = data.integer("T", 2);
    std::vector<double> y = data.vector("y", static_cast<std::size_t>(T), "T");
    const double sigma1 = data.real("sigma1");
    if (!(sigma1 > 0)) data.fail("sigma1", "must be positive");
    return std::make_unique<Garch11>(std::move(y), sigma1);
  }
  if (name == "logmesquite") {
    const int n = data.integer("N", 1);
    const auto column = [&](const char* field) {
      return data.vector(field, static_cast<std::size_t>(n), "N");
    };
    // The columns are read (their lengths checked against N) before the N x 7 matrix is
    // allocated: N alone could ask for any size.
    const char* logged[] = {"diam1", "diam2", "canopy_height", "total_height", "density"};
    std::vector<std::vector<double>> columns;
    for (const char* field : logged) columns.push_back(column(field));
    const std::vector<double> group = column("group"), weight = column("weight");
    Eigen::MatrixXd x(n, LogMesquite::kBeta);
    Eigen::VectorXd y(n);
    x.col(0).setOnes();
    for (int j = 0; j < 5; ++j) {
      const std::vector<double>& v = columns[static_cast<std::size_t>(j)];
      for (int i = 0; i < n; ++i) {
        if (!(v[static_cast<std::size_t>(i)] > 0))
          data.fail(logged[j], "element " + std::to_string(i + 1) +
                                   " is not positive (its log is a covariate)");
        x(i, j + 1) = std::log(v[static_cast<std::size_t>(i)]);
      }
    }
    for (int i = 0; i < n; ++i) {
      x(i, 6) = group[static_cast<std::size_t>(i)];
      if (!(weight[static_cast<std::size_t>(i)] > 0))
        data.fail("weight", "element " + std::to_string(i + 1) +
                                " is not positive (the model is on log weight)");
      y[i] = std::log(weight[static_cast<std::size_t>(i)]);
    }
    return std::make_unique<LogMesquite>(std::move(x), std::move(y));
  }
  if (name == "stochastic_volatility") {
    const int T = data.integer("T", 2);
    return std::make_unique<StochasticVolatility>(
        data.vector("y", static_cast<std::size_t>(T), "T"));
  }
  std::string known;
  for (const std::string& m : builtin_models()) known += (known.empty() ? "" : ", ") + m;
  throw ConfigError("unknown model '" + name + "'; the built-in models are " + known);
}

nlohmann::json read_data_file(const std::string& path) {
  return read_json_file(path, "data file", "; check the path");
}

nlohmann::json read_data_file(MPI_Comm comm, const std::string& path) {
  return read_json_file(comm, path, "data file", "; check the path");
}

}  // namespace tessera::mcmc
