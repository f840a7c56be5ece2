// The combine kernel of the reducing collectives: the one of every reduction in Tessera
// (tessera/core/combine.hpp), under the name core/comm has always used.
#pragma once

#include "tessera/core/combine.hpp"

namespace tessera::comm::detail {
using tessera::detail::combine;
}  // namespace tessera::comm::detail
