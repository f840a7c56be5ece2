// Model: what a time integrator advances. A model owns the layout of its
// state (a list of fields) and computes tendencies dq/dt = F(q) on the tile
// runtime; integrators combine states linearly, one superstep per stage.
#pragma once

#include <memory>
#include <vector>

#include "tessera/core/runtime.hpp"
#include "tessera/weather/field.hpp"

namespace tessera::weather {

// The prognostic fields of one time level, and the plan that refreshes their halos.
struct State {
  std::vector<Field> fields;
  std::shared_ptr<const ExchangePlan> halo;
};

class Model {
 public:
  virtual ~Model() = default;
  virtual Runtime& runtime() = 0;
  virtual const Decomposition& decomposition() const = 0;
  // A new state of the model's layout, zero, with its halo plan; `label` is a string literal.
  virtual State make_state(const char* label) = 0;
  // dq = F(q) on every interior point (q's halos between blocks are valid;
  // the model applies its boundary conditions itself). Issues supersteps.
  virtual void tendency(const State& q, const State& dq) = 0;
};

}  // namespace tessera::weather
