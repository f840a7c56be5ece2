// Fuzz harness: mcmc_ipu's JSON data files (posteriordb's layout), read as --data reads them
// (read_json_file) and given to every built-in model (make_model); a model that accepts them
// and is small has its log density, gradient and transforms evaluated at two points.
#include <string>
#include <vector>

#include "fuzz_support.hpp"
#include "tessera/core/json_file.hpp"
#include "tessera/mcmc/models.hpp"

namespace {

using namespace tessera;

void check_model(const std::string& name, const mcmc::Model& model) {
  if (model.dimension() > 1000) return;  // autodiff gradients cost O(d^2)
  const std::vector<std::string> names = model.parameter_names();
  for (const double value : {0.0, 0.75}) {
    const mcmc::Vector x = mcmc::Vector::Constant(model.dimension(), value);
    mcmc::Vector gradient;
    model.log_density(x);
    model.log_density_gradient(x, gradient);
    if (gradient.size() != model.dimension())
      fuzz::finding(name + ": the gradient has " + std::to_string(gradient.size()) +
                    " elements, not the dimension " + std::to_string(model.dimension()));
    const std::vector<double> values = model.constrain(x);
    if (values.size() != names.size())
      fuzz::finding(name + ": constrain() gives " + std::to_string(values.size()) + " values for " +
                    std::to_string(names.size()) + " names");
    model.unconstrain(model.parameter_block_values(x));
  }
}

}  // namespace

TESSERA_FUZZ_INIT() {}

TESSERA_FUZZ_HARNESS(data, size) {
  const std::string path = fuzz::write_file("data.json", fuzz::text(data, size));
  const nlohmann::json json = read_json_file(path, "data file");
  for (const std::string& name : mcmc::builtin_models()) {
    try {
      check_model(name, *mcmc::make_model(name, json, path));
    } catch (const Error&) {
      // This model refuses these data (cleanly); the next may take them.
    }
  }
}
