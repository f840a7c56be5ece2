// The BSP cost model: what one superstep would take on the target.
//
// A superstep costs w + g*h + l (Valiant): the largest compute time over the
// tiles, the exchange time of the busiest tile port, the sync, plus the time
// of traffic that leaves an IPU (IPU-Links) or a link domain (gateway).
#pragma once

#include <cstdint>
#include <vector>

#include "tessera/core/target.hpp"

namespace tessera {

struct SuperstepCost {
  double compute_cycles = 0;   // max over tiles
  double exchange_cycles = 0;  // busiest tile port: max(bytes in, bytes out) / bytes per cycle
  double sync_cycles = 0;
  double link_seconds = 0;           // IPU-Link transfers, busiest IPU, plus latency
  double gateway_seconds = 0;        // gateway transfers, busiest link domain, plus latency
  std::uint64_t exchange_bytes = 0;  // all bytes moved between tiles
  std::uint64_t link_bytes = 0;      // bytes that crossed IPU-Links
  std::uint64_t gateway_bytes = 0;   // bytes that crossed a gateway

  double seconds(const Target& target) const {
    return target.seconds(compute_cycles + exchange_cycles + sync_cycles) + link_seconds +
           gateway_seconds;
  }
  SuperstepCost& operator+=(const SuperstepCost& other);
  // Adds another exchange of the same phase: transfers add up, the sync is the larger one.
  void add_exchange(const SuperstepCost& other);
};

// Tallies the traffic of one exchange, tile to tile, and turns it into a cost.
class TrafficTally {
 public:
  explicit TrafficTally(const Target& target);
  void add(int source_tile, int destination_tile, std::uint64_t bytes);
  // Exchange, link and gateway parts of the cost; the sync is the IPU sync, or
  // the POD sync when any byte crossed an IPU boundary.
  SuperstepCost cost() const;

  // Raw tallies, for combining the tallies of several ranks (element-wise max or sum).
  std::vector<std::uint64_t>& tile_in() { return tile_in_; }
  std::vector<std::uint64_t>& tile_out() { return tile_out_; }
  std::vector<std::uint64_t>& ipu_in() { return ipu_in_; }
  std::vector<std::uint64_t>& ipu_out() { return ipu_out_; }
  std::vector<std::uint64_t>& domain_in() { return domain_in_; }
  std::vector<std::uint64_t>& domain_out() { return domain_out_; }
  std::uint64_t& total() { return total_; }

 private:
  const Target* target_;
  std::vector<std::uint64_t> tile_in_, tile_out_, ipu_in_, ipu_out_, domain_in_, domain_out_;
  std::uint64_t total_ = 0;
};

// The cost of reducing (or gathering) `bytes` per tile over every tile of the
// target: a binary tree over the tiles of each IPU, then over the IPUs.
SuperstepCost reduction_cost(const Target& target, std::uint64_t bytes, std::uint64_t result_bytes);

}  // namespace tessera
