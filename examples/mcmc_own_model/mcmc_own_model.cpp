// Samples a model of one's own with tessera::mcmc: a straight line through noisy points,
//   y_i ~ Normal(alpha + beta x_i, sigma),  alpha, beta ~ Normal(0, 10),  sigma ~ Exponential(1),
// with sigma > 0 sampled on the log scale. Reads the points from a JSON data file, runs 4
// NUTS chains on the tiles of a target (the host's threads, or a simulated IPU), prints a
// stansummary-style table and writes CmdStan CSV files and an ArviZ NetCDF file.
//   mcmc_own_model DATA.json OUTPUT_PREFIX [TARGET]   TARGET: host (default), gc200, pod4, ...
#include <cmath>
#include <cstddef>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "tessera/core/environment.hpp"  // tessera::run_main
#include "tessera/core/error.hpp"        // tessera::FormatError, ConfigError
#include "tessera/core/runtime.hpp"      // tessera::Runtime, RuntimeOptions
#include "tessera/mcmc/diagnostics.hpp"  // summarize, summary_table
#include "tessera/mcmc/model.hpp"        // AutoDiffModel, lower_bounded
#include "tessera/mcmc/models.hpp"       // read_data_file
#include "tessera/mcmc/output.hpp"       // write_cmdstan_csv, write_arviz_netcdf
#include "tessera/mcmc/run.hpp"          // RunSettings, sample

namespace mcmc = tessera::mcmc;

// Unconstrained parameters u = (alpha, beta, log sigma); 3 fixes AD's derivative length.
class LinearRegression final : public mcmc::AutoDiffModel<LinearRegression, 3> {
 public:
  LinearRegression(std::vector<double> x, std::vector<double> y)
      : x_(std::move(x)), y_(std::move(y)) {}

  std::string name() const override { return "linear_regression"; }
  int dimension() const override { return 3; }
  std::vector<std::string> parameter_names() const override { return {"alpha", "beta", "sigma"}; }

  // log p(alpha, beta, sigma | x, y) + log |d sigma / du|, constants dropped, for T = double
  // and for the AD scalar.
  template <class T>
  T log_density_t(const Eigen::Matrix<T, Eigen::Dynamic, 1>& u) const {
    using std::log;
    T lp = T(0.0);
    const T& alpha = u[0];
    const T& beta = u[1];
    const T sigma = mcmc::lower_bounded(u[2], 0.0, lp);  // exp(u[2]); adds the Jacobian u[2]
    lp += -0.5 * (alpha * alpha + beta * beta) / 100.0 - sigma;
    for (std::size_t i = 0; i < x_.size(); ++i) {
      const T z = (y_[i] - alpha - beta * x_[i]) / sigma;
      lp += -0.5 * z * z - log(sigma);
    }
    return lp;
  }

  // The values reported for a draw, in the order of parameter_names().
  std::vector<double> constrain(const mcmc::Vector& u) const override {
    return {u[0], u[1], std::exp(u[2])};
  }

 private:
  std::vector<double> x_, y_;
};

// The points of `path`: {"N": n, "x": [n numbers], "y": [n numbers]}.
LinearRegression read_model(const std::string& path) {
  const nlohmann::json data = mcmc::read_data_file(path);  // FormatError if missing or malformed
  const auto field = [&](const char* name) -> const nlohmann::json& {
    if (!data.contains(name)) throw tessera::FormatError(path + ": no field '" + name + "'");
    return data.at(name);
  };
  const int n = field("N").get<int>();
  std::vector<double> x = field("x").get<std::vector<double>>();
  std::vector<double> y = field("y").get<std::vector<double>>();
  if (static_cast<int>(x.size()) != n || static_cast<int>(y.size()) != n)
    throw tessera::FormatError(path + ": 'x' and 'y' must hold N = " + std::to_string(n) +
                               " numbers each");
  return LinearRegression(std::move(x), std::move(y));
}

int main(int argc, char** argv) {
  // run_main initialises MPI, runs the body and turns an exception into "ERROR: ..." and
  // exit status 1.
  return tessera::run_main(argc, argv, [](int argc, char** argv) {
    if (argc != 3 && argc != 4)
      throw tessera::ConfigError("usage: mcmc_own_model DATA.json OUTPUT_PREFIX [TARGET]");
    const std::string data_file = argv[1], prefix = argv[2];
    const LinearRegression model = read_model(data_file);

    // The machine: "host" has one tile per host thread (the node's hardware threads,
    // shared among its MPI ranks); an IPU preset such as "gc200" is simulated, with its
    // tiles' memory limits and cost model.
    tessera::RuntimeOptions machine;
    machine.target = argc == 4 ? argv[3] : "host";
    tessera::Runtime runtime(machine);

    mcmc::RunSettings settings;
    settings.sampler.kind = mcmc::SamplerKind::nuts;
    settings.sampler.warmup = 1000;
    settings.sampler.draws = 1000;
    settings.chains = 4;
    settings.seed = 20240607;
    const mcmc::Draws draws = mcmc::sample(runtime, model, settings);

    // The draws are on rank 0 only (other MPI ranks get none).
    if (runtime.rank() == 0) {
      std::printf("%s", mcmc::summary_table(draws, mcmc::summarize(draws)).c_str());
      mcmc::RunDescription run;  // what the CSV header and the NetCDF attributes record
      run.model = model.name();
      run.data_file = data_file;
      run.sampler = settings.sampler;
      run.seed = settings.seed;
      for (int chain = 0; chain < draws.chains; ++chain) {
        const std::string csv = prefix + "_" + std::to_string(chain + 1) + ".csv";
        mcmc::write_cmdstan_csv(csv, draws, chain, run);
        std::printf("wrote %s\n", csv.c_str());
      }
      mcmc::write_arviz_netcdf(prefix + ".nc", draws, run);
      std::printf("wrote %s.nc\n", prefix.c_str());
    }
    // The cost model's account of the run (on an IPU target: the simulated time).
    const std::string profile = runtime.finish();
    if (runtime.rank() == 0) std::printf("%s", profile.c_str());
    return 0;
  });
}
