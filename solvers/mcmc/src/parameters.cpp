#include "tessera/mcmc/parameters.hpp"

#include <cmath>
#include <stdexcept>

#include "stan_names.hpp"
#include "tessera/mcmc/model.hpp"

namespace tessera::mcmc {

namespace {

std::string element_name(const std::string& name, int rows, int cols, int i, bool matrix) {
  if (!matrix) return rows * cols == 1 ? name : name + "[" + std::to_string(i + 1) + "]";
  // Column-major, as Stan writes matrices: L[1,1], L[2,1], ..., L[1,2], ...
  return name + "[" + std::to_string(i % rows + 1) + "," + std::to_string(i / rows + 1) + "]";
}

}  // namespace

int ParameterSet::declare(const std::string& name, Kind kind, Shape shape, int rows, int cols,
                          int free_size, Bounds bounds) {
  if (name.empty()) throw ConfigError("a parameter needs a name");
  for (const Declaration& d : declarations_)
    if (d.name == name) throw ConfigError("parameter '" + name + "' is declared twice");
  if (bounds.has_lower) check_bound(name, bounds.lower);
  if (bounds.has_upper) check_bound(name, bounds.upper);
  int& count = shape == Shape::kScalar ? scalars_ : shape == Shape::kVector ? vectors_ : matrices_;
  declarations_.push_back({name, kind, shape, rows, cols, bounds, count, dimension_, free_size});
  dimension_ += free_size;
  value_count_ += static_cast<std::size_t>(rows) * static_cast<std::size_t>(cols);
  return count++;
}

void ParameterSet::check_bound(const std::string& name, const Bound& b) const {
  if (!std::isfinite(b.constant) || !std::isfinite(b.coefficient))
    throw ConfigError("parameter '" + name + "': a bound must be finite (leave it out instead)");
  if (b.parameter >= scalars_ || (b.parameter < 0 && b.parameter != -1))
    throw ConfigError("parameter '" + name +
                      "': its bound names a real parameter not declared before it");
}

namespace {

void check_size(const std::string& name, const char* what, int size, int minimum) {
  if (size < minimum)
    throw ConfigError("parameter '" + name + "': " + what + " must be at least " +
                      std::to_string(minimum) + ", not " + std::to_string(size));
}

}  // namespace

RealParameter ParameterSet::real(const std::string& name, Bounds bounds) {
  return {declare(name, Kind::kReal, Shape::kScalar, 1, 1, 1, bounds)};
}

VectorParameter ParameterSet::vector(const std::string& name, int size, Bounds bounds) {
  check_size(name, "a vector's size", size, 0);
  return {declare(name, Kind::kReal, Shape::kVector, size, 1, size, bounds)};
}

MatrixParameter ParameterSet::matrix(const std::string& name, int rows, int cols, Bounds bounds) {
  check_size(name, "a matrix's rows", rows, 0);
  check_size(name, "a matrix's columns", cols, 0);
  return {declare(name, Kind::kReal, Shape::kMatrix, rows, cols, rows * cols, bounds)};
}

VectorParameter ParameterSet::simplex(const std::string& name, int size) {
  check_size(name, "a simplex's size", size, 1);
  return {declare(name, Kind::kSimplex, Shape::kVector, size, 1, size - 1)};
}

VectorParameter ParameterSet::ordered(const std::string& name, int size) {
  check_size(name, "an ordered vector's size", size, 1);
  return {declare(name, Kind::kOrdered, Shape::kVector, size, 1, size)};
}

VectorParameter ParameterSet::positive_ordered(const std::string& name, int size) {
  check_size(name, "a positive ordered vector's size", size, 1);
  return {declare(name, Kind::kPositiveOrdered, Shape::kVector, size, 1, size)};
}

VectorParameter ParameterSet::unit_vector(const std::string& name, int size) {
  check_size(name, "a unit vector's size", size, 2);
  return {declare(name, Kind::kUnitVector, Shape::kVector, size, 1, size)};
}

MatrixParameter ParameterSet::cholesky_factor_corr(const std::string& name, int size) {
  check_size(name, "a correlation matrix's size", size, 1);
  return {
      declare(name, Kind::kCholeskyFactorCorr, Shape::kMatrix, size, size, size * (size - 1) / 2)};
}

MatrixParameter ParameterSet::cholesky_factor_cov(const std::string& name, int rows, int cols) {
  check_size(name, "a Cholesky factor's columns", cols, 1);
  check_size(name, "a Cholesky factor's rows (at least its columns)", rows, cols);
  return {declare(name, Kind::kCholeskyFactorCov, Shape::kMatrix, rows, cols,
                  cols * (cols + 1) / 2 + (rows - cols) * cols)};
}

MatrixParameter ParameterSet::corr_matrix(const std::string& name, int size) {
  check_size(name, "a correlation matrix's size", size, 1);
  return {declare(name, Kind::kCorrMatrix, Shape::kMatrix, size, size, size * (size - 1) / 2)};
}

MatrixParameter ParameterSet::cov_matrix(const std::string& name, int size) {
  check_size(name, "a covariance matrix's size", size, 1);
  return {declare(name, Kind::kCovMatrix, Shape::kMatrix, size, size, size * (size + 1) / 2)};
}

std::vector<std::string> ParameterSet::names() const {
  std::vector<std::string> out;
  out.reserve(value_count_);
  for (const Declaration& d : declarations_)
    for (int i = 0; i < d.value_count(); ++i)
      out.push_back(element_name(d.name, d.rows, d.cols, i, d.shape == Shape::kMatrix));
  return out;
}

std::vector<double> ParameterSet::values(const Point<double>& point) const {
  std::vector<double> out;
  out.reserve(value_count_);
  for (const Declaration& d : declarations_) {
    const std::size_t slot = static_cast<std::size_t>(d.slot);
    const double* first = d.shape == Shape::kScalar   ? &point.scalars_[slot]
                          : d.shape == Shape::kVector ? point.vectors_[slot].data()
                                                      : point.matrices_[slot].data();
    out.insert(out.end(), first, first + d.value_count());
  }
  return out;
}

double ParameterSet::free_real(double value, const Declaration& d, const std::string& name,
                               const std::vector<double>& scalars) const {
  const Bounds& b = d.bounds;
  const double lo = b.has_lower ? bound_value(b.lower, scalars) : -INFINITY;
  const double hi = b.has_upper ? bound_value(b.upper, scalars) : INFINITY;
  // Strictly inside: a value on a bound maps to an infinite unconstrained value.
  if (!std::isfinite(value) || !(value > lo && value < hi))
    throw SupportError(name, "= " + number_text(value) + " lies outside its support (" +
                                 (b.has_lower ? number_text(lo) : "-inf") + ", " +
                                 (b.has_upper ? number_text(hi) : "inf") + ")");
  if (b.has_lower && b.has_upper) return stan::math::lub_free(value, lo, hi);
  if (b.has_lower) return stan::math::lb_free(value, lo);
  if (b.has_upper) return stan::math::ub_free(value, hi);
  return value;
}

Eigen::VectorXd ParameterSet::unconstrain(std::span<const double> values) const {
  if (values.size() != value_count_)
    throw ConfigError("unconstrain takes the " + std::to_string(value_count_) +
                      " values of the parameters, not " + std::to_string(values.size()));
  Eigen::VectorXd x(dimension_);
  std::vector<double> scalars;
  std::size_t at = 0;
  for (const Declaration& d : declarations_) {
    const Eigen::Index n = d.value_count();
    const Eigen::Map<const Eigen::MatrixXd> y(values.data() + at,
                                              d.shape == Shape::kMatrix ? d.rows : n,
                                              d.shape == Shape::kMatrix ? d.cols : 1);
    auto free = x.segment(d.free_offset, d.free_size);
    if (d.kind == Kind::kReal) {
      for (Eigen::Index i = 0; i < n; ++i)
        free[i] = free_real(
            y.data()[i], d,
            element_name(d.name, d.rows, d.cols, static_cast<int>(i), d.shape == Shape::kMatrix),
            scalars);
      if (d.shape == Shape::kScalar) scalars.push_back(y(0, 0));
      at += static_cast<std::size_t>(n);
      continue;
    }
    for (Eigen::Index i = 0; i < n; ++i)
      if (!std::isfinite(y.data()[i]))
        throw SupportError(
            element_name(d.name, d.rows, d.cols, static_cast<int>(i), d.shape == Shape::kMatrix),
            "= " + number_text(y.data()[i]) + " is not finite");
    // Stan Math's checks of the structure (a sum of 1, an order, a unit length, a Cholesky
    // factor's zero upper triangle and positive diagonal, symmetry and positive
    // definiteness) within its tolerances; its _free functions alone check less than this
    // (cov_matrix_free reads the lower triangle only).
    try {
      const char* const where = "unconstrain";
      const Eigen::MatrixXd matrix = y;
      const Eigen::VectorXd column = y.reshaped();
      switch (d.kind) {
        case Kind::kSimplex:
          free = stan::math::simplex_free(column);
          break;
        case Kind::kOrdered:
          free = stan::math::ordered_free(column);
          break;
        case Kind::kPositiveOrdered:
          free = stan::math::positive_ordered_free(column);
          break;
        case Kind::kUnitVector:
          free = stan::math::unit_vector_free(column);
          break;
        case Kind::kCholeskyFactorCorr:
          stan::math::check_cholesky_factor_corr(where, d.name.c_str(), matrix);
          free = stan::math::cholesky_corr_free(matrix);
          break;
        case Kind::kCholeskyFactorCov:
          stan::math::check_cholesky_factor(where, d.name.c_str(), matrix);
          free = stan::math::cholesky_factor_free(matrix);
          break;
        case Kind::kCorrMatrix:
          stan::math::check_corr_matrix(where, d.name.c_str(), matrix);
          free = stan::math::corr_matrix_free(matrix);
          break;
        case Kind::kCovMatrix:
          stan::math::check_cov_matrix(where, d.name.c_str(), matrix);
          free = stan::math::cov_matrix_free(matrix);
          break;
        case Kind::kReal:
          break;
      }
    } catch (const std::exception& e) {
      static const char* const kinds[] = {"",
                                          "simplex",
                                          "ordered vector",
                                          "positive ordered vector",
                                          "unit vector",
                                          "Cholesky factor of a correlation matrix",
                                          "Cholesky factor of a covariance matrix",
                                          "correlation matrix",
                                          "covariance matrix"};
      throw SupportError(d.name, std::string("is not a ") + kinds[static_cast<int>(d.kind)] +
                                     " (Stan Math: " + e.what() + ")");
    }
    if (!free.allFinite())
      throw SupportError(d.name, std::string("lies on the boundary of its support ") +
                                     "(its unconstrained value is not finite)");
    at += static_cast<std::size_t>(n);
  }
  return x;
}

}  // namespace tessera::mcmc
