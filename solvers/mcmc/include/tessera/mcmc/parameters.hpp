// Parameters declared once with their constraints, as in a Stan program's parameters block.
//
// A model declares each parameter in its constructor and keeps the handle:
//   ParameterSet params;
//   RealParameter mu = params.real("mu");
//   RealParameter tau = params.real("tau", lower(0.0));
//   RealParameter beta1 = params.real("beta1", lower_upper(0.0, 1.0 - alpha1));
//   VectorParameter theta = params.vector("theta", J);
//   VectorParameter w = params.simplex("w", K);
//   MatrixParameter L = params.cholesky_factor_corr("L_Omega", K);
// From these declarations alone come the unconstrained dimension, the Stan names of the
// values (`theta[2]`, `L_Omega[2,1]`, matrices column-major as Stan writes them), the map
// from the unconstrained point x to the constrained values with the log absolute
// determinant of its Jacobian (constrain(x), the values read from the Point by handle), and
// its inverse (unconstrain(values)). The transforms are Stan Math's (Stan Reference Manual,
// "Constraint transforms"), so that a model's unconstrained space and lp__ are Stan's.
//
// Declaration order is the order of x and of the values. A bound may be a constant or an
// affine function c + k * p of a real parameter p declared before it (Stan's
// `real<upper = 1 - alpha1> beta1`).
//
// Thread-safety: a ParameterSet is read-only once declared; constrain() and unconstrain()
// may run on any number of threads (each Point is its caller's).
#pragma once

#include <Eigen/Core>
#include <cstddef>
#include <span>
#include <stan/math/rev/mat.hpp>
#include <string>
#include <vector>

#include "tessera/core/error.hpp"
#include "tessera/mcmc/model.hpp"

namespace tessera::mcmc {

// Handles to declared parameters, read from a Point. Each indexes its ParameterSet's
// scalars, vectors or matrices in declaration order.
struct RealParameter {
  int slot;
};
struct VectorParameter {
  int slot;
};
struct MatrixParameter {
  int slot;
};

// A bound: constant + coefficient * (the real parameter in `parameter`, or none if -1).
struct Bound {
  Bound(double value) : constant(value) {}                         // NOLINT: a number is a bound
  Bound(RealParameter p) : coefficient(1.0), parameter(p.slot) {}  // NOLINT
  double constant = 0.0;
  double coefficient = 0.0;
  int parameter = -1;
};
// Affine arithmetic on bounds: 1.0 - alpha1, 2.0 * sigma + 1.0.
inline Bound operator+(double c, Bound b) {
  b.constant += c;
  return b;
}
inline Bound operator+(Bound b, double c) { return c + b; }
inline Bound operator*(double k, Bound b) {
  b.constant *= k;
  b.coefficient *= k;
  return b;
}
inline Bound operator-(double c, Bound b) { return c + -1.0 * b; }
inline Bound operator-(Bound b, double c) { return -c + b; }

// The support of a real (or of each element of a real vector or matrix).
struct Bounds {
  bool has_lower = false, has_upper = false;
  Bound lower = 0.0, upper = 0.0;
};
inline Bounds lower(Bound b) { return {true, false, b, 0.0}; }
inline Bounds upper(Bound b) { return {false, true, 0.0, b}; }
inline Bounds lower_upper(Bound lo, Bound hi) { return {true, true, lo, hi}; }

class ParameterSet;

// The constrained values at one unconstrained point, and the log absolute determinant of
// the transforms' Jacobian there. T is double or stan::math::var.
template <class T>
class Point {
 public:
  using VectorT = Eigen::Matrix<T, Eigen::Dynamic, 1>;
  using MatrixT = Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic>;
  const T& operator[](RealParameter p) const { return scalars_[static_cast<std::size_t>(p.slot)]; }
  const VectorT& operator[](VectorParameter p) const {
    return vectors_[static_cast<std::size_t>(p.slot)];
  }
  const MatrixT& operator[](MatrixParameter p) const {
    return matrices_[static_cast<std::size_t>(p.slot)];
  }
  const T& log_jacobian() const { return log_jacobian_; }

 private:
  friend class ParameterSet;
  std::vector<T> scalars_;
  std::vector<VectorT> vectors_;
  std::vector<MatrixT> matrices_;
  T log_jacobian_ = T(0.0);
};

class ParameterSet {
 public:
  // Each declaration throws ConfigError for an empty or repeated name, a size below the
  // kind's minimum, or a bound on a parameter not (yet) declared in this set.
  RealParameter real(const std::string& name, Bounds bounds = {});
  VectorParameter vector(const std::string& name, int size, Bounds bounds = {});
  MatrixParameter matrix(const std::string& name, int rows, int cols, Bounds bounds = {});
  VectorParameter simplex(const std::string& name, int size);           // size >= 1
  VectorParameter ordered(const std::string& name, int size);           // size >= 1
  VectorParameter positive_ordered(const std::string& name, int size);  // size >= 1
  VectorParameter unit_vector(const std::string& name, int size);       // size >= 2
  MatrixParameter cholesky_factor_corr(const std::string& name, int size);
  MatrixParameter cholesky_factor_cov(const std::string& name, int rows, int cols);  // rows >= cols
  MatrixParameter corr_matrix(const std::string& name, int size);
  MatrixParameter cov_matrix(const std::string& name, int size);

  // Length of the unconstrained point x.
  int dimension() const { return dimension_; }
  // The Stan names of the constrained values, in declaration order.
  std::vector<std::string> names() const;
  // Number of constrained values (names().size()).
  std::size_t value_count() const { return value_count_; }

  // The constrained values at x (length dimension()) and the Jacobian's log determinant.
  template <class T>
  Point<T> constrain(const Eigen::Matrix<T, Eigen::Dynamic, 1>& x) const;
  // The point's values flattened in names() order.
  std::vector<double> values(const Point<double>& point) const;
  // The x whose constrained values are `values` (names() order): the inverse of constrain.
  // Throws SupportError naming the parameter (`sigma`, `theta[2]`) when a value lies outside
  // its support, and ConfigError when `values` has the wrong length.
  Eigen::VectorXd unconstrain(std::span<const double> values) const;

 private:
  enum class Kind {
    kReal,  // a real, vector or matrix of reals with optional bounds
    kSimplex,
    kOrdered,
    kPositiveOrdered,
    kUnitVector,
    kCholeskyFactorCorr,
    kCholeskyFactorCov,
    kCorrMatrix,
    kCovMatrix
  };
  enum class Shape { kScalar, kVector, kMatrix };
  struct Declaration {
    std::string name;
    Kind kind;
    Shape shape;
    int rows, cols;  // 1 x 1 for a scalar, n x 1 for a vector
    Bounds bounds;
    int slot;         // in the Point's scalars, vectors or matrices
    int free_offset;  // in x
    int free_size;    // its length in x
    int value_count() const { return rows * cols; }
  };
  int declare(const std::string& name, Kind kind, Shape shape, int rows, int cols, int free_size,
              Bounds bounds = {});
  void check_bound(const std::string& name, const Bound& b) const;
  template <class T>
  static T bound_value(const Bound& b, const std::vector<T>& scalars) {
    if (b.parameter < 0) return T(b.constant);
    return b.constant + b.coefficient * scalars[static_cast<std::size_t>(b.parameter)];
  }
  template <class T>
  static T constrain_real(const T& u, const Bounds& bounds, const std::vector<T>& scalars, T& lp);
  double free_real(double value, const Declaration& d, const std::string& name,
                   const std::vector<double>& scalars) const;

  std::vector<Declaration> declarations_;
  int dimension_ = 0;
  std::size_t value_count_ = 0;
  int scalars_ = 0, vectors_ = 0, matrices_ = 0;
};

template <class T>
T ParameterSet::constrain_real(const T& u, const Bounds& b, const std::vector<T>& scalars, T& lp) {
  // Constant bounds go to Stan Math as doubles: no tape entries for them.
  const auto bound = [&](const Bound& bound) { return bound_value(bound, scalars); };
  if (b.has_lower && b.has_upper) {
    if (b.lower.parameter < 0 && b.upper.parameter < 0)
      return stan::math::lub_constrain(u, b.lower.constant, b.upper.constant, lp);
    return stan::math::lub_constrain(u, bound(b.lower), bound(b.upper), lp);
  }
  if (b.has_lower) {
    if (b.lower.parameter < 0) return stan::math::lb_constrain(u, b.lower.constant, lp);
    return stan::math::lb_constrain(u, bound(b.lower), lp);
  }
  if (b.has_upper) {
    if (b.upper.parameter < 0) return stan::math::ub_constrain(u, b.upper.constant, lp);
    return stan::math::ub_constrain(u, bound(b.upper), lp);
  }
  return u;
}

template <class T>
Point<T> ParameterSet::constrain(const Eigen::Matrix<T, Eigen::Dynamic, 1>& x) const {
  using VectorT = Eigen::Matrix<T, Eigen::Dynamic, 1>;
  if (x.size() != dimension_)
    throw ConfigError("constrain: the point has " + std::to_string(x.size()) +
                      " unconstrained values; the parameters take " + std::to_string(dimension_));
  Point<T> p;
  p.scalars_.reserve(static_cast<std::size_t>(scalars_));
  p.vectors_.reserve(static_cast<std::size_t>(vectors_));
  p.matrices_.reserve(static_cast<std::size_t>(matrices_));
  T& lp = p.log_jacobian_;
  for (const Declaration& d : declarations_) {
    const VectorT u = x.segment(d.free_offset, d.free_size);
    switch (d.kind) {
      case Kind::kReal: {
        if (d.shape == Shape::kScalar) {
          p.scalars_.push_back(constrain_real(u[0], d.bounds, p.scalars_, lp));
          break;
        }
        Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic> v(d.rows, d.cols);
        for (Eigen::Index i = 0; i < u.size(); ++i)
          v.data()[i] = constrain_real(u[i], d.bounds, p.scalars_, lp);
        if (d.shape == Shape::kVector)
          p.vectors_.emplace_back(std::move(v));
        else
          p.matrices_.push_back(std::move(v));
        break;
      }
      case Kind::kSimplex:
        p.vectors_.push_back(stan::math::simplex_constrain(u, lp));
        break;
      case Kind::kOrdered:
        p.vectors_.push_back(stan::math::ordered_constrain(u, lp));
        break;
      case Kind::kPositiveOrdered:
        p.vectors_.push_back(stan::math::positive_ordered_constrain(u, lp));
        break;
      case Kind::kUnitVector:
        p.vectors_.push_back(stan::math::unit_vector_constrain(u, lp));
        break;
      case Kind::kCholeskyFactorCorr:
        p.matrices_.push_back(stan::math::cholesky_corr_constrain(u, d.rows, lp));
        break;
      case Kind::kCholeskyFactorCov:
        p.matrices_.push_back(stan::math::cholesky_factor_constrain(u, d.rows, d.cols, lp));
        break;
      case Kind::kCorrMatrix:
        p.matrices_.push_back(stan::math::corr_matrix_constrain(u, d.rows, lp));
        break;
      case Kind::kCovMatrix:
        p.matrices_.push_back(stan::math::cov_matrix_constrain(u, d.rows, lp));
        break;
    }
  }
  return p;
}

}  // namespace tessera::mcmc
