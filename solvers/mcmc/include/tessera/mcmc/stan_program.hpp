// Stan programs as models: a `.stan` file translated by the Stan compiler Debian ships (the
// one inside r-cran-rstan, rstan::stanc: Stan 2.21's language), compiled once against Stan
// Math into a shared library kept in a cache, and loaded as a Model that any of Tessera's
// samplers runs on any target.
//
// The language is Stan 2.21's: `real y[N]` for arrays, `increment_log_prob` gone,
// `target +=`. Newer syntax (Stan 2.26's `array[N] real`, 2.33's removal of the old array
// syntax) does not translate; the error says so and names the line.
//
// Data come as JSON in posteriordb's and CmdStan's layout (numbers, arrays of numbers, nested
// arrays for multi-dimensional data, row-major as JSON nests them).
//
// The model's values are Stan's: the parameters block, the transformed parameters and the
// generated quantities (names like `theta[1]`, `L[2,1]`); lp__ drops constants as Stan's
// sampler does. A point the program rejects (reject(), a distribution's argument check, any
// std::domain_error) has log density -inf, as in Stan; any other error of the program
// (an index out of range) stops the run with the program's message.
//
// The cache is the folder `$TESSERA_STAN_CACHE`, else `$XDG_CACHE_HOME/tessera/stan`, else
// `$HOME/.cache/tessera/stan`: one library per program text and build settings (the text is
// kept beside it and compared, so a library is never reused for another program).
//
// Thread-safety: the model's const members run on any number of threads at once (each
// thread records on its own AD tape). Building runs child processes (Rscript, the C++
// compiler) and should run on one rank: load_stan_program does so.
#pragma once

#include <mpi.h>

#include <memory>
#include <nlohmann/json.hpp>
#include <ostream>
#include <string>

#include "tessera/core/error.hpp"
#include "tessera/mcmc/model.hpp"

namespace tessera::mcmc {

struct StanBuildOptions {
  std::string cache_directory;       // empty: from the environment, as above
  std::ostream* progress = nullptr;  // one line before a translation and a compilation
};

// The cache folder the options and the environment give.
std::string stan_cache_directory(const StanBuildOptions& options);

// The shared library of the program in `stan_file`, translated and compiled unless the cache
// has it. Throws ConfigError with the Stan compiler's message (which names the line and
// column) when the program does not translate, with the C++ compiler's first errors when
// its C++ does not compile, and when Rscript, rstan or the compiler cannot be run.
std::string build_stan_program(const std::string& stan_file, const StanBuildOptions& options);

// The program of the library `library` (from build_stan_program) on `data`, named `name`.
// Throws FormatError naming `data_source` for data that are not numbers or arrays of them,
// and ConfigError with the program's message when its data block refuses them.
std::unique_ptr<Model> open_stan_program(const std::string& library, const std::string& name,
                                         const nlohmann::json& data,
                                         const std::string& data_source);

// Both, collective over `comm`: rank 0 builds; every rank opens the library, or every rank
// throws rank 0's error.
std::unique_ptr<Model> load_stan_program(MPI_Comm comm, const std::string& stan_file,
                                         const nlohmann::json& data, const std::string& data_source,
                                         const StanBuildOptions& options);

}  // namespace tessera::mcmc
