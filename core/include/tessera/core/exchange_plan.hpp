// ExchangePlan: a fixed pattern of copies between tiles, compiled once and run
// at the sync of any number of supersteps (halos, ghost shells, ring steps).
//
// A plan is a list of copies from a range of one tile's piece of a variable to
// a range of another tile's piece. Every rank builds the same list; the runtime
// splits it into local copies and, per pair of ranks, one packed MPI message
// each way. Pieces may change size between runs: each copy is bounds-checked
// when it runs, and a copy out of range is an ExchangeError naming the plan.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "tessera/core/cost_model.hpp"
#include "tessera/core/error.hpp"
#include "tessera/core/tile.hpp"

namespace tessera {

// One copy: `blocks` blocks of `block_bytes` bytes; block k starts at
// offset + k * stride on each side (contiguous data has blocks == 1).
struct ExchangeCopy {
  int source_tile, source_variable;
  std::size_t source_offset, source_stride;
  int destination_tile, destination_variable;
  std::size_t destination_offset, destination_stride;
  std::size_t block_bytes, blocks;
};

class ExchangePlanBuilder {
 public:
  explicit ExchangePlanBuilder(std::string name) : name_(std::move(name)) {}

  // Copies `count` elements: source[source_offset ...] -> destination[destination_offset ...].
  template <class T>
  ExchangePlanBuilder& copy(Variable<T> source, int source_tile, std::size_t source_offset,
                            Variable<T> destination, int destination_tile,
                            std::size_t destination_offset, std::size_t count) {
    copies_.push_back({source_tile, source.id, source_offset * sizeof(T), 0, destination_tile,
                       destination.id, destination_offset * sizeof(T), 0, count * sizeof(T), 1});
    return *this;
  }

  // Copies `count` elements spaced `source_stride` apart into elements spaced
  // `destination_stride` apart (a column of a row-major block, for example).
  template <class T>
  ExchangePlanBuilder& copy_strided(Variable<T> source, int source_tile, std::size_t source_offset,
                                    std::size_t source_stride, Variable<T> destination,
                                    int destination_tile, std::size_t destination_offset,
                                    std::size_t destination_stride, std::size_t count) {
    copies_.push_back({source_tile, source.id, source_offset * sizeof(T), source_stride * sizeof(T),
                       destination_tile, destination.id, destination_offset * sizeof(T),
                       destination_stride * sizeof(T), sizeof(T), count});
    return *this;
  }

  // Copies `count` blocks of `block` elements, block k from source[source_offset + k *
  // source_stride ...] to destination[destination_offset + k * destination_stride ...] (the
  // rows of a 2-D region, for example). The cost model counts each block as a fragment (an
  // on-tile block copy when both sides are on one tile).
  template <class T>
  ExchangePlanBuilder& copy_blocks(Variable<T> source, int source_tile, std::size_t source_offset,
                                   std::size_t source_stride, Variable<T> destination,
                                   int destination_tile, std::size_t destination_offset,
                                   std::size_t destination_stride, std::size_t block,
                                   std::size_t count) {
    copies_.push_back({source_tile, source.id, source_offset * sizeof(T), source_stride * sizeof(T),
                       destination_tile, destination.id, destination_offset * sizeof(T),
                       destination_stride * sizeof(T), block * sizeof(T), count});
    return *this;
  }

  // Promises that no copy of the plan writes bytes that another of its copies reads (a
  // ring step: a tile sends one chunk and receives another). The runtime may then send a
  // rank pair's traffic straight from the pieces and receive it straight into them when
  // it is a single contiguous copy, instead of packing it through a buffer.
  ExchangePlanBuilder& disjoint() {
    disjoint_ = true;
    return *this;
  }

  const std::string& name() const { return name_; }
  const std::vector<ExchangeCopy>& copies() const { return copies_; }
  bool is_disjoint() const { return disjoint_; }

 private:
  std::string name_;
  std::vector<ExchangeCopy> copies_;
  bool disjoint_ = false;
};

// A compiled plan; made by Runtime::compile and run by Runtime::superstep.
class ExchangePlan {
 public:
  const std::string& name() const { return name_; }
  // The exchange, link and gateway cost of one run (the same on every rank).
  const SuperstepCost& cost() const { return cost_; }
  std::uint64_t bytes() const { return cost_.exchange_bytes; }

 private:
  friend class Runtime;
  // A copy with the runtime's piece-view index of each side that is on this rank.
  struct Compiled {
    ExchangeCopy copy;
    std::size_t source_view, destination_view;
  };
  struct PeerTraffic {
    int rank;
    std::vector<Compiled> copies;  // in plan order; packed in this order
    std::size_t bytes = 0;
    mutable std::vector<std::byte> buffer;
  };
  // Whether a rank pair's traffic can skip the packing buffer (ExchangePlanBuilder::disjoint).
  bool direct(const PeerTraffic& p) const {
    return disjoint_ && p.copies.size() == 1 && p.copies.front().copy.blocks == 1;
  }
  std::string name_;
  // Copies between tiles of this rank, grouped by destination tile:
  // local_[local_begin_[i] .. local_begin_[i + 1]) write to local tile i.
  std::vector<Compiled> local_;
  std::vector<std::size_t> local_begin_;
  std::vector<PeerTraffic> sends_, receives_;
  bool disjoint_ = false;  // ExchangePlanBuilder::disjoint
  SuperstepCost cost_;
};

}  // namespace tessera
