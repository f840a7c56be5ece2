// Target: the machine a Tessera program runs on or simulates.
//
// One value type holds every machine figure the runtime and the cost model
// use. Presets describe real machines (see target.cpp for the source of each
// figure); every field can be overridden from a JSON file or the command line.
// Only the Target differs between running on a host and simulating an IPU POD.
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

struct Target {
  std::string name;
  TargetKind kind = TargetKind::ipu;

  // Compute fabric.
  int ipus = 1;
  int tiles_per_ipu = 1;
  std::size_t tile_memory_bytes = 0;  // SRAM per tile; 0 means no limit (host only)
  int workers_per_tile = 1;           // hardware threads per tile
  double clock_hz = 1.0e9;

  // On-chip exchange and sync (BSP g and l inside one IPU).
  double exchange_bytes_per_cycle = 4.0;  // per tile, each direction
  double sync_cycles_ipu = 0.0;           // sync of the tiles of one IPU
  double sync_cycles_pod = 0.0;           // sync across IPUs

  // IPU-Links: between IPUs of one link domain (an M2000, a POD up to 64 IPUs).
  int ipus_per_chassis = 1;      // IPUs in one box (4 in an IPU-M2000)
  int ipus_per_link_domain = 1;  // IPUs reachable over IPU-Links (a POD64 at most)
  int ipu_links_per_ipu = 0;
  double ipu_link_bytes_per_s = 0.0;  // one link, one direction
  double ipu_link_latency_s = 0.0;

  // Gateway: traffic between link domains (between PODs, or between host nodes).
  double gateway_bytes_per_s = 0.0;  // per chassis, one direction
  double gateway_latency_s = 0.0;

  // Placement on host processes: IPUs per MPI rank, 0 = spread evenly over the ranks.
  int ipus_per_process = 0;

  int total_tiles() const { return ipus * tiles_per_ipu; }
  int ipu_of_tile(int tile) const { return tile / tiles_per_ipu; }
  bool memory_limited() const { return tile_memory_bytes != 0; }
  double seconds(double cycles) const { return cycles / clock_hz; }

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
