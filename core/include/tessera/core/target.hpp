// Target: the machine a Tessera program runs on or simulates.
//
// One value type holds every machine figure the runtime and the cost model
// use. Presets describe real machines; target.cpp cites the source of each
// figure, or, where no source exists, gives its reasoning and marks it as an
// estimate (docs/targets.md has the table). Every field can be overridden from
// a JSON file (--target FILE.json, the keys of to_json()) or the command line.
// Only the Target differs between running on a host and simulating an IPU POD.
//
// The cost model's use of the figures (cycle_estimate.hpp, cost_model.hpp):
//   compute    a tile issues one instruction per cycle, shared round-robin by its
//              workers (barrel): a kernel costs workers_per_tile x its longest
//              worker's instruction cycles, at least its bytes / memory_bytes_per_cycle;
//   rearrange  on-tile copies: copy_cycles_per_block per block + bytes / copy_bytes_per_cycle;
//   exchange   per tile port: bytes / exchange_bytes_per_cycle + fragments x
//              exchange_cycles_per_fragment;
//   links      traffic between IPUs is routed over the IPU-Link topology (chassis of
//              ipus_per_chassis IPUs joined in a ladder or a torus, link_topology), each
//              directed link carrying ipu_link_bytes_per_s; between link domains
//              (POD64s) it crosses the GW-Links.
#pragma once

#include <cstddef>
#include <cstdint>
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <vector>

#include "tessera/core/error.hpp"

namespace tessera {

enum class TargetKind {
  host,  // tiles are host threads; compute cost is measured wall time
  ipu,   // tiles obey IPU limits; compute cost comes from cycle estimators
};

// How the chassis of a link domain are joined by their external IPU-Links.
enum class LinkTopology {
  ladder,  // chassis c to c + 1 (an open chain: an IPU-POD16's four M2000s)
  torus,   // the same, and the last chassis to the first (an IPU-POD64's 2-D torus)
};

struct Target {
  std::string name;
  TargetKind kind = TargetKind::ipu;

  // Compute fabric.
  int ipus = 1;
  int tiles_per_ipu = 1;
  std::size_t tile_memory_bytes = 0;  // SRAM per tile; 0 means no limit (host only)
  int workers_per_tile = 1;           // worker threads per tile, sharing one issue slot per cycle
  double clock_hz = 1.0e9;

  // Tile issue model (cycle_estimate.hpp). Instruction cycles are those of one worker.
  int vector_lanes_fp32 = 2;            // float values per vector instruction (f32v2)
  int vector_lanes_fp16 = 4;            // half values per vector instruction (f16v4)
  double load_store_bytes = 8;          // bytes one load or store instruction moves at most
  double memory_bytes_per_cycle = 16;   // ceiling of a tile's memory traffic
  double loop_overhead_cycles = 1;      // per iteration of a worker loop (its branch)
  double kernel_launch_cycles = 0;      // tile cycles of starting the workers of a kernel
  double fp64_cycles_per_flop = 1;      // instruction cycles of one emulated FP64 operation
  double transcendental_flops = 20;     // operations of one exp, log, tanh, division, sqrt
  double amp_flops_per_cycle_fp32 = 0;  // matrix unit (AMP), per tile; 0: none
  double amp_flops_per_cycle_fp16 = 0;

  // On-tile copies (data rearrangement: gathering strided data into place).
  double copy_bytes_per_cycle = 8;
  double copy_cycles_per_block = 0;  // set-up of each contiguous block copied

  // On-chip exchange and sync (BSP g and l inside one IPU).
  double exchange_bytes_per_cycle = 4.0;    // per tile, each direction
  double exchange_cycles_per_fragment = 0;  // per contiguous block sent or received
  double sync_cycles_ipu = 0.0;             // sync of the tiles of one IPU
  double sync_cycles_pod = 0.0;             // sync across IPUs

  // IPU-Links: between IPUs of one link domain (an M2000, a POD up to 64 IPUs).
  int ipus_per_chassis = 1;        // IPUs in one box (4 in an IPU-M2000), joined all to all
  int ipus_per_link_domain = 1;    // IPUs reachable over IPU-Links (a POD64 at most)
  int ipu_links_per_ipu = 0;       // in all; those not external join the chassis' IPUs
  int external_links_per_ipu = 0;  // leaving the chassis: half to the next, half to the previous
  LinkTopology link_topology = LinkTopology::ladder;
  double ipu_link_bytes_per_s = 0.0;           // one link, one direction
  double ipu_link_latency_s = 0.0;             // a superstep's first cross-IPU byte
  double ipu_link_seconds_per_fragment = 0.0;  // each block an IPU sends off-chip, in turn

  // Gateway: traffic between link domains (GW-Links between POD64s, or between host nodes).
  double gateway_bytes_per_s = 0.0;  // per chassis, one direction
  double gateway_latency_s = 0.0;

  // Host links: the host's connection to each chassis (PCIe, or an M2000's network ports).
  double host_link_bytes_per_s = 0.0;  // per chassis, one direction
  double host_link_latency_s = 0.0;

  // Placement on host processes: IPUs per MPI rank, 0 = spread evenly over the ranks.
  int ipus_per_process = 0;

  int total_tiles() const { return ipus * tiles_per_ipu; }
  int ipu_of_tile(int tile) const { return tile / tiles_per_ipu; }
  bool memory_limited() const { return tile_memory_bytes != 0; }
  double seconds(double cycles) const { return cycles / clock_hz; }
  int chassis_of_ipu(int ipu) const { return ipu / ipus_per_chassis; }
  int link_domain_of_ipu(int ipu) const { return ipu / ipus_per_link_domain; }
  int link_domains() const { return (ipus + ipus_per_link_domain - 1) / ipus_per_link_domain; }
  // IPU-Links between two IPUs of one chassis: the links that are not external, shared
  // equally among the chassis' other IPUs.
  double links_per_chassis_pair() const {
    return ipus_per_chassis > 1 ? static_cast<double>(ipu_links_per_ipu - external_links_per_ipu) /
                                      (ipus_per_chassis - 1)
                                : 0.0;
  }

  // Throws ConfigError naming the first inconsistent figure.
  void validate() const;

  // The preset called `name`; throws ConfigError listing the presets if unknown.
  // `host` describes a machine with one tile per host thread: `host_threads`
  // tiles on each of `host_processes` nodes.
  static Target preset(const std::string& name, int host_threads = 1, int host_processes = 1);
  static std::vector<std::string> preset_names();

  // Applies the fields present in `overrides` (same keys as to_json) on top of
  // this target. Unknown keys and wrong types are ConfigErrors naming `origin`.
  void apply_overrides(const nlohmann::json& overrides, const std::string& origin);

  nlohmann::json to_json() const;
};

}  // namespace tessera
