// Element-wise combining of two buffers, the kernel of the reducing collectives.
#pragma once

#include <cstddef>

#include "tessera/comm/schedule.hpp"

namespace tessera::comm::detail {

// own[i] = incoming[i] op own[i] if `incoming_first`, else own[i] op incoming[i], for the
// n elements of `type` at the two addresses. Integers wrap around on overflow (two's
// complement), so no input is undefined behaviour.
void combine(DataType type, Op op, std::byte* own, const std::byte* incoming, std::size_t n,
             bool incoming_first);

}  // namespace tessera::comm::detail
