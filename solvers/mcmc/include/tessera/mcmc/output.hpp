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
// `theta_dim_0`. Sample statistics use ArviZ's names (lp, acceptance_rate, step_size,
// tree_depth, n_steps, diverging, energy).
//
// Both are written to a temporary name and renamed: never a half-written file.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "tessera/core/atomic_file.hpp"
#include "tessera/core/error.hpp"
#include "tessera/mcmc/run.hpp"

namespace tessera::mcmc {

struct RunDescription {
  std::string model;
  std::string data_file;  // empty: no data
  SamplerConfig sampler;
  std::uint64_t seed = 1;
  std::string init_file;  // --init FILE.json; empty: sampler.init_radius
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
