#include <Eigen/Cholesky>
#include <boost/random/normal_distribution.hpp>
#include <boost/random/uniform_01.hpp>
#include <boost/random/uniform_real_distribution.hpp>
#include <cmath>
#include <limits>

#include "tessera/core/error.hpp"
#include "tessera/mcmc/adaptation.hpp"
#include "tessera/mcmc/sampler.hpp"

namespace tessera::mcmc {

SamplerKind parse_sampler(const std::string& name) {
  if (name == "nuts") return SamplerKind::nuts;
  if (name == "hmc") return SamplerKind::hmc;
  if (name == "rwm") return SamplerKind::rwm;
  if (name == "ensemble") return SamplerKind::ensemble;
  if (name == "pt") return SamplerKind::pt;
  throw ConfigError("unknown sampler '" + name +
                    "'; the samplers are nuts, hmc, rwm, ensemble, pt");
}

std::string sampler_name(SamplerKind kind) {
  switch (kind) {
    case SamplerKind::nuts:
      return "nuts";
    case SamplerKind::hmc:
      return "hmc";
    case SamplerKind::rwm:
      return "rwm";
    case SamplerKind::ensemble:
      return "ensemble";
    case SamplerKind::pt:
      return "pt";
  }
  return "?";
}

Metric parse_metric(const std::string& name) {
  if (name == "diag_e") return Metric::diag_e;
  if (name == "dense_e") return Metric::dense_e;
  throw ConfigError("unknown metric '" + name + "'; the metrics are diag_e, dense_e");
}

std::string metric_name(Metric metric) { return metric == Metric::dense_e ? "dense_e" : "diag_e"; }

StepAdaptation parse_step_adaptation(const std::string& name) {
  if (name == "dual_averaging") return StepAdaptation::dual_averaging;
  if (name == "simple") return StepAdaptation::simple;
  throw ConfigError("unknown step-size adaptation '" + name +
                    "'; the step-size adaptations are dual_averaging, simple");
}

std::string step_adaptation_name(StepAdaptation adaptation) {
  return adaptation == StepAdaptation::simple ? "simple" : "dual_averaging";
}

std::vector<std::string> sampler_columns(SamplerKind kind) {
  switch (kind) {
    case SamplerKind::nuts:
      return {"lp__",         "accept_stat__", "stepsize__", "treedepth__",
              "n_leapfrog__", "divergent__",   "energy__"};
    case SamplerKind::hmc:
      return {"lp__", "accept_stat__", "stepsize__", "int_time__", "energy__"};
    case SamplerKind::rwm:
      return {"lp__", "accept_stat__", "stepsize__"};
    case SamplerKind::ensemble:
      return {"lp__", "accept_stat__"};
    case SamplerKind::pt:
      return {"lp__", "accept_stat__", "stepsize__", "swap_accept__"};
  }
  return {};
}

std::vector<double> sampler_values(SamplerKind kind, const Transition& t, double integration_time) {
  switch (kind) {
    case SamplerKind::nuts:
      return {t.lp,
              t.accept_stat,
              t.step_size,
              static_cast<double>(t.treedepth),
              static_cast<double>(t.n_leapfrog),
              t.divergent ? 1.0 : 0.0,
              t.energy};
    case SamplerKind::hmc:
      return {t.lp, t.accept_stat, t.step_size, integration_time, t.energy};
    case SamplerKind::rwm:
      return {t.lp, t.accept_stat, t.step_size};
    case SamplerKind::ensemble:
      return {t.lp, t.accept_stat};
    case SamplerKind::pt:
      return {t.lp, t.accept_stat, t.step_size, t.swap_accept};
  }
  return {};
}

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

double uniform(RngEngine& rng) { return boost::random::uniform_01<double>()(rng); }
double normal(RngEngine& rng) { return boost::random::normal_distribution<double>()(rng); }

double log_sum_exp(double a, double b) {
  if (a == -kInf) return b;
  if (b == -kInf) return a;
  const double m = std::max(a, b);
  return m + std::log(std::exp(a - m) + std::exp(b - m));
}

// A point of phase space: position, momentum, and the log density and its gradient at q.
struct PhasePoint {
  Vector q, p, g;
  double lp = 0;
};

// Euclidean HMC with a diagonal (Stan's diag_e) or dense (dense_e) metric, shared by
// nuts and hmc.
class HamiltonianSampler : public ChainSampler {
 public:
  HamiltonianSampler(const Model& model, const SamplerConfig& config, std::span<const double> q)
      : model_(model),
        config_(config),
        step_size_(config.step_size),
        dense_(config.metric == Metric::dense_e),
        inverse_metric_(Vector::Ones(model.dimension())),
        step_adaptation_(config.delta),
        simple_adaptation_(config.delta),
        metric_adaptation_(model.dimension(), config.warmup),
        covariance_adaptation_(dense_ ? model.dimension() : 0, config.warmup) {
    const int d = model.dimension();
    if (dense_) set_dense_metric(Matrix::Identity(d, d));
    z_.q = Eigen::Map<const Vector>(q.data(), d);
    z_.p = Vector::Zero(d);
    step_adaptation_.set_mu(std::log(10.0 * config.step_size));
  }

  double step_size() const override { return step_size_; }
  const Vector& inverse_metric() const override { return inverse_metric_; }
  long cut_short_transitions() const override { return cut_short_; }

  Transition iterate(int iteration, std::span<double> q, RngEngine& rng) override {
    gradients_ = 0;
    z_.q = Eigen::Map<const Vector>(q.data(), static_cast<Eigen::Index>(q.size()));
    const bool simple = config_.step_adaptation == StepAdaptation::simple;
    if (iteration == 0 && config_.warmup > 0 && !simple) find_reasonable_step_size(rng);
    // Stan's sample_stepsize(): this transition's step size, uniform within +-jitter of the
    // nominal one (no draw without jitter, so the streams stay as they were).
    epsilon_ = step_size_;
    if (config_.step_size_jitter > 0)
      epsilon_ *= 1.0 + config_.step_size_jitter * (2.0 * uniform(rng) - 1.0);
    Transition t = transition(rng);
    if (iteration < config_.warmup && simple) {
      step_size_ = simple_adaptation_.learn(step_size_, t.accept_stat);
    } else if (iteration < config_.warmup) {
      step_size_ = step_adaptation_.learn(t.accept_stat);
      Matrix dense;
      if (dense_ ? covariance_adaptation_.learn(z_.q, dense)
                 : metric_adaptation_.learn(z_.q, inverse_metric_)) {
        if (dense_) set_dense_metric(dense);
        find_reasonable_step_size(rng);
        step_adaptation_.set_mu(std::log(10.0 * step_size_));
        step_adaptation_.restart();
      }
      if (iteration == config_.warmup - 1) step_size_ = step_adaptation_.final_step_size();
    }
    Eigen::Map<Vector>(q.data(), static_cast<Eigen::Index>(q.size())) = z_.q;
    t.gradients = gradients_;
    if (t.cut_short && iteration >= config_.warmup) ++cut_short_;
    return t;
  }

 protected:
  virtual Transition transition(RngEngine& rng) = 0;

  void set_dense_metric(const Matrix& inverse_metric) {
    dense_inverse_metric_ = inverse_metric;
    cholesky_.compute(inverse_metric);
    if (cholesky_.info() != Eigen::Success)
      throw Error("the adapted dense inverse metric of " + model_.name() +
                  " is not positive definite; use --metric diag_e or a longer --warmup");
    inverse_metric_ = Eigen::Map<const Vector>(inverse_metric.data(), inverse_metric.size());
  }
  void sample_momentum(RngEngine& rng) {
    if (dense_) {
      for (Eigen::Index i = 0; i < z_.p.size(); ++i) z_.p[i] = normal(rng);
      // p = L^-T z has covariance (L L^T)^-1 = M (Stan's dense_e_metric::sample_p).
      z_.p = cholesky_.matrixU().solve(z_.p);
      return;
    }
    for (Eigen::Index i = 0; i < z_.p.size(); ++i)
      z_.p[i] = normal(rng) / std::sqrt(inverse_metric_[i]);
  }
  void evaluate(PhasePoint& z) {
    z.lp = model_.log_density_gradient(z.q, z.g);
    ++gradients_;
    if (std::isnan(z.lp)) z.lp = -kInf;
  }
  double kinetic(const Vector& p) const {
    if (dense_) return 0.5 * p.dot(dense_inverse_metric_ * p);
    return 0.5 * (p.array().square() * inverse_metric_.array()).sum();
  }
  double hamiltonian(const PhasePoint& z) const {
    const double h = -z.lp + kinetic(z.p);
    return std::isnan(h) ? kInf : h;
  }
  Vector dtau_dp(const Vector& p) const {
    if (dense_) return dense_inverse_metric_ * p;
    return inverse_metric_.cwiseProduct(p);
  }
  // One leapfrog step of size eps (negative: backwards in time).
  void leapfrog(PhasePoint& z, double eps) {
    z.p += 0.5 * eps * z.g;
    z.q += eps * dtau_dp(z.p);
    evaluate(z);
    z.p += 0.5 * eps * z.g;
  }

  // Stan's init_stepsize(): double or halve the step size until the acceptance
  // probability of one leapfrog step crosses 0.8.
  void find_reasonable_step_size(RngEngine& rng) {
    evaluate(z_);
    const PhasePoint start = z_;
    sample_momentum(rng);
    double h0 = hamiltonian(z_);
    leapfrog(z_, step_size_);
    double delta_h = h0 - hamiltonian(z_);
    const int direction = delta_h > std::log(0.8) ? 1 : -1;
    for (;;) {
      z_ = start;
      sample_momentum(rng);
      h0 = hamiltonian(z_);
      leapfrog(z_, step_size_);
      delta_h = h0 - hamiltonian(z_);
      if (direction == 1 && !(delta_h > std::log(0.8))) break;
      if (direction == -1 && !(delta_h < std::log(0.8))) break;
      step_size_ = direction == 1 ? 2 * step_size_ : 0.5 * step_size_;
      if (step_size_ > 1e7)
        throw Error("the posterior of " + model_.name() +
                    " is improper: the step size grew beyond 1e7; check the model and data");
      if (step_size_ == 0)
        throw Error("no acceptably small step size for " + model_.name() +
                    "; the log density or its gradient is not finite near the initial point");
    }
    z_ = start;
  }

  const Model& model_;
  SamplerConfig config_;
  double step_size_;    // the nominal step size, adapted in warm-up
  double epsilon_ = 0;  // this transition's step size (the nominal one, jittered)
  bool dense_;
  Vector inverse_metric_;  // diag_e: the diagonal; dense_e: the matrix, column-major
  Matrix dense_inverse_metric_;
  Eigen::LLT<Matrix> cholesky_;  // of the dense inverse metric
  DualAveraging step_adaptation_;
  SimpleStepSize simple_adaptation_;
  WindowedVariance metric_adaptation_;
  WindowedCovariance covariance_adaptation_;
  PhasePoint z_;
  int gradients_ = 0;
  long cut_short_ = 0;  // transitions after warm-up cut at max_leapfrog_steps
};

class NutsSampler final : public HamiltonianSampler {
 public:
  using HamiltonianSampler::HamiltonianSampler;
  std::size_t workspace_bytes() const override {
    return sampler_workspace_bytes(config_, model_.dimension());
  }

 private:
  // Follows Stan's base_nuts::transition (stan/mcmc/hmc/nuts/base_nuts.hpp).
  Transition transition(RngEngine& rng) override {
    evaluate(z_);
    sample_momentum(rng);
    PhasePoint z_fwd = z_, z_bck = z_, z_sample = z_, z_propose = z_;
    const Vector p_sharp = dtau_dp(z_.p);
    Vector p_fwd_fwd = z_.p, p_sharp_fwd_fwd = p_sharp, p_fwd_bck = z_.p, p_sharp_fwd_bck = p_sharp,
           p_bck_fwd = z_.p, p_sharp_bck_fwd = p_sharp, p_bck_bck = z_.p, p_sharp_bck_bck = p_sharp;
    Vector rho = z_.p;
    double log_sum_weight = 0;
    const double h0 = hamiltonian(z_);
    int n_leapfrog = 0;
    double sum_metro_prob = 0;
    int depth = 0;
    divergent_ = false;
    const int d = model_.dimension();
    while (depth < config_.max_depth) {
      Vector rho_fwd = Vector::Zero(d), rho_bck = Vector::Zero(d);
      bool valid_subtree = false;
      double log_sum_weight_subtree = -kInf;
      if (uniform(rng) > 0.5) {
        z_ = z_fwd;
        // The old tree becomes the backward subtree: its forward end is the old tree's.
        rho_bck = rho;
        p_bck_fwd = p_fwd_fwd;
        p_sharp_bck_fwd = p_sharp_fwd_fwd;
        valid_subtree =
            build_tree(depth, z_propose, p_sharp_fwd_bck, p_sharp_fwd_fwd, rho_fwd, p_fwd_bck,
                       p_fwd_fwd, h0, 1.0, n_leapfrog, log_sum_weight_subtree, sum_metro_prob, rng);
        z_fwd = z_;
      } else {
        z_ = z_bck;
        // The old tree becomes the forward subtree: its backward end is the old tree's.
        rho_fwd = rho;
        p_fwd_bck = p_bck_bck;
        p_sharp_fwd_bck = p_sharp_bck_bck;
        valid_subtree = build_tree(depth, z_propose, p_sharp_bck_fwd, p_sharp_bck_bck, rho_bck,
                                   p_bck_fwd, p_bck_bck, h0, -1.0, n_leapfrog,
                                   log_sum_weight_subtree, sum_metro_prob, rng);
        z_bck = z_;
      }
      if (!valid_subtree) break;
      ++depth;
      // Biased progressive sampling between the old tree and the new subtree.
      if (log_sum_weight_subtree > log_sum_weight) {
        z_sample = z_propose;
      } else if (uniform(rng) < std::exp(log_sum_weight_subtree - log_sum_weight)) {
        z_sample = z_propose;
      }
      log_sum_weight = log_sum_exp(log_sum_weight, log_sum_weight_subtree);
      rho = rho_bck + rho_fwd;
      bool persist = criterion(p_sharp_bck_bck, p_sharp_fwd_fwd, rho);
      persist &= criterion(p_sharp_bck_bck, p_sharp_fwd_bck, Vector(rho_bck + p_fwd_bck));
      persist &= criterion(p_sharp_bck_fwd, p_sharp_fwd_fwd, Vector(rho_fwd + p_bck_fwd));
      if (!persist) break;
    }
    z_ = z_sample;
    Transition t;
    t.lp = z_.lp;
    t.accept_stat = n_leapfrog > 0 ? sum_metro_prob / n_leapfrog : 0;
    t.step_size = epsilon_;
    t.treedepth = depth;
    t.n_leapfrog = n_leapfrog;
    t.divergent = divergent_;
    t.energy = hamiltonian(z_);
    return t;
  }

  static bool criterion(const Vector& p_sharp_minus, const Vector& p_sharp_plus,
                        const Vector& rho) {
    return p_sharp_plus.dot(rho) > 0 && p_sharp_minus.dot(rho) > 0;
  }

  bool build_tree(int depth, PhasePoint& z_propose, Vector& p_sharp_beg, Vector& p_sharp_end,
                  Vector& rho, Vector& p_beg, Vector& p_end, double h0, double sign,
                  int& n_leapfrog, double& log_sum_weight, double& sum_metro_prob, RngEngine& rng) {
    if (depth == 0) {
      leapfrog(z_, sign * epsilon_);
      ++n_leapfrog;
      const double h = hamiltonian(z_);
      if (h - h0 > 1000.0) divergent_ = true;
      log_sum_weight = log_sum_exp(log_sum_weight, h0 - h);
      sum_metro_prob += h0 - h > 0 ? 1.0 : std::exp(h0 - h);
      z_propose = z_;
      p_sharp_beg = dtau_dp(z_.p);
      p_sharp_end = p_sharp_beg;
      rho += z_.p;
      p_beg = z_.p;
      p_end = p_beg;
      return !divergent_;
    }
    const Eigen::Index d = z_.q.size();
    // The initial subtree
    double log_sum_weight_init = -kInf;
    Vector p_init_end(d), p_sharp_init_end(d), rho_init = Vector::Zero(d);
    if (!build_tree(depth - 1, z_propose, p_sharp_beg, p_sharp_init_end, rho_init, p_beg,
                    p_init_end, h0, sign, n_leapfrog, log_sum_weight_init, sum_metro_prob, rng))
      return false;
    // The final subtree
    PhasePoint z_propose_final = z_;
    double log_sum_weight_final = -kInf;
    Vector p_final_beg(d), p_sharp_final_beg(d), rho_final = Vector::Zero(d);
    if (!build_tree(depth - 1, z_propose_final, p_sharp_final_beg, p_sharp_end, rho_final,
                    p_final_beg, p_end, h0, sign, n_leapfrog, log_sum_weight_final, sum_metro_prob,
                    rng))
      return false;
    // Multinomial sample from the right subtree
    const double log_sum_weight_subtree = log_sum_exp(log_sum_weight_init, log_sum_weight_final);
    log_sum_weight = log_sum_exp(log_sum_weight, log_sum_weight_subtree);
    if (log_sum_weight_final > log_sum_weight_subtree) {
      z_propose = z_propose_final;
    } else if (uniform(rng) < std::exp(log_sum_weight_final - log_sum_weight_subtree)) {
      z_propose = z_propose_final;
    }
    const Vector rho_subtree = rho_init + rho_final;
    rho += rho_subtree;
    // The no-U-turn criterion over the merged subtree, and across the two subtrees.
    bool persist = criterion(p_sharp_beg, p_sharp_end, rho_subtree);
    persist &= criterion(p_sharp_beg, p_sharp_final_beg, Vector(rho_init + p_final_beg));
    persist &= criterion(p_sharp_init_end, p_sharp_end, Vector(rho_final + p_init_end));
    return persist;
  }

  bool divergent_ = false;
};

class StaticHmcSampler final : public HamiltonianSampler {
 public:
  using HamiltonianSampler::HamiltonianSampler;
  std::size_t workspace_bytes() const override {
    return sampler_workspace_bytes(config_, model_.dimension());
  }

 private:
  Transition transition(RngEngine& rng) override {
    evaluate(z_);
    sample_momentum(rng);
    const PhasePoint start = z_;
    const double h0 = hamiltonian(z_);
    // floor(T / epsilon) as a double first: a tiny adapted step size would overflow an int.
    const double wanted = std::max(1.0, std::floor(config_.integration_time / step_size_));
    const bool cut_short = config_.leapfrog_steps == 0 && !(wanted <= config_.max_leapfrog_steps);
    const int steps = config_.leapfrog_steps > 0 ? config_.leapfrog_steps
                      : cut_short                ? config_.max_leapfrog_steps
                                                 : static_cast<int>(wanted);
    // L comes from the nominal step size, so jitter varies the integration time L epsilon
    // (Stan's base_static_hmc), which breaks the resonances of a fixed time on Gaussians.
    for (int i = 0; i < steps; ++i) leapfrog(z_, epsilon_);
    const double h = hamiltonian(z_);
    const double accept = std::isfinite(h) ? std::min(1.0, std::exp(h0 - h)) : 0.0;
    if (!(uniform(rng) < accept)) z_ = start;
    Transition t;
    t.lp = z_.lp;
    t.accept_stat = accept;
    t.step_size = epsilon_;
    t.n_leapfrog = steps;
    t.energy = hamiltonian(z_);
    t.cut_short = cut_short;
    return t;
  }
};

class RwmSampler final : public ChainSampler {
 public:
  RwmSampler(const Model& model, const SamplerConfig& config)
      : model_(model),
        config_(config),
        scale_(2.38 / std::sqrt(static_cast<double>(model.dimension()))),
        variance_(Vector::Ones(model.dimension())),
        scale_adaptation_(model.dimension() == 1 ? 0.44 : 0.234),
        variance_adaptation_(model.dimension(), config.warmup) {
    scale_adaptation_.set_mu(std::log(scale_));
  }
  double step_size() const override { return scale_; }
  const Vector& inverse_metric() const override { return variance_; }
  std::size_t workspace_bytes() const override {
    return sampler_workspace_bytes(config_, model_.dimension());
  }

  Transition iterate(int iteration, std::span<double> q, RngEngine& rng) override {
    const Eigen::Index d = model_.dimension();
    Eigen::Map<Vector> x(q.data(), d);
    const double lp = model_.log_density(x);
    Vector proposal(d);
    for (Eigen::Index i = 0; i < d; ++i)
      proposal[i] = x[i] + scale_ * std::sqrt(variance_[i]) * normal(rng);
    double lp_proposal = model_.log_density(proposal);
    if (std::isnan(lp_proposal)) lp_proposal = -kInf;
    const double accept = std::min(1.0, std::exp(lp_proposal - lp));
    Transition t;
    t.step_size = scale_;
    t.accept_stat = accept;
    t.gradients = 2;
    t.lp = lp;
    if (uniform(rng) < accept) {
      x = proposal;
      t.lp = lp_proposal;
    }
    if (iteration < config_.warmup) {
      // Unlike Stan's HMC, the scale's dual averaging runs on through the metric
      // updates: the acceptance of a random walk is a smooth function of the scale,
      // and a restart would leave too few iterations (the 50 of the terminal buffer)
      // to average the noisy 0/1-like acceptance.
      scale_ = scale_adaptation_.learn(accept);
      variance_adaptation_.learn(x, variance_);
      if (iteration == config_.warmup - 1) scale_ = scale_adaptation_.final_step_size();
    }
    return t;
  }

 private:
  const Model& model_;
  SamplerConfig config_;
  double scale_;
  Vector variance_;
  DualAveraging scale_adaptation_;
  WindowedVariance variance_adaptation_;
};

}  // namespace

std::size_t sampler_workspace_bytes(const SamplerConfig& config, int dimension) {
  const auto d = static_cast<std::size_t>(dimension);
  // The dense metric's matrix and its Cholesky factor (nuts, hmc).
  const std::size_t metric = config.metric == Metric::dense_e ? 2 * d * d * sizeof(double) : 0;
  switch (config.kind) {
    case SamplerKind::nuts:
      // The phase points and momenta of the trajectory ends, and per tree level the
      // temporaries of build_tree: ~ (16 + 6 max_depth) vectors of d doubles.
      return static_cast<std::size_t>(16 + 6 * config.max_depth) * d * sizeof(double) + metric;
    case SamplerKind::hmc:
      return 8 * d * sizeof(double) + metric;
    case SamplerKind::rwm:
    case SamplerKind::pt:  // per replica: the RWM that moves it
      return 6 * d * sizeof(double);
    case SamplerKind::ensemble:  // per walker: its proposal
      return 2 * d * sizeof(double);
  }
  return 0;
}

std::unique_ptr<ChainSampler> make_chain_sampler(const Model& model, const SamplerConfig& config,
                                                 std::span<const double> q, RngEngine&) {
  switch (config.kind) {
    case SamplerKind::nuts:
      return std::make_unique<NutsSampler>(model, config, q);
    case SamplerKind::hmc:
      return std::make_unique<StaticHmcSampler>(model, config, q);
    case SamplerKind::rwm:
      return std::make_unique<RwmSampler>(model, config);
    case SamplerKind::ensemble:
    case SamplerKind::pt:
      break;
  }
  throw ConfigError("the " + sampler_name(config.kind) +
                    " sampler moves several chains together; run it through sample()");
}

Vector initial_point(const Model& model, double radius, RngEngine& rng) {
  Vector q(model.dimension()), g;
  if (radius == 0) {  // the origin, as TensorFlow Probability's examples start
    q.setZero();
    const double lp = model.log_density_gradient(q, g);
    if (std::isfinite(lp) && g.allFinite()) return q;
    throw Error("the log density of " + model.name() +
                " or its gradient is not finite at the origin; use an --init radius > 0");
  }
  boost::random::uniform_real_distribution<double> u(-radius, radius);
  for (int attempt = 0; attempt < 100; ++attempt) {
    for (Eigen::Index i = 0; i < q.size(); ++i) q[i] = u(rng);
    const double lp = model.log_density_gradient(q, g);
    if (std::isfinite(lp) && g.allFinite()) return q;
  }
  throw Error("no initial point of " + model.name() +
              " with a finite log density and gradient in " + "100 attempts (uniform in (-" +
              std::to_string(radius) + ", " + std::to_string(radius) +
              ")); check the data or use a smaller --init radius");
}

}  // namespace tessera::mcmc
