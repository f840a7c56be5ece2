#include "tessera/weather/model.hpp"

#include <string>

namespace tessera::weather {

State& Model::state() { throw Error("this model keeps no state of its own to checkpoint"); }

std::vector<double> Model::gather_state(int field, const State* from) {
  const Field& f = (from ? *from : state()).fields.at(static_cast<std::size_t>(field));
  const Decomposition& d = decomposition();
  return gather_to_root(runtime(), d, [&](Tile& t, int i, int j) { return view(t, d, f)(i, j); });
}

void Model::set_state(int field, const std::vector<double>& values, const State* into) {
  const State& target = into ? *into : state();
  scatter_interior(runtime(), decomposition(), target.fields.at(static_cast<std::size_t>(field)),
                   values, "state field " + std::to_string(field));
  runtime().exchange("weather.state.halo", {target.halo.get()});
}

}  // namespace tessera::weather
