// Fuzz harness: mcmc_ipu's initial-value files (--init FILE.json, CmdStan's layout), read as
// mcmc_ipu reads them (read_json_file) and checked against each built-in model on small data
// (parse_initial_values), then made into a chain's initial point (initial_point).
#include <memory>
#include <string>
#include <vector>

#include "fuzz_support.hpp"
#include "tessera/core/json_file.hpp"
#include "tessera/core/rng.hpp"
#include "tessera/mcmc/init.hpp"
#include "tessera/mcmc/models.hpp"

namespace {

std::vector<std::unique_ptr<tessera::mcmc::Model>> models;

}  // namespace

TESSERA_FUZZ_INIT() {
  using nlohmann::json;
  const std::vector<std::pair<std::string, json>> data = {
      {"std_normal", json::parse(R"({"N": 3})")},
      {"correlated_gaussian", json::parse(R"({"N": 3, "rho": 0.5})")},
      {"rosenbrock", json::object()},
      {"eight_schools_noncentered",
       json::parse(R"({"J": 3, "y": [28, 8, -3], "sigma": [15, 10, 16]})")},
      {"logistic_regression",
       json::parse(R"({"N": 2, "K": 2, "x": [[1, 0.5], [-1, 2]], "y": [0, 1]})")},
      {"garch11", json::parse(R"({"T": 4, "y": [0.1, -0.3, 0.2, 0.05], "sigma1": 0.5})")},
      {"logmesquite",
       json::parse(R"({"N": 2, "diam1": [1, 2], "diam2": [1.5, 1], "canopy_height": [1, 0.8],
          "total_height": [1.2, 1], "density": [1, 2], "group": [0, 1], "weight": [400, 250]})")},
      {"stochastic_volatility", json::parse(R"({"T": 4, "y": [0.01, -0.02, 0.015, 0.0]})")}};
  for (const auto& [name, d] : data) models.push_back(tessera::mcmc::make_model(name, d, name));
}

TESSERA_FUZZ_HARNESS(data, size) {
  using namespace tessera;
  const std::string path = fuzz::write_file("init.json", fuzz::text(data, size));
  const nlohmann::json json = read_json_file(path, "init file");
  for (const auto& model : models) {
    try {
      const mcmc::InitialValues init = mcmc::parse_initial_values(json, *model, path);
      RngEngine rng = rng_stream(1, 0);
      mcmc::initial_point(*model, init, 2.0, rng);
      mcmc::missing_parameters_note(init, 2.0);
    } catch (const Error&) {
      // Not initial values of this model (a clean refusal); maybe of the next.
    }
  }
}
