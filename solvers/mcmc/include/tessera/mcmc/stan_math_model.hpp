// StanMathModel: a model written once, its parameters declared with their constraints
// (parameters.hpp), its log density from Stan Math's distributions and its gradient by Stan
// Math's reverse-mode automatic differentiation.
//
//   class Schools final : public StanMathModel<Schools> {
//    public:
//     Schools(...) : mu_(params().real("mu")), tau_(params().real("tau", lower(0.0))),
//                    eta_(params().vector("eta", J)) {}
//     std::string name() const override { return "schools"; }
//     template <class T>
//     T log_density_t(const Point<T>& p) const {
//       using stan::math::normal_lpdf;
//       const T tau = p[tau_];
//       T lp = normal_lpdf<true>(p[mu_], 0, 5) + cauchy_lpdf<true>(tau, 0, 5)
//            + normal_lpdf<true>(p[eta_], 0, 1);
//       for (j ...) lp += normal_lpdf<true>(y[j], p[mu_] + tau * p[eta_][j], sigma[j]);
//       return lp;
//     }
//     // optional: derived values reported after the parameters (transformed parameters,
//     // generated quantities without random numbers)
//     void quantities(const Point<double>& p, Quantities& out) const {
//       out.add("theta", p[mu_] + p[tau_] * p[eta_].array());
//     }
//   };
//
// log_density_t returns the log density without the Jacobian; the base adds the transforms'
// log Jacobian, as Stan's log_prob with jacobian = true does. As in Stan, `normal_lpdf<true>`
// drops the terms constant in the parameters (a `~` statement) and `normal_lpdf` keeps them
// (`target +=`); both log_density() and log_density_gradient() evaluate on the AD tape
// (T = stan::math::var), so the two agree to the bit and lp__ is the one Stan reports. A
// std::domain_error from Stan Math (a scale of 0, a NaN argument) rejects the point: the log
// density is -inf, as Stan treats it. A model may also supply
// `double analytic_gradient(const Vector& x, Vector& g) const` (tested against the reverse
// mode, which autodiff_log_density_gradient() always uses).
//
// Thread-safety: the const members may run on any number of threads at once; each thread
// records on its own AD tape (Stan Math built with STAN_THREADS).
#pragma once

#include <cmath>
#include <limits>
#include <stan/math/rev/mat.hpp>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "tessera/mcmc/model.hpp"
#include "tessera/mcmc/parameters.hpp"

namespace tessera::mcmc {

// The derived values a model reports after its parameters, each with its Stan name.
class Quantities {
 public:
  // Collects the names (naming) or the values.
  Quantities(std::vector<std::string>* names, std::vector<double>* values)
      : names_(names), values_(values) {}
  void add(std::string_view name, double value) {
    if (names_) names_->emplace_back(name);
    if (values_) values_->push_back(value);
  }
  // A vector's elements as name[1], name[2], ...
  template <class V>
  void add(std::string_view name, const V& values) {
    const Eigen::Index n = static_cast<Eigen::Index>(values.size());
    for (Eigen::Index i = 0; i < n; ++i) {
      if (names_) names_->push_back(std::string(name) + "[" + std::to_string(i + 1) + "]");
      if (values_) values_->push_back(static_cast<double>(values[i]));
    }
  }

 private:
  std::vector<std::string>* names_;
  std::vector<double>* values_;
};

// The calling thread's Stan Math AD tape, made on its first use (STAN_THREADS keeps one
// per thread; the runtime's tile threads are not TBB's, whose threads Stan Math sets up).
inline void use_thread_ad_tape() {
  static thread_local stan::math::ChainableStack tape;
  (void)tape;
}

template <class M>
concept HasQuantities = requires(const M& m, const Point<double>& p, Quantities& q) {
  m.quantities(p, q);
};

template <class Derived>
class StanMathModel : public Model {
 public:
  using var = stan::math::var;
  int dimension() const final { return params_.dimension(); }
  std::vector<std::string> parameter_block_names() const final { return params_.names(); }
  std::vector<std::string> parameter_names() const final {
    std::vector<std::string> names = params_.names();
    if constexpr (HasQuantities<Derived>) {
      Quantities naming(&names, nullptr);
      derived().quantities(params_.constrain(Vector(Vector::Zero(dimension()))), naming);
    }
    return names;
  }
  double log_density(const Vector& x) const final {
    use_thread_ad_tape();
    stan::math::start_nested();
    double lp;
    try {
      const Eigen::Matrix<var, Eigen::Dynamic, 1> xv = x.cast<var>();
      lp = log_density_with_jacobian(xv).val();
    } catch (const std::domain_error&) {
      lp = -std::numeric_limits<double>::infinity();
    } catch (...) {
      stan::math::recover_memory_nested();
      throw;
    }
    stan::math::recover_memory_nested();
    return lp;
  }
  double log_density_gradient(const Vector& x, Vector& gradient) const final {
    if constexpr (HasAnalyticGradient<Derived>)
      return derived().analytic_gradient(x, gradient);
    else
      return reverse_gradient(x, gradient);
  }
  double autodiff_log_density_gradient(const Vector& x, Vector& gradient) const final {
    return reverse_gradient(x, gradient);
  }
  std::vector<double> constrain(const Vector& x) const final {
    const Point<double> point = params_.constrain(x);
    std::vector<double> values = params_.values(point);
    if constexpr (HasQuantities<Derived>) {
      Quantities out(nullptr, &values);
      derived().quantities(point, out);
    }
    return values;
  }
  std::vector<double> parameter_block_values(const Vector& x) const final {
    return params_.values(params_.constrain(x));
  }
  Vector unconstrain(std::span<const double> values) const final {
    return params_.unconstrain(values);
  }

 protected:
  ParameterSet& params() { return params_; }
  const ParameterSet& params() const { return params_; }

 private:
  const Derived& derived() const { return static_cast<const Derived&>(*this); }
  var log_density_with_jacobian(const Eigen::Matrix<var, Eigen::Dynamic, 1>& x) const {
    const Point<var> point = params_.constrain(x);
    return derived().template log_density_t<var>(point) + point.log_jacobian();
  }
  double reverse_gradient(const Vector& x, Vector& gradient) const {
    use_thread_ad_tape();
    double lp;
    try {
      stan::math::gradient([this](const auto& xv) { return log_density_with_jacobian(xv); }, x, lp,
                           gradient);
    } catch (const std::domain_error&) {
      gradient.setZero(x.size());
      return -std::numeric_limits<double>::infinity();
    }
    return lp;
  }

  ParameterSet params_;
};

}  // namespace tessera::mcmc
