#include "tessera/core/cost_model.hpp"

#include <algorithm>
#include <cmath>

#include "tessera/core/cycle_estimate.hpp"

namespace tessera {
namespace {

int link_domains(const Target& t) {
  return (t.ipus + t.ipus_per_link_domain - 1) / t.ipus_per_link_domain;
}

std::uint64_t max_of(const std::vector<std::uint64_t>& a, const std::vector<std::uint64_t>& b) {
  std::uint64_t m = 0;
  for (std::size_t i = 0; i < a.size(); ++i) m = std::max({m, a[i], b[i]});
  return m;
}

// Every chassis of a link domain brings its own gateway links.
double domain_gateway_bandwidth(const Target& t) {
  return t.gateway_bytes_per_s *
         std::max(1, std::min(t.ipus, t.ipus_per_link_domain) / t.ipus_per_chassis);
}

int ceil_log2(long long n) {
  int levels = 0;
  while ((1LL << levels) < n) ++levels;
  return levels;
}

}  // namespace

SuperstepCost& SuperstepCost::operator+=(const SuperstepCost& o) {
  compute_cycles += o.compute_cycles;
  exchange_cycles += o.exchange_cycles;
  sync_cycles += o.sync_cycles;
  link_seconds += o.link_seconds;
  gateway_seconds += o.gateway_seconds;
  exchange_bytes += o.exchange_bytes;
  link_bytes += o.link_bytes;
  gateway_bytes += o.gateway_bytes;
  return *this;
}

void SuperstepCost::add_exchange(const SuperstepCost& o) {
  exchange_cycles += o.exchange_cycles;
  link_seconds += o.link_seconds;
  gateway_seconds += o.gateway_seconds;
  exchange_bytes += o.exchange_bytes;
  link_bytes += o.link_bytes;
  gateway_bytes += o.gateway_bytes;
  sync_cycles = std::max(sync_cycles, o.sync_cycles);
}

TrafficTally::TrafficTally(const Target& target)
    : target_(&target),
      tile_in_(static_cast<std::size_t>(target.total_tiles())),
      tile_out_(tile_in_.size()),
      ipu_in_(static_cast<std::size_t>(target.ipus)),
      ipu_out_(ipu_in_.size()),
      domain_in_(static_cast<std::size_t>(link_domains(target))),
      domain_out_(domain_in_.size()) {}

void TrafficTally::add(int source, int destination, std::uint64_t bytes) {
  if (source == destination || bytes == 0) return;
  tile_out_[static_cast<std::size_t>(source)] += bytes;
  tile_in_[static_cast<std::size_t>(destination)] += bytes;
  total_ += bytes;
  const int si = target_->ipu_of_tile(source), di = target_->ipu_of_tile(destination);
  if (si == di) return;
  const int sd = si / target_->ipus_per_link_domain, dd = di / target_->ipus_per_link_domain;
  if (sd == dd) {
    ipu_out_[static_cast<std::size_t>(si)] += bytes;
    ipu_in_[static_cast<std::size_t>(di)] += bytes;
  } else {
    domain_out_[static_cast<std::size_t>(sd)] += bytes;
    domain_in_[static_cast<std::size_t>(dd)] += bytes;
  }
}

SuperstepCost TrafficTally::cost() const {
  const Target& t = *target_;
  SuperstepCost c;
  c.exchange_bytes = total_;
  c.exchange_cycles = static_cast<double>(exchange_cycles(t, max_of(tile_in_, tile_out_)));
  const std::uint64_t link_peak = max_of(ipu_in_, ipu_out_);
  const std::uint64_t gateway_peak = max_of(domain_in_, domain_out_);
  for (auto b : ipu_out_) c.link_bytes += b;
  for (auto b : domain_out_) c.gateway_bytes += b;
  if (link_peak > 0)
    c.link_seconds = t.ipu_link_latency_s + static_cast<double>(link_peak) /
                                                (t.ipu_links_per_ipu * t.ipu_link_bytes_per_s);
  if (gateway_peak > 0)
    c.gateway_seconds =
        t.gateway_latency_s + static_cast<double>(gateway_peak) / domain_gateway_bandwidth(t);
  c.sync_cycles = (c.link_bytes + c.gateway_bytes) > 0 ? t.sync_cycles_pod : t.sync_cycles_ipu;
  return c;
}

SuperstepCost reduction_cost(const Target& t, std::uint64_t bytes, std::uint64_t result_bytes) {
  // Each tree level: one exchange of a partial, one combine pass, one sync.
  const KernelCost combine{0, 1.0, 1};
  SuperstepCost c;
  const int on_chip = ceil_log2(t.tiles_per_ipu);
  c.exchange_cycles = on_chip * static_cast<double>(exchange_cycles(t, bytes));
  c.compute_cycles = on_chip * static_cast<double>(estimate_cycles(t, combine, bytes / 8 + 1));
  c.sync_cycles = on_chip * t.sync_cycles_ipu;
  c.exchange_bytes = static_cast<std::uint64_t>(t.total_tiles()) * bytes;
  for (int level = 0, ipus = 1; ipus < t.ipus; ++level, ipus *= 2) {
    // The pair at this level is in one link domain while 2^level < IPUs per domain.
    if (ipus < t.ipus_per_link_domain) {
      c.link_seconds += t.ipu_link_latency_s + static_cast<double>(result_bytes) /
                                                   (t.ipu_links_per_ipu * t.ipu_link_bytes_per_s);
      c.link_bytes += result_bytes * static_cast<std::uint64_t>(t.ipus >> (level + 1));
    } else {
      c.gateway_seconds +=
          t.gateway_latency_s + static_cast<double>(result_bytes) / t.gateway_bytes_per_s;
      c.gateway_bytes += result_bytes * static_cast<std::uint64_t>(t.ipus >> (level + 1));
    }
    c.sync_cycles += t.sync_cycles_pod;
  }
  return c;
}

}  // namespace tessera
