// Random-number streams: one independent engine per (seed, stream id).
//
// Every stochastic part of Tessera draws from a stream derived from the user's
// seed and a stream id that names what it is for (a chain, an atom, a tile's
// velocity initialisation), never from a thread or rank, so that results do
// not depend on how the work is spread over the machine.
#pragma once

#include <boost/random/mersenne_twister.hpp>
#include <cstdint>

namespace tessera {

using RngEngine = boost::random::mt19937_64;

// The engine of stream `stream` under `seed`: the 64-bit Mersenne Twister
// seeded through std::seed_seq (whose algorithm the C++ standard fixes) from
// the four 32-bit halves of seed and stream.
RngEngine rng_stream(std::uint64_t seed, std::uint64_t stream);

}  // namespace tessera
