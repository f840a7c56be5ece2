// The BSP cost model: what one superstep would take on the target.
//
// A superstep costs w + g*h + l (Valiant): the largest compute time over the tiles, the
// exchange time of the busiest tile (its on-tile copies, then its exchange port), the sync,
// plus the time of traffic that leaves an IPU (IPU-Links) or a link domain (gateway), and of
// transfers to the host. The phases run one after the other, as a Poplar program's do.
#pragma once

#include <cstdint>
#include <vector>

#include "tessera/core/cycle_estimate.hpp"
#include "tessera/core/target.hpp"

namespace tessera {

struct SuperstepCost {
  double compute_cycles = 0;    // max over tiles
  double rearrange_cycles = 0;  // busiest tile's on-tile copies (data rearrangement)
  double exchange_cycles = 0;   // busiest tile port: bytes and fragments, in or out
  double sync_cycles = 0;
  double link_seconds = 0;           // IPU-Link transfers over the topology
  double gateway_seconds = 0;        // gateway transfers, busiest link domain, plus latency
  double host_seconds = 0;           // transfers to the host, busiest chassis, plus latency
  std::uint64_t exchange_bytes = 0;  // all bytes moved between tiles
  std::uint64_t link_bytes = 0;      // bytes that crossed IPU-Links
  std::uint64_t gateway_bytes = 0;   // bytes that crossed a gateway
  std::uint64_t host_bytes = 0;      // bytes sent to the host

  // Calls f(name, &SuperstepCost::field) for every field, in the order above: the one
  // list of the fields, which sums, differences and the profile's JSON go through.
  template <class F>
  static void for_each_field(F&& f) {
    f("compute_cycles", &SuperstepCost::compute_cycles);
    f("rearrange_cycles", &SuperstepCost::rearrange_cycles);
    f("exchange_cycles", &SuperstepCost::exchange_cycles);
    f("sync_cycles", &SuperstepCost::sync_cycles);
    f("link_seconds", &SuperstepCost::link_seconds);
    f("gateway_seconds", &SuperstepCost::gateway_seconds);
    f("host_seconds", &SuperstepCost::host_seconds);
    f("exchange_bytes", &SuperstepCost::exchange_bytes);
    f("link_bytes", &SuperstepCost::link_bytes);
    f("gateway_bytes", &SuperstepCost::gateway_bytes);
    f("host_bytes", &SuperstepCost::host_bytes);
  }

  double cycles() const {
    return compute_cycles + rearrange_cycles + exchange_cycles + sync_cycles;
  }
  double seconds(const Target& target) const {
    return target.seconds(cycles()) + link_seconds + gateway_seconds + host_seconds;
  }
  SuperstepCost& operator+=(const SuperstepCost& other);  // every field
  SuperstepCost& operator-=(const SuperstepCost& other);
  // Adds another exchange of the same phase: everything but the compute adds up, the sync
  // is the larger one.
  void add_exchange(const SuperstepCost& other);
};

SuperstepCost operator-(SuperstepCost a, const SuperstepCost& b);

// Tallies the traffic of one exchange, tile to tile, and turns it into a cost.
//
// A copy between two tiles moves its bytes through both tiles' exchange ports, each of its
// contiguous blocks a fragment at both ends. A copy within one tile is a rearrangement, an
// on-tile copy of its blocks. Traffic between IPUs of one link domain is routed over the
// IPU-Links: inside a chassis straight to the peer; between chassis split evenly over the
// chassis' IPU columns (the IPUs of equal position in each chassis, joined in a ladder or a
// torus by their external links), each part going to the column's IPU inside the source
// chassis, along the column the short way round, and to the destination inside its chassis.
// Every directed link carries its bytes at ipu_link_bytes_per_s; the busiest sets the time,
// plus the set-up latency and the busiest IPU's off-chip blocks one after the other.
class TrafficTally {
 public:
  explicit TrafficTally(const Target& target);
  void add(int source_tile, int destination_tile, std::uint64_t bytes, std::uint64_t blocks = 1);
  // `bytes` from IPU `source_ipu` to IPU `destination_ipu` spread evenly over `tiles` tile
  // pairs (tile k to tile k, one block each): the same cost as adding each pair, counting the
  // first pair's tiles, which carry the largest share, as the busiest.
  void add_spread(int source_ipu, int destination_ipu, std::uint64_t bytes, int tiles);
  // Exchange, rearrangement, link and gateway parts of the cost; the sync is the IPU sync,
  // or the POD sync when any byte crossed an IPU boundary.
  SuperstepCost cost() const;

  // Every counter, for combining the tallies of several ranks: each rank tallies its own
  // share, and the element-wise sum is the whole exchange's tally.
  std::vector<std::uint64_t>& counters() { return counters_; }

 private:
  std::uint64_t& at(int block, std::size_t index) {
    return counters_[offsets_[static_cast<std::size_t>(block)] + index];
  }
  std::uint64_t at(int block, std::size_t index) const {
    return counters_[offsets_[static_cast<std::size_t>(block)] + index];
  }
  void add_ipus(int source_ipu, int destination_ipu, std::uint64_t bytes, std::uint64_t blocks);
  void route(int source_ipu, int destination_ipu, std::uint64_t bytes);
  std::size_t edge(int ipu, int slot) const;  // a directed link bundle leaving `ipu`
  const Target* target_;
  int edges_per_ipu_ = 0;
  std::vector<std::size_t> offsets_;
  std::vector<std::uint64_t> counters_;
};

// The cost of combining `bytes` per tile over every tile of the target with a binary tree
// (Runtime::all_reduce, gather): at each level a tile receives one partial (one fragment)
// and runs `combine` over `elements` items (none for a gather), then the IPUs do the same,
// each level's pairs trading `result_bytes` over the topology at once; the result then goes
// to the host.
SuperstepCost reduction_cost(const Target& target, std::uint64_t bytes, std::uint64_t result_bytes,
                             const KernelWork& combine, std::uint64_t elements);

}  // namespace tessera
