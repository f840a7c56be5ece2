#include "tessera/mcmc/bnn.hpp"

#include <math.h>  // lgamma_r (POSIX)

#include <algorithm>
#include <cmath>
#include <fstream>
#include <numbers>
#include <sstream>
#include <type_traits>

#include "tessera/core/error.hpp"

namespace tessera::mcmc {

namespace {

// Observations per block of the batched gradient: bounds the activations a chain keeps
// (2 H kBlock values; 80 KiB in float32 for H = 40) and keeps them in cache on a host.
constexpr Eigen::Index kBlock = 256;

double gemm_flops_per_observation(int k, int h) { return 4.0 * k * h; }
// tanh, 1 - h^2, the outer product w2 dout^T, their product, the row sums of dA, the two
// GEMVs of the output layer (2 flops each per unit), and ~20 scalar operations of the
// Student-t term and the output affine map.
double elementwise_flops_per_observation(int h) { return 8.0 * h + 20.0; }

// lgamma_r, not std::lgamma: glibc's lgamma writes the global signgam, a data race between
// chains sampled on different threads (TSan found it).
double log_gamma(double x) {
  int sign = 0;
  return lgamma_r(x, &sign);
}

double student_t_constant(double df, double scale) {
  return log_gamma(0.5 * (df + 1)) - log_gamma(0.5 * df) -
         0.5 * std::log(df * std::numbers::pi) - std::log(scale);
}

}  // namespace

Precision parse_precision(const std::string& name) {
  if (name == "float32") return Precision::float32;
  if (name == "float64") return Precision::float64;
  throw ConfigError("unknown precision '" + name + "'; the precisions are float32, float64");
}

std::string precision_name(Precision precision) {
  return precision == Precision::float32 ? "float32" : "float64";
}

BnnAlphaModel::BnnAlphaModel(const BnnData& train, const Eigen::MatrixXd& predict, int hidden,
                             Precision precision, BnnPrior prior, BnnReport report)
    : inputs_(static_cast<int>(train.features.cols())),
      hidden_(hidden),
      precision_(precision),
      prior_(prior),
      report_(report),
      predict_(predict) {
  if (hidden < 1)
    throw ConfigError("the hidden layer needs at least 1 unit, not " + std::to_string(hidden));
  if (train.features.rows() != train.returns.size() || train.returns.size() == 0 || inputs_ < 1)
    throw ConfigError("the training data need N >= 1 rows of K >= 1 features and N returns; got " +
                      std::to_string(train.features.rows()) + " x " + std::to_string(inputs_) +
                      " features and " + std::to_string(train.returns.size()) + " returns");
  if (predict.rows() > 0 && predict.cols() != inputs_)
    throw ConfigError("the prediction rows have " + std::to_string(predict.cols()) +
                      " features, the training data " + std::to_string(inputs_));
  if (!(prior.weight_sd > 0 && prior.df > 0 && prior.scale > 0 && prior.feature_scale > 0))
    throw ConfigError("the prior sd, degrees of freedom, scale and feature scale must be positive");
  features_ = prior.feature_scale * train.features.transpose();
  returns_ = train.returns;
  features_f_ = features_.cast<float>();
  returns_f_ = returns_.cast<float>();
}

int BnnAlphaModel::dimension() const { return inputs_ * hidden_ + 2 * hidden_ + 3; }

std::vector<std::string> BnnAlphaModel::parameter_names() const {
  std::vector<std::string> names{"alpha_mean"};
  if (report_ == BnnReport::mean) return names;
  for (Eigen::Index t = 0; t < predict_.rows(); ++t)
    names.push_back("alpha[" + std::to_string(t + 1) + "]");
  if (report_ != BnnReport::weights) return names;
  for (const std::string& n : parameter_block_names()) names.push_back(n);
  return names;
}

std::vector<std::string> BnnAlphaModel::parameter_block_names() const {
  std::vector<std::string> names;
  for (int j = 0; j < hidden_; ++j)
    for (int k = 0; k < inputs_; ++k)
      names.push_back("w1[" + std::to_string(k + 1) + "," + std::to_string(j + 1) + "]");
  for (int j = 0; j < hidden_; ++j) names.push_back("b1[" + std::to_string(j + 1) + "]");
  for (int j = 0; j < hidden_; ++j) names.push_back("w2[" + std::to_string(j + 1) + "]");
  for (const char* n : {"b2", "w3", "b3"}) names.emplace_back(n);
  return names;
}

std::vector<double> BnnAlphaModel::parameter_block_values(const Vector& x) const {
  return {x.data(), x.data() + x.size()};
}

Vector BnnAlphaModel::unconstrain(std::span<const double> values) const {
  if (values.size() != static_cast<std::size_t>(dimension()))
    throw ConfigError("bnn_alpha: unconstrain() takes the " + std::to_string(dimension()) +
                      " weights, not " + std::to_string(values.size()));
  // Every weight is an unconstrained real: only non-finite values lie outside the support.
  for (std::size_t i = 0; i < values.size(); ++i)
    if (!std::isfinite(values[i]))
      throw SupportError(parameter_block_names()[i],
                         "= " + std::to_string(values[i]) + " is not finite");
  return Eigen::Map<const Vector>(values.data(), static_cast<Eigen::Index>(values.size()));
}

template <class S>
double BnnAlphaModel::evaluate(const Vector& x, Vector* gradient) const {
  using Mat = Eigen::Matrix<S, Eigen::Dynamic, Eigen::Dynamic>;
  using Vec = Eigen::Matrix<S, Eigen::Dynamic, 1>;
  using Row = Eigen::Array<S, 1, Eigen::Dynamic>;
  const Eigen::Index k = inputs_, h = hidden_, d = dimension();
  const Mat& features = [&]() -> const Mat& {
    if constexpr (std::is_same_v<S, float>)
      return features_f_;
    else
      return features_;
  }();
  const Vec& returns = [&]() -> const Vec& {
    if constexpr (std::is_same_v<S, float>)
      return returns_f_;
    else
      return returns_;
  }();
  const Vec p = x.cast<S>();
  const Eigen::Map<const Mat> w1(p.data(), k, h);
  const auto b1 = p.segment(k * h, h);
  const auto w2 = p.segment(k * h + h, h);
  const S b2 = p[k * h + 2 * h], w3 = p[k * h + 2 * h + 1], b3 = p[k * h + 2 * h + 2];
  const S df = static_cast<S>(prior_.df), scale = static_cast<S>(prior_.scale);

  Vec g = Vec::Zero(gradient ? d : 0);
  Mat activation(h, kBlock), delta(h, kBlock);
  double sum_log1p = 0;
  const Eigen::Index n_obs = returns.size();
  for (Eigen::Index start = 0; start < n_obs; start += kBlock) {
    const Eigen::Index n = std::min(kBlock, n_obs - start);
    const auto xb = features.middleCols(start, n);
    auto hb = activation.leftCols(n);
    hb.noalias() = w1.transpose() * xb;  // GEMM: (H x K) (K x n)
    hb.colwise() += b1;
    hb = hb.array().tanh();
    Row o = (w2.transpose() * hb).array() + b2;
    const Row z = (returns.segment(start, n).transpose().array() - (w3 * o + b3)) / scale;
    const Row z2 = z.square();
    sum_log1p += static_cast<double>((z2 / df).log1p().sum());
    if (!gradient) continue;
    // r = d log p(y | alpha) / d alpha, then back through the affine map and the layers.
    const Row r = (df + S(1)) * z / (scale * (df + z2));
    const Row dout = w3 * r;
    g[d - 1] += r.sum();
    g[d - 2] += (o * r).sum();
    g[d - 3] += dout.sum();
    g.segment(k * h + h, h).noalias() += hb * dout.matrix().transpose();
    auto db = delta.leftCols(n);
    db.noalias() = w2 * dout.matrix();  // outer product, H x n
    db.array() *= S(1) - hb.array().square();
    g.segment(k * h, h) += db.rowwise().sum();
    Eigen::Map<Mat>(g.data(), k, h).noalias() += xb * db.transpose();  // GEMM: (K x n) (n x H)
  }
  const double var = prior_.weight_sd * prior_.weight_sd;
  const double log_likelihood =
      -0.5 * (prior_.df + 1) * sum_log1p +
      static_cast<double>(n_obs) * student_t_constant(prior_.df, prior_.scale);
  const double log_prior =
      -0.5 * x.squaredNorm() / var -
      static_cast<double>(d) * (std::log(prior_.weight_sd) + 0.5 * std::log(2 * std::numbers::pi));
  if (gradient) *gradient = g.template cast<double>() - x / var;
  return log_likelihood + log_prior;
}

double BnnAlphaModel::log_density(const Vector& x) const {
  return precision_ == Precision::float32 ? evaluate<float>(x, nullptr)
                                          : evaluate<double>(x, nullptr);
}

double BnnAlphaModel::log_density_gradient(const Vector& x, Vector& gradient) const {
  return precision_ == Precision::float32 ? evaluate<float>(x, &gradient)
                                          : evaluate<double>(x, &gradient);
}

double BnnAlphaModel::autodiff_log_density_gradient(const Vector& x, Vector& gradient) const {
  return evaluate<double>(x, &gradient);
}

Eigen::VectorXd BnnAlphaModel::predict(const Vector& x, const Eigen::MatrixXd& rows) const {
  const Eigen::Index k = inputs_, h = hidden_;
  const Eigen::Map<const Eigen::MatrixXd> w1(x.data(), k, h);
  const Eigen::MatrixXd hidden =
      ((prior_.feature_scale * rows * w1).rowwise() + x.segment(k * h, h).transpose())
          .array()
          .tanh();
  const Eigen::VectorXd o = (hidden * x.segment(k * h + h, h)).array() + x[k * h + 2 * h];
  return x[k * h + 2 * h + 1] * o.array() + x[k * h + 2 * h + 2];
}

std::vector<double> BnnAlphaModel::constrain(const Vector& x) const {
  std::vector<double> out;
  const Eigen::VectorXd alpha = predict(x, predict_);
  out.push_back(alpha.size() > 0 ? alpha.mean() : 0.0);
  if (report_ == BnnReport::mean) return out;
  out.insert(out.end(), alpha.begin(), alpha.end());
  if (report_ == BnnReport::weights) out.insert(out.end(), x.begin(), x.end());
  return out;
}

double BnnAlphaModel::gradient_flops() const {
  return observations() * (gemm_flops_per_observation(inputs_, hidden_) +
                           elementwise_flops_per_observation(hidden_));
}

KernelWork BnnAlphaModel::gradient_work() const {
  // Per observation: the two GEMMs' flops; the elementwise flops, of which the H tanh and
  // the Student-t term's log1p are transcendentals; the observation's features and return
  // loaded. In float32 the GEMMs run on the tile's AMP unit and the elementwise work on the
  // 2-wide float vectors; in float64 all of it is emulated.
  const double gemm = gemm_flops_per_observation(inputs_, hidden_);
  const double elementwise = elementwise_flops_per_observation(hidden_) - hidden_;
  const double transcendentals = hidden_ + 1.0;
  const double bytes = (inputs_ + 1.0) * (precision_ == Precision::float32 ? 4 : 8);
  KernelWork w;
  w.bytes_loaded = bytes;
  if (precision_ == Precision::float32) {
    w.matmul_flops_fp32 = gemm;
    w.flops_fp32 = elementwise;
    w.transcendentals_fp32 = transcendentals;
    w.vector_width = 2;
  } else {
    w.flops_fp64 = gemm + elementwise;
    w.transcendentals_fp64 = transcendentals;
    w.value_bytes = 8;
  }
  return w;
}

std::uint64_t BnnAlphaModel::gradient_cycles(const Target& target) const {
  // One kernel per block of observations (the batched gradient's loop).
  const KernelWork w = gradient_work();
  std::uint64_t cycles = 0;
  for (Eigen::Index start = 0; start < observations(); start += kBlock)
    cycles += estimate_cycles(target, w,
                              static_cast<std::uint64_t>(std::min(kBlock, observations() - start)));
  return cycles;
}

std::uint64_t BnnAlphaModel::gradient_elements() const {
  return static_cast<std::uint64_t>(observations());
}

std::size_t BnnAlphaModel::data_bytes() const {
  const std::size_t value = precision_ == Precision::float32 ? sizeof(float) : sizeof(double);
  return value * static_cast<std::size_t>((inputs_ + 1) * observations() +
                                          predict_.rows() * predict_.cols());
}

std::size_t BnnAlphaModel::chain_workspace_bytes() const {
  // Activations and their gradient per block, the parameters and gradient in the compute
  // precision, and a handful of row vectors per block.
  const std::size_t value = precision_ == Precision::float32 ? sizeof(float) : sizeof(double);
  return value * static_cast<std::size_t>(2 * hidden_ * kBlock + 2 * dimension() + 6 * kBlock);
}

namespace {

[[noreturn]] void bad_data(const std::string& path, int line, const std::string& what) {
  throw FormatError("data file '" + path + "'" +
                    (line > 0 ? ", line " + std::to_string(line) : std::string()) + ": " + what);
}

std::vector<std::string> split_csv(const std::string& line) {
  std::vector<std::string> fields;
  std::stringstream in(line);
  std::string f;
  while (std::getline(in, f, ',')) fields.push_back(f);
  if (!line.empty() && line.back() == ',') fields.emplace_back();
  return fields;
}

// Sample standard deviation of v[end - n, end).
double rolling_sd(const std::vector<double>& v, std::size_t end, std::size_t n) {
  double mean = 0;
  for (std::size_t i = end - n; i < end; ++i) mean += v[i];
  mean /= static_cast<double>(n);
  double ss = 0;
  for (std::size_t i = end - n; i < end; ++i) ss += (v[i] - mean) * (v[i] - mean);
  return std::sqrt(ss / static_cast<double>(n - 1));
}

}  // namespace

RunSettings case_study_sampler(int leapfrog_steps, int warmup, int draws, int chains) {
  RunSettings r;
  r.sampler.kind = SamplerKind::hmc;
  r.sampler.leapfrog_steps = leapfrog_steps;
  r.sampler.step_size = 0.01;
  r.sampler.delta = 0.2;
  r.sampler.step_adaptation = StepAdaptation::simple;
  r.sampler.init_radius = 0;
  r.sampler.warmup = warmup;
  r.sampler.draws = draws;
  r.chains = chains;
  return r;
}

AlphaData load_alpha_data(const std::string& path, int test_days) {
  if (test_days < 1)
    throw ConfigError("the held-out period needs at least 1 day, not " + std::to_string(test_days));
  std::ifstream in(path);
  if (!in) bad_data(path, 0, "cannot open it; pass the EuStockMarkets CSV (time,DAX,SMI,CAC,FTSE)");
  std::string line;
  if (!std::getline(in, line))
    bad_data(path, 1, "it is empty; expected the header time,DAX,SMI,CAC,FTSE");
  if (!line.empty() && line.back() == '\r') line.pop_back();
  const std::vector<std::string> header = split_csv(line);
  const std::vector<std::string> wanted{"time", "DAX", "SMI", "CAC", "FTSE"};
  std::vector<std::size_t> column;
  for (const std::string& w : wanted) {
    const auto it = std::find(header.begin(), header.end(), w);
    if (it == header.end()) bad_data(path, 1, "no column '" + w + "' in the header '" + line + "'");
    column.push_back(static_cast<std::size_t>(it - header.begin()));
  }
  std::vector<double> time;
  std::vector<std::vector<double>> price(4);
  int number = 1;
  while (std::getline(in, line)) {
    ++number;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.empty()) continue;
    const std::vector<std::string> fields = split_csv(line);
    if (fields.size() != header.size())
      bad_data(path, number,
               std::to_string(fields.size()) + " fields, the header has " +
                   std::to_string(header.size()));
    for (std::size_t c = 0; c < wanted.size(); ++c) {
      const std::string& f = fields[column[c]];
      double v = 0;
      std::size_t used = 0;
      try {
        v = std::stod(f, &used);
      } catch (const std::exception&) {
        used = 0;
      }
      if (used == 0 || used != f.size() || !std::isfinite(v))
        bad_data(path, number, "column '" + wanted[c] + "' is not a number: '" + f + "'");
      if (c == 0) {
        time.push_back(v);
      } else {
        if (!(v > 0))
          bad_data(path, number, "price of " + wanted[c] + " must be positive, not " + f);
        price[c - 1].push_back(v);
      }
    }
  }
  // 20 returns of history for the features, then the observations, each with its next day.
  constexpr std::size_t kHistory = 20;
  const std::size_t days = time.size();
  const std::size_t min_days = kHistory + 2 + static_cast<std::size_t>(test_days) + 1;
  if (days < min_days)
    bad_data(path, 0,
             std::to_string(days) + " days of prices; the features and " +
                 std::to_string(test_days) + " held-out days need at least " +
                 std::to_string(min_days));
  std::vector<std::vector<double>> r(4, std::vector<double>(days, 0.0));  // r[i][t], t >= 1
  for (int i = 0; i < 4; ++i)
    for (std::size_t t = 1; t < days; ++t) r[i][t] = 1e4 * std::log(price[i][t] / price[i][t - 1]);

  AlphaData out;
  for (int i = 0; i < 4; ++i) {
    const std::string& n = wanted[static_cast<std::size_t>(i) + 1];
    for (const char* f : {"r", "r_lag1", "r_lag2", "sd5", "sd20"})
      out.feature_names.push_back(n + "_" + f);
  }
  out.feature_names.emplace_back("DAX_sum5");
  out.feature_names.emplace_back("DAX_sum20");
  // Observation t (kHistory <= t <= days - 2): features from returns up to t, target r_t+1.
  const std::size_t n_obs = days - 1 - kHistory;
  const std::size_t n_train = n_obs - static_cast<std::size_t>(test_days);
  Eigen::MatrixXd features(static_cast<Eigen::Index>(n_obs), 22);
  Eigen::VectorXd target(static_cast<Eigen::Index>(n_obs));
  for (std::size_t o = 0; o < n_obs; ++o) {
    const std::size_t t = kHistory + o;
    const auto row = static_cast<Eigen::Index>(o);
    for (int i = 0; i < 4; ++i) {
      const std::vector<double>& ri = r[static_cast<std::size_t>(i)];
      features(row, 5 * i + 0) = ri[t];
      features(row, 5 * i + 1) = ri[t - 1];
      features(row, 5 * i + 2) = ri[t - 2];
      features(row, 5 * i + 3) = rolling_sd(ri, t + 1, 5);
      features(row, 5 * i + 4) = rolling_sd(ri, t + 1, 20);
    }
    double s5 = 0, s20 = 0;
    for (std::size_t j = 0; j < 20; ++j) (j < 5 ? s5 : s20) += r[0][t - j];
    features(row, 20) = s5;
    features(row, 21) = s5 + s20;
    target[row] = r[0][t + 1];
  }
  const auto nt = static_cast<Eigen::Index>(n_train);
  const auto ns = static_cast<Eigen::Index>(test_days);
  out.train.features = features.topRows(nt);
  out.train.returns = target.head(nt);
  out.test.features = features.bottomRows(ns);
  out.test.returns = target.tail(ns);
  for (std::size_t o = 0; o < n_obs; ++o)
    (o < n_train ? out.train_time : out.test_time).push_back(time[kHistory + o + 1]);
  return out;
}

}  // namespace tessera::mcmc
