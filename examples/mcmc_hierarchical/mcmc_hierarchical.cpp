// A hierarchical model of 126 parameters written through tessera::mcmc's Stan Math interface
// (stan_math_model.hpp): varying intercepts and slopes with correlated group effects, the
// non-centred form of the Stan User's Guide ("Multivariate priors for hierarchical models"):
//   y_i ~ Normal(a_g[i] + b_g[i] x_i, sigma),   (a_j, b_j) = mu + diag(tau) L z_j,
//   z_j ~ Normal(0, I),  L ~ LKJ-Cholesky(2),  mu ~ Normal(0, 2),  tau ~ Normal+(0, 1),
//   sigma ~ Exponential(1).
// Each parameter is declared once with its constraint; the log density uses Stan Math's
// distributions and its gradient is Stan Math's reverse mode. Samples with NUTS on the tiles of
// a target, prints the summary, and, since the data were simulated from the model
// (make_data.py), how each hyper-parameter's 90% interval covers its true value.
//   mcmc_hierarchical DATA.json [TARGET]   TARGET: host (default), gc200, pod4, ...
#include <cstdio>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "tessera/core/environment.hpp"      // tessera::run_main
#include "tessera/core/error.hpp"            // tessera::FormatError, ConfigError
#include "tessera/core/runtime.hpp"          // tessera::Runtime
#include "tessera/mcmc/diagnostics.hpp"      // summarize, summary_table
#include "tessera/mcmc/models.hpp"           // read_data_file
#include "tessera/mcmc/run.hpp"              // RunSettings, sample
#include "tessera/mcmc/stan_math_model.hpp"  // StanMathModel, Point, lower

namespace mcmc = tessera::mcmc;

class VaryingSlopes final : public mcmc::StanMathModel<VaryingSlopes> {
 public:
  VaryingSlopes(std::vector<int> group, Eigen::VectorXd x, Eigen::VectorXd y, int groups)
      : group_(std::move(group)),
        x_(std::move(x)),
        y_(std::move(y)),
        z_(params().matrix("z", 2, groups)),
        mu_(params().vector("mu", 2)),
        tau_(params().vector("tau", 2, mcmc::lower(0.0))),
        l_(params().cholesky_factor_corr("L", 2)),
        sigma_(params().real("sigma", mcmc::lower(0.0))) {}

  std::string name() const override { return "varying_slopes"; }

  // `~` statements: normal_lpdf<true> drops what does not depend on the parameters.
  template <class T>
  T log_density_t(const mcmc::Point<T>& p) const {
    using namespace stan::math;
    const auto& z = p[z_];
    const Eigen::Matrix<T, Eigen::Dynamic, 1> mu = p[mu_], tau = p[tau_];
    // Group effects: column j is (a_j, b_j).
    const Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic> effects =
        (diag_pre_multiply(tau, p[l_]) * z).colwise() + mu;
    Eigen::Matrix<T, Eigen::Dynamic, 1> mean(y_.size());
    for (Eigen::Index i = 0; i < y_.size(); ++i) {
      const Eigen::Index g = group_[static_cast<std::size_t>(i)];
      mean[i] = effects(0, g) + effects(1, g) * x_[i];
    }
    return normal_lpdf<true>(to_vector(z), 0, 1) + lkj_corr_cholesky_lpdf<true>(p[l_], 2.0) +
           normal_lpdf<true>(mu, 0, 2) + normal_lpdf<true>(tau, 0, 1) +
           exponential_lpdf<true>(p[sigma_], 1.0) + normal_lpdf<true>(y_, mean, p[sigma_]);
  }

  // Reported after the parameters: the correlation of intercepts and slopes.
  void quantities(const mcmc::Point<double>& p, mcmc::Quantities& out) const {
    out.add("rho", p[l_](1, 0));
  }

 private:
  std::vector<int> group_;  // 0-based
  Eigen::VectorXd x_, y_;
  mcmc::MatrixParameter z_;
  mcmc::VectorParameter mu_, tau_;
  mcmc::MatrixParameter l_;
  mcmc::RealParameter sigma_;
};

// {"N", "J", "group"[N] in 1..J, "x"[N], "y"[N], "truth": {name: value}} (make_data.py).
VaryingSlopes read_model(const nlohmann::json& data, const std::string& path) {
  const auto field = [&](const char* name) -> const nlohmann::json& {
    if (!data.contains(name)) throw tessera::FormatError(path + ": no field '" + name + "'");
    return data.at(name);
  };
  const int n = field("N").get<int>(), groups = field("J").get<int>();
  std::vector<int> group = field("group").get<std::vector<int>>();
  const std::vector<double> x = field("x").get<std::vector<double>>(),
                            y = field("y").get<std::vector<double>>();
  if (std::ssize(group) != n || std::ssize(x) != n || std::ssize(y) != n)
    throw tessera::FormatError(path + ": 'group', 'x' and 'y' must hold N = " + std::to_string(n) +
                               " values each");
  for (int& g : group) {
    if (g < 1 || g > groups)
      throw tessera::FormatError(path + ": a group " + std::to_string(g) + " outside 1.." +
                                 std::to_string(groups));
    --g;
  }
  return VaryingSlopes(std::move(group), Eigen::Map<const Eigen::VectorXd>(x.data(), n),
                       Eigen::Map<const Eigen::VectorXd>(y.data(), n), groups);
}

int main(int argc, char** argv) {
  return tessera::run_main(argc, argv, [](int argc, char** argv) {
    if (argc != 2 && argc != 3)
      throw tessera::ConfigError("usage: mcmc_hierarchical DATA.json [TARGET]");
    const std::string path = argv[1];
    const nlohmann::json data = mcmc::read_data_file(path);
    const VaryingSlopes model = read_model(data, path);

    tessera::RuntimeOptions machine;
    machine.target = argc == 3 ? argv[2] : "host";
    tessera::Runtime runtime(machine);
    mcmc::RunSettings settings;
    settings.sampler.kind = mcmc::SamplerKind::nuts;
    settings.sampler.warmup = 1000;
    settings.sampler.draws = 1000;
    settings.chains = 4;
    settings.seed = 20261207;
    const mcmc::Draws draws = mcmc::sample(runtime, model, settings);

    if (runtime.rank() == 0) {
      std::printf("%d parameters\n", model.dimension());
      const std::vector<mcmc::ColumnSummary> summary = mcmc::summarize(draws);
      std::printf("%s", mcmc::summary_table(draws, summary).c_str());
      // Coverage of the values the data were simulated from.
      int covered = 0, total = 0;
      for (const auto& [name, value] : data.at("truth").items())
        for (const mcmc::ColumnSummary& s : summary)
          if (s.name == name) {
            const bool inside = s.q5 <= value.get<double>() && value.get<double>() <= s.q95;
            std::printf("%-7s true %6.3f  90%% interval [%6.3f, %6.3f]  %s\n", name.c_str(),
                        value.get<double>(), s.q5, s.q95, inside ? "covered" : "NOT covered");
            covered += inside;
            ++total;
          }
      std::printf("%d of %d true values inside their 90%% intervals\n", covered, total);
    }
    const std::string profile = runtime.finish();
    if (runtime.rank() == 0) std::printf("%s", profile.c_str());
    return 0;
  });
}
