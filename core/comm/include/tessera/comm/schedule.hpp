// Schedules of the collectives, and their cost on a target without running them.
//
// A collective over a group of p IPUs ("members") runs as a list of steps; in
// each step some members send a range of chunks of their buffer to another
// member, either as a plain copy or to be combined with the receiver's own
// chunks. A member's buffer of n elements is cut into p chunks and spread over
// the tiles the collective uses (see Layout: chunk c is elements [c*n/p,
// (c+1)*n/p) for most collectives, the c-th part of every tile's slice for
// all-reduce), so every tile runs the same schedule on its own parts, in parallel.
//
// Reduction order: each schedule combines the members' values in one fixed
// order that depends only on the algorithm, p and the root, never on how the
// IPUs are spread over threads or ranks. Ring: chunk c is combined along the
// ring from member c+1: ((x[c+1] op x[c+2]) op ...) op x[c]. Tree: a binomial
// tree over the members numbered from the root, where a member absorbs the
// partial of member q + stride as (own op incoming). Hierarchical: rings inside
// and across link domains (below), each combining in ring order.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "tessera/core/combine.hpp"
#include "tessera/core/cost_model.hpp"
#include "tessera/core/cycle_estimate.hpp"
#include "tessera/core/target.hpp"

namespace tessera::comm {

// The operations and element types of the reductions are core's (tessera/core/combine.hpp).
using Op = ReduceOp;
using DataType = tessera::DataType;
enum class Algorithm { automatic, ring, tree, hierarchical };
enum class Collective {
  all_reduce,
  reduce_scatter,
  all_gather,
  broadcast,
  reduce,
  send_recv,
  barrier
};

const char* to_string(Op op);
const char* to_string(Algorithm algorithm);
const char* to_string(Collective collective);
const char* to_string(DataType type);

// One transfer of a step: chunks [first_chunk, last_chunk) of `source`'s buffer go to
// the same chunks of `destination`. With `combine`, the destination combines them
// with its own chunks at the next step, as (incoming op own) if `incoming_first`,
// else (own op incoming); without, they overwrite the destination's chunks.
struct Transfer {
  int source, destination;
  int first_chunk, last_chunk;
  bool combine = false;
  bool incoming_first = false;
};

struct Step {
  std::vector<Transfer> transfers;
};

// The steps of `collective` over p members with `algorithm` (ring, tree or
// hierarchical). `root` is the root of broadcast and reduce, and the source of
// send_recv; `peer` is the destination of send_recv. Ring all-reduce: p-1
// reduce-scatter steps, then p-1 all-gather steps (Patarasuk & Yuan, J. Parallel
// Distrib. Comput. 69, 2009). Tree: binomial reduce to the root and binomial broadcast
// from it (Thakur, Rabenseifner & Gropp, Int. J. High Perform. Comput. Appl. 19, 2005).
// Hierarchical all-reduce, for members in blocks of `block` that share a link domain:
// ring reduce-scatter inside each block (block-1 steps), ring all-reduce of each
// member's 1/block across the blocks (2 (p/block - 1) steps), ring all-gather inside
// each block (block-1 steps), as GCL and NCCL do across nodes. It needs 1 < block < p
// with block dividing p; otherwise, and for the other collectives, it is the ring.
std::vector<Step> make_schedule(Collective collective, Algorithm algorithm, int p, int root = 0,
                                int peer = 0, int block = 0);

// The size of the blocks of consecutive members that share a link domain, the same in
// every group (members r and q are in one link domain exactly when r / block == q / block),
// or 0 when the groups have no such structure.
int link_domain_block(const Target& target, const std::vector<std::vector<int>>& groups);

// How one member's buffer of n elements lies on the `tiles` tiles of its IPU that the
// collective uses, in one of two orders:
// - chunk-major: chunk c is elements [c*n/p, (c+1)*n/p) of the buffer (p = chunks), and
//   tile k holds, for every chunk c, the k-th of `tiles` slices of chunk c, chunk after
//   chunk. Reduce-scatter and all-gather need it: their chunk c is member c's block.
// - tile-major: tile k holds the contiguous slice [k*n/tiles, (k+1)*n/tiles) of the
//   buffer, and chunk c is, on every tile, the c-th of p parts of its slice. A tile's
//   piece is then one range of the user's buffer, so the collective can work on the
//   buffer in place (Tile::view); all-reduce uses it.
// Either way a tile's piece holds its parts of chunks 0..p-1, chunk after chunk.
class Layout {
 public:
  Layout(std::size_t n, int chunks, int tiles, bool tile_major = false);
  std::size_t elements() const { return n_; }
  int chunks() const { return chunks_; }
  int tiles() const { return tiles_; }
  bool tile_major() const { return tile_major_; }
  // First element of chunk c in the member's buffer (c == chunks gives n); chunk-major only.
  std::size_t chunk_begin(int c) const;
  // First element of tile k's slice (the whole piece) in the buffer; tile-major only.
  std::size_t tile_begin(int k) const;
  // First element of tile k's part of chunk c, in the member's buffer.
  std::size_t slice_begin(int c, int k) const;
  // Elements of chunks [first, last) over all tiles (what a transfer of them moves).
  std::size_t chunk_elements(int first, int last) const {
    return chunk_total_[static_cast<std::size_t>(last)] -
           chunk_total_[static_cast<std::size_t>(first)];
  }
  // Offset of chunk c within tile k's piece (c == chunks gives the piece size).
  std::size_t piece_offset(int k, int c) const {
    return offsets_[static_cast<std::size_t>(k) * (static_cast<std::size_t>(chunks_) + 1) +
                    static_cast<std::size_t>(c)];
  }

 private:
  std::size_t n_;
  int chunks_, tiles_;
  bool tile_major_;
  std::vector<std::size_t> offsets_;
  std::vector<std::size_t> chunk_total_;  // elements of chunks [0, c), over all tiles
};

// The layout `collective` runs on (tile-major for all-reduce, else chunk-major).
Layout layout_for(Collective collective, std::size_t n, int p, int tiles);

// Tiles per IPU a collective spreads `bytes` per member over: at least `min_tile_bytes`
// per tile, at most all tiles. Spreading shares the work and the exchange ports among
// tiles; the 16 KiB default keeps the host's per-copy overhead small (a 100 MB buffer
// still covers all 1472 tiles of an IPU).
constexpr std::uint64_t default_min_tile_bytes = 16 * 1024;
int tiles_for(const Target& target, std::uint64_t bytes,
              std::uint64_t min_tile_bytes = default_min_tile_bytes);

// The simulated cost of one call, superstep by superstep as the Communicator runs it:
// superstep 0 loads the buffers and runs step 0's exchange, superstep s combines what
// step s-1 delivered and runs step s, and, if the last step delivered data to combine,
// a last superstep combines it (the results are then read off the tiles).
// `groups` lists the IPUs of every group in member order (all of the same size); `n`
// is the elements of one member's whole buffer; `min_tile_bytes` as for tiles_for.
//
// Each transfer moves its chunks' bytes from every tile of the source to the same tile of
// the destination, one fragment per tile pair, and over the IPU-Link topology (rings laid
// over the ladder or torus: TrafficTally routes every member pair's traffic and charges the
// busiest link, so steps whose pairs share links contend) or through the gateways between
// link domains. superstep_costs() is the cost of each superstep; the Communicator records
// exactly these, and estimate() is their sum.
std::vector<SuperstepCost> superstep_costs(const Target& target,
                                           const std::vector<std::vector<int>>& groups,
                                           Collective collective, Algorithm algorithm,
                                           DataType type, std::size_t n, int root = 0, int peer = 0,
                                           std::uint64_t min_tile_bytes = default_min_tile_bytes);
struct Estimate {
  SuperstepCost cost;
  double seconds = 0;
  int supersteps = 0;
};
Estimate estimate(const Target& target, const std::vector<std::vector<int>>& groups,
                  Collective collective, Algorithm algorithm, DataType type, std::size_t n,
                  int root = 0, int peer = 0,
                  std::uint64_t min_tile_bytes = default_min_tile_bytes);

// The algorithm the Communicator picks for `automatic`: the one the cost model
// estimates fastest on this target (tree, then ring, then hierarchical on a tie;
// hierarchical only for an all-reduce whose groups span link domains in blocks).
Algorithm choose_algorithm(const Target& target, const std::vector<std::vector<int>>& groups,
                           Collective collective, DataType type, std::size_t n, int root = 0,
                           int peer = 0, std::uint64_t min_tile_bytes = default_min_tile_bytes);

}  // namespace tessera::comm
