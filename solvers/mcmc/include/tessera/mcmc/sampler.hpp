// Per-chain samplers: one chain's transition kernel, its warm-up adaptation and
// its sampler statistics (CmdStan's `__` columns).
//
//   nuts  the No-U-Turn sampler as in Stan (Betancourt 2017, arXiv:1701.02434):
//         multinomial sampling of the trajectory, the generalised no-U-turn
//         criterion (with the checks across merged subtrees), a maximum tree
//         depth, divergence when the energy error exceeds 1000;
//   hmc   static HMC: L = max(1, floor(integration_time / step size)) leapfrog steps, or a
//         fixed L (`leapfrog_steps`, as TensorFlow Probability's HamiltonianMonteCarlo);
//   rwm   adaptive random-walk Metropolis: Gaussian proposals scaled by the
//         windowed variance estimate, the scale tuned by dual averaging towards
//         an acceptance rate of 0.234 (Roberts, Gelman & Gilks 1997; 0.44 in 1-D).
// nuts and hmc adapt a step size (dual averaging towards `delta`) and an inverse
// metric (Stan's windows) during warm-up; adaptation stops after it. The metric is
// Stan's diag_e (diagonal) or dense_e (stan/mcmc/hmc/hamiltonians/dense_e_metric.hpp):
// kinetic energy 0.5 p^T M^-1 p, dtau/dp = M^-1 p, and p ~ N(0, M) drawn as
// p = L^-T z with z ~ N(0, I) and M^-1 = L L^T (Cholesky, Eigen's LLT).
// hmc may instead use TFP's simple step-size policy (`step_adaptation = simple`, see
// adaptation.hpp): from the given step size (no initial search), towards acceptance
// `delta` during warm-up, with the unit metric (no metric adaptation).
#pragma once

#include <cstddef>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "tessera/core/error.hpp"
#include "tessera/core/rng.hpp"
#include "tessera/mcmc/model.hpp"

namespace tessera::mcmc {

enum class SamplerKind { nuts, hmc, rwm, ensemble, pt };

SamplerKind parse_sampler(const std::string& name);  // ConfigError on an unknown name
std::string sampler_name(SamplerKind kind);

enum class Metric { diag_e, dense_e };

Metric parse_metric(const std::string& name);  // ConfigError on an unknown name
std::string metric_name(Metric metric);

// How nuts/hmc adapt the step size in warm-up.
enum class StepAdaptation { dual_averaging, simple };

StepAdaptation parse_step_adaptation(const std::string& name);  // ConfigError on an unknown name
std::string step_adaptation_name(StepAdaptation adaptation);

struct SamplerConfig {
  SamplerKind kind = SamplerKind::nuts;
  int warmup = 1000;               // warm-up iterations, not reported
  int draws = 1000;                // reported iterations
  int max_depth = 10;              // nuts: maximum tree depth
  Metric metric = Metric::diag_e;  // nuts/hmc: the metric adapted in warm-up
  double delta = 0.8;              // nuts/hmc: target acceptance statistic
  double step_size = 1.0;          // initial step size (rwm: initial proposal scale)
  // nuts/hmc: each transition's step size uniform in nominal x (1 +- jitter), jitter in [0, 1]
  // (Stan's stepsize_jitter); hmc keeps L from the nominal step size, so the time varies.
  double step_size_jitter = 0.0;
  double integration_time = 1.0;  // hmc: leapfrog steps x step size
  int leapfrog_steps = 0;         // hmc: fixed leapfrog steps per transition; 0: integration_time
  // hmc: the most leapfrog steps floor(integration_time / step size) may ask of one transition;
  // a step size adapted far down (a badly scaled posterior) would otherwise make one iteration
  // take unbounded time. A transition that hits it is cut short and counted (Draws).
  int max_leapfrog_steps = 10000;
  double init_radius = 2.0;       // initial points uniform in (-r, r); 0: the origin
  double stretch_scale = 2.0;     // ensemble: the stretch move's a
  int temperatures = 4;           // pt: replicas per chain, beta_k = max_temperature^(-k/(K-1))
  double max_temperature = 10.0;  // pt: temperature of the hottest replica
  // nuts/hmc: Stan's dual averaging (with the metric windows) or TFP's simple policy (hmc)
  StepAdaptation step_adaptation = StepAdaptation::dual_averaging;
  int thin = 1;              // CmdStan's thin: keep iterations 0, thin, 2 thin, ... of each phase
  bool save_warmup = false;  // CmdStan's save_warmup: also report the (thinned) warm-up
};

// Iterations of a phase of `iterations` that thinning by `thin` keeps (0, thin, 2 thin, ...):
// 1 + (iterations - 1) / thin, or 0 for an empty phase.
int kept_iterations(int iterations, int thin);

// The statistics of one transition.
struct Transition {
  double lp = 0, accept_stat = 0, step_size = 0;
  int treedepth = 0, n_leapfrog = 0;
  bool divergent = false;
  double energy = 0;
  double swap_accept = 0;  // pt: 1 when the cold replica took a neighbour's state
  int gradients = 0;       // gradient (or density) evaluations, for the cost model
  bool cut_short = false;  // hmc: the trajectory was cut at max_leapfrog_steps
};

// The sampler columns of the CSV for `kind` (lp__, accept_stat__, ...).
std::vector<std::string> sampler_columns(SamplerKind kind);
// The values of those columns for one transition.
std::vector<double> sampler_values(SamplerKind kind, const Transition& t, double integration_time);

class ChainSampler {
 public:
  virtual ~ChainSampler() = default;
  // One iteration from the position `q` (the chain's state, updated in place);
  // `iteration` counts from 0, warm-up first.
  virtual Transition iterate(int iteration, std::span<double> q, RngEngine& rng) = 0;
  virtual double step_size() const = 0;
  // The inverse metric: its diagonal (diag_e, rwm's proposal variances), or the
  // full d x d matrix in column-major order (dense_e; it is symmetric).
  virtual const Vector& inverse_metric() const = 0;
  // Bytes of working memory the sampler keeps per chain (charged to the tile).
  virtual std::size_t workspace_bytes() const = 0;
  // Transitions after warm-up that hit a bound of the sampler's work (hmc: max_leapfrog_steps).
  virtual long cut_short_transitions() const { return 0; }
};

// Bytes of working memory one chain's sampler keeps for a model of `dimension` (what its
// workspace_bytes() returns; pt: per replica, ensemble: per walker).
std::size_t sampler_workspace_bytes(const SamplerConfig& config, int dimension);

// A sampler for one chain of `model` (nuts, hmc or rwm); `q` is its initial point.
std::unique_ptr<ChainSampler> make_chain_sampler(const Model& model, const SamplerConfig& config,
                                                 std::span<const double> q, RngEngine& rng);

// Stan's initialisation: uniform(-radius, radius) on every unconstrained coordinate,
// retried (up to 100 times) until the log density and its gradient are finite; radius 0
// gives the origin.
Vector initial_point(const Model& model, double radius, RngEngine& rng);

}  // namespace tessera::mcmc
