// Fuzz harness: mcmc_ipu's command line (one argument per line of the input), parsed by the
// program's own functions (apps/mcmc/mcmc_ipu_options.hpp) with the data and init files they
// name; a run small enough (a few chains, iterations and dimensions, a target of at most 64
// tiles) is then sampled on one thread, its outputs written (PREFIX_*.csv, PREFIX.nc) and read
// back, and summarised, as mcmc_ipu does.
#include <CLI/CLI.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "fuzz_support.hpp"
#include "mcmc_ipu_options.hpp"
#include "tessera/core/runtime.hpp"
#include "tessera/mcmc/diagnostics.hpp"
#include "tessera/mcmc/output.hpp"
#include "tessera/mcmc/run.hpp"

namespace {

using namespace tessera;
using namespace tessera::mcmc;

bool small_enough(const McmcIpuOptions& o, const Model& model, const Target& target) {
  const SamplerConfig& c = o.config;
  return target.total_tiles() <= 64 && o.chains <= 8 && c.warmup + c.draws <= 300 &&
         model.dimension() <= 20 && c.temperatures <= 8 && c.max_depth <= 8 &&
         c.leapfrog_steps <= 100 && c.max_leapfrog_steps <= 1000;
}

// The output prefix names a file in the private folder only.
bool inside(const std::string& prefix) {
  return !prefix.empty() && prefix.find('/') == std::string::npos &&
         prefix.find("..") == std::string::npos;
}

}  // namespace

TESSERA_FUZZ_INIT() {
  fuzz::write_file("schools_3.json", fuzz::source_file("tests/mcmc/data/schools_3.json"));
  fuzz::write_file("init_schools.json", fuzz::source_file("tests/mcmc/data/init_schools.json"));
  fuzz::write_file("std_normal_3.json", fuzz::source_file("tests/mcmc/data/std_normal_3.json"));
  fuzz::write_file("regression.json", fuzz::source_file("examples/mcmc_own_model/regression.json"));
}

TESSERA_FUZZ_HARNESS(data, size) {
  std::vector<std::string> args{"mcmc_ipu"};
  std::istringstream lines{std::string(fuzz::text(data, size))};
  for (std::string line; std::getline(lines, line);) args.push_back(line);
  if (args.size() > 64) return;
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());

  CLI::App app{"mcmc_ipu"};
  McmcIpuOptions o;
  add_mcmc_ipu_options(app, o);
  if (parse_command_line(app, static_cast<int>(argv.size()), argv.data())) return;
  finish_mcmc_ipu_options(o);
  // A Stan program runs R and the C++ compiler (a minute per program): outside what a fuzz
  // input may take; stan_program_test covers its errors.
  if (!o.stan_file.empty()) return;
  McmcIpuProblem problem = load_mcmc_ipu_problem(o, MPI_COMM_SELF);
  o.runtime.threads = 1;
  const Target target = resolve_target(o.runtime, 1, 1);
  if (!small_enough(o, *problem.model, target)) return;

  Runtime runtime(target, 1, MPI_COMM_SELF);
  RunSettings settings;
  settings.sampler = o.config;
  settings.chains = o.chains;
  settings.seed = o.seed;
  settings.init = problem.init;
  const OutputFormats formats = o.output_formats();
  const bool write = inside(o.output);
  if (write) check_outputs(o.output, o.chains, formats);
  const Draws draws = sample(runtime, *problem.model, settings);
  if (write) {
    const RunDescription run{problem.model->name(), o.data_file,   o.config, o.seed,
                             problem.init_file,     problem.groups};
    for (const std::string& path : write_outputs(o.output, draws, run, formats))
      if (path.ends_with(".csv")) read_cmdstan_csv(path);
  }
  const std::vector<ColumnSummary> summary = summarize(draws);
  summary_table(draws, summary);
  diagnostic_warnings(draws, summary, o.config.max_depth);
  runtime.summary();
}
