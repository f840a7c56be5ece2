// Model: a log density on an unconstrained parameter space, as Stan defines it.
//
// A model has a dimension d (the number of unconstrained parameters), names
// for the values it reports (constrained parameters and derived quantities,
// named like Stan: `mu`, `theta[1]`), a log density log p(x) + log|J(x)| on
// the unconstrained space R^d (the Jacobian of the constraining transforms
// included, constants dropped), its gradient, and the map from x to the
// reported values.
//
// Stan's parameters block is the part of the reported values that determines x:
// parameter_block_names() / parameter_block_values(x) (by default the leading
// parameter_names() that are parameters, and constrain(x)'s first values), and
// unconstrain() maps such values back to x, the inverse of the transforms (how a
// user's initial values, CmdStan's --init FILE.json, become a starting point).
//
// Built-in and user models derive from AutoDiffModel<Derived> and write the
// log density once, as a template over the scalar type:
//   template <class T> T log_density_t(const Eigen::Matrix<T, Eigen::Dynamic, 1>& x) const;
// The gradient then comes from Eigen's forward-mode AutoDiffScalar (cost
// O(d) times the log density: right for small models). A model may instead
// supply `double analytic_gradient(const Vector& x, Vector& grad) const`,
// which AutoDiffModel uses when present; tests compare the two.
#pragma once

#include <Eigen/Core>
#include <cmath>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <unsupported/Eigen/AutoDiff>
#include <vector>

#include "tessera/core/cycle_estimate.hpp"
#include "tessera/core/error.hpp"
#include "tessera/core/rng.hpp"

namespace tessera::mcmc {

using Vector = Eigen::VectorXd;
using Matrix = Eigen::MatrixXd;

// A constrained value outside its parameter's support (a negative scale, a probability
// above 1), raised by unconstrain(); parameter() is the Stan name (`tau`, `theta[2]`).
class SupportError : public ConfigError {
 public:
  SupportError(std::string parameter, const std::string& what)
      : ConfigError("parameter '" + parameter + "' " + what), parameter_(std::move(parameter)) {}
  const std::string& parameter() const { return parameter_; }

 private:
  std::string parameter_;
};

class Model {
 public:
  virtual ~Model() = default;
  virtual std::string name() const = 0;
  // Unconstrained dimension d.
  virtual int dimension() const = 0;
  // Names of the values constrain() returns, in order.
  virtual std::vector<std::string> parameter_names() const = 0;
  // log p(x) + log|J(x)| at the unconstrained point x (length d); -inf outside the support.
  virtual double log_density(const Vector& x) const = 0;
  // The same, and its gradient with respect to x into `gradient` (resized to d).
  virtual double log_density_gradient(const Vector& x, Vector& gradient) const = 0;
  // The gradient by forward-mode automatic differentiation, whatever log_density_gradient
  // uses: the reference against which an analytic gradient is checked.
  virtual double autodiff_log_density_gradient(const Vector& x, Vector& gradient) const = 0;
  // The reported values at x (length parameter_names().size()).
  virtual std::vector<double> constrain(const Vector& x) const = 0;
  // The same for a draw: generated quantities that draw random numbers (posterior
  // predictive draws) take them from `rng`, the chain's own stream for them. By default
  // constrain(x), for models whose reported values are functions of x alone.
  virtual std::vector<double> generate(const Vector& x, RngEngine& rng) const {
    (void)rng;
    return constrain(x);
  }
  // Stan's parameters block: the names of the constrained values that determine x, in the
  // order unconstrain() takes them. By default all of parameter_names(); models that also
  // report derived quantities (transformed parameters, generated quantities) list fewer.
  virtual std::vector<std::string> parameter_block_names() const { return parameter_names(); }
  // Their values at x; by default the first parameter_block_names().size() values of
  // constrain(x).
  virtual std::vector<double> parameter_block_values(const Vector& x) const;
  // The unconstrained point of the parameters block's values (the inverse of the
  // constraining transforms: unconstrain(parameter_block_values(x)) == x up to round-off).
  // Throws SupportError naming the parameter when a value lies outside its support, and
  // ConfigError when `values` has the wrong length. Only initial values from a file need it:
  // the default throws ConfigError saying the model does not provide it.
  virtual Vector unconstrain(std::span<const double> values) const;
  // The IPU cost of one gradient evaluation, from its counted work: a kernel over
  // gradient_elements() items of gradient_work() each (cycle_estimate.hpp). By default an
  // item is a coordinate's term of a handful of double operations (5, with 2 loads and a
  // store of doubles); models with another structure override the three.
  virtual KernelWork gradient_work() const;
  virtual std::uint64_t gradient_elements() const {
    return static_cast<std::uint64_t>(dimension());
  }
  // Tile cycles of one gradient evaluation on `target`.
  virtual std::uint64_t gradient_cycles(const Target& target) const {
    return estimate_cycles(target, gradient_work(), gradient_elements());
  }
  // Tile memory the model needs where its chains live (nuts, hmc, rwm): once per tile that
  // hosts chains (its copy of the data), and per chain (the gradient's working memory).
  virtual std::size_t data_bytes() const { return 0; }
  virtual std::size_t chain_workspace_bytes() const { return 0; }
};

// The counted work of the leapfrog update per coordinate (hmc, nuts): p += eps/2 g and
// q += eps p, 4 double operations (emulated on the IPU); loads q, p, g, stores q, p.
KernelWork leapfrog_work();

using AutoDiff = Eigen::AutoDiffScalar<Eigen::VectorXd>;

// Log density and gradient of any model exposing log_density_t<T>, by forward-mode AD.
// `Size` fixes the derivative vector's length at compile time (no heap traffic per
// operation) for models of a fixed small dimension; Eigen::Dynamic otherwise.
template <class M, int Size = Eigen::Dynamic>
double autodiff_gradient(const M& model, const Vector& x, Vector& gradient) {
  using Scalar = Eigen::AutoDiffScalar<Eigen::Matrix<double, Size, 1>>;
  const Eigen::Index d = x.size();
  Eigen::Matrix<Scalar, Eigen::Dynamic, 1> ax(d);
  for (Eigen::Index i = 0; i < d; ++i)
    ax[i] = Scalar(x[i], static_cast<int>(d), static_cast<int>(i));
  const Scalar lp = model.template log_density_t<Scalar>(ax);
  gradient = lp.derivatives().size() == d ? Vector(lp.derivatives()) : Vector::Zero(d);
  return lp.value();
}

template <class M>
concept HasAnalyticGradient = requires(const M& m, const Vector& x, Vector& g) {
  { m.analytic_gradient(x, g) } -> std::convertible_to<double>;
};

// Base for models written as a template log density (see the file comment).
template <class Derived, int Size = Eigen::Dynamic>
class AutoDiffModel : public Model {
 public:
  double log_density(const Vector& x) const override {
    return derived().template log_density_t<double>(x);
  }
  double log_density_gradient(const Vector& x, Vector& gradient) const override {
    if constexpr (HasAnalyticGradient<Derived>)
      return derived().analytic_gradient(x, gradient);
    else
      return autodiff_gradient<Derived, Size>(derived(), x, gradient);
  }
  double autodiff_log_density_gradient(const Vector& x, Vector& gradient) const override {
    return autodiff_gradient<Derived, Size>(derived(), x, gradient);
  }

 private:
  const Derived& derived() const { return static_cast<const Derived&>(*this); }
};

// Constraining transforms (Stan Reference Manual, "Constraint transforms").
// Each maps an unconstrained u to the constrained value and adds log|d value / du| to
// `log_jacobian`.

// (lower, inf): lower + exp(u).
template <class T>
T lower_bounded(const T& u, double lower, T& log_jacobian) {
  using std::exp;
  log_jacobian += u;
  return lower + exp(u);
}

// (lower, upper): lower + (upper - lower) * inv_logit(u). The bounds may depend on other
// parameters (garch11's beta1 < 1 - alpha1), hence the scalar type for them.
template <class T, class B>
T bounded(const T& u, const B& lower, const B& upper, T& log_jacobian) {
  using std::exp;
  using std::log;
  // log inv_logit(u) + log(1 - inv_logit(u)) = -|u| - 2 log(1 + exp(-|u|)), stable for large |u|.
  const T a = u < 0.0 ? T(-u) : u;
  log_jacobian += log(upper - lower) - a - 2.0 * log(1.0 + exp(-a));
  const T inv_logit = u < 0.0 ? T(exp(u) / (1.0 + exp(u))) : T(1.0 / (1.0 + exp(-u)));
  return lower + (upper - lower) * inv_logit;
}

// The inverses of the transforms, for unconstrain(): the u of a constrained value, or
// SupportError naming `name` when the value is outside the support (or not finite).
double lower_bounded_inverse(double value, double lower, const std::string& name);
double bounded_inverse(double value, double lower, double upper, const std::string& name);
// The K - 1 unconstrained values of a K-simplex (entries positive, summing to 1 within 1e-8,
// Stan's tolerance).
std::vector<double> simplex_inverse(const std::vector<double>& x, const std::string& name);

// The K-simplex from K - 1 unconstrained values by Stan's stick-breaking transform:
// z_k = inv_logit(u_k - log(K - k)), x_k = (1 - sum_{j<k} x_j) z_k, x_K = the rest.
template <class T>
std::vector<T> simplex(const std::vector<T>& u, T& log_jacobian) {
  using std::exp;
  using std::log;
  const std::size_t k_minus_1 = u.size();
  std::vector<T> x(k_minus_1 + 1);
  T stick = T(1.0);
  for (std::size_t k = 0; k < k_minus_1; ++k) {
    const T v = u[k] - std::log(static_cast<double>(k_minus_1 - k));
    const T z = 1.0 / (1.0 + exp(-v));
    x[k] = stick * z;
    log_jacobian += log(z) + log(1.0 - z) + log(stick);
    stick -= x[k];
  }
  x[k_minus_1] = stick;
  return x;
}

}  // namespace tessera::mcmc
