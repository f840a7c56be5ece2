// Convergence diagnostics and summaries, as Stan's `posterior` package and
// ArviZ compute them: Vehtari, Gelman, Simpson, Carpenter & Bürkner (2021),
// "Rank-normalization, folding, and localization: an improved R-hat for
// assessing convergence of MCMC", Bayesian Analysis 16(2).
//
// `chains` is one vector of draws per chain, all of the same length.
//   rhat       max of the rank-normalised split-R-hat of the draws (bulk) and of
//              their distances from the median (tail)
//   ess_bulk   ESS of the rank-normalised split chains
//   ess_tail   min ESS of the indicators I(x <= q05) and I(x <= q95), split
//   ess_mean   ESS of the split chains themselves; mcse_mean = sd / sqrt(ess_mean)
// The ESS uses the biased autocovariance, Geyer's initial positive sequence made
// monotone, and the antithetic improvement of the paper (posterior's .ess()).
// Quantiles are R's type 7 (linear interpolation, numpy's default). Diagnostics
// of fewer than 3 draws per split chain, non-finite or constant draws are NaN.
#pragma once

#include <string>
#include <vector>

#include "tessera/mcmc/run.hpp"

namespace tessera::mcmc {

using Chains = std::vector<std::vector<double>>;

double quantile(std::vector<double> values, double p);
// Split-R-hat without rank normalisation (Gelman et al., BDA3, eq. 11.4 on split chains).
double rhat_basic(const Chains& chains);
double rhat(const Chains& chains);
// posterior's .ess(): the ESS of the given chains as they are (no split, no ranks).
double ess_of(const Chains& chains);
double ess_bulk(const Chains& chains);
double ess_tail(const Chains& chains);
double ess_mean(const Chains& chains);
double mcse_mean(const Chains& chains);
// Rank-normalised z-scores: Phi^-1((r - 3/8) / (S + 1/4)) over all S draws, average ranks for ties.
Chains z_scale(const Chains& chains);
Chains split_chains(const Chains& chains);
// Energy Bayesian fraction of missing information of one chain (Betancourt 2016), as
// ArviZ computes it: mean((E_n - E_{n-1})^2) / var(E).
double ebfmi(const std::vector<double>& energy);

struct ColumnSummary {
  std::string name;
  double mean, mcse, sd, q5, q50, q95, ess_bulk, ess_tail, rhat;
};

// Every column of `draws` from lp__ on (the other sampler columns are left out).
std::vector<ColumnSummary> summarize(const Draws& draws);

// A table in the layout of CmdStan's stansummary, with the divergences and E-BFMI
// per chain below it when the sampler reports them.
std::string summary_table(const Draws& draws, const std::vector<ColumnSummary>& summary);

// When the warnings below speak: posterior's and the Stan warning guide's thresholds.
struct WarningThresholds {
  double rhat = 1.01;          // R-hat above this
  double ess_per_chain = 100;  // bulk- or tail-ESS below this times the chain count
  double ebfmi = 0.3;          // a chain's E-BFMI below this (CmdStan's diagnose)
};

// The problems a run's draws show, as the lines to print after the summary, in CmdStan's
// diagnose wording (src/cmdstan/diagnose.cpp) and order; paragraphs separated by an empty
// line, nothing when the run looks healthy:
//   transitions at the maximum tree depth (treedepth__ >= max_depth; nuts), with count and
//   percent; divergent transitions (divergent__), with count, percent and CmdStan's advice
//   (increase adapt delta, reparameterise); chains whose E-BFMI (energy__, per chain, as
//   ArviZ) is below the threshold; parameters whose bulk-ESS or tail-ESS is below
//   ess_per_chain x chains (named, bulk and tail apart); parameters whose R-hat exceeds the
//   threshold. The last two use `summary` (summarize(draws); empty: not checked) and leave
//   out lp__, as diagnose does, and parameters whose diagnostics are undefined (NaN:
//   constant or non-finite draws).
std::vector<std::string> diagnostic_warnings(const Draws& draws,
                                             const std::vector<ColumnSummary>& summary,
                                             int max_depth, const WarningThresholds& limits = {});

}  // namespace tessera::mcmc
