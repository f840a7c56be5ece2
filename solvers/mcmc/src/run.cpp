#include "tessera/mcmc/run.hpp"

#include <algorithm>
#include <boost/random/uniform_01.hpp>
#include <boost/random/uniform_int_distribution.hpp>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <memory>
#include <optional>

#include "tessera/core/error.hpp"
#include "tessera/core/host_memory.hpp"

namespace tessera::mcmc {

std::vector<double> Draws::column(int chain, std::size_t c) const {
  std::vector<double> out(static_cast<std::size_t>(draws));
  for (int d = 0; d < draws; ++d) out[static_cast<std::size_t>(d)] = at(chain, d, c);
  return out;
}

std::size_t Draws::index(const std::string& name) const {
  for (std::size_t i = 0; i < columns.size(); ++i)
    if (columns[i] == name) return i;
  throw ConfigError("no column '" + name + "' in the draws");
}

int kept_iterations(int iterations, int thin) {
  return iterations > 0 ? 1 + (iterations - 1) / thin : 0;
}

namespace {

constexpr double kPositionTag = 0, kDrawTag = 1;

int first_chain(int tile, int chains, int tiles) {
  return static_cast<int>(static_cast<long long>(tile) * chains / tiles);
}

// The tile that hosts chain c: the last tile whose first chain is at most c.
int tile_of(int c, int chains, int tiles) {
  int t = static_cast<int>(static_cast<long long>(c) * tiles / chains);
  while (t > 0 && first_chain(t, chains, tiles) > c) --t;
  while (first_chain(t + 1, chains, tiles) <= c) ++t;
  return t;
}

// The adapted step size and inverse metric of every reported chain travel to rank 0
// through the runtime's fixed-order reduction (only the hosting tile contributes).
// `d` is the length of the inverse metric (the dimension, or its square for dense_e).
void gather_adaptation(Runtime& runtime, Draws& draws, std::size_t d,
                       const std::function<int(int)>& tile_of_chain,
                       const std::function<const ChainSampler*(int)>& sampler_of_chain) {
  for (int c = 0; c < draws.chains; ++c) {
    const int tile = tile_of_chain(c);
    std::vector<double> metric = runtime.all_reduce<double>(
        "mcmc.adaptation", ReduceOp::sum, d + 2, [&](Tile& t, std::span<double> out) {
          std::fill(out.begin(), out.end(), 0.0);
          if (t.id() != tile) return;
          const ChainSampler& sampler = *sampler_of_chain(c);
          out[0] = sampler.step_size();
          out[1] = static_cast<double>(sampler.cut_short_transitions());
          for (std::size_t i = 0; i < d; ++i)
            out[i + 2] = sampler.inverse_metric()[static_cast<Eigen::Index>(i)];
        });
    draws.step_size[static_cast<std::size_t>(c)] = metric[0];
    draws.cut_short[static_cast<std::size_t>(c)] = static_cast<long>(metric[1]);
    draws.inverse_metric[static_cast<std::size_t>(c)].assign(metric.begin() + 2, metric.end());
  }
}

// The row of iteration `it` (0-based, warm-up first) among the kept draws of its phase, or
// -1 when it is not reported: CmdStan keeps iteration m of a phase when m % thin == 0, and
// warm-up iterations only with save_warmup.
int kept_row(const SamplerConfig& s, int it) {
  const bool warmup = it < s.warmup;
  if (warmup && !s.save_warmup) return -1;
  const int m = warmup ? it : it - s.warmup;
  return m % s.thin == 0 ? m / s.thin : -1;
}

// The warm-up / sampling split of the wall time (see Draws::warmup_seconds): started before
// the first iteration, split when the first sampling iteration begins.
class PhaseClock {
 public:
  void iteration(int it, int warmup) {
    if (it == warmup) split_ = std::chrono::steady_clock::now();
  }
  void finish(Draws& draws) const {
    const auto end = std::chrono::steady_clock::now();
    draws.warmup_seconds = std::chrono::duration<double>(split_ - start_).count();
    draws.sampling_seconds = std::chrono::duration<double>(end - split_).count();
  }

 private:
  std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now(), split_ = start_;
};

void validate(const Model& model, const RunSettings& s) {
  // Each real setting finite and in range: NaN fails every comparison, so each test is written
  // as !(inside) to refuse it.
  const auto text = [](double v) {
    char out[32];
    std::snprintf(out, sizeof out, "%g", v);
    return std::string(out);
  };
  if (s.sampler.thin < 1)
    throw ConfigError("--thin must be at least 1, not " + std::to_string(s.sampler.thin));
  if (s.chains < 1)
    throw ConfigError("--chains must be at least 1, not " + std::to_string(s.chains));
  if (s.sampler.warmup < 0) throw ConfigError("--warmup must not be negative");
  if (s.sampler.draws < 1) throw ConfigError("--draws must be at least 1");
  if (s.sampler.kind == SamplerKind::ensemble) {
    if (s.chains < 4 || s.chains % 2 != 0 || s.chains < 2 * model.dimension())
      throw ConfigError(
          "the ensemble sampler needs an even number of walkers (--chains), at least 4 "
          "and at least twice the dimension (" +
          std::to_string(model.dimension()) + "), not " + std::to_string(s.chains));
  }
  if (s.sampler.kind == SamplerKind::pt) {
    if (s.sampler.temperatures < 2 || s.sampler.temperatures > 1000)
      throw ConfigError("--temperatures must lie in [2, 1000], not " +
                        std::to_string(s.sampler.temperatures));
    if (!(s.sampler.max_temperature > 1.0 && std::isfinite(s.sampler.max_temperature)))
      throw ConfigError("--max-temperature must be a finite number above 1, not " +
                        text(s.sampler.max_temperature));
  }
  if (s.sampler.max_depth < 1 || s.sampler.max_depth > 30)
    throw ConfigError("--max-depth must lie in [1, 30], not " +
                      std::to_string(s.sampler.max_depth));
  if (!(s.sampler.delta > 0 && s.sampler.delta < 1))
    throw ConfigError("--delta must lie in (0, 1), not " + std::to_string(s.sampler.delta));
  if (!(s.sampler.step_size > 0 && std::isfinite(s.sampler.step_size)))
    throw ConfigError("--step-size must be a finite positive number, not " +
                      text(s.sampler.step_size));
  if (!(s.sampler.integration_time > 0 && std::isfinite(s.sampler.integration_time)))
    throw ConfigError("--int-time must be a finite positive number, not " +
                      text(s.sampler.integration_time));
  if (!(s.sampler.init_radius >= 0 && std::isfinite(s.sampler.init_radius)))
    throw ConfigError("--init must be a finite radius >= 0 (or a file), not " +
                      text(s.sampler.init_radius));
  if (!(s.sampler.stretch_scale > 1 && std::isfinite(s.sampler.stretch_scale)))
    throw ConfigError("the ensemble's stretch scale must be a finite number above 1, not " +
                      text(s.sampler.stretch_scale));
  if (s.init && s.sampler.kind == SamplerKind::ensemble)
    throw ConfigError("--init " + s.init->source +
                      " puts every walker at the same point, where the ensemble's stretch moves "
                      "cannot separate them; use --init with a radius > 0");
  if (s.sampler.init_radius == 0 && s.sampler.kind == SamplerKind::ensemble)
    throw ConfigError(
        "--init 0 puts every walker at the origin, where the ensemble's stretch moves cannot "
        "separate them; use --init > 0");
  if (!(s.sampler.step_size_jitter >= 0 && s.sampler.step_size_jitter <= 1))
    throw ConfigError("--stepsize-jitter must lie in [0, 1], not " +
                      std::to_string(s.sampler.step_size_jitter));
  if (s.sampler.step_size_jitter > 0 && s.sampler.kind != SamplerKind::nuts &&
      s.sampler.kind != SamplerKind::hmc)
    throw ConfigError("--stepsize-jitter applies to the nuts and hmc samplers, not " +
                      sampler_name(s.sampler.kind));
  if (s.sampler.max_leapfrog_steps < 1)
    throw ConfigError("--max-leapfrog-steps must be at least 1, not " +
                      std::to_string(s.sampler.max_leapfrog_steps));
  if (s.sampler.leapfrog_steps < 0)
    throw ConfigError("--leapfrog-steps must not be negative (0: from --int-time), not " +
                      std::to_string(s.sampler.leapfrog_steps));
  if (s.sampler.leapfrog_steps > 0 && s.sampler.kind != SamplerKind::hmc)
    throw ConfigError("--leapfrog-steps applies to the hmc sampler, not " +
                      sampler_name(s.sampler.kind));
  if (s.sampler.step_adaptation == StepAdaptation::simple &&
      (s.sampler.kind != SamplerKind::hmc || s.sampler.metric != Metric::diag_e))
    throw ConfigError(
        "--step-adaptation simple applies to the hmc sampler with --metric diag_e (unit "
        "metric), not " +
        sampler_name(s.sampler.kind) + " with " + metric_name(s.sampler.metric));
  if (s.sampler.metric == Metric::dense_e && s.sampler.kind != SamplerKind::nuts &&
      s.sampler.kind != SamplerKind::hmc)
    throw ConfigError("--metric dense_e applies to the nuts and hmc samplers, not " +
                      sampler_name(s.sampler.kind) + "; use --metric diag_e");
}

// The draws' layout; the rank that holds tile 0 (where draws are collected) also gets room
// for every chain's draws.
Draws empty_draws(const Runtime& runtime, const Model& model, const RunSettings& s) {
  Draws d;
  d.columns = sampler_columns(s.sampler.kind);
  d.sampler_columns = static_cast<int>(d.columns.size());
  for (const std::string& n : model.parameter_names()) d.columns.push_back(n);
  d.chains = s.chains;
  d.draws = kept_iterations(s.sampler.draws, s.sampler.thin);
  d.warmup_draws = s.sampler.save_warmup ? kept_iterations(s.sampler.warmup, s.sampler.thin) : 0;
  d.step_size.assign(static_cast<std::size_t>(s.chains), 0.0);
  d.cut_short.assign(static_cast<std::size_t>(s.chains), 0);
  d.inverse_metric.resize(static_cast<std::size_t>(s.chains));
  if (runtime.is_local(0)) {
    const auto per_draw = static_cast<std::size_t>(s.chains) * d.width();
    d.values.assign(per_draw * static_cast<std::size_t>(d.draws), 0.0);
    d.warmup_values.assign(per_draw * static_cast<std::size_t>(d.warmup_draws), 0.0);
  }
  return d;
}

// The draws live on rank 0 only.
void keep_on_rank_zero(const Runtime& runtime, Draws& draws) {
  if (runtime.is_local(0)) return;
  draws.values.clear();
  draws.warmup_values.clear();
}

// A chain's initial point: the user's values (with random ones for what they leave out) or
// Stan's random inits.
Vector start(const Model& model, const RunSettings& s, RngEngine& rng) {
  return s.init ? initial_point(model, *s.init, s.sampler.init_radius, rng)
                : initial_point(model, s.sampler.init_radius, rng);
}

// Chain c's stream for its generated quantities' random numbers: apart from its sampler's
// (stream c) and the parallel-tempering pairs' (streams below 2^48), so that a model that
// draws them changes no draw of the sampler.
RngEngine generated_quantities_stream(std::uint64_t seed, int chain) {
  return rng_stream(seed, (std::uint64_t{1} << 48) + static_cast<std::uint64_t>(chain));
}

// Posts the draw of iteration `it` to tile 0: the tag, the chain, the iteration, its sampler
// values, then the reported values of the unconstrained position `q` (generated quantities
// from `generated`, the chain's stream for them). `collect` reads it.
void post_draw(Tile& tile, const Model& model, int chain, int it, std::span<const double> stats,
               std::span<const double> q, RngEngine& generated) {
  std::vector<double> row{kDrawTag, static_cast<double>(chain), static_cast<double>(it)};
  row.insert(row.end(), stats.begin(), stats.end());
  for (double v : model.generate(
           Eigen::Map<const Vector>(q.data(), static_cast<Eigen::Index>(q.size())), generated))
    row.push_back(v);
  tile.post<double>(0, row);
}

// Copies the draw rows in tile 0's inbox into `draws` (rank 0 only), each to its chain and
// iteration's row.
void collect(Runtime& runtime, Draws& draws, const SamplerConfig& s) {
  if (!runtime.is_local(0)) return;
  for (const Message& m : runtime.local_tiles()[0]->inbox()) {
    const std::span<const double> row = m.as<double>();
    if (row.empty() || row[0] != kDrawTag) continue;
    const auto chain = static_cast<std::size_t>(row[1]);
    const int it = static_cast<int>(row[2]);
    const auto draw = static_cast<std::size_t>(kept_row(s, it));
    const bool warmup = it < s.warmup;
    std::vector<double>& values = warmup ? draws.warmup_values : draws.values;
    const auto rows = static_cast<std::size_t>(warmup ? draws.warmup_draws : draws.draws);
    std::copy(row.begin() + 3, row.end(),
              values.begin() + static_cast<std::ptrdiff_t>((chain * rows + draw) * draws.width()));
  }
}

// NUTS, HMC and random-walk chains are independent, so one superstep advances each chain by a
// batch of iterations: the tiles then wait for each other once per batch, not once per
// iteration, and the batch's tree sizes even out between tiles (on 2 threads, 4 chains of
// garch11 with one iteration per superstep ran at 1.45x the one-thread speed). A batch ends
// at a multiple of kIterationsPerBatch (where mcmc_ipu polls for signals) and where warm-up
// ends. Its draws wait in tile 0's inbox: on a target with limited tile memory a batch holds
// at most an eighth of a tile's memory of draws, and one iteration when even that is too much.
constexpr int kIterationsPerBatch = 32;

int iterations_per_batch(const Target& target, int chains, std::size_t row_values) {
  if (!target.memory_limited()) return kIterationsPerBatch;
  const std::size_t bytes_per_iteration =
      static_cast<std::size_t>(chains) * (row_values + 3) * sizeof(double);
  const std::size_t fits = target.tile_memory_bytes / 8 / bytes_per_iteration;
  return static_cast<int>(
      std::clamp<std::size_t>(fits, 1, static_cast<std::size_t>(kIterationsPerBatch)));
}

int batch_end(int begin, int per_batch, int warmup, int total) {
  int end = (begin / per_batch + 1) * per_batch;
  if (begin < warmup) end = std::min(end, warmup);
  return std::min(end, total);
}

void charge(Tile& tile, const Model& model, const Transition& t) {
  tile.charge_cycles(static_cast<std::uint64_t>(t.gradients) *
                     model.gradient_cycles(tile.target()));
  tile.charge_cycles(static_cast<std::uint64_t>(t.n_leapfrog) *
                     estimate_cycles(tile.target(), leapfrog_work(),
                                     static_cast<std::uint64_t>(model.dimension())));
}

Draws sample_chains(Runtime& runtime, const Model& model, const RunSettings& s) {
  const int tiles = runtime.target().total_tiles();
  const int chains = s.chains;
  const auto d = static_cast<std::size_t>(model.dimension());
  auto local_chains = [&](const Tile& t) {
    return static_cast<std::size_t>(first_chain(t.id() + 1, chains, tiles) -
                                    first_chain(t.id(), chains, tiles));
  };
  const Variable<double> position = runtime.create_variable<double>(
      "mcmc.position", [&](const Tile& t) { return local_chains(t) * d; });
  struct Chain {
    std::optional<RngEngine> rng, generated;
    std::unique_ptr<ChainSampler> sampler;
    std::optional<TileVector<std::byte>> workspace;
  };
  std::vector<Chain> chain_state(static_cast<std::size_t>(chains));
  // The model's data, one copy per hosting tile (kept with the tile's first chain).
  std::vector<std::optional<TileVector<std::byte>>> data_copy(static_cast<std::size_t>(chains));

  runtime.superstep("mcmc.init", [&](Tile& t) {
    const int first = first_chain(t.id(), chains, tiles);
    for (std::size_t k = 0; k < local_chains(t); ++k) {
      const int c = first + static_cast<int>(k);
      Chain& ch = chain_state[static_cast<std::size_t>(c)];
      ch.rng = rng_stream(s.seed, static_cast<std::uint64_t>(c));
      ch.generated = generated_quantities_stream(s.seed, c);
      const Vector q0 = start(model, s, *ch.rng);
      std::span<double> q = t.get(position).subspan(k * d, d);
      std::copy(q0.begin(), q0.end(), q.begin());
      ch.sampler = make_chain_sampler(model, s.sampler, q, *ch.rng);
      ch.workspace = t.make_vector<std::byte>(
          "mcmc.sampler",
          ch.sampler->workspace_bytes() + 2 * sizeof(RngEngine) + model.chain_workspace_bytes());
      if (k == 0 && model.data_bytes() > 0)
        data_copy[static_cast<std::size_t>(c)] =
            t.make_vector<std::byte>("mcmc.model_data", model.data_bytes());
    }
  });

  Draws draws = empty_draws(runtime, model, s);
  const int total = s.sampler.warmup + s.sampler.draws;
  const int per_batch = iterations_per_batch(runtime.target(), chains, draws.width());
  PhaseClock clock;
  for (int begin = 0; begin < total;) {
    const int end = batch_end(begin, per_batch, s.sampler.warmup, total);
    clock.iteration(begin, s.sampler.warmup);
    runtime.superstep("mcmc.iterations", [&](Tile& t) {
      const int first = first_chain(t.id(), chains, tiles);
      for (std::size_t k = 0; k < local_chains(t); ++k) {
        const int c = first + static_cast<int>(k);
        Chain& ch = chain_state[static_cast<std::size_t>(c)];
        std::span<double> q = t.get(position).subspan(k * d, d);
        for (int it = begin; it < end; ++it) {
          const Transition tr = ch.sampler->iterate(it, q, *ch.rng);
          charge(t, model, tr);
          if (kept_row(s.sampler, it) < 0) continue;
          // With a fixed number of leapfrog steps the integration time follows the step size.
          const double int_time = s.sampler.leapfrog_steps > 0 ? tr.n_leapfrog * tr.step_size
                                                               : s.sampler.integration_time;
          post_draw(t, model, c, it, sampler_values(s.sampler.kind, tr, int_time), q,
                    *ch.generated);
        }
      }
    });
    collect(runtime, draws, s.sampler);
    for (int it = begin; it < end; ++it) {
      if (s.progress && runtime.rank() == 0) s.progress(it + 1, total);
      if (s.after_iteration) s.after_iteration(it + 1, total);
    }
    begin = end;
  }
  clock.finish(draws);

  gather_adaptation(
      runtime, draws, s.sampler.metric == Metric::dense_e ? d * d : d,
      [&](int c) { return tile_of(c, chains, tiles); },
      [&](int c) { return chain_state[static_cast<std::size_t>(c)].sampler.get(); });
  keep_on_rank_zero(runtime, draws);
  return draws;
}

Draws sample_ensemble(Runtime& runtime, const Model& model, const RunSettings& s) {
  const int tiles = runtime.target().total_tiles();
  const int walkers = s.chains;
  const auto d = static_cast<std::size_t>(model.dimension());
  const double a = s.sampler.stretch_scale;
  auto local_walkers = [&](const Tile& t) {
    return first_chain(t.id() + 1, walkers, tiles) - first_chain(t.id(), walkers, tiles);
  };
  std::vector<int> hosts;  // the tiles that hold walkers, and so a replica of all positions
  for (int t = 0; t < tiles; ++t)
    if (first_chain(t + 1, walkers, tiles) > first_chain(t, walkers, tiles)) hosts.push_back(t);
  auto replica = [&](const Tile& t) {
    return local_walkers(t) > 0 ? static_cast<std::size_t>(walkers) : std::size_t{0};
  };
  const Variable<double> positions = runtime.create_variable<double>(
      "mcmc.ensemble.positions", [&](const Tile& t) { return replica(t) * d; });
  const Variable<double> lps = runtime.create_variable<double>("mcmc.ensemble.lp", replica);
  std::vector<std::optional<RngEngine>> rngs(static_cast<std::size_t>(walkers)),
      generated(static_cast<std::size_t>(walkers));
  std::vector<double> accepted(static_cast<std::size_t>(walkers), 0.0);

  // Posts walker w's position and log density to every other host tile.
  auto broadcast = [&](Tile& t, int w) {
    std::vector<double> msg{kPositionTag, static_cast<double>(w),
                            t.get(lps)[static_cast<std::size_t>(w)]};
    const std::span<const double> q = t.get(positions).subspan(static_cast<std::size_t>(w) * d, d);
    msg.insert(msg.end(), q.begin(), q.end());
    for (int h : hosts)
      if (h != t.id()) t.post<double>(h, msg);
  };
  auto absorb = [&](Tile& t) {
    for (const Message& m : t.inbox()) {
      const std::span<const double> msg = m.as<double>();
      if (msg[0] != kPositionTag) continue;
      const auto w = static_cast<std::size_t>(msg[1]);
      t.get(lps)[w] = msg[2];
      std::copy(msg.begin() + 3, msg.end(),
                t.get(positions).begin() + static_cast<std::ptrdiff_t>(w * d));
    }
  };
  const std::uint64_t density_cycles = model.gradient_cycles(runtime.target());

  runtime.superstep("mcmc.ensemble.init", [&](Tile& t) {
    const int first = first_chain(t.id(), walkers, tiles);
    for (int w = first; w < first + local_walkers(t); ++w) {
      RngEngine& rng = rngs[static_cast<std::size_t>(w)].emplace(
          rng_stream(s.seed, static_cast<std::uint64_t>(w)));
      generated[static_cast<std::size_t>(w)] = generated_quantities_stream(s.seed, w);
      const Vector q0 = start(model, s, rng);
      std::copy(
          q0.begin(), q0.end(),
          t.get(positions).begin() + static_cast<std::ptrdiff_t>(static_cast<std::size_t>(w) * d));
      t.get(lps)[static_cast<std::size_t>(w)] = model.log_density(q0);
      t.charge_cycles(density_cycles);
      broadcast(t, w);
    }
  });

  Draws draws = empty_draws(runtime, model, s);
  const int total = s.sampler.warmup + s.sampler.draws;
  const int half = walkers / 2;
  PhaseClock clock;
  for (int it = 0; it < total; ++it) {
    clock.iteration(it, s.sampler.warmup);
    for (int parity = 0; parity < 2; ++parity) {
      runtime.superstep("mcmc.ensemble.half_step", [&](Tile& t) {
        if (local_walkers(t) == 0) return;
        absorb(t);
        const int first = first_chain(t.id(), walkers, tiles);
        std::span<double> pos = t.get(positions);
        Vector y(static_cast<Eigen::Index>(d));
        for (int w = first; w < first + local_walkers(t); ++w) {
          if (w % 2 != parity) continue;
          RngEngine& rng = *rngs[static_cast<std::size_t>(w)];
          // A partner from the other half, and the stretch z ~ g(z) ~ 1/sqrt(z) on [1/a, a].
          const int partner =
              2 * boost::random::uniform_int_distribution<int>(0, half - 1)(rng) + (1 - parity);
          const double u = boost::random::uniform_01<double>()(rng);
          const double z = std::pow((a - 1.0) * u + 1.0, 2) / a;
          const double* xk = pos.data() + static_cast<std::size_t>(w) * d;
          const double* xj = pos.data() + static_cast<std::size_t>(partner) * d;
          for (std::size_t i = 0; i < d; ++i)
            y[static_cast<Eigen::Index>(i)] = xj[i] + z * (xk[i] - xj[i]);
          double lp_y = model.log_density(y);
          if (std::isnan(lp_y)) lp_y = -INFINITY;
          t.charge_cycles(density_cycles);
          const double log_accept = (static_cast<double>(d) - 1.0) * std::log(z) + lp_y -
                                    t.get(lps)[static_cast<std::size_t>(w)];
          const bool accept = std::log(boost::random::uniform_01<double>()(rng)) < log_accept;
          accepted[static_cast<std::size_t>(w)] = accept ? 1.0 : 0.0;
          if (accept) {
            std::copy(y.begin(), y.end(),
                      pos.begin() + static_cast<std::ptrdiff_t>(static_cast<std::size_t>(w) * d));
            t.get(lps)[static_cast<std::size_t>(w)] = lp_y;
          }
          broadcast(t, w);
        }
        if (parity == 1 && kept_row(s.sampler, it) >= 0) {
          for (int w = first; w < first + local_walkers(t); ++w) {
            const auto uw = static_cast<std::size_t>(w);
            const double stats[2] = {t.get(lps)[uw], accepted[uw]};
            post_draw(t, model, w, it, stats, std::span<const double>(pos.data() + uw * d, d),
                      *generated[uw]);
          }
        }
      });
    }
    collect(runtime, draws, s.sampler);
    if (s.progress && runtime.rank() == 0) s.progress(it + 1, total);
    if (s.after_iteration) s.after_iteration(it + 1, total);
  }
  clock.finish(draws);
  keep_on_rank_zero(runtime, draws);
  return draws;
}

// The density at inverse temperature beta: beta log p(x), the whole density tempered.
class TemperedModel final : public Model {
 public:
  TemperedModel(const Model& base, double beta) : base_(base), beta_(beta) {}
  std::string name() const override { return base_.name(); }
  int dimension() const override { return base_.dimension(); }
  std::vector<std::string> parameter_names() const override { return base_.parameter_names(); }
  double log_density(const Vector& x) const override { return beta_ * base_.log_density(x); }
  double log_density_gradient(const Vector& x, Vector& g) const override {
    const double lp = base_.log_density_gradient(x, g);
    g *= beta_;
    return beta_ * lp;
  }
  double autodiff_log_density_gradient(const Vector& x, Vector& g) const override {
    const double lp = base_.autodiff_log_density_gradient(x, g);
    g *= beta_;
    return beta_ * lp;
  }
  std::vector<double> constrain(const Vector& x) const override { return base_.constrain(x); }
  std::vector<double> generate(const Vector& x, RngEngine& rng) const override {
    return base_.generate(x, rng);
  }
  std::vector<std::string> parameter_block_names() const override {
    return base_.parameter_block_names();
  }
  std::vector<double> parameter_block_values(const Vector& x) const override {
    return base_.parameter_block_values(x);
  }
  Vector unconstrain(std::span<const double> values) const override {
    return base_.unconstrain(values);
  }
  KernelWork gradient_work() const override { return base_.gradient_work(); }
  std::uint64_t gradient_elements() const override { return base_.gradient_elements(); }
  std::uint64_t gradient_cycles(const Target& target) const override {
    return base_.gradient_cycles(target);
  }

 private:
  const Model& base_;
  double beta_;
};

// Parallel tempering (replica exchange; Swendsen & Wang 1986, Geyer 1991): every chain
// has K replicas at inverse temperatures beta_k = T_max^(-k/(K-1)), each moved by adaptive
// random-walk Metropolis on beta_k log p. After each move, neighbouring replicas (k, k+1)
// with k of the iteration's parity propose to swap states, accepted with probability
// min(1, exp((beta_k - beta_k+1)(log p(x_k+1) - log p(x_k)))). The two replicas of a pair
// may sit on different tiles: each posts its state to the other by exchange, and both take
// the same decision from their copies of the pair's stream rng_stream(seed, R + pair).
// Replica r = c K + k; the cold replicas (k = 0) are the reported chains.
Draws sample_tempering(Runtime& runtime, const Model& model, const RunSettings& s) {
  const int tiles = runtime.target().total_tiles();
  const int K = s.sampler.temperatures, chains = s.chains, replicas = chains * K;
  const auto d = static_cast<std::size_t>(model.dimension());
  std::vector<double> beta(static_cast<std::size_t>(K));
  std::vector<std::unique_ptr<TemperedModel>> tempered;
  for (int k = 0; k < K; ++k) {
    beta[static_cast<std::size_t>(k)] =
        std::pow(s.sampler.max_temperature, -static_cast<double>(k) / (K - 1));
    tempered.push_back(std::make_unique<TemperedModel>(model, beta[static_cast<std::size_t>(k)]));
  }
  SamplerConfig local = s.sampler;
  local.kind = SamplerKind::rwm;
  auto local_replicas = [&](const Tile& t) {
    return static_cast<std::size_t>(first_chain(t.id() + 1, replicas, tiles) -
                                    first_chain(t.id(), replicas, tiles));
  };
  const Variable<double> position = runtime.create_variable<double>(
      "mcmc.position", [&](const Tile& t) { return local_replicas(t) * d; });
  struct Replica {
    std::optional<RngEngine> rng, pair_up, pair_down;  // own moves; swaps with k + 1 and k - 1
    std::optional<RngEngine> generated;                // the cold replica's generated quantities
    std::unique_ptr<ChainSampler> sampler;
    std::optional<TileVector<std::byte>> workspace;
    Transition last;
    double lp = 0;  // untempered log density of the current state
  };
  std::vector<Replica> state(static_cast<std::size_t>(replicas));
  const auto pair_stream = [&](int c, int k) {  // the pair (k, k + 1) of chain c
    return rng_stream(s.seed, static_cast<std::uint64_t>(replicas + c * (K - 1) + k));
  };

  runtime.superstep("mcmc.pt.init", [&](Tile& t) {
    const int first = first_chain(t.id(), replicas, tiles);
    for (std::size_t i = 0; i < local_replicas(t); ++i) {
      const int r = first + static_cast<int>(i), c = r / K, k = r % K;
      Replica& rep = state[static_cast<std::size_t>(r)];
      rep.rng = rng_stream(s.seed, static_cast<std::uint64_t>(r));
      if (k + 1 < K) rep.pair_up = pair_stream(c, k);
      if (k > 0) rep.pair_down = pair_stream(c, k - 1);
      if (k == 0) rep.generated = generated_quantities_stream(s.seed, c);
      const Vector q0 = start(model, s, *rep.rng);
      std::span<double> q = t.get(position).subspan(i * d, d);
      std::copy(q0.begin(), q0.end(), q.begin());
      rep.sampler = make_chain_sampler(*tempered[static_cast<std::size_t>(k)], local, q, *rep.rng);
      rep.workspace = t.make_vector<std::byte>(
          "mcmc.sampler", rep.sampler->workspace_bytes() + (k == 0 ? 4 : 3) * sizeof(RngEngine));
    }
  });

  // The partner of replica level k at iteration `it`, or -1.
  auto partner = [&](int k, int it) {
    if (k % 2 == it % 2) return k + 1 < K ? k + 1 : -1;
    return k > 0 ? k - 1 : -1;
  };
  Draws draws = empty_draws(runtime, model, s);
  const int total = s.sampler.warmup + s.sampler.draws;
  PhaseClock clock;
  for (int it = 0; it < total; ++it) {
    clock.iteration(it, s.sampler.warmup);
    runtime.superstep("mcmc.pt.move", [&](Tile& t) {
      const int first = first_chain(t.id(), replicas, tiles);
      for (std::size_t i = 0; i < local_replicas(t); ++i) {
        const int r = first + static_cast<int>(i), c = r / K, k = r % K;
        Replica& rep = state[static_cast<std::size_t>(r)];
        std::span<double> q = t.get(position).subspan(i * d, d);
        rep.last = rep.sampler->iterate(it, q, *rep.rng);
        rep.lp = rep.last.lp / beta[static_cast<std::size_t>(k)];
        charge(t, model, rep.last);
        const int p = partner(k, it);
        if (p < 0) continue;
        std::vector<double> msg{static_cast<double>(c * K + p), rep.lp};
        msg.insert(msg.end(), q.begin(), q.end());
        t.post<double>(tile_of(c * K + p, replicas, tiles), msg);
      }
    });
    runtime.superstep("mcmc.pt.swap", [&](Tile& t) {
      const int first = first_chain(t.id(), replicas, tiles);
      for (std::size_t i = 0; i < local_replicas(t); ++i) {
        const int r = first + static_cast<int>(i), c = r / K, k = r % K;
        Replica& rep = state[static_cast<std::size_t>(r)];
        rep.last.swap_accept = 0;
        const int p = partner(k, it);
        if (p >= 0) {
          for (const Message& m : t.inbox()) {
            const std::span<const double> msg = m.as<double>();
            if (static_cast<int>(msg[0]) != r) continue;
            const int low = std::min(k, p), high = std::max(k, p);
            const double lp_low = k == low ? rep.lp : msg[1], lp_high = k == low ? msg[1] : rep.lp;
            const double log_ratio =
                (beta[static_cast<std::size_t>(low)] - beta[static_cast<std::size_t>(high)]) *
                (lp_high - lp_low);
            RngEngine& pair_rng = k == low ? *rep.pair_up : *rep.pair_down;
            if (std::log(boost::random::uniform_01<double>()(pair_rng)) < log_ratio) {
              std::copy(msg.begin() + 2, msg.end(),
                        t.get(position).begin() + static_cast<std::ptrdiff_t>(i * d));
              rep.lp = msg[1];
              rep.last.swap_accept = 1;
            }
          }
        }
        if (k != 0 || kept_row(s.sampler, it) < 0) continue;
        Transition shown = rep.last;
        shown.lp = rep.lp;
        post_draw(t, model, c, it, sampler_values(SamplerKind::pt, shown, 0),
                  t.get(position).subspan(i * d, d), *rep.generated);
      }
    });
    collect(runtime, draws, s.sampler);
    if (s.progress && runtime.rank() == 0) s.progress(it + 1, total);
    if (s.after_iteration) s.after_iteration(it + 1, total);
  }
  clock.finish(draws);
  gather_adaptation(
      runtime, draws, d, [&](int c) { return tile_of(c * K, replicas, tiles); },
      [&](int c) { return state[static_cast<std::size_t>(c * K)].sampler.get(); });
  keep_on_rank_zero(runtime, draws);
  return draws;
}

}  // namespace

// Refuses up front a run whose memory exceeds this host: the draws collected on rank 0, and
// every chain's position and sampler (all ranks' chains counted, as a lower bound for one).
void require_memory(const Model& model, const RunSettings& s) {
  const double d = model.dimension();
  const double width =
      static_cast<double>(sampler_columns(s.sampler.kind).size() + model.parameter_names().size());
  const double kept =
      kept_iterations(s.sampler.draws, s.sampler.thin) +
      (s.sampler.save_warmup ? kept_iterations(s.sampler.warmup, s.sampler.thin) : 0);
  const double replicas = s.sampler.kind == SamplerKind::pt ? s.sampler.temperatures : 1.0;
  const double chains = s.chains;
  const double per_chain =
      replicas *
      (8 * d + static_cast<double>(sampler_workspace_bytes(s.sampler, model.dimension()) +
                                   model.chain_workspace_bytes()));
  const double draws = chains * kept * width * 8;
  char what[256];
  std::snprintf(what, sizeof what,
                "sampling %.0f chains of %s (%.0f parameters): %.0f kept draws of %.0f columns "
                "per chain",
                chains, model.name().c_str(), d, kept, width);
  require_host_memory(draws + chains * per_chain, what,
                      "use fewer --chains or --draws, a larger --thin, or a smaller model");
}

Draws sample(Runtime& runtime, const Model& model, const RunSettings& settings) {
  validate(model, settings);
  require_memory(model, settings);
  if (settings.sampler.kind == SamplerKind::ensemble)
    return sample_ensemble(runtime, model, settings);
  if (settings.sampler.kind == SamplerKind::pt) return sample_tempering(runtime, model, settings);
  return sample_chains(runtime, model, settings);
}

}  // namespace tessera::mcmc
