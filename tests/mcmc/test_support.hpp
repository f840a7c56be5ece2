// Helpers the mcmc tests share: an exception's message, posteriordb's reference summaries,
// a column's moments against known ones.
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <exception>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "tessera/mcmc/diagnostics.hpp"
#include "tessera/mcmc/run.hpp"

namespace tessera::mcmc::testing {

// The message of what `f` throws, or "(no exception)".
template <class F>
std::string message_of(F&& f) {
  try {
    f();
  } catch (const std::exception& e) {
    return e.what();
  }
  return "(no exception)";
}

// One parameter's row of posteriordb's reference_summary.csv
// (param,mean,sd,q05,q50,q95,mcse_mean_naive).
struct Reference {
  double mean, sd, mcse;
};

inline std::map<std::string, Reference> read_reference(const std::string& path) {
  std::ifstream in(path);
  std::map<std::string, Reference> out;
  std::string line;
  std::getline(in, line);
  while (std::getline(in, line)) {
    std::istringstream row(line);
    std::string name, field;
    std::vector<double> v;
    std::getline(row, name, ',');
    while (std::getline(row, field, ',')) v.push_back(std::stod(field));
    out[name] = {v.at(0), v.at(1), v.at(5)};
  }
  return out;
}

inline Chains chains_of(const Draws& d, const std::string& name) {
  Chains c;
  for (int k = 0; k < d.chains; ++k) c.push_back(d.column(k, d.index(name)));
  return c;
}

inline double mean_of(const Chains& c) {
  double s = 0, n = 0;
  for (const auto& x : c)
    for (double v : x) s += v, n += 1;
  return s / n;
}

// E x = mean and E (x - mean)^2 = sd^2, each within 4 MCSE (plus the reference's own
// error, `mean_error` and `sd_error`), and R-hat below 1.01.
inline void expect_moments(const Draws& d, const std::string& name, double mean, double sd,
                           double mean_error = 0, double sd_error = 0) {
  const Chains x = chains_of(d, name);
  const double m = mean_of(x), e = mcse_mean(x);
  EXPECT_NEAR(m, mean, 4 * std::sqrt(e * e + mean_error * mean_error))
      << name << " mean (MCSE " << e << ")";
  Chains square = x;
  for (auto& c : square)
    for (double& v : c) v = (v - mean) * (v - mean);
  const double e2 = mcse_mean(square), variance_error = 2 * sd * sd_error;
  EXPECT_NEAR(mean_of(square), sd * sd, 4 * std::sqrt(e2 * e2 + variance_error * variance_error))
      << name << " variance (MCSE " << e2 << ")";
  EXPECT_LT(rhat(x), 1.01) << name;
}

}  // namespace tessera::mcmc::testing
