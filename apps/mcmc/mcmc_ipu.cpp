// mcmc_ipu: MCMC on the tile runtime, with Stan's samplers and file formats.
//
//   mcmc_ipu --model NAME [--data FILE.json | --dimension N] --sampler nuts|hmc|rwm|ensemble|pt
//            --chains N --warmup N --draws N --seed S [--metric diag_e|dense_e]
//            [--init RADIUS|FILE.json] [--thin N] [--save-warmup] [--output PREFIX] [--target ...]
//
// Writes PREFIX_1.csv ... PREFIX_N.csv (CmdStan's CSV, one per chain) and
// PREFIX.nc (ArviZ's NetCDF layout), prints CmdStan-style progress, a
// stansummary-style table and the warnings of CmdStan's diagnose. The chains
// (ensemble: walkers) are spread over the target's tiles; the draws do not depend
// on the thread or rank count.

#include <CLI/CLI.hpp>
#include <algorithm>
#include <charconv>
#include <chrono>
#include <cinttypes>
#include <cstdio>
#include <functional>
#include <optional>
#include <string>

#include "tessera/core/environment.hpp"
#include "tessera/core/error.hpp"
#include "tessera/core/options.hpp"
#include "tessera/core/runtime.hpp"
#include "tessera/core/shared_input.hpp"
#include "tessera/core/stop_signal.hpp"
#include "tessera/mcmc/diagnostics.hpp"
#include "tessera/mcmc/init.hpp"
#include "tessera/mcmc/models.hpp"
#include "tessera/mcmc/output.hpp"
#include "tessera/mcmc/run.hpp"

namespace {

using namespace tessera;
using namespace tessera::mcmc;

// FNV-1a over the bytes of every draw: a fingerprint to compare runs bit for bit.
std::uint64_t checksum(const Draws& draws) {
  std::uint64_t h = 1469598103934665603ULL;
  for (double v : draws.values) {
    unsigned char bytes[sizeof v];
    std::memcpy(bytes, &v, sizeof v);
    for (unsigned char b : bytes) h = (h ^ b) * 1099511628211ULL;
  }
  return h;
}

}  // namespace

int main(int argc, char** argv) {
  return tessera::run_main(argc, argv, [](int argc, char** argv) {
    CLI::App app{"mcmc_ipu: MCMC samplers on the tile runtime"};
    RuntimeOptions options;
    std::string model_name, data_file, sampler = "nuts", metric = "diag_e", output;
    int chains = 4, warmup = 1000, draws_wanted = 1000, dimension = 0, refresh = 100;
    std::uint64_t seed = 1;
    SamplerConfig config;
    app.add_option("--model", model_name, "built-in model")->required();
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
    std::vector<std::string> formats{"csv", "nc"};
    app.add_option("--formats", formats, "output formats: csv (CmdStan), nc (ArviZ NetCDF)")
        ->check(CLI::IsMember({"csv", "nc"}))
        ->delimiter(',')
        ->capture_default_str();
    bool no_summary = false;
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
    app.add_option(
           "--max-leapfrog-steps", config.max_leapfrog_steps,
           "hmc: most leapfrog steps of one transition from --int-time / step size "
           "(bounds an iteration's work; transitions that hit it are counted and warned of)")
        ->check(CLI::Range(1, 100000000))
        ->capture_default_str();
    std::string step_adaptation = "dual_averaging";
    app.add_option("--step-adaptation", step_adaptation,
                   "step size in warm-up: dual_averaging (Stan) or simple (TFP's policy, hmc; "
                   "towards --delta, unit metric)")
        ->capture_default_str();
    std::string init = "2";
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
    tessera::add_runtime_options(app, options, "host");
    if (auto code = tessera::parse_command_line(app, argc, argv)) return *code;
    // Rank 0 reads the data and init files for all ranks: they must all have been given the
    // same ones (mpirun's MPMD form could start ranks with different arguments).
    tessera::require_same_arguments(MPI_COMM_WORLD, argc, argv, "mcmc_ipu");
    config.kind = parse_sampler(sampler);
    config.metric = parse_metric(metric);
    config.step_adaptation = parse_step_adaptation(step_adaptation);
    config.warmup = warmup;
    config.draws = draws_wanted;

    nlohmann::json data = nlohmann::json::object();
    std::string source = "(none)";  // in error messages; the CSV header leaves the file empty
    if (!data_file.empty()) {
      data = read_data_file(MPI_COMM_WORLD, data_file);
      source = data_file;
    }
    if (dimension > 0) {
      if (model_name != "std_normal" && model_name != "correlated_gaussian")
        throw ConfigError("--dimension applies to std_normal and correlated_gaussian only, not " +
                          model_name);
      data["N"] = dimension;
    }
    const std::unique_ptr<Model> model = make_model(model_name, data, source);
    // --init as CmdStan reads it: a number is a radius, anything else names a file.
    std::optional<InitialValues> initial_values;
    std::string init_file;
    {
      double radius = 0;
      const auto [end, ec] = std::from_chars(init.data(), init.data() + init.size(), radius);
      if (ec == std::errc() && end == init.data() + init.size()) {
        config.init_radius = radius;  // sample() rejects a negative radius
      } else {
        initial_values = read_init_file(MPI_COMM_WORLD, init, *model);
        init_file = init;
      }
    }

    tessera::Runtime runtime(options);
    const bool root = runtime.rank() == 0;
    if (root)
      std::printf("model %s, dimension %d, sampler %s, %d %s on %d tiles\n", model->name().c_str(),
                  model->dimension(), sampler.c_str(), chains,
                  config.kind == SamplerKind::ensemble ? "walkers" : "chains",
                  runtime.target().total_tiles());
    if (root && initial_values && !initial_values->missing.empty())
      std::printf("%s\n", missing_parameters_note(*initial_values, config.init_radius).c_str());
    RunSettings settings;
    settings.sampler = config;
    settings.chains = chains;
    settings.seed = seed;
    settings.init = initial_values;
    settings.progress = [&](int done, int total) {
      if (done != 1 && done % refresh != 0 && done != total && done != warmup + 1) return;
      std::printf("Iteration: %*d / %d [%3d%%]  (%s)\n",
                  static_cast<int>(std::to_string(total).size()), done, total,
                  static_cast<int>(100.0 * done / total), done <= warmup ? "Warmup" : "Sampling");
      std::fflush(stdout);
    };
    // The output set is checked before the work (rank 0 writes it; every rank stops alike).
    OutputFormats output_formats;
    output_formats.csv = std::find(formats.begin(), formats.end(), "csv") != formats.end();
    output_formats.netcdf = std::find(formats.begin(), formats.end(), "nc") != formats.end();
    if (!output.empty()) {
      std::string problem;
      if (root) try {
          check_outputs(output, chains, output_formats);
        } catch (const Error& e) {
          problem = e.what();
        }
      int length = static_cast<int>(problem.size());
      MPI_Bcast(&length, 1, MPI_INT, 0, runtime.comm());
      problem.resize(static_cast<std::size_t>(length));
      MPI_Bcast(problem.data(), length, MPI_CHAR, 0, runtime.comm());
      if (!problem.empty()) {
        Error e(problem);
        e.set_collective();
        throw e;
      }
    }
    // SIGINT or SIGTERM ends sampling after the iteration in progress, on every rank alike;
    // nothing is written, so the files of an earlier run at --output stay as they were.
    struct Stopped {
      int signal, done, total;
    };
    stop_on_signals();
    settings.after_iteration = [&runtime](int done, int total) {
      // Every 32nd iteration: the poll is an all-reduce on several ranks, and iterations of a
      // small model take microseconds.
      if (done % 32 != 0) return;
      if (const int signal = stop_requested(runtime.comm())) throw Stopped{signal, done, total};
    };
    const auto start = std::chrono::steady_clock::now();
    Draws draws;
    try {
      draws = sample(runtime, *model, settings);
    } catch (const Stopped& stop) {
      if (root) {
        std::fflush(stdout);
        const std::string outputs =
            output.empty() ? "no draws were kept"
                           : "no output was written: the files at " + output + " are as they were";
        std::fprintf(stderr, "mcmc_ipu: stopped by %s at iteration %d of %d (%s); %s\n",
                     signal_name(stop.signal).c_str(), stop.done, stop.total,
                     stop.done <= warmup ? "warm-up" : "sampling", outputs.c_str());
      }
      return stop_exit_code(stop.signal);
    }
    const double elapsed =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();

    if (root) {
      RunDescription run{model->name(), data_file, config, seed, init_file};
      if (!output.empty()) {
        write_outputs(output, draws, run, output_formats);
        if (output_formats.csv)
          std::printf("wrote %s_1.csv ... %s_%d.csv\n", output.c_str(), output.c_str(), chains);
        if (output_formats.netcdf) std::printf("wrote %s.nc\n", output.c_str());
      }
      // The summary, then the problems CmdStan's diagnose would report (R-hat and ESS only
      // with the summary, which computes them).
      const std::vector<ColumnSummary> summary =
          no_summary ? std::vector<ColumnSummary>{} : summarize(draws);
      if (!no_summary) std::printf("\n%s", summary_table(draws, summary).c_str());
      const std::vector<std::string> warnings =
          diagnostic_warnings(draws, summary, config.max_depth);
      if (!warnings.empty()) std::printf("\n");
      for (const std::string& line : warnings) std::printf("%s\n", line.c_str());
      if (!warnings.empty()) std::printf("\n");
      std::printf("draws checksum %016" PRIx64 "\n", checksum(draws));
      std::printf("sampling took %.3f s of wall time\n", elapsed);
    }
    const std::string summary = runtime.finish();
    if (root) std::printf("%s", summary.c_str());
    return 0;
  });
}
