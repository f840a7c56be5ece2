#include "tessera/core/cost_model.hpp"

#include <algorithm>
#include <cmath>
#include <type_traits>

#include "tessera/core/cycle_estimate.hpp"

namespace tessera {
namespace {

// The blocks of TrafficTally's counters.
enum Block : int {
  tile_in_bytes,
  tile_out_bytes,
  tile_in_fragments,
  tile_out_fragments,
  tile_copy_bytes,
  tile_copy_blocks,
  ipu_offchip_fragments,
  edge_load,  // bytes x ipus_per_chassis (a flow between chassis is split over the columns)
  domain_in_bytes,
  domain_out_bytes,
  totals,  // all bytes between tiles, bytes over IPU-Links, bytes over gateways
  block_count
};
enum Total : std::size_t { total_bytes, total_link_bytes, total_gateway_bytes, total_count };

int ceil_log2(long long n) {
  int levels = 0;
  while ((1LL << levels) < n) ++levels;
  return levels;
}

// Chassis of one link domain (the last domain may hold fewer IPUs than the others).
int chassis_in_domain(const Target& t, int domain) {
  const int first = domain * t.ipus_per_link_domain;
  const int ipus = std::min(t.ipus, first + t.ipus_per_link_domain) - first;
  return (ipus + t.ipus_per_chassis - 1) / t.ipus_per_chassis;
}

}  // namespace

SuperstepCost& SuperstepCost::operator+=(const SuperstepCost& o) {
  for_each_field([&](const char*, auto member) { this->*member += o.*member; });
  return *this;
}

SuperstepCost& SuperstepCost::operator-=(const SuperstepCost& o) {
  for_each_field([&](const char*, auto member) { this->*member -= o.*member; });
  return *this;
}

SuperstepCost operator-(SuperstepCost a, const SuperstepCost& b) { return a -= b; }

void SuperstepCost::add_exchange(const SuperstepCost& o) {
  for_each_field([&](const char*, auto member) {
    if constexpr (std::is_same_v<decltype(member), double SuperstepCost::*>) {
      if (member == &SuperstepCost::compute_cycles) return;
      if (member == &SuperstepCost::sync_cycles) {
        sync_cycles = std::max(sync_cycles, o.sync_cycles);
        return;
      }
    }
    this->*member += o.*member;
  });
}

TrafficTally::TrafficTally(const Target& target) : target_(&target) {
  const auto tiles = static_cast<std::size_t>(target.total_tiles());
  const auto ipus = static_cast<std::size_t>(target.ipus);
  edges_per_ipu_ = target.ipus_per_chassis + 2;  // to each chassis slot, up, down
  const std::size_t sizes[block_count] = {tiles,
                                          tiles,
                                          tiles,
                                          tiles,
                                          tiles,
                                          tiles,
                                          ipus,
                                          ipus * static_cast<std::size_t>(edges_per_ipu_),
                                          static_cast<std::size_t>(target.link_domains()),
                                          static_cast<std::size_t>(target.link_domains()),
                                          total_count};
  offsets_.assign(block_count + 1, 0);
  for (int b = 0; b < block_count; ++b)
    offsets_[static_cast<std::size_t>(b) + 1] = offsets_[static_cast<std::size_t>(b)] + sizes[b];
  counters_.assign(offsets_.back(), 0);
}

std::size_t TrafficTally::edge(int ipu, int slot) const {
  return static_cast<std::size_t>(ipu) * static_cast<std::size_t>(edges_per_ipu_) +
         static_cast<std::size_t>(slot);
}

void TrafficTally::add(int source, int destination, std::uint64_t bytes, std::uint64_t blocks) {
  if (bytes == 0) return;
  const auto s = static_cast<std::size_t>(source), d = static_cast<std::size_t>(destination);
  if (source == destination) {  // an on-tile copy (a contiguous one too takes its cycles)
    at(tile_copy_bytes, s) += bytes, at(tile_copy_blocks, s) += std::max<std::uint64_t>(blocks, 1);
    return;
  }
  at(tile_out_bytes, s) += bytes, at(tile_out_fragments, s) += blocks;
  at(tile_in_bytes, d) += bytes, at(tile_in_fragments, d) += blocks;
  at(totals, total_bytes) += bytes;
  const int si = target_->ipu_of_tile(source), di = target_->ipu_of_tile(destination);
  if (si != di) add_ipus(si, di, bytes, blocks);
}

void TrafficTally::add_spread(int source_ipu, int destination_ipu, std::uint64_t bytes, int tiles) {
  if (bytes == 0) return;
  const auto n = static_cast<std::uint64_t>(std::max(tiles, 1));
  const auto s =
      static_cast<std::size_t>(source_ipu) * static_cast<std::size_t>(target_->tiles_per_ipu);
  const auto d =
      static_cast<std::size_t>(destination_ipu) * static_cast<std::size_t>(target_->tiles_per_ipu);
  const std::uint64_t share = (bytes + n - 1) / n;
  at(tile_out_bytes, s) += share, at(tile_out_fragments, s) += 1;
  at(tile_in_bytes, d) += share, at(tile_in_fragments, d) += 1;
  at(totals, total_bytes) += bytes;
  if (source_ipu != destination_ipu) add_ipus(source_ipu, destination_ipu, bytes, n);
}

void TrafficTally::add_ipus(int si, int di, std::uint64_t bytes, std::uint64_t blocks) {
  const Target& t = *target_;
  const int sd = t.link_domain_of_ipu(si), dd = t.link_domain_of_ipu(di);
  if (sd != dd) {
    at(domain_out_bytes, static_cast<std::size_t>(sd)) += bytes;
    at(domain_in_bytes, static_cast<std::size_t>(dd)) += bytes;
    at(totals, total_gateway_bytes) += bytes;
    return;
  }
  at(ipu_offchip_fragments, static_cast<std::size_t>(si)) += blocks;
  at(totals, total_link_bytes) += bytes;
  route(si, di, bytes);
}

void TrafficTally::route(int a, int b, std::uint64_t bytes) {
  const Target& t = *target_;
  const int per = t.ipus_per_chassis;
  const int domain = t.link_domain_of_ipu(a);
  const int first_chassis = domain * t.ipus_per_link_domain / per;
  const int ca = t.chassis_of_ipu(a) - first_chassis, cb = t.chassis_of_ipu(b) - first_chassis;
  const int sa = a % per, sb = b % per;
  const auto whole = bytes * static_cast<std::uint64_t>(per);  // loads count 1/per bytes
  if (ca == cb) {
    at(edge_load, edge(a, sb)) += whole;
    return;
  }
  // Along a column: up (to the next chassis) or down, the short way round on a torus.
  const int chassis = chassis_in_domain(t, domain);
  int hops = cb - ca;
  bool up = hops > 0;
  hops = std::abs(hops);
  if (t.link_topology == LinkTopology::torus && chassis > 2) {
    const int forward = ((cb - ca) % chassis + chassis) % chassis;
    up = forward <= chassis - forward;
    hops = up ? forward : chassis - forward;
  }
  const int base = first_chassis * per;
  auto ipu_at = [&](int c, int slot) { return base + c * per + slot; };
  for (int column = 0; column < per; ++column) {
    int c = ca;
    if (column != sa) at(edge_load, edge(a, column)) += bytes;
    for (int h = 0; h < hops; ++h) {
      at(edge_load, edge(ipu_at(c, column), up ? per : per + 1)) += bytes;
      c = ((up ? c + 1 : c - 1) % chassis + chassis) % chassis;
    }
    if (column != sb) at(edge_load, edge(ipu_at(c, column), sb)) += bytes;
  }
}

SuperstepCost TrafficTally::cost() const {
  const Target& t = *target_;
  SuperstepCost c;
  const auto tiles = static_cast<std::size_t>(t.total_tiles());
  std::uint64_t port = 0, copy = 0;
  for (std::size_t i = 0; i < tiles; ++i) {
    port = std::max({port, exchange_cycles(t, at(tile_in_bytes, i), at(tile_in_fragments, i)),
                     exchange_cycles(t, at(tile_out_bytes, i), at(tile_out_fragments, i))});
    copy = std::max(copy, copy_cycles(t, at(tile_copy_bytes, i), at(tile_copy_blocks, i)));
  }
  c.exchange_cycles = static_cast<double>(port);
  c.rearrange_cycles = static_cast<double>(copy);
  c.exchange_bytes = at(totals, total_bytes);
  c.link_bytes = at(totals, total_link_bytes);
  c.gateway_bytes = at(totals, total_gateway_bytes);
  if (c.link_bytes > 0) {
    const double per = t.ipus_per_chassis;
    const double internal = t.links_per_chassis_pair() * t.ipu_link_bytes_per_s;
    const double external = 0.5 * t.external_links_per_ipu * t.ipu_link_bytes_per_s;
    double slowest = 0;
    std::uint64_t fragments = 0;
    for (int ipu = 0; ipu < t.ipus; ++ipu) {
      fragments = std::max(fragments, at(ipu_offchip_fragments, static_cast<std::size_t>(ipu)));
      for (int e = 0; e < edges_per_ipu_; ++e) {
        const std::uint64_t load = at(edge_load, edge(ipu, e));
        if (load == 0) continue;
        const double capacity = e < t.ipus_per_chassis ? internal : external;
        slowest = std::max(slowest, static_cast<double>(load) / per / capacity);
      }
    }
    c.link_seconds = t.ipu_link_latency_s + slowest +
                     static_cast<double>(fragments) * t.ipu_link_seconds_per_fragment;
  }
  if (c.gateway_bytes > 0) {
    double slowest = 0;
    for (int d = 0; d < t.link_domains(); ++d) {
      const double bandwidth = t.gateway_bytes_per_s * chassis_in_domain(t, d);
      const auto i = static_cast<std::size_t>(d);
      slowest = std::max(
          slowest, static_cast<double>(std::max(at(domain_in_bytes, i), at(domain_out_bytes, i))) /
                       bandwidth);
    }
    c.gateway_seconds = t.gateway_latency_s + slowest;
  }
  c.sync_cycles = (c.link_bytes + c.gateway_bytes) > 0 ? t.sync_cycles_pod : t.sync_cycles_ipu;
  return c;
}

SuperstepCost reduction_cost(const Target& t, std::uint64_t bytes, std::uint64_t result_bytes,
                             const KernelWork& combine, std::uint64_t elements) {
  // Each on-chip level: one exchange of a partial (one fragment), one combine, one sync.
  SuperstepCost c;
  const int on_chip = ceil_log2(t.tiles_per_ipu);
  const double combine_cycles =
      elements > 0 ? static_cast<double>(estimate_cycles(t, combine, elements)) : 0.0;
  c.exchange_cycles = on_chip * static_cast<double>(exchange_cycles(t, bytes, 1));
  c.compute_cycles = on_chip * combine_cycles;
  c.sync_cycles = on_chip * t.sync_cycles_ipu;
  c.exchange_bytes = static_cast<std::uint64_t>(t.total_tiles()) * bytes;
  // Then over the IPUs, level by level: IPU i absorbs IPU i + stride, the pairs of a level
  // trading over the topology at once.
  for (int stride = 1; stride < t.ipus; stride *= 2) {
    TrafficTally level(t);
    for (int i = 0; i + stride < t.ipus; i += 2 * stride)
      level.add((i + stride) * t.tiles_per_ipu, i * t.tiles_per_ipu, result_bytes);
    SuperstepCost step = level.cost();
    step.compute_cycles = combine_cycles;
    c += step;
  }
  // The result goes to the host.
  if (t.kind == TargetKind::ipu && t.host_link_bytes_per_s > 0) {
    c.host_bytes += result_bytes;
    c.host_seconds +=
        t.host_link_latency_s + static_cast<double>(result_bytes) / t.host_link_bytes_per_s;
  }
  return c;
}

}  // namespace tessera
