#include "mcmc_ipu_options.hpp"

#include <CLI/CLI.hpp>
#include <algorithm>
#include <charconv>
#include <iostream>

#include "tessera/core/error.hpp"
#include "tessera/mcmc/models.hpp"
#include "tessera/mcmc/stan_program.hpp"

namespace tessera::mcmc {

OutputFormats McmcIpuOptions::output_formats() const {
  OutputFormats f;
  f.csv = std::find(formats.begin(), formats.end(), "csv") != formats.end();
  f.netcdf = std::find(formats.begin(), formats.end(), "nc") != formats.end();
  return f;
}

void add_mcmc_ipu_options(CLI::App& app, McmcIpuOptions& o) {
  std::string &model_name = o.model_name, &data_file = o.data_file, &sampler = o.sampler,
              &metric = o.metric, &output = o.output, &step_adaptation = o.step_adaptation,
              &init = o.init;
  int &chains = o.chains, &warmup = o.warmup, &draws_wanted = o.draws, &dimension = o.dimension,
      &refresh = o.refresh;
  std::uint64_t& seed = o.seed;
  std::vector<std::string>& formats = o.formats;
  bool& no_summary = o.no_summary;
  SamplerConfig& config = o.config;
  CLI::Option* model_option = app.add_option("--model", model_name, "built-in model");
  CLI::Option* stan_option =
      app.add_option("--stan", o.stan_file,
                     "a Stan program (Stan 2.21's language) to sample instead of a built-in "
                     "model; translated and compiled once, then kept in the cache")
          ->check(CLI::ExistingFile);
  model_option->excludes(stan_option);
  app.add_option("--stan-cache", o.stan_cache,
                 "folder of compiled Stan programs [$TESSERA_STAN_CACHE, else "
                 "~/.cache/tessera/stan]");
  app.add_option("--data", data_file, "data file, JSON in posteriordb's layout")
      ->check(CLI::ExistingFile);
  app.add_option("--dimension", dimension,
                 "dimension of std_normal or correlated_gaussian (sets N)")
      ->check(CLI::Range(1, 1000000));
  app.add_option("--sampler", sampler, "nuts, hmc, rwm, ensemble or pt")->capture_default_str();
  app.add_option("--chains", chains, "chains (ensemble: walkers)")
      ->check(CLI::Range(1, 10000000))
      ->capture_default_str();
  app.add_option("--warmup", warmup, "warm-up iterations")
      ->check(CLI::Range(0, 100000000))
      ->capture_default_str();
  app.add_option("--draws", draws_wanted, "iterations after warm-up")
      ->check(CLI::Range(1, 100000000))
      ->capture_default_str();
  app.add_option("--seed", seed, "random seed")->capture_default_str();
  app.add_option("--output", output, "write PREFIX_<chain>.csv and PREFIX.nc");
  app.add_option("--formats", formats, "output formats: csv (CmdStan), nc (ArviZ NetCDF)")
      ->check(CLI::IsMember({"csv", "nc"}))
      ->delimiter(',')
      ->capture_default_str();
  app.add_option("--posterior-predictive", o.posterior_predictive,
                 "NetCDF: generated quantities for ArviZ's posterior_predictive group: QUANTITY, "
                 "or OBSERVED=QUANTITY to name it after the data it predicts (also written to "
                 "observed_data)");
  app.add_option("--log-likelihood", o.log_likelihood,
                 "NetCDF: pointwise log-likelihoods for ArviZ's log_likelihood group (LOO): "
                 "QUANTITY or OBSERVED=QUANTITY [default: log_lik, where the model has it]");
  app.add_flag("--no-summary", no_summary, "skip the summary table (long runs of many chains)");
  app.add_option("--max-depth", config.max_depth, "nuts: maximum tree depth")
      ->check(CLI::Range(1, 30))
      ->capture_default_str();
  app.add_option("--metric", metric, "nuts/hmc: adapted metric, diag_e or dense_e")
      ->capture_default_str();
  tessera::require_finite(
      app.add_option("--delta", config.delta, "nuts/hmc: target acceptance statistic"))
      ->check(CLI::Range(0.01, 0.999))
      ->capture_default_str();
  tessera::require_finite(app.add_option("--step-size", config.step_size, "initial step size"))
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  tessera::require_finite(
      app.add_option("--stepsize-jitter", config.step_size_jitter,
                     "nuts/hmc: each transition's step size uniform within +-jitter of the "
                     "adapted one (CmdStan's stepsize_jitter; hmc: varies the integration time)"))
      ->check(CLI::Range(0.0, 1.0))
      ->capture_default_str();
  tessera::require_finite(
      app.add_option("--int-time", config.integration_time, "hmc: integration time"))
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  app.add_option("--leapfrog-steps", config.leapfrog_steps,
                 "hmc: a fixed number of leapfrog steps (0: --int-time / step size)")
      ->check(CLI::Range(0, 100000000))
      ->capture_default_str();
  app.add_option("--max-leapfrog-steps", config.max_leapfrog_steps,
                 "hmc: most leapfrog steps of one transition from --int-time / step size "
                 "(bounds an iteration's work; transitions that hit it are counted and warned of)")
      ->check(CLI::Range(1, 100000000))
      ->capture_default_str();
  app.add_option("--step-adaptation", step_adaptation,
                 "step size in warm-up: dual_averaging (Stan) or simple (TFP's policy, hmc; "
                 "towards --delta, unit metric)")
      ->capture_default_str();
  app.add_option("--init", init,
                 "a radius R: initial points uniform in (-R, R) on the unconstrained scale "
                 "(0: the origin); or a JSON file of initial values (CmdStan's layout)")
      ->capture_default_str();
  app.add_option("--temperatures", config.temperatures, "pt: replicas per chain")
      ->check(CLI::Range(2, 1000))
      ->capture_default_str();
  tessera::require_finite(app.add_option("--max-temperature", config.max_temperature,
                                         "pt: temperature of the hottest replica"))
      ->check(CLI::Range(1.0001, 1e12))
      ->capture_default_str();
  app.add_option("--thin", config.thin,
                 "keep every N-th iteration (CmdStan's thin; also of a saved warm-up)")
      ->check(CLI::Range(1, 100000000))
      ->capture_default_str();
  app.add_flag("--save-warmup", config.save_warmup,
               "also write the warm-up draws (CmdStan's save_warmup; not in the summary)");
  app.add_option("--refresh", refresh, "progress every N iterations")
      ->check(CLI::Range(1, 100000000))
      ->capture_default_str();
  add_runtime_options(app, o.runtime, "host");
}

void finish_mcmc_ipu_options(McmcIpuOptions& o) {
  if (o.model_name.empty() && o.stan_file.empty())
    throw ConfigError("give the model: --model NAME (a built-in model) or --stan FILE.stan");
  o.config.kind = parse_sampler(o.sampler);
  o.config.metric = parse_metric(o.metric);
  o.config.step_adaptation = parse_step_adaptation(o.step_adaptation);
  o.config.warmup = o.warmup;
  o.config.draws = o.draws;
}

McmcIpuProblem load_mcmc_ipu_problem(McmcIpuOptions& o, MPI_Comm comm) {
  nlohmann::json data = nlohmann::json::object();
  std::string source = "(none)";  // in error messages; the CSV header leaves the file empty
  if (!o.data_file.empty()) {
    data = read_data_file(comm, o.data_file);
    source = o.data_file;
  }
  if (o.dimension > 0) {
    if (o.model_name != "std_normal" && o.model_name != "correlated_gaussian")
      throw ConfigError("--dimension applies to std_normal and correlated_gaussian only, not " +
                        (o.model_name.empty() ? o.stan_file : o.model_name));
    data["N"] = o.dimension;
  }
  McmcIpuProblem p;
  if (o.stan_file.empty()) {
    p.model = make_model(o.model_name, data, source);
  } else {
    int rank = 0;
    MPI_Comm_rank(comm, &rank);
    StanBuildOptions build;
    build.cache_directory = o.stan_cache;
    if (rank == 0) build.progress = &std::cout;
    p.model = load_stan_program(comm, o.stan_file, data, source, build);
  }
  p.groups = arviz_groups(o.posterior_predictive, o.log_likelihood, p.model->parameter_names(),
                          data, source);
  // --init as CmdStan reads it: a number is a radius, anything else names a file.
  double radius = 0;
  const auto [end, ec] = std::from_chars(o.init.data(), o.init.data() + o.init.size(), radius);
  if (ec == std::errc() && end == o.init.data() + o.init.size()) {
    o.config.init_radius = radius;  // sample() rejects a negative radius
  } else {
    p.init = read_init_file(comm, o.init, *p.model);
    p.init_file = o.init;
  }
  return p;
}

}  // namespace tessera::mcmc
