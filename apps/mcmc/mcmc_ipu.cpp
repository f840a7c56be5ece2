// mcmc_ipu: MCMC on the tile runtime, with Stan's samplers and file formats.
//
//   mcmc_ipu --model NAME | --stan FILE.stan [--data FILE.json | --dimension N]
//            --sampler nuts|hmc|rwm|ensemble|pt
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

#include "mcmc_ipu_options.hpp"
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
    McmcIpuOptions o;
    add_mcmc_ipu_options(app, o);
    if (auto code = tessera::parse_command_line(app, argc, argv)) return *code;
    // Rank 0 reads the data and init files for all ranks: they must all have been given the
    // same ones (mpirun's MPMD form could start ranks with different arguments).
    tessera::require_same_arguments(MPI_COMM_WORLD, argc, argv, "mcmc_ipu");
    finish_mcmc_ipu_options(o);
    McmcIpuProblem loaded = load_mcmc_ipu_problem(o, MPI_COMM_WORLD);
    const std::unique_ptr<Model> model = std::move(loaded.model);
    const std::optional<InitialValues>& initial_values = loaded.init;
    const std::string& init_file = loaded.init_file;
    const std::string &data_file = o.data_file, &sampler = o.sampler, &output = o.output;
    const int chains = o.chains, warmup = o.warmup, refresh = o.refresh;
    const std::uint64_t seed = o.seed;
    const bool no_summary = o.no_summary;
    const SamplerConfig& config = o.config;
    RuntimeOptions& options = o.runtime;

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
    const OutputFormats output_formats = o.output_formats();
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
      RunDescription run{model->name(), data_file, config, seed, init_file, loaded.groups};
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
