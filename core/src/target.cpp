#include "tessera/core/target.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <nlohmann/json.hpp>
#include <sstream>

#include "tessera/core/error.hpp"

namespace tessera {
namespace {

constexpr std::size_t KiB = 1024;

// Mk2 GC200 IPU. Sources (see also docs/targets.md):
//  - 1472 tiles, 6 hardware threads per tile, 624 KiB SRAM per tile (~900 MB per IPU),
//    250 TFLOP/s FP16 / 62.5 TFLOP/s FP32, 10 IPU-Links with 320 GB/s in total:
//    Graphcore GC200 / IPU-M2000 launch material (July 2020).
//  - Clock 1.33 GHz: not published; it is the value consistent with
//    250 TFLOP/s = 1472 tiles x 128 flop/cycle x 1.33 GHz.
//  - Exchange: Graphcore quotes ~8 TB/s of exchange bandwidth per IPU; we read it as
//    the on-chip exchange, 8e12 / 1472 / 1.33e9 ~= 4.1, so 4 bytes/cycle/tile.
//  - Sync latencies and IPU-Link latency: see the comment at each figure below.
Target gc200() {
  Target t;
  t.name = "gc200";
  t.kind = TargetKind::ipu;
  t.ipus = 1;
  t.tiles_per_ipu = 1472;
  t.tile_memory_bytes = 624 * KiB;
  t.workers_per_tile = 6;
  t.clock_hz = 1.33e9;
  t.exchange_bytes_per_cycle = 4.0;
  // Intra-IPU sync: Graphcore publishes no measured figure. PopLibs' cost
  // estimators charge Target::getMaxIPUSyncDelay() per superstep, quoted as 126
  // cycles for a Mk2-family target in public planner code; we take 130.
  t.sync_cycles_ipu = 130.0;
  // Cross-IPU sync over the M2000's Sync-Links: Target::getGlobalSyncCycles()
  // quoted as 600 cycles (~0.45 us) for the same target. An estimate, not a measurement.
  t.sync_cycles_pod = 600.0;
  t.ipus_per_chassis = 4;
  t.ipus_per_link_domain = 1;
  t.ipu_links_per_ipu = 10;
  // 320 GB/s over 10 links counts both directions: 16 GB/s per link each way
  // (the M2000 datasheet's 8 external links at 2 Tbps bidirectional agree).
  t.ipu_link_bytes_per_s = 16.0e9;
  // IPU-Link latency is not published (Jia et al. 2019 measure it for Mk1 only);
  // 1 us is our assumption for an unloaded hop.
  t.ipu_link_latency_s = 1.0e-6;
  // GW-Links: 2 x 100 GbE per IPU-M2000 (M2000 datasheet, IPU-Fabric table), 25 GB/s
  // each way per chassis. Latency not published; 3 us assumed (100 GbE plus gateway).
  t.gateway_bytes_per_s = 25.0e9;
  t.gateway_latency_s = 3.0e-6;
  t.ipus_per_process = 0;
  return t;
}

// A POD of `ipus` GC200s built from IPU-M2000s (4 IPUs and one IPU-Gateway each).
// IPU-Links join the M2000s of a POD up to 64 IPUs; beyond that (POD128, POD256)
// POD64s are joined through the gateways' GW-Links (IPU-Fabric).
Target pod(int ipus) {
  Target t = gc200();
  t.name = "pod" + std::to_string(ipus);
  t.ipus = ipus;
  t.ipus_per_link_domain = std::min(ipus, 64);
  t.ipus_per_process = 0;
  return t;
}

// A host machine or cluster: one tile per host thread, one "IPU" per process
// (node), no memory cap. Cycles are nanoseconds (clock 1 GHz) so that costs read
// as host time; compute cost is measured. Exchange and sync figures are the BSP
// g and l measured between two MPI ranks on the development machines
// (l ~ 0.4-0.6 us, g ~ 0.13-0.17 ns/byte, shared/IPU_FIGURES.md), and an
// in-process thread barrier of about 1 us.
Target host(int threads, int processes) {
  Target t;
  t.name = "host";
  t.kind = TargetKind::host;
  t.ipus = processes;
  t.tiles_per_ipu = threads;
  t.tile_memory_bytes = 0;
  t.workers_per_tile = 1;
  t.clock_hz = 1.0e9;
  t.exchange_bytes_per_cycle = 6.7;  // 1 / 0.15 ns per byte
  t.sync_cycles_ipu = 1000.0;
  t.sync_cycles_pod = 500.0;
  t.ipus_per_chassis = 1;
  t.ipus_per_link_domain = 1;
  t.ipu_links_per_ipu = 0;
  t.ipu_link_bytes_per_s = 0.0;
  t.ipu_link_latency_s = 0.0;
  t.gateway_bytes_per_s = 1.0 / 0.15e-9;
  t.gateway_latency_s = 0.5e-6;
  t.ipus_per_process = 1;
  return t;
}

std::string join(const std::vector<std::string>& names) {
  std::string out;
  for (const auto& n : names) out += (out.empty() ? "" : ", ") + n;
  return out;
}

}  // namespace

std::vector<std::string> Target::preset_names() {
  return {"host", "gc200", "pod4", "pod16", "pod64", "pod256"};
}

Target Target::preset(const std::string& name, int host_threads, int host_processes) {
  if (name == "host") return host(host_threads, host_processes);
  if (name == "gc200") return gc200();
  if (name == "pod4") return pod(4);
  if (name == "pod16") return pod(16);
  if (name == "pod64") return pod(64);
  if (name == "pod256") return pod(256);
  throw ConfigError("unknown target preset '" + name + "'; the presets are " +
                    join(preset_names()) + ", or give a JSON file (--target FILE.json)");
}

void Target::validate() const {
  auto fail = [this](const std::string& what) {
    throw ConfigError("target '" + name + "': " + what);
  };
  if (ipus < 1) fail("ipus must be at least 1, not " + std::to_string(ipus));
  if (tiles_per_ipu < 1)
    fail("tiles_per_ipu must be at least 1, not " + std::to_string(tiles_per_ipu));
  if (static_cast<long long>(ipus) * tiles_per_ipu > std::numeric_limits<int>::max())
    fail(std::to_string(ipus) + " IPUs of " + std::to_string(tiles_per_ipu) + " tiles are " +
         std::to_string(static_cast<long long>(ipus) * tiles_per_ipu) +
         " tiles, more than Tessera counts (" + std::to_string(std::numeric_limits<int>::max()) +
         "); use fewer IPUs or tiles per IPU");
  if (kind == TargetKind::ipu && tile_memory_bytes == 0)
    fail("an IPU target needs tile_memory_bytes > 0 (only host targets are unlimited)");
  if (workers_per_tile < 1) fail("workers_per_tile must be at least 1");
  if (!(clock_hz > 0)) fail("clock_hz must be positive");
  if (!(exchange_bytes_per_cycle > 0)) fail("exchange_bytes_per_cycle must be positive");
  if (sync_cycles_ipu < 0 || sync_cycles_pod < 0) fail("sync cycles must not be negative");
  if (ipus_per_chassis < 1) fail("ipus_per_chassis must be at least 1");
  if (ipus_per_link_domain < 1) fail("ipus_per_link_domain must be at least 1");
  if (ipus_per_link_domain > 1 && (ipu_links_per_ipu < 1 || !(ipu_link_bytes_per_s > 0)))
    fail("IPUs joined by IPU-Links need ipu_links_per_ipu >= 1 and ipu_link_bytes_per_s > 0");
  if (ipus > ipus_per_link_domain && !(gateway_bytes_per_s > 0))
    fail("more IPUs (" + std::to_string(ipus) + ") than one link domain (" +
         std::to_string(ipus_per_link_domain) + ") needs gateway_bytes_per_s > 0");
  if (ipu_link_latency_s < 0 || gateway_latency_s < 0) fail("latencies must not be negative");
  if (ipus_per_process < 0) fail("ipus_per_process must not be negative");
  if (ipus_per_process > 0 && ipus % ipus_per_process != 0)
    fail("ipus (" + std::to_string(ipus) + ") is not a multiple of ipus_per_process (" +
         std::to_string(ipus_per_process) + ")");
}

nlohmann::json Target::to_json() const {
  return {
      {"name", name},
      {"kind", kind == TargetKind::host ? "host" : "ipu"},
      {"ipus", ipus},
      {"tiles_per_ipu", tiles_per_ipu},
      {"tile_memory_bytes", tile_memory_bytes},
      {"workers_per_tile", workers_per_tile},
      {"clock_hz", clock_hz},
      {"exchange_bytes_per_cycle", exchange_bytes_per_cycle},
      {"sync_cycles_ipu", sync_cycles_ipu},
      {"sync_cycles_pod", sync_cycles_pod},
      {"ipus_per_chassis", ipus_per_chassis},
      {"ipus_per_link_domain", ipus_per_link_domain},
      {"ipu_links_per_ipu", ipu_links_per_ipu},
      {"ipu_link_bytes_per_s", ipu_link_bytes_per_s},
      {"ipu_link_latency_s", ipu_link_latency_s},
      {"gateway_bytes_per_s", gateway_bytes_per_s},
      {"gateway_latency_s", gateway_latency_s},
      {"ipus_per_process", ipus_per_process},
  };
}

void Target::apply_overrides(const nlohmann::json& overrides, const std::string& origin) {
  if (!overrides.is_object())
    throw ConfigError(origin + ": a target override must be a JSON object of field: value");
  for (const auto& [key, value] : overrides.items()) {
    auto number = [&, &key = key, &value = value]() -> double {
      if (!value.is_number())
        throw ConfigError(origin + ": target field '" + key + "' must be a number, not " +
                          value.dump());
      return value.get<double>();
    };
    auto integer = [&, &key = key]() -> long long {
      const double v = number();
      // Within +-2^53 every integer is exact in a double and the conversion is defined.
      if (!(std::fabs(v) <= 9007199254740992.0) ||
          v != static_cast<double>(static_cast<long long>(v)))
        throw ConfigError(origin + ": target field '" + key + "' must be an integer");
      return static_cast<long long>(v);
    };
    // The int fields: a value beyond int's range is refused, not truncated.
    auto int_field = [&, &key = key]() -> int {
      const long long v = integer();
      if (v < std::numeric_limits<int>::min() || v > std::numeric_limits<int>::max())
        throw ConfigError(origin + ": target field '" + key + "' = " + std::to_string(v) +
                          " is out of range; allowed: up to " +
                          std::to_string(std::numeric_limits<int>::max()));
      return static_cast<int>(v);
    };
    if (key == "base") continue;  // handled by whoever chose the preset
    if (key == "name") {
      if (!value.is_string()) throw ConfigError(origin + ": target field 'name' must be a string");
      name = value.get<std::string>();
    } else if (key == "kind") {
      const std::string k = value.is_string() ? value.get<std::string>() : "";
      if (k != "host" && k != "ipu")
        throw ConfigError(origin + ": target field 'kind' must be \"host\" or \"ipu\"");
      kind = k == "host" ? TargetKind::host : TargetKind::ipu;
    } else if (key == "ipus") {
      ipus = int_field();
    } else if (key == "tiles_per_ipu") {
      tiles_per_ipu = int_field();
    } else if (key == "tile_memory_bytes") {
      const long long v = integer();
      if (v < 0) throw ConfigError(origin + ": tile_memory_bytes must not be negative");
      tile_memory_bytes = static_cast<std::size_t>(v);
    } else if (key == "workers_per_tile") {
      workers_per_tile = int_field();
    } else if (key == "clock_hz") {
      clock_hz = number();
    } else if (key == "exchange_bytes_per_cycle") {
      exchange_bytes_per_cycle = number();
    } else if (key == "sync_cycles_ipu") {
      sync_cycles_ipu = number();
    } else if (key == "sync_cycles_pod") {
      sync_cycles_pod = number();
    } else if (key == "ipus_per_chassis") {
      ipus_per_chassis = int_field();
    } else if (key == "ipus_per_link_domain") {
      ipus_per_link_domain = int_field();
    } else if (key == "ipu_links_per_ipu") {
      ipu_links_per_ipu = int_field();
    } else if (key == "ipu_link_bytes_per_s") {
      ipu_link_bytes_per_s = number();
    } else if (key == "ipu_link_latency_s") {
      ipu_link_latency_s = number();
    } else if (key == "gateway_bytes_per_s") {
      gateway_bytes_per_s = number();
    } else if (key == "gateway_latency_s") {
      gateway_latency_s = number();
    } else if (key == "ipus_per_process") {
      ipus_per_process = int_field();
    } else {
      throw ConfigError(origin + ": unknown target field '" + key +
                        "'; the fields are the keys of a preset's JSON (see docs/targets.md)");
    }
  }
}

}  // namespace tessera
