// A Bayesian neural-network alpha model: the workload of Graphcore's MCMC benchmark with
// TensorFlow Probability (graphcore/examples, probability/mcmc/tensorflow1/mcmc_tfp.py;
// "representative finance workload for alpha estimation").
//
// The network maps K features to a predicted return (the "alpha"):
//   h = tanh(W1^T (s x) + b1)      K -> H units (s = feature_scale, 0.001 as published)
//   o = w2^T h + b2                 H -> 1
//   alpha = w3 o + b3               affine output
// with K H + H + H + 1 + 2 parameters (22 -> 40: 963), every one ~ Normal(0, weight_sd^2)
// (200 as published), and returns y ~ StudentT(df, alpha, scale) (2.2 and 100 as published).
// The log density includes all normalising constants (as TFP's log_prob does).
//
// The gradient is backpropagated analytically, batched over blocks of observations as
// Eigen matrix products (two GEMMs of K x H x n per block), in float32 or float64
// (`Precision`); the sampler's state stays double. The unconstrained vector is laid out as
//   W1 (K x H, column-major: x[k + K j]), b1 (H), w2 (H), b2, w3, b3.
// It reports `alpha_mean` (the mean predicted return over the prediction rows), then as
// `BnnReport` asks `alpha[1..T]` (the predicted return of each prediction row) and the
// weights (w1[k,j], b1[j], w2[j], b2, w3, b3).
//
// load_alpha_data() builds the case study's data from daily index closes (R's
// EuStockMarkets layout: time,DAX,SMI,CAC,FTSE): per day t, with r = 10^4 log(P_t/P_t-1)
// (basis points), the 22 features are, for each index, r_t, r_t-1, r_t-2 and the sample
// standard deviations of its last 5 and last 20 returns (20), and the DAX's 5- and 20-day
// summed returns (2); the target is the DAX's next-day return r_t+1 in basis points. The
// last `test_days` observations are held out.
#pragma once

#include <Eigen/Core>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "tessera/core/error.hpp"
#include "tessera/mcmc/model.hpp"
#include "tessera/mcmc/run.hpp"

namespace tessera::mcmc {

enum class Precision { float32, float64 };
Precision parse_precision(const std::string& name);  // ConfigError on an unknown name
std::string precision_name(Precision precision);

struct BnnPrior {
  double weight_sd = 200.0;      // Normal(0, weight_sd^2) on every parameter
  double df = 2.2;               // Student-t degrees of freedom of the returns
  double scale = 100.0;          // Student-t scale of the returns
  double feature_scale = 0.001;  // the network sees feature_scale * features
};

// What constrain() reports after alpha_mean: many chains on one IPU want few columns, since
// every draw travels to tile 0.
enum class BnnReport { mean, predictions, weights };

// Observations: one row of raw features per observation, and the return to predict.
struct BnnData {
  Eigen::MatrixXd features;  // N x K
  Eigen::VectorXd returns;   // N
};

class BnnAlphaModel final : public Model {
 public:
  // `predict` (T x K raw features) are the rows whose predicted returns are reported;
  // throws ConfigError on inconsistent shapes or a hidden size below 1.
  BnnAlphaModel(const BnnData& train, const Eigen::MatrixXd& predict, int hidden,
                Precision precision, BnnPrior prior = {},
                BnnReport report = BnnReport::predictions);

  std::string name() const override { return "bnn_alpha"; }
  int dimension() const override;
  std::vector<std::string> parameter_names() const override;
  double log_density(const Vector& x) const override;
  double log_density_gradient(const Vector& x, Vector& gradient) const override;
  // The float64 analytic gradient: forward-mode AD over 963 parameters and thousands of
  // observations would cost minutes, so the reference check is by finite differences.
  double autodiff_log_density_gradient(const Vector& x, Vector& gradient) const override;
  std::vector<double> constrain(const Vector& x) const override;
  // The parameters block: the weights w1[k,j], b1[j], w2[j], b2, w3, b3 in x's order (all
  // unconstrained).
  std::vector<std::string> parameter_block_names() const override;
  std::vector<double> parameter_block_values(const Vector& x) const override;
  Vector unconstrain(std::span<const double> values) const override;
  // One gradient, per observation: the two GEMMs' flops (on the AMP unit in float32), the
  // elementwise work and the tanh and log1p (see bnn.cpp); one kernel per block of
  // observations.
  KernelWork gradient_work() const override;
  std::uint64_t gradient_elements() const override;
  std::uint64_t gradient_cycles(const Target& target) const override;
  std::size_t data_bytes() const override;
  std::size_t chain_workspace_bytes() const override;

  int inputs() const { return inputs_; }
  int hidden() const { return hidden_; }
  int observations() const { return static_cast<int>(returns_.size()); }
  Precision precision() const { return precision_; }
  // Floating-point operations of one gradient (forward and backward pass).
  double gradient_flops() const;
  // The network's predicted returns alpha(x) for raw feature rows (in double).
  Eigen::VectorXd predict(const Vector& x, const Eigen::MatrixXd& features) const;

 private:
  template <class S>
  double evaluate(const Vector& x, Vector* gradient) const;

  int inputs_, hidden_;
  Precision precision_;
  BnnPrior prior_;
  BnnReport report_;
  Eigen::MatrixXd features_;  // K x N, scaled
  Eigen::VectorXd returns_;
  Eigen::MatrixXf features_f_;  // the same in float32
  Eigen::VectorXf returns_f_;
  Eigen::MatrixXd predict_;  // raw, T x K
};

// The case study's data (see the file comment).
struct AlphaData {
  std::vector<std::string> feature_names;  // 22
  BnnData train, test;
  std::vector<double> train_time, test_time;  // fractional year of the predicted day
};

// The case study's sampler (mcmc_tfp.py): plain HMC whose step size starts at 0.01 and is
// adapted during the warm-up by TFP's SimpleStepSizeAdaptation towards an acceptance of 0.2,
// every chain starting at the origin. Published: 1000 leapfrog steps, 100 warm-up and 400
// kept transitions.
RunSettings case_study_sampler(int leapfrog_steps, int warmup, int draws, int chains);

// Reads the closes from `csv_path` and builds the features; FormatError naming the file
// and line on a missing file, missing column, malformed number, non-positive price or too
// few rows; ConfigError when test_days < 1.
AlphaData load_alpha_data(const std::string& csv_path, int test_days = 260);

}  // namespace tessera::mcmc
