// Running chains on the tile runtime.
//
// Chain c of C lives on tile floor(c T / C)... precisely, tile t hosts chains
// [floor(t C / T), floor((t + 1) C / T)) of a target with T tiles: its position
// is a piece of the variable "mcmc.position" in the tile's memory, and its
// sampler's working memory is charged to the tile as "mcmc.sampler". Every
// chain draws from its own stream rng_stream(seed, chain), so the draws are
// bitwise identical for any tile, thread or rank count.
//
// NUTS, HMC and random-walk chains are independent: one superstep advances every
// chain by a batch of up to 32 iterations (fewer where warm-up ends, and on a target
// whose tile 0 could not hold the batch's draws); the tiles charge the cost model per
// gradient evaluation and leapfrog step, and post each kept draw to tile 0, whose rank
// (rank 0) collects them as the host would stream them off the device. The ensemble
// and parallel tempering couple their chains: one superstep per iteration (two for the
// ensemble, one per half; two for pt, the moves and the swaps).
//
// The ensemble sampler (Goodman & Weare 2010, emcee's default StretchMove)
// keeps a replica of every walker's position on each tile that hosts walkers;
// walkers are split by index parity into two halves, each half moves against the
// other's positions, and the moved walkers travel to the other tiles by exchange
// before the other half moves.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "tessera/core/error.hpp"
#include "tessera/core/runtime.hpp"
#include "tessera/mcmc/init.hpp"
#include "tessera/mcmc/model.hpp"
#include "tessera/mcmc/sampler.hpp"

namespace tessera::mcmc {

// Reported draws: for each chain and kept iteration after warm-up (every thin-th), the
// sampler columns, then the model's parameter values; with save_warmup, the kept warm-up
// iterations likewise, apart (diagnostics and summaries use `values` only).
struct Draws {
  std::vector<std::string> columns;
  int sampler_columns = 0;
  int chains = 0, draws = 0;          // draws: kept sampling iterations per chain
  std::vector<double> values;         // chains x draws x columns
  int warmup_draws = 0;               // kept warm-up iterations per chain (0 without save_warmup)
  std::vector<double> warmup_values;  // chains x warmup_draws x columns
  // Wall time of the warm-up and of the sampling iterations, in seconds (CmdStan's
  // "Elapsed Time"). The chains advance together, superstep by superstep (batches end where
  // warm-up ends), so these are the run's phases and every chain's alike; the
  // initial points and the gathering of the adaptation are outside both, as in Stan.
  double warmup_seconds = 0, sampling_seconds = 0;
  // After warm-up, per chain: the step size and the inverse metric (nuts, hmc, rwm): its
  // diagonal, or for dense_e the d x d matrix (column-major; symmetric).
  std::vector<double> step_size;
  std::vector<std::vector<double>> inverse_metric;
  // Per chain: transitions after warm-up that hit a bound of the sampler's work and were cut
  // short (hmc: SamplerConfig::max_leapfrog_steps), counted over every iteration, kept or not.
  std::vector<long> cut_short;

  std::size_t width() const { return columns.size(); }
  double at(int chain, int draw, std::size_t column) const {
    return values[(static_cast<std::size_t>(chain) * static_cast<std::size_t>(draws) +
                   static_cast<std::size_t>(draw)) *
                      width() +
                  column];
  }
  double warmup_at(int chain, int draw, std::size_t column) const {
    return warmup_values[(static_cast<std::size_t>(chain) * static_cast<std::size_t>(warmup_draws) +
                          static_cast<std::size_t>(draw)) *
                             width() +
                         column];
  }
  // One column of one chain, in draw order.
  std::vector<double> column(int chain, std::size_t column) const;
  // The index of a column by name; throws ConfigError when absent.
  std::size_t index(const std::string& name) const;
};

struct RunSettings {
  SamplerConfig sampler;
  int chains = 4;
  std::uint64_t seed = 1;
  // User-supplied initial values (--init FILE.json), the same for every chain; the parameters
  // it leaves out are drawn per chain within sampler.init_radius. Not for the ensemble.
  std::optional<InitialValues> init;
  // Called on rank 0 after iteration `done` (1-based) of `total`.
  std::function<void(int done, int total)> progress;
  // Called on every rank after iteration `done` of `total`, between supersteps, at the same
  // iteration on all ranks: it may run collectives (a poll for a stop signal), and an
  // exception it throws ends sample() on every rank that throws it.
  std::function<void(int done, int total)> after_iteration;
};

// Runs the chains (collective over the runtime). The draws are complete on rank 0
// (which hosts tile 0) and empty on the other ranks.
Draws sample(Runtime& runtime, const Model& model, const RunSettings& settings);

}  // namespace tessera::mcmc
