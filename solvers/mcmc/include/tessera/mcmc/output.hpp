// Output files: CmdStan's CSV (one file per chain) and ArviZ's NetCDF layout.
//
// CSV (CmdStan 2.33 layout, "Stan CSV"): `#` comment lines with the
// configuration (model, method = sample, num_samples, num_warmup, save_warmup, thin,
// adapt, algorithm, engine, max_depth, metric, delta, id, seed, data file, init), each
// claim true of the sampler that ran (the ensemble: adapt engaged = 0; rwm and pt: delta
// is their fixed target 0.234, or 0.44 in 1-D; hmc with TFP's policy: metric = unit_e),
// a header row of the sampler columns (lp__, accept_stat__, stepsize__, treedepth__,
// n_leapfrog__, divergent__, energy__ for nuts) then the parameters with CmdStan's dotted
// names (theta[1] -> theta.1), the saved warm-up rows (save_warmup = 1), the
// "# Adaptation terminated" block with the step size and the inverse metric (diag_e:
// "Diagonal elements of inverse mass matrix:" and one row; dense_e: "Elements of inverse
// mass matrix:" and d rows; not for the ensemble, which adapts nothing), one row per kept
// draw, and Stan's elapsed-time trailer ("#  Elapsed Time: X seconds (Warm-up)", then the
// Sampling and Total lines, in milliseconds as Stan rounds them). Numbers are written in
// the shortest form that reads back to the same double, so a write-read round trip is
// exact.
//
// NetCDF-4 (ArviZ's InferenceData on disk, read by az.from_netcdf): groups
// `posterior` and `sample_stats` (and `warmup_posterior`, `warmup_sample_stats` with
// saved warm-up draws), dimensions `chain` and `draw` (with integer coordinate
// variables), a parameter `theta[1..J]` becoming one variable `theta` with dimension
// `theta_dim_0`, a matrix `Sigma[i,j]` one variable of dimensions (chain, draw, Sigma_dim_0,
// Sigma_dim_1) in row-major order, as from_cmdstan reads Stan's column-major columns. Sample
// statistics use ArviZ's names (lp, acceptance_rate, step_size, tree_depth, n_steps,
// diverging, energy). Generated quantities named in RunDescription::groups go to the groups
// `posterior_predictive` and `log_likelihood` instead of `posterior` (with their warm-up
// groups), and the observed data they refer to to `observed_data`, as ArviZ's
// from_cmdstanpy(posterior_predictive=..., log_likelihood=..., observed_data=...) lays
// them out, so that az.plot_ppc and az.loo read the file directly.
//
// Both are written to a temporary name and renamed: never a half-written file.
#pragma once

#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "tessera/core/atomic_file.hpp"
#include "tessera/core/error.hpp"
#include "tessera/mcmc/run.hpp"

namespace tessera::mcmc {

// A generated quantity in a group of its own: the model's quantity `quantity` (the base name
// of its columns, y_rep for y_rep[1], y_rep[2], ...) written as variable `name`.
struct GroupedVariable {
  std::string name, quantity;
};
// A variable of the data, as the observed_data group holds it.
struct ObservedArray {
  std::vector<std::size_t> shape;  // empty: a scalar
  std::vector<double> values;      // row-major
  bool integer = false;            // written as int64
};
struct ArvizGroups {
  std::vector<GroupedVariable> posterior_predictive, log_likelihood;
  std::map<std::string, ObservedArray> observed_data;
};

// The groups that mcmc_ipu's --posterior-predictive and --log-likelihood name. A spec is a
// quantity ("y_rep": written under its own name) or OBSERVED=QUANTITY ("y=y_rep": written as
// y, beside the data's y in observed_data, ArviZ's dict form). Without log-likelihood specs a
// quantity named log_lik goes to log_likelihood (ArviZ's default). `columns` are the model's
// reported names (Model::parameter_names()); `data` the data file `source`. Throws ConfigError
// naming `option` for a spec that names no quantity of the model, a quantity named twice or an
// empty name; FormatError naming the file when the data lack OBSERVED or it is not a number
// or a rectangular array of numbers.
ArvizGroups arviz_groups(const std::vector<std::string>& posterior_predictive,
                         const std::vector<std::string>& log_likelihood,
                         const std::vector<std::string>& columns, const nlohmann::json& data,
                         const std::string& source);

struct RunDescription {
  std::string model;
  std::string data_file;  // empty: no data
  SamplerConfig sampler;
  std::uint64_t seed = 1;
  std::string init_file;  // --init FILE.json; empty: sampler.init_radius
  ArvizGroups groups;     // NetCDF only: the CSV keeps every quantity in Stan's columns
};

// The CSV text of chain `chain` (0-based; CmdStan's id is chain + 1).
std::string cmdstan_csv(const Draws& draws, int chain, const RunDescription& run);
void write_cmdstan_csv(const std::string& path, const Draws& draws, int chain,
                       const RunDescription& run);

// A CmdStan CSV file as read back: the `key = value` settings of the comment header,
// the column names (converted back to theta[1] form), the rows (the saved warm-up apart),
// the adaptation and the elapsed times.
struct CmdStanCsv {
  std::map<std::string, std::string> settings;
  std::vector<std::string> columns;
  std::vector<std::vector<double>> warmup_rows;  // save_warmup = 1
  std::vector<std::vector<double>> rows;
  double step_size = 0;
  std::vector<double> inverse_metric;  // the diagonal, or all d x d elements row by row
  double warmup_seconds = -1, sampling_seconds = -1;  // -1: no timing trailer
};
// Throws FormatError naming the file and line on malformed input.
CmdStanCsv read_cmdstan_csv(const std::string& path);

void write_arviz_netcdf(const std::string& path, const Draws& draws, const RunDescription& run);
// The same into an output a caller publishes (AtomicFile::by_name, not yet committed).
void write_arviz_netcdf(AtomicFile& out, const Draws& draws, const RunDescription& run);

// A run's output set, as mcmc_ipu writes it: PREFIX_1.csv ... PREFIX_C.csv and PREFIX.nc.
struct OutputFormats {
  bool csv = true, netcdf = true;
};
// The paths of the set, CSV files first.
std::vector<std::string> output_paths(const std::string& prefix, int chains,
                                      const OutputFormats& formats);
// check_output_path on every file of the set: call it before sampling, so that a missing or
// read-only folder is found before the work, not after it. Throws Error naming the path.
void check_outputs(const std::string& prefix, int chains, const OutputFormats& formats);
// Writes the whole set and publishes it together (AtomicFile::commit_together): a failure
// (a full disk) leaves every file of an earlier set as it was, never a mix of two runs.
// Returns the paths written. Throws Error naming the file and the reason.
std::vector<std::string> write_outputs(const std::string& prefix, const Draws& draws,
                                       const RunDescription& run, const OutputFormats& formats);

}  // namespace tessera::mcmc
