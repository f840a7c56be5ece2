// User-supplied initial values: CmdStan's `init=FILE.json`.
//
// The file is a JSON object of constrained parameter values by name, in CmdStan's layout:
// a number for a scalar parameter (`"mu": 1.5`), an array for a vector (`"theta": [1, 2]`),
// nested arrays for a matrix (`"w1": [[...], ...]`, w1[k][j] row by row). The names are
// those of the model's parameters block (Model::parameter_block_names(), `theta[1]` ->
// `theta`); derived quantities (transformed parameters, generated quantities) cannot be
// set. As in CmdStan, a parameter the file leaves out starts at a random value, uniform in
// (-radius, radius) on the unconstrained scale (Stan's random inits, radius 2 by default).
#pragma once

#include <mpi.h>

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "tessera/core/rng.hpp"
#include "tessera/mcmc/model.hpp"

namespace tessera::mcmc {

struct InitialValues {
  std::string source;                         // the file, for messages
  std::vector<std::optional<double>> values;  // per parameter_block_names() entry
  std::vector<std::string> missing;           // the parameters the file leaves out
};

// Checks `json` against the model's parameters block. ConfigError naming `source` and the
// name for: a name the model does not have (listing its parameters), a derived quantity, a
// value of the wrong shape or length, an element that is not a number. Non-finite values
// ("NaN", "Inf" strings, as CmdStan's JSON allows) pass here and fail in initial_point().
InitialValues parse_initial_values(const nlohmann::json& json, const Model& model,
                                   const std::string& source);
// The same from a file; FormatError naming the file when it cannot be read or is not JSON.
InitialValues read_init_file(const std::string& path, const Model& model);
// The same, collective over `comm`: rank 0 reads the file for every rank, and every error is
// every rank's (marked collective).
InitialValues read_init_file(MPI_Comm comm, const std::string& path, const Model& model);

// One chain's initial point: the given values unconstrained (Model::unconstrain), the
// missing ones drawn from `rng` as initial_point(model, radius, rng) draws them, retried up
// to 100 times. Throws ConfigError naming the file: a value outside its parameter's support
// (the parameter named), or a log density or gradient that is not finite at the point.
Vector initial_point(const Model& model, const InitialValues& init, double radius, RngEngine& rng);

// "gives no value of a, b; ..." for a program to print when init.missing is not empty.
std::string missing_parameters_note(const InitialValues& init, double radius);

}  // namespace tessera::mcmc
