#include "tessera/weather/model.hpp"

namespace tessera::weather {

State& Model::state() { throw Error("this model keeps no state of its own to checkpoint"); }

std::vector<double> Model::gather_state(int, const State*) {
  throw Error("this model cannot be checkpointed (it does not gather its state)");
}

void Model::set_state(int, const std::vector<double>&, const State*) {
  throw Error("this model cannot be restarted (it does not set its state)");
}

}  // namespace tessera::weather
