// Model: what a time integrator advances and a checkpoint saves. A model owns the layout of
// its state (a list of fields) and computes tendencies dq/dt = F(q) on the tile
// runtime; integrators combine states linearly, one superstep per stage.
#pragma once

#include <memory>
#include <vector>

#include "tessera/core/error.hpp"
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

  // The model's own state, and its exchange with a checkpoint (checkpoint.hpp). A model
  // that is never checkpointed may leave state() out: it throws Error, and so do the two
  // below, which work on it.
  virtual State& state();
  // The interior nx x ny values of state field `field` of `from` (by default the model's
  // state) on rank 0, row-major, j = 0 south, at the field's own staggered points; other
  // ranks get an empty vector. Collective.
  std::vector<double> gather_state(int field, const State* from = nullptr);
  // Sets the interior of state field `field` of `into` (by default the model's state) from
  // such an array (every rank passes the whole array), then exchanges that state's halos; the
  // boundary conditions are applied where the halos are read, as after a time step. Throws
  // ConfigError for an array of another size. Collective.
  void set_state(int field, const std::vector<double>& values, const State* into = nullptr);
};

}  // namespace tessera::weather
