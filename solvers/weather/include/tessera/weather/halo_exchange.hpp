// Halo exchange: the precompiled plan that refreshes the halos of a set of
// fields from the neighbouring blocks (all eight, so corners are filled too),
// wrapping periodic axes. The runtime runs it as plain copies within a rank
// and as packed MPI messages between ranks, so the same plan serves tiles,
// IPUs and processes.
#pragma once

#include <span>
#include <string>

#include "tessera/core/error.hpp"
#include "tessera/core/runtime.hpp"
#include "tessera/weather/field.hpp"

namespace tessera::weather {

// Builds and compiles the plan (collective). Throws ConfigError when a field's
// halo is wider than a neighbouring block, or its boundary conditions disagree
// with the grid's periodic axes.
ExchangePlan compile_halo_exchange(Runtime& runtime, const Decomposition& d,
                                   std::span<const Field> fields, const std::string& name);

}  // namespace tessera::weather
