#include "tessera/mcmc/diagnostics.hpp"

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdio>
#include <limits>
#include <numbers>
#include <numeric>
#include <unsupported/Eigen/FFT>

namespace tessera::mcmc {

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

double mean(const std::vector<double>& x) {
  return std::accumulate(x.begin(), x.end(), 0.0) / static_cast<double>(x.size());
}

// Sample variance (n - 1 in the denominator).
double variance(const std::vector<double>& x) {
  const double m = mean(x);
  double s = 0;
  for (double v : x) s += (v - m) * (v - m);
  return s / static_cast<double>(x.size() - 1);
}

std::vector<double> pooled(const Chains& chains) {
  std::vector<double> all;
  for (const auto& c : chains) all.insert(all.end(), c.begin(), c.end());
  return all;
}

// posterior's should_return_NA(), plus the minimum length of the estimator.
bool unusable(const Chains& chains, std::size_t minimum_length = 3) {
  if (chains.empty() || chains[0].size() < minimum_length) return true;
  const std::vector<double> all = pooled(chains);
  for (double v : all)
    if (!std::isfinite(v)) return true;
  return std::all_of(all.begin(), all.end(), [&](double v) { return v == all[0]; });
}

// The standard normal quantile: Acklam's rational approximation (relative error
// < 1.15e-9) refined by one Halley step on std::erfc, which brings it to double
// precision at a fraction of the cost of an iterative inverse; rank normalisation
// calls it for every draw of every parameter.
double normal_quantile(double p) {
  static constexpr double a[] = {-3.969683028665376e+01, 2.209460984245205e+02,
                                 -2.759285104469687e+02, 1.383577518672690e+02,
                                 -3.066479806614716e+01, 2.506628277459239e+00};
  static constexpr double b[] = {-5.447609879822406e+01, 1.615858368580409e+02,
                                 -1.556989798598866e+02, 6.680131188771972e+01,
                                 -1.328068155288572e+01};
  static constexpr double c[] = {-7.784894002430293e-03, -3.223964580411365e-01,
                                 -2.400758277161838e+00, -2.549732539343734e+00,
                                 4.374664141464968e+00,  2.938163982698783e+00};
  static constexpr double d[] = {7.784695709041462e-03, 3.224671290700398e-01,
                                 2.445134137142996e+00, 3.754408661907416e+00};
  auto tail = [&](double q) {
    return (((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5]) /
           ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1);
  };
  double x;
  if (p < 0.02425) {
    x = tail(std::sqrt(-2 * std::log(p)));
  } else if (p > 1 - 0.02425) {
    x = -tail(std::sqrt(-2 * std::log(1 - p)));
  } else {
    const double q = p - 0.5, r = q * q;
    x = (((((a[0] * r + a[1]) * r + a[2]) * r + a[3]) * r + a[4]) * r + a[5]) * q /
        (((((b[0] * r + b[1]) * r + b[2]) * r + b[3]) * r + b[4]) * r + 1);
  }
  const double e = 0.5 * std::erfc(-x / std::sqrt(2.0)) - p;
  const double u = e * std::sqrt(2 * std::numbers::pi) * std::exp(x * x / 2);
  return x - u / (1 + x * u / 2);
}

}  // namespace

namespace {
double quantile_of_sorted(const std::vector<double>& values, double p) {
  const double h = (static_cast<double>(values.size()) - 1.0) * p;
  const auto lo = static_cast<std::size_t>(std::floor(h));
  const std::size_t hi = std::min(lo + 1, values.size() - 1);
  return values[lo] + (h - static_cast<double>(lo)) * (values[hi] - values[lo]);
}
}  // namespace

double quantile(std::vector<double> values, double p) {
  std::sort(values.begin(), values.end());
  return quantile_of_sorted(values, p);
}

Chains split_chains(const Chains& chains) {
  Chains out;
  for (const auto& c : chains) {
    const std::size_t half = c.size() / 2;
    out.emplace_back(c.begin(), c.begin() + static_cast<std::ptrdiff_t>(half));
    out.emplace_back(c.end() - static_cast<std::ptrdiff_t>(half), c.end());
  }
  return out;
}

Chains z_scale(const Chains& chains) {
  const std::vector<double> all = pooled(chains);
  const std::size_t s = all.size();
  std::vector<std::size_t> order(s);
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return all[a] < all[b]; });
  std::vector<double> rank(s);
  for (std::size_t i = 0; i < s;) {
    std::size_t j = i;
    while (j + 1 < s && all[order[j + 1]] == all[order[i]]) ++j;
    const double average =
        (static_cast<double>(i + j) / 2.0) + 1.0;  // 1-based average rank of ties
    for (std::size_t k = i; k <= j; ++k) rank[order[k]] = average;
    i = j + 1;
  }
  Chains out = chains;
  std::size_t k = 0;
  for (auto& c : out)
    for (double& v : c) v = normal_quantile((rank[k++] - 0.375) / (static_cast<double>(s) + 0.25));
  return out;
}

double rhat_basic(const Chains& chains) {
  if (unusable(chains, 2)) return kNaN;
  const double n = static_cast<double>(chains[0].size());
  std::vector<double> means, variances;
  for (const auto& c : chains) {
    means.push_back(mean(c));
    variances.push_back(variance(c));
  }
  const double between = n * (chains.size() > 1 ? variance(means) : 0.0);
  const double within = mean(variances);
  return std::sqrt((between / within + n - 1.0) / n);
}

namespace {

// R-hat from the rank-normalised split chains `z` and the pooled median.
double rhat_from(const Chains& chains, const Chains& z, double median) {
  Chains folded = chains;
  for (auto& c : folded)
    for (double& v : c) v = std::abs(v - median);
  return std::max(rhat_basic(z), rhat_basic(z_scale(split_chains(folded))));
}

double ess_tail_from(const Chains& chains, double q05, double q95) {
  double result = std::numeric_limits<double>::infinity();
  for (double q : {q05, q95}) {
    Chains indicator = chains;
    for (auto& c : indicator)
      for (double& v : c) v = v <= q ? 1.0 : 0.0;
    const double e = ess_of(split_chains(indicator));
    if (std::isnan(e)) return kNaN;
    result = std::min(result, e);
  }
  return result;
}

}  // namespace

double rhat(const Chains& chains) {
  const Chains split = split_chains(chains);
  if (unusable(split, 2)) return kNaN;
  return rhat_from(chains, z_scale(split), quantile(pooled(chains), 0.5));
}

double ess_of(const Chains& chains) {
  if (unusable(chains)) return kNaN;
  const std::size_t m = chains.size(), n = chains[0].size();
  const double nd = static_cast<double>(n);
  // Mean over chains of the biased autocovariance (1/n) sum_i y_i y_i+t at every lag,
  // by FFT of the zero-padded centred chains (as Stan's autocovariance() does).
  std::vector<double> chain_means(m), mean_acov(n, 0.0);
  Eigen::FFT<double> fft;
  std::vector<double> padded(2 * n);
  std::vector<std::complex<double>> spectrum;
  std::vector<double> back;
  for (std::size_t c = 0; c < m; ++c) {
    chain_means[c] = mean(chains[c]);
    std::fill(padded.begin(), padded.end(), 0.0);
    for (std::size_t i = 0; i < n; ++i) padded[i] = chains[c][i] - chain_means[c];
    fft.fwd(spectrum, padded);
    for (auto& z : spectrum) z = std::norm(z);
    fft.inv(back, spectrum);
    for (std::size_t t = 0; t < n; ++t) mean_acov[t] += back[t] / nd / static_cast<double>(m);
  }
  auto acov = [&](std::size_t t) { return mean_acov[t]; };
  const double mean_var = acov(0) * nd / (nd - 1.0);
  double var_plus = mean_var * (nd - 1.0) / nd;
  if (m > 1) var_plus += variance(chain_means);
  std::vector<double> rho(n, 0.0);
  std::size_t t = 0;
  double rho_even = 1.0, rho_odd = 1.0 - (mean_var - acov(1)) / var_plus;
  rho[0] = rho_even;
  rho[1] = rho_odd;
  while (t + 5 < n && !std::isnan(rho_even + rho_odd) && rho_even + rho_odd > 0) {
    t += 2;
    rho_even = 1.0 - (mean_var - acov(t)) / var_plus;
    rho_odd = 1.0 - (mean_var - acov(t + 1)) / var_plus;
    if (rho_even + rho_odd >= 0) {
      rho[t] = rho_even;
      rho[t + 1] = rho_odd;
    }
  }
  const std::size_t max_t = t;
  if (rho_even > 0) rho[max_t] = rho_even;  // for the antithetic improvement below
  // Geyer's initial monotone sequence
  for (t = 0; t + 4 <= max_t;) {
    t += 2;
    if (rho[t] + rho[t + 1] > rho[t - 2] + rho[t - 1]) {
      rho[t] = (rho[t - 2] + rho[t - 1]) / 2.0;
      rho[t + 1] = rho[t];
    }
  }
  const double draws = static_cast<double>(m) * nd;
  double tau = -1.0 + rho[max_t];
  for (std::size_t k = 0; k < max_t; ++k) tau += 2.0 * rho[k];
  tau = std::max(tau, 1.0 / std::log10(draws));
  return draws / tau;
}

double ess_bulk(const Chains& chains) {
  const Chains split = split_chains(chains);
  return unusable(split) ? kNaN : ess_of(z_scale(split));
}

double ess_mean(const Chains& chains) { return ess_of(split_chains(chains)); }

double ess_tail(const Chains& chains) {
  const std::vector<double> all = pooled(chains);
  return ess_tail_from(chains, quantile(all, 0.05), quantile(all, 0.95));
}

double mcse_mean(const Chains& chains) {
  const std::vector<double> all = pooled(chains);
  return std::sqrt(variance(all)) / std::sqrt(ess_mean(chains));
}

double ebfmi(const std::vector<double>& energy) {
  const double n = static_cast<double>(energy.size());
  double diff = 0;
  for (std::size_t i = 1; i < energy.size(); ++i)
    diff += (energy[i] - energy[i - 1]) * (energy[i] - energy[i - 1]);
  return (diff / (n - 1.0)) / (variance(energy) * (n - 1.0) / n);
}

std::vector<ColumnSummary> summarize(const Draws& draws) {
  std::vector<ColumnSummary> out;
  for (std::size_t col = 0; col < draws.width(); ++col) {
    if (col > 0 && col < static_cast<std::size_t>(draws.sampler_columns)) continue;
    Chains chains;
    for (int c = 0; c < draws.chains; ++c) chains.push_back(draws.column(c, col));
    // One sort for the quantiles and one rank normalisation for bulk R-hat and bulk-ESS.
    std::vector<double> sorted = pooled(chains);
    std::sort(sorted.begin(), sorted.end());
    auto q = [&](double p) { return quantile_of_sorted(sorted, p); };
    const Chains split = split_chains(chains);
    const bool usable = !unusable(split);
    const Chains z = usable ? z_scale(split) : Chains{};
    ColumnSummary s{draws.columns[col],
                    mean(sorted),
                    mcse_mean(chains),
                    std::sqrt(variance(sorted)),
                    q(0.05),
                    q(0.5),
                    q(0.95),
                    usable ? ess_of(z) : kNaN,
                    usable ? ess_tail_from(chains, q(0.05), q(0.95)) : kNaN,
                    usable ? rhat_from(chains, z, q(0.5)) : kNaN};
    out.push_back(s);
  }
  return out;
}

std::string summary_table(const Draws& draws, const std::vector<ColumnSummary>& summary) {
  std::size_t width = 4;
  for (const auto& s : summary) width = std::max(width, s.name.size());
  std::string out;
  char line[512];
  std::snprintf(line, sizeof line, "%-*s %10s %9s %9s %9s %9s %9s %9s %9s %7s\n",
                static_cast<int>(width), "", "Mean", "MCSE", "StdDev", "5%", "50%", "95%",
                "ESS_bulk", "ESS_tail", "R_hat");
  out += line;
  for (const auto& s : summary) {
    std::snprintf(line, sizeof line,
                  "%-*s %10.4g %9.2g %9.3g %9.3g %9.3g %9.3g %9.0f %9.0f %7.3f\n",
                  static_cast<int>(width), s.name.c_str(), s.mean, s.mcse, s.sd, s.q5, s.q50, s.q95,
                  s.ess_bulk, s.ess_tail, s.rhat);
    out += line;
  }
  const auto has = [&](const std::string& n) {
    return std::find(draws.columns.begin(), draws.columns.end(), n) != draws.columns.end();
  };
  if (has("divergent__")) {
    const std::size_t col = draws.index("divergent__");
    long divergent = 0;
    for (int c = 0; c < draws.chains; ++c)
      for (double v : draws.column(c, col)) divergent += v != 0;
    out += "Divergent transitions: " + std::to_string(divergent) + " of " +
           std::to_string(static_cast<long>(draws.chains) * draws.draws) + "\n";
  }
  if (has("energy__")) {
    out += "E-BFMI per chain:";
    for (int c = 0; c < draws.chains; ++c) {
      std::snprintf(line, sizeof line, " %.3f", ebfmi(draws.column(c, draws.index("energy__"))));
      out += line;
    }
    out += "\n";
  }
  return out;
}

namespace {

std::string fixed2(double v) {
  char text[64];
  std::snprintf(text, sizeof text, "%.2f", v);
  return text;
}

std::string names_line(const std::vector<std::string>& names) {
  std::string line = "  ";
  for (std::size_t i = 0; i < names.size(); ++i) line += (i ? ", " : "") + names[i];
  return line;
}

}  // namespace

std::vector<std::string> diagnostic_warnings(const Draws& draws,
                                             const std::vector<ColumnSummary>& summary,
                                             int max_depth, const WarningThresholds& limits) {
  std::vector<std::string> lines;
  auto paragraph = [&](std::initializer_list<std::string> text) {
    if (!lines.empty()) lines.emplace_back();
    lines.insert(lines.end(), text.begin(), text.end());
  };
  const auto has = [&](const std::string& n) {
    return std::find(draws.columns.begin(), draws.columns.end(), n) != draws.columns.end();
  };
  const long transitions = static_cast<long>(draws.chains) * draws.draws;
  const auto count = [&](const std::string& column, auto&& bad) {
    long n = 0;
    const std::size_t col = draws.index(column);
    for (int c = 0; c < draws.chains; ++c)
      for (int d = 0; d < draws.draws; ++d) n += bad(draws.at(c, d, col)) ? 1 : 0;
    return n;
  };
  const auto of = [&](long n) {
    return std::to_string(n) + " of " + std::to_string(transitions) + " (" +
           fixed2(100.0 * static_cast<double>(n) / static_cast<double>(transitions)) + "%)";
  };
  if (transitions == 0) return lines;
  if (has("treedepth__")) {
    const long n = count("treedepth__", [&](double v) { return v >= max_depth; });
    const std::string depth = std::to_string(max_depth);
    if (n > 0)
      paragraph({of(n) + " transitions hit the maximum treedepth limit of " + depth + ", or 2^" +
                     depth + " leapfrog steps.",
                 "Trajectories that are prematurely terminated due to this limit will result in "
                 "slow exploration.",
                 "For optimal performance, increase this limit."});
  }
  long cut_short = 0;
  for (long n : draws.cut_short) cut_short += n;
  if (cut_short > 0)
    paragraph({std::to_string(cut_short) + " transitions after warm-up hit the maximum number of "
                                           "leapfrog steps (--max-leapfrog-steps) and were cut "
                                           "short.",
               "The adapted step size is so small that floor(int_time / stepsize) exceeds it: the "
               "posterior's scales vary too widely for a fixed integration time.",
               "Use the nuts sampler, or reparameterise the model."});
  if (has("divergent__")) {
    const long n = count("divergent__", [](double v) { return v != 0; });
    if (n > 0)
      paragraph({of(n) + " transitions ended with a divergence.",
                 "These divergent transitions indicate that HMC is not fully able to explore the "
                 "posterior distribution.",
                 "Try increasing adapt delta closer to 1.",
                 "If this doesn't remove all divergences, try to reparameterize the model."});
  }
  if (has("energy__") && draws.draws >= 2) {
    std::vector<std::string> low;
    for (int c = 0; c < draws.chains; ++c) {
      const double e = ebfmi(draws.column(c, draws.index("energy__")));
      if (e < limits.ebfmi)
        low.push_back("Chain " + std::to_string(c + 1) + ": the E-BFMI, " + fixed2(e) +
                      ", is below the nominal threshold of " + fixed2(limits.ebfmi) +
                      " which suggests that HMC may have trouble exploring the target "
                      "distribution.");
    }
    if (!low.empty()) {
      if (!lines.empty()) lines.emplace_back();
      lines.insert(lines.end(), low.begin(), low.end());
      lines.emplace_back("If possible, try to reparameterize the model.");
    }
  }
  std::vector<std::string> bulk, tail, mixing;
  const double ess_limit = limits.ess_per_chain * draws.chains;
  for (const ColumnSummary& s : summary) {
    if (s.name.find("__") != std::string::npos) continue;  // lp__, as diagnose
    if (s.ess_bulk < ess_limit) bulk.push_back(s.name);    // NaN compares false
    if (s.ess_tail < ess_limit) tail.push_back(s.name);
    if (s.rhat > limits.rhat) mixing.push_back(s.name);
  }
  char limit[64];
  std::snprintf(limit, sizeof limit, "%g (%g per chain)", ess_limit, limits.ess_per_chain);
  if (!bulk.empty())
    paragraph({std::string("The following parameters had a bulk effective sample size (ESS_bulk) "
                           "below ") +
                   limit + ":",
               names_line(bulk),
               "Such low values indicate that posterior means and medians may be unreliable.",
               "Running the chains for more iterations may help."});
  if (!tail.empty())
    paragraph({std::string("The following parameters had a tail effective sample size (ESS_tail) "
                           "below ") +
                   limit + ":",
               names_line(tail),
               "Such low values indicate that posterior variances and tail quantiles may be "
               "unreliable.",
               "Running the chains for more iterations may help."});
  if (!mixing.empty())
    paragraph({"The following parameters had rank-normalized split R-hat greater than " +
                   fixed2(limits.rhat) + ":",
               names_line(mixing),
               "Such high values indicate incomplete mixing and biased estimation.",
               "You should consider regularizing your model with additional prior information or "
               "a more effective parameterization."});
  return lines;
}

}  // namespace tessera::mcmc
