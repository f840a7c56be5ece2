// Helpers the mcmc tests share: an exception's message, posteriordb's reference summaries.
#pragma once

#include <exception>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

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

}  // namespace tessera::mcmc::testing
