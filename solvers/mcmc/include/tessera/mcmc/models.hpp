// The built-in models of mcmc_ipu, each created from data in posteriordb's JSON
// layout (where posteriordb has the model) by make_model().
//
//   std_normal                {"N": d}                              x ~ N(0, I_d)
//   correlated_gaussian       {"N": d, "rho": r}                    x ~ N(0, S), S_ij = r^|i-j|
//   rosenbrock                {}                                    Goodman & Weare (2010) banana
//   eight_schools_noncentered {"J", "y"[J], "sigma"[J]}             posteriordb, same name
//   logistic_regression       {"N", "K", "x"[N][K], "y"[N] in 0/1}  alpha ~ N(0,5), beta ~ N(0,2.5)
//   garch11                   {"T", "y"[T], "sigma1"}               posteriordb, same name
//   stochastic_volatility     {"T", "y"[T]}                          Stan User's Guide, non-centred
// A missing field, a wrong length, a non-finite value or a value outside its
// range throws FormatError naming the data source and the field.
#pragma once

#include <mpi.h>

#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "tessera/core/error.hpp"
#include "tessera/mcmc/model.hpp"

namespace tessera::mcmc {

// The names make_model() knows.
std::vector<std::string> builtin_models();

// Builds model `name` from `data`; `source` names the data (a file) in error messages.
std::unique_ptr<Model> make_model(const std::string& name, const nlohmann::json& data,
                                  const std::string& source);

// Reads a JSON data file (FormatError naming the file when it is missing or malformed).
nlohmann::json read_data_file(const std::string& path);
// The same, collective over `comm`: rank 0 reads the file for every rank (read_json_file), so
// all ranks sample the same data or stop with the same error.
nlohmann::json read_data_file(MPI_Comm comm, const std::string& path);

}  // namespace tessera::mcmc
