// mcmc_ipu's command line and the problem it names, in functions that the program and its fuzz
// harness (tests/fuzz/mcmc_options.cpp) share.
//
//   McmcIpuOptions o;
//   add_mcmc_ipu_options(app, o);          // the options, as --help lists them
//   parse_command_line(app, argc, argv);   // tessera/core/options.hpp
//   finish_mcmc_ipu_options(o);            // names to enums, the iteration counts into o.config
//   McmcIpuProblem p = load_mcmc_ipu_problem(o, MPI_COMM_WORLD);  // data, model, --init
#pragma once

#include <mpi.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "tessera/core/options.hpp"
#include "tessera/mcmc/init.hpp"
#include "tessera/mcmc/model.hpp"
#include "tessera/mcmc/output.hpp"
#include "tessera/mcmc/sampler.hpp"

namespace CLI {
class App;
}  // namespace CLI

namespace tessera::mcmc {

struct McmcIpuOptions {
  RuntimeOptions runtime;
  std::string model_name, stan_file, stan_cache, data_file, sampler = "nuts", metric = "diag_e",
                                                            output;
  std::string step_adaptation = "dual_averaging";
  std::string init = "2";  // a radius, or a JSON file of initial values
  int chains = 4, warmup = 1000, draws = 1000, dimension = 0, refresh = 100;
  std::uint64_t seed = 1;
  std::vector<std::string> formats{"csv", "nc"};
  std::vector<std::string> posterior_predictive, log_likelihood;  // arviz_groups' specs
  bool no_summary = false;
  // The sampler's settings: the numeric options directly; kind, metric, step adaptation,
  // warm-up, draws and the --init radius by finish_mcmc_ipu_options.
  SamplerConfig config;

  OutputFormats output_formats() const;
};

// Registers every option of mcmc_ipu (the runtime's too) on `app`, parsed into `options`.
void add_mcmc_ipu_options(CLI::App& app, McmcIpuOptions& options);

// After parsing: the sampler, metric and step adaptation by name into options.config (ConfigError
// naming an unknown one), and the iteration counts.
void finish_mcmc_ipu_options(McmcIpuOptions& options);

// The model and initial values the options name. Collective over `comm`: rank 0 reads the data
// and init files for every rank. ConfigError or FormatError naming the option or file.
struct McmcIpuProblem {
  std::unique_ptr<Model> model;
  std::optional<InitialValues> init;  // --init FILE.json
  std::string init_file;              // its name, or empty for a radius
  ArvizGroups groups;                 // --posterior-predictive, --log-likelihood
};
McmcIpuProblem load_mcmc_ipu_problem(McmcIpuOptions& options, MPI_Comm comm);

}  // namespace tessera::mcmc
