// bnn_alpha: the Bayesian neural-network alpha model of Graphcore's MCMC benchmark
// (graphcore/examples, probability/mcmc/tensorflow1/mcmc_tfp.py) on public data: daily
// closes of DAX, SMI, CAC and FTSE (R's EuStockMarkets), 22 features, next-day DAX return
// in basis points, the final year held out (see docs/bnn_alpha.md).
//
// It samples the 963-parameter posterior with plain HMC as published (a fixed number of
// leapfrog steps, TFP's simple step-size policy towards acceptance 0.2 during burn-in,
// the origin as the initial state), one chain per IPU by default, and prints the time to
// result, the acceptance rate, R-hat and ESS of the predictive mean, the simulated time
// on the target, and an out-of-sample evaluation on the held-out year. With --sweep it
// also runs many chains per IPU (one per tile) and prints ESS per second against the
// chain count. The default run is short; --published runs the published configuration.
#include <CLI/CLI.hpp>
#include <algorithm>
#include <boost/random/student_t_distribution.hpp>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <sstream>

#include "tessera/core/atomic_file.hpp"
#include "tessera/core/cost_model.hpp"
#include "tessera/core/environment.hpp"
#include "tessera/core/error.hpp"
#include "tessera/core/options.hpp"
#include "tessera/core/rng.hpp"
#include "tessera/core/runtime.hpp"
#include "tessera/mcmc/bnn.hpp"
#include "tessera/mcmc/diagnostics.hpp"
#include "tessera/mcmc/output.hpp"
#include "tessera/mcmc/run.hpp"

namespace {

using namespace tessera;
using namespace tessera::mcmc;

struct Settings {
  std::string data = TESSERA_EXAMPLE_DATA "/eu_stock_markets.csv";
  int leapfrog_steps = 100, burn_in = 50, draws = 100, chains = 0, hidden = 40, test_days = 260;
  double step_size = 0.01, target_accept = 0.2, init = 0, interval = 0.9;
  std::string precision = "float32";
  std::uint64_t seed = 1;
  std::vector<int> sweep;
  std::string output;
  int refresh = 10;
};

// The case study's sampler with the settings the command line may change.
RunSettings run_settings(const Settings& s, int chains) {
  RunSettings r = case_study_sampler(s.leapfrog_steps, s.burn_in, s.draws, chains);
  r.sampler.step_size = s.step_size;
  r.sampler.delta = s.target_accept;
  r.sampler.init_radius = s.init;
  r.seed = s.seed;
  return r;
}

const ColumnSummary& find(const std::vector<ColumnSummary>& summary, const std::string& name) {
  for (const ColumnSummary& c : summary)
    if (c.name == name) return c;
  throw Error("no column '" + name + "' in the summary");
}

double mean_of(const Draws& d, std::size_t column) {
  double sum = 0;
  for (int c = 0; c < d.chains; ++c)
    for (int i = 0; i < d.draws; ++i) sum += d.at(c, i, column);
  return sum / (static_cast<double>(d.chains) * d.draws);
}

// Cycles of one gradient if a chain's observations were spread over all tiles of its IPU
// (Graphcore's placement: TensorFlow spreads the matrix products over the tiles), with the
// parameters broadcast and the gradient reduced over the IPU's tiles. An estimate from the
// cost model's pieces, not a simulation: the runtime places each chain on one tile.
double ipu_wide_gradient_seconds(const Target& target, const BnnAlphaModel& model) {
  Target ipu = target;
  ipu.ipus = 1;
  const auto per_tile = static_cast<std::uint64_t>((model.observations() + ipu.tiles_per_ipu - 1) /
                                                   ipu.tiles_per_ipu);
  const double compute = static_cast<double>(estimate_cycles(ipu, model.gradient_work(), per_tile));
  const std::uint64_t bytes = static_cast<std::uint64_t>(model.dimension()) * sizeof(float);
  const SuperstepCost reduce = reduction_cost(ipu, bytes, bytes, combine_work(DataType::float32),
                                              static_cast<std::uint64_t>(model.dimension()));
  // The broadcast of the parameters costs as much as the reduction of the gradient.
  return ipu.seconds(compute) + 2 * reduce.seconds(ipu);
}

struct Forecast {
  std::string csv;
  double hit_rate = 0, coverage = 0, rmse = 0, rmse_zero = 0;
  int days = 0;
};

// The posterior predictive of each held-out day: alpha's draws give the predictive mean
// (the Student-t's mean, df > 1) and its credible interval; one Student-t draw per alpha
// draw gives the predictive interval of the return itself.
Forecast forecast(const Draws& d, const AlphaData& data, const BnnPrior& prior, double level,
                  std::uint64_t seed) {
  Forecast f;
  std::ostringstream csv;
  csv << "time,actual,mean,alpha_lo,alpha_hi,return_lo,return_hi\n";
  csv.precision(10);
  const double lo = 0.5 * (1 - level), hi = 1 - lo;
  int hits = 0, signed_days = 0, covered = 0;
  double se = 0, se_zero = 0;
  const auto days = static_cast<int>(data.test.returns.size());
  RngEngine rng = rng_stream(seed, 1u << 30);  // beyond any chain's stream
  boost::random::student_t_distribution<double> student(prior.df);
  for (int t = 0; t < days; ++t) {
    const std::size_t col = d.index("alpha[" + std::to_string(t + 1) + "]");
    std::vector<double> alpha, y;
    for (int c = 0; c < d.chains; ++c)
      for (int i = 0; i < d.draws; ++i) {
        alpha.push_back(d.at(c, i, col));
        y.push_back(alpha.back() + prior.scale * student(rng));
      }
    const double mean = mean_of(d, col), actual = data.test.returns[t];
    const double a_lo = quantile(alpha, lo), a_hi = quantile(alpha, hi);
    const double y_lo = quantile(y, lo), y_hi = quantile(y, hi);
    if (actual != 0 && mean != 0) {
      ++signed_days;
      hits += (actual > 0) == (mean > 0);
    }
    covered += actual >= y_lo && actual <= y_hi;
    se += (mean - actual) * (mean - actual);
    se_zero += actual * actual;
    csv << data.test_time[static_cast<std::size_t>(t)] << ',' << actual << ',' << mean << ','
        << a_lo << ',' << a_hi << ',' << y_lo << ',' << y_hi << '\n';
  }
  f.csv = csv.str();
  f.days = signed_days;
  f.hit_rate = signed_days > 0 ? static_cast<double>(hits) / signed_days : 0;
  f.coverage = static_cast<double>(covered) / days;
  f.rmse = std::sqrt(se / days);
  f.rmse_zero = std::sqrt(se_zero / days);
  return f;
}

int run(const Settings& s, const RuntimeOptions& options) {
  const Precision precision = parse_precision(s.precision);
  const AlphaData data = load_alpha_data(s.data, s.test_days);
  const BnnPrior prior;
  const BnnAlphaModel model(data.train, data.test.features, s.hidden, precision, prior);

  Runtime runtime(options);
  const bool root = runtime.rank() == 0;
  const Target& target = runtime.target();
  const int chains = s.chains > 0 ? s.chains : (target.kind == TargetKind::ipu ? target.ipus : 4);
  if (root) {
    std::printf(
        "bnn_alpha: %d -> %d tanh -> 1 -> affine, %d parameters, %s; %d training days "
        "(%.2f-%.2f), %d held out (%.2f-%.2f)\n",
        model.inputs(), model.hidden(), model.dimension(), s.precision.c_str(),
        model.observations(), data.train_time.front(), data.train_time.back(), s.test_days,
        data.test_time.front(), data.test_time.back());
    std::printf(
        "plain HMC: %d leapfrog steps, step size %g adapted towards acceptance %g over "
        "%d burn-in transitions, %d kept; %d chains on %s (%d IPUs x %d tiles), %d "
        "rank(s) x %d thread(s)\n",
        s.leapfrog_steps, s.step_size, s.target_accept, s.burn_in, s.draws, chains,
        target.name.c_str(), target.ipus, target.tiles_per_ipu, runtime.ranks(), runtime.threads());
  }
  RunSettings settings = run_settings(s, chains);
  settings.progress = [&](int done, int total) {
    if (done % s.refresh != 0 && done != total) return;
    std::printf("transition %4d / %d (%s)\n", done, total,
                done <= s.burn_in ? "burn-in" : "sampling");
    std::fflush(stdout);
  };
  const auto start = std::chrono::steady_clock::now();
  const Draws draws = sample(runtime, model, settings);
  const double wall =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  const double simulated = runtime.profile().simulated_seconds();

  if (root) {
    const std::vector<ColumnSummary> summary = summarize(draws);
    const ColumnSummary& mean = find(summary, "alpha_mean");
    double worst_rhat = 0, least_ess = INFINITY;
    for (int t = 0; t < s.test_days; ++t) {
      const ColumnSummary& c = find(summary, "alpha[" + std::to_string(t + 1) + "]");
      worst_rhat = std::max(worst_rhat, c.rhat);
      least_ess = std::min(least_ess, c.ess_bulk);
    }
    std::printf("\ntime to result: %.2f s (wall, on this host)\n", wall);
    if (target.kind == TargetKind::ipu)
      std::printf("simulated time on %s: %.2f s (one chain per tile; cost model)\n",
                  target.name.c_str(), simulated);
    const double gradients = static_cast<double>(s.burn_in + s.draws) * (s.leapfrog_steps + 1);
    if (target.kind == TargetKind::ipu)
      std::printf(
          "estimate with each chain spread over its IPU's %d tiles: %.2f s (not "
          "simulated; see docs/bnn_alpha.md)\n",
          target.tiles_per_ipu, gradients * ipu_wide_gradient_seconds(target, model));
    std::printf("acceptance rate: %.3f (mean accept_stat__ after burn-in); step sizes:",
                mean_of(draws, draws.index("accept_stat__")));
    for (double e : draws.step_size) std::printf(" %.4g", e);
    std::printf(
        "\npredictive mean over the held-out year (alpha_mean, bp): %.3f, sd %.3f, R-hat "
        "%.3f, ESS bulk %.1f, ESS tail %.1f\n",
        mean.mean, mean.sd, mean.rhat, mean.ess_bulk, mean.ess_tail);
    std::printf("per-day predictive means: worst R-hat %.3f, smallest ESS bulk %.1f\n", worst_rhat,
                least_ess);
    const Forecast f = forecast(draws, data, prior, s.interval, s.seed);
    std::printf(
        "held-out year: sign hit rate %.3f over %d days (+- %.3f, binomial sd at 0.5); "
        "%.0f%% predictive interval covers %.3f; RMSE %.1f bp (zero forecast %.1f bp)\n",
        f.hit_rate, f.days, 0.5 / std::sqrt(std::max(f.days, 1)), 100 * s.interval, f.coverage,
        f.rmse, f.rmse_zero);
    std::uint64_t hash = 1469598103934665603ULL;
    for (double v : draws.values) {
      std::uint64_t bits = 0;
      std::memcpy(&bits, &v, sizeof bits);
      hash = (hash ^ bits) * 1099511628211ULL;
    }
    std::printf("draws checksum %016llx\n", static_cast<unsigned long long>(hash));
    if (!s.output.empty()) {
      write_file_atomically(s.output + "_predictions.csv", f.csv);
      RunDescription description{model.name(), s.data, settings.sampler, s.seed, "", {}};
      for (int c = 0; c < draws.chains; ++c)
        write_cmdstan_csv(s.output + "_" + std::to_string(c + 1) + ".csv", draws, c, description);
      std::printf("wrote %s_predictions.csv and %s_1..%d.csv\n", s.output.c_str(), s.output.c_str(),
                  draws.chains);
    }
  }
  const std::string summary = runtime.finish();
  if (root) std::fputs(summary.c_str(), stdout);

  if (s.sweep.empty()) return 0;
  // Many chains per IPU: chains on separate tiles cost no extra simulated time, so ESS per
  // simulated second grows with the chain count until the tiles are full.
  const BnnAlphaModel lean(data.train, data.test.features, s.hidden, precision, prior,
                           BnnReport::mean);
  if (root)
    std::printf(
        "\nmany chains per IPU (%d leapfrog steps, %d + %d transitions):\n%8s %8s %10s "
        "%12s %10s %8s %14s %14s\n",
        s.leapfrog_steps, s.burn_in, s.draws, "chains", "tiles", "wall_s", "simulated_s",
        "ESS_bulk", "R_hat", "ESS/sim_s", "ESS/wall_s");
  for (int n : s.sweep) {
    Runtime sweep_runtime(options);
    const auto t0 = std::chrono::steady_clock::now();
    const Draws d = sample(sweep_runtime, lean, run_settings(s, n));
    const double w = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    const double sim = sweep_runtime.profile().simulated_seconds();
    if (root) {
      const ColumnSummary& m = find(summarize(d), "alpha_mean");
      const int tiles = std::min(n, sweep_runtime.target().total_tiles());
      std::printf("%8d %8d %10.2f %12.3f %10.1f %8.3f %14.2f %14.2f\n", n, tiles, w, sim,
                  m.ess_bulk, m.rhat, sim > 0 ? m.ess_bulk / sim : 0.0, m.ess_bulk / w);
      std::fflush(stdout);
    }
    static_cast<void>(sweep_runtime.finish());
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  return tessera::run_main(argc, argv, [](int argc, char** argv) {
    CLI::App app{"bnn_alpha: Bayesian neural-network alpha model sampled by plain HMC"};
    Settings s;
    RuntimeOptions options;
    app.add_option("--data", s.data, "daily closes, CSV with columns time,DAX,SMI,CAC,FTSE")
        ->capture_default_str();
    bool published = false;
    app.add_flag("--published", published,
                 "the published configuration: 1000 leapfrog steps, 100 burn-in, 400 kept "
                 "(overrides those three options)");
    app.add_option("--leapfrog-steps", s.leapfrog_steps, "leapfrog steps per transition")
        ->check(CLI::Range(1, 1000000))
        ->capture_default_str();
    app.add_option("--burn-in", s.burn_in, "burn-in transitions (step size adapted)")
        ->check(CLI::Range(0, 1000000))
        ->capture_default_str();
    app.add_option("--draws", s.draws, "kept transitions")
        ->check(CLI::Range(4, 1000000))
        ->capture_default_str();
    app.add_option("--step-size", s.step_size, "initial step size")
        ->check(CLI::PositiveNumber)
        ->capture_default_str();
    app.add_option("--target-accept", s.target_accept, "acceptance the step size adapts towards")
        ->check(CLI::Range(0.01, 0.99))
        ->capture_default_str();
    app.add_option("--chains", s.chains, "chains (0: one per IPU; 4 on host)")
        ->check(CLI::Range(0, 10000000))
        ->capture_default_str();
    app.add_option("--hidden", s.hidden, "hidden units")
        ->check(CLI::Range(1, 100000))
        ->capture_default_str();
    app.add_option("--precision", s.precision, "float32 or float64 (the gradient's arithmetic)")
        ->capture_default_str();
    app.add_option("--test-days", s.test_days, "held-out final days")
        ->check(CLI::Range(1, 100000))
        ->capture_default_str();
    app.add_option("--init", s.init, "initial points uniform in (-init, init); 0: the origin")
        ->check(CLI::NonNegativeNumber)
        ->capture_default_str();
    app.add_option("--interval", s.interval, "level of the predictive intervals")
        ->check(CLI::Range(0.01, 0.999))
        ->capture_default_str();
    app.add_option("--seed", s.seed, "random seed")->capture_default_str();
    app.add_option("--sweep", s.sweep,
                   "also run these chain counts (comma-separated), one "
                   "chain per tile, reporting ESS per second")
        ->delimiter(',')
        ->check(CLI::Range(4, 10000000));
    app.add_option("--output", s.output, "write PREFIX_predictions.csv and PREFIX_<chain>.csv");
    app.add_option("--refresh", s.refresh, "progress every N transitions")
        ->check(CLI::Range(1, 100000000))
        ->capture_default_str();
    add_runtime_options(app, options, "pod4");
    if (auto code = parse_command_line(app, argc, argv)) return *code;
    if (published) s.leapfrog_steps = 1000, s.burn_in = 100, s.draws = 400;
    return run(s, options);
  });
}
