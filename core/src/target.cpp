#include "tessera/core/target.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <nlohmann/json.hpp>
#include <variant>

#include "tessera/core/error.hpp"

namespace tessera {
namespace {

constexpr std::size_t KiB = 1024;

// The tile figures shared by the Mk1 (GC2) and Mk2 (GC200) Colossus tiles, whose tile
// architecture is one family. Each figure is either sourced or an estimate with its
// reasoning; docs/targets.md lists them, and tests/core/fidelity_test.cpp checks the
// estimates against the GC2 hardware measurements in shared/IPU_FIGURES.md.
void colossus_tile(Target& t) {
  t.kind = TargetKind::ipu;
  // Six worker threads per tile, barrel-scheduled on one pipeline: one instruction per
  // tile cycle, the workers taking turns (Pupilli, "Exploiting Tile-Level Parallelism on
  // Graphcore IPUs", Graphcore blog, 2021). Poplar charges a 100-cycle vertex on six
  // workers as 600 tile cycles (lbm-graphcore's IPUModel profile).
  t.workers_per_tile = 6;
  // The vector datapath is 64 bits wide: float2 and half4 are the widest vector types of
  // lbm-graphcore's codelets, and Louw & McIntosh-Smith's optimised STREAM uses 64-bit
  // loads (Table I). So 2 float or 4 half lanes, and at most 8 bytes per load or store.
  t.vector_lanes_fp32 = 2;
  t.vector_lanes_fp16 = 4;
  t.load_store_bytes = 8;
  // Estimate: a compiled worker loop spends one instruction per iteration on its branch
  // (loads and stores post-increment their pointers). Checked by the STREAM rows of the
  // fidelity test (naive and optimised triad within 10 %).
  t.loop_overhead_cycles = 1;
  // Estimate: starting a kernel costs the supervisor a `run` per worker and a wait for
  // them, about 10 supervisor instructions, and each worker about 10 instructions of entry
  // and exit; every instruction is a turn of the barrel, 6 tile cycles: about 120.
  t.kernel_launch_cycles = 120;
  // Estimate: the IPU has no FP64 hardware (Louw & McIntosh-Smith 2021); FP64 is emulated
  // in integer code. An IEEE double add done with 32-bit integer instructions unpacks two
  // two-word operands, aligns a 53-bit mantissa with a two-word shift, adds with carry,
  // normalises (count leading zeros, two-word shift), rounds to nearest even and packs:
  // about 40 instructions; a multiply forms four 32 x 32-bit partial products and does
  // the same packing, about 40-50. No measurement was found; we charge 40 instruction
  // cycles per FP64 operation, the one figure every kernel's FP64 work goes through.
  t.fp64_cycles_per_flop = 40;
  // Estimate: an exp, log or tanh is a range reduction and a polynomial or rational
  // approximation of about a dozen multiply-adds (Cephes, Eigen's ptanh), a division or a
  // square root a few Newton steps: about 20 operations of the kernel's precision.
  t.transcendental_flops = 20;
  // On-tile copies, fitted to lbm-graphcore's GC2 profile of the Gaussian blur
  // (exchange-vs-compute.csv, pre + post rearrangement; tests/core/fidelity_test.cpp
  // reproduces the program): the float and half4 runs on one IPU differ by 4,666 cycles for
  // the 37,600 bytes they differ by on the busiest tile, 8.06 bytes per cycle (a 64-bit load
  // and store per turn); its 1,034 blocks there imply 5.6 cycles a block, the 16-IPU run's
  // 242 blocks 8.7: we take 7 (1.09 and 0.86 of the two float runs).
  t.copy_bytes_per_cycle = 8;
  t.copy_cycles_per_block = 7.0;
  // Exchange: 4 bytes per cycle per tile is Poplar's IPUModel::exchangeBytesPerCycle and
  // what PopLibs' estimators divide by; 1472 x 4 B x 1.33 GHz ~ 7.8 TB/s, Graphcore's
  // "8 TB/s" exchange figure, which we read as the on-chip exchange.
  t.exchange_bytes_per_cycle = 4.0;
  // Per fragment (contiguous block) a tile sends or receives: fitted to the on-chip halo
  // exchange of the same float blur on 1 and 16 IPUs (1,173 cycles for 3,328 bytes in 130
  // fragments on the busiest tile; 397 cycles): 1.8 cycles gives 0.91 and 1.12 of the two.
  t.exchange_cycles_per_fragment = 1.8;
}

// Mk2 GC200 IPU. Sources (see also docs/targets.md and shared/IPU_FIGURES.md):
//  - 1472 tiles, 6 worker threads per tile, 624 KiB SRAM per tile (~900 MB per IPU),
//    250 TFLOP/s FP16 / 62.5 TFLOP/s FP32, 10 IPU-Links with 320 GB/s in total:
//    Graphcore GC200 / IPU-M2000 launch material (July 2020).
//  - Clock 1.33 GHz: not published; it is the value consistent with
//    250 TFLOP/s = 1472 tiles x 128 flop/cycle x 1.33 GHz.
Target gc200() {
  Target t;
  t.name = "gc200";
  colossus_tile(t);
  t.ipus = 1;
  t.tiles_per_ipu = 1472;
  t.tile_memory_bytes = 624 * KiB;
  t.clock_hz = 1.33e9;
  // The AMP (matrix) unit: 62.5 TFLOP/s FP32 and 250 FP16 over 1472 tiles at 1.33 GHz.
  t.amp_flops_per_cycle_fp32 = 32;
  t.amp_flops_per_cycle_fp16 = 128;
  // "About 47 TB/s within an IPU" (Graphcore memory-performance guide): 47.5e12 / 1472 /
  // 1.33e9 = 24 bytes per cycle per tile.
  t.memory_bytes_per_cycle = 24;
  // Syncs: Graphcore publishes no GC200 figure. PopLibs charges Target::getMaxIPUSyncDelay()
  // per superstep and getGlobalSyncCycles() across IPUs; osmarks/ipu-stack's planner
  // constants give 126 and 600 cycles for the later IPU21 chip (third-party constants, not
  // GC200 measurements). We take 130 and 600; the GC2 measurements (117 and 640 cycles,
  // lbm-graphcore) agree within 10 %.
  t.sync_cycles_ipu = 130.0;
  t.sync_cycles_pod = 600.0;
  // IPU-M2000: 4 GC200s; its front panel has 8 IPU-Link ports (IPU-POD DA build guide), so
  // of each IPU's 10 links 2 leave the chassis (one to the next M2000, one to the previous)
  // and 8 join it to its 3 neighbours in the box (8/3 links each way per pair: the internal
  // map is not published, we share the links equally).
  t.ipus_per_chassis = 4;
  t.ipus_per_link_domain = 1;
  t.ipu_links_per_ipu = 10;
  t.external_links_per_ipu = 2;
  t.link_topology = LinkTopology::ladder;
  // 320 GB/s over 10 links counts both directions: 16 GB/s per link each way (the M2000
  // datasheet's 8 external links at 2 Tbps bidirectional agree).
  t.ipu_link_bytes_per_s = 16.0e9;
  // Cross-IPU exchange set-up and per-fragment cost: no Mk2 figure is published. We use the
  // GC2 hardware fit (gc2 below): 1.9 us per superstep that sends across IPUs, and 1.0 ns
  // per contiguous block an IPU sends off-chip.
  t.ipu_link_latency_s = 1.9e-6;
  t.ipu_link_seconds_per_fragment = 1.0e-9;
  // GW-Links: 2 x 100 Gb/s per IPU-M2000 (M2000 datasheet, IPU-Fabric table), 25 GB/s each
  // way per chassis. Latency not published; 3 us assumed (100 GbE plus the gateway).
  t.gateway_bytes_per_s = 25.0e9;
  t.gateway_latency_s = 3.0e-6;
  // Hosts reach an M2000 over its 2 x 100 GbE RNIC ports (IPU-POD DA build guide), not PCIe:
  // 25 GB/s each way per chassis. Latency not published; 3 us assumed, as for the gateway.
  t.host_link_bytes_per_s = 25.0e9;
  t.host_link_latency_s = 3.0e-6;
  t.ipus_per_process = 0;
  return t;
}

// Mk1 GC2 IPU, for validating the cost model against published GC2 measurements.
//  - 1216 tiles x 256 KiB, 1.6 GHz, 31.1 TFLOP/s FP32 and 124.5 mixed: Jia, Tillman,
//    Maggioni, Scarpazza, arXiv:1912.03413 (2019); lbm-graphcore converts cycles at 1.6 GHz.
Target gc2() {
  Target t;
  t.name = "gc2";
  colossus_tile(t);
  t.ipus = 1;
  t.tiles_per_ipu = 1216;
  t.tile_memory_bytes = 256 * KiB;
  t.clock_hz = 1.6e9;
  // 31.1e12 / 1216 / 1.6e9 = 16 and 124.5e12 / ... = 64 flop per cycle per tile.
  t.amp_flops_per_cycle_fp32 = 16;
  t.amp_flops_per_cycle_fp16 = 64;
  // Louw & McIntosh-Smith compare STREAM with a theoretical 31.1 TB/s, 16 bytes per cycle
  // per tile; Jia et al. quote about 45 TB/s (23). We take the lower as the ceiling.
  t.memory_bytes_per_cycle = 16;
  // Syncs measured on GC2 hardware (lbm-graphcore exchange-vs-compute.csv, float blur): 117
  // cycles on one IPU, 640 across 16 IPUs. (Its half4 run measured 64 and 501.)
  t.sync_cycles_ipu = 117.0;
  t.sync_cycles_pod = 640.0;
  // A Mk1 system: C2 PCIe cards of 2 GC2s, cards joined by IPU-Link cables in a ladder (our
  // reading of the 16-IPU system of lbm-graphcore's runs). Mk1's per-link bandwidth is not
  // in our sources: the GC200 figure is assumed.
  t.ipus_per_chassis = 2;
  t.ipus_per_link_domain = 1;
  t.ipu_links_per_ipu = 10;
  t.external_links_per_ipu = 2;
  t.link_topology = LinkTopology::ladder;
  t.ipu_link_bytes_per_s = 16.0e9;
  // Fitted to lbm-graphcore's blur weak scaling on GC2 hardware (weak-scaling-results.csv:
  // 3.70 us more per superstep on 2 IPUs than on 1, 5.04-5.16 us on 4-16): a fixed 1.9 us
  // per superstep that crosses IPUs, and 1.0 ns per block sent off-chip (a middle IPU
  // sends twice the blocks of an end one: 2208 against 1104).
  t.ipu_link_latency_s = 1.9e-6;
  t.ipu_link_seconds_per_fragment = 1.0e-9;
  t.gateway_bytes_per_s = 0.0;
  t.gateway_latency_s = 0.0;
  // PCIe Gen4 x16 per card, 64 GB/s both ways; latency assumed 3 us.
  t.host_link_bytes_per_s = 32.0e9;
  t.host_link_latency_s = 3.0e-6;
  t.ipus_per_process = 0;
  return t;
}

// A POD of `ipus` GC200s built from IPU-M2000s (4 IPUs and one IPU-Gateway each).
// IPU-Links join the M2000s of a POD up to 64 IPUs: an IPU-POD16's four M2000s in a ladder,
// an IPU-POD64's sixteen in a 2-D torus (IPU-POD64 datasheet: "2D-torus IPU-Link
// topology"; the second dimension is the ring of four IPUs inside each M2000). Beyond that
// (POD128, POD256) POD64s are joined through the gateways' GW-Links (IPU-Fabric).
Target pod(int ipus) {
  Target t = gc200();
  t.name = "pod" + std::to_string(ipus);
  t.ipus = ipus;
  t.ipus_per_link_domain = std::min(ipus, 64);
  t.link_topology = ipus >= 64 ? LinkTopology::torus : LinkTopology::ladder;
  t.ipus_per_process = 0;
  return t;
}

// A host machine or cluster: one tile per host thread, one "IPU" per process
// (node), no memory cap. Cycles are nanoseconds (clock 1 GHz) so that costs read
// as host time; compute cost is measured (the issue-model figures are unused).
// Exchange and sync figures are the BSP g and l measured between two MPI ranks on the
// development machines (l ~ 0.4-0.6 us, g ~ 0.13-0.17 ns/byte, shared/IPU_FIGURES.md),
// and an in-process thread barrier of about 1 us.
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
  t.exchange_cycles_per_fragment = 0;
  t.copy_bytes_per_cycle = 6.7;
  t.copy_cycles_per_block = 0;
  t.sync_cycles_ipu = 1000.0;
  t.sync_cycles_pod = 500.0;
  t.ipus_per_chassis = 1;
  t.ipus_per_link_domain = 1;
  t.ipu_links_per_ipu = 0;
  t.external_links_per_ipu = 0;
  t.ipu_link_bytes_per_s = 0.0;
  t.ipu_link_latency_s = 0.0;
  t.gateway_bytes_per_s = 1.0 / 0.15e-9;
  t.gateway_latency_s = 0.5e-6;
  t.host_link_bytes_per_s = 0.0;
  t.host_link_latency_s = 0.0;
  t.ipus_per_process = 1;
  return t;
}

std::string join(const std::vector<std::string>& names) {
  std::string out;
  for (const auto& n : names) out += (out.empty() ? "" : ", ") + n;
  return out;
}

// Every overridable figure by its JSON key (the order of to_json()).
using Member = std::variant<int Target::*, double Target::*>;
struct Field {
  const char* key;
  Member member;
};
const std::vector<Field>& fields() {
  static const std::vector<Field> all = {
      {"ipus", &Target::ipus},
      {"tiles_per_ipu", &Target::tiles_per_ipu},
      {"workers_per_tile", &Target::workers_per_tile},
      {"clock_hz", &Target::clock_hz},
      {"vector_lanes_fp32", &Target::vector_lanes_fp32},
      {"vector_lanes_fp16", &Target::vector_lanes_fp16},
      {"load_store_bytes", &Target::load_store_bytes},
      {"memory_bytes_per_cycle", &Target::memory_bytes_per_cycle},
      {"loop_overhead_cycles", &Target::loop_overhead_cycles},
      {"kernel_launch_cycles", &Target::kernel_launch_cycles},
      {"fp64_cycles_per_flop", &Target::fp64_cycles_per_flop},
      {"transcendental_flops", &Target::transcendental_flops},
      {"amp_flops_per_cycle_fp32", &Target::amp_flops_per_cycle_fp32},
      {"amp_flops_per_cycle_fp16", &Target::amp_flops_per_cycle_fp16},
      {"copy_bytes_per_cycle", &Target::copy_bytes_per_cycle},
      {"copy_cycles_per_block", &Target::copy_cycles_per_block},
      {"exchange_bytes_per_cycle", &Target::exchange_bytes_per_cycle},
      {"exchange_cycles_per_fragment", &Target::exchange_cycles_per_fragment},
      {"sync_cycles_ipu", &Target::sync_cycles_ipu},
      {"sync_cycles_pod", &Target::sync_cycles_pod},
      {"ipus_per_chassis", &Target::ipus_per_chassis},
      {"ipus_per_link_domain", &Target::ipus_per_link_domain},
      {"ipu_links_per_ipu", &Target::ipu_links_per_ipu},
      {"external_links_per_ipu", &Target::external_links_per_ipu},
      {"ipu_link_bytes_per_s", &Target::ipu_link_bytes_per_s},
      {"ipu_link_latency_s", &Target::ipu_link_latency_s},
      {"ipu_link_seconds_per_fragment", &Target::ipu_link_seconds_per_fragment},
      {"gateway_bytes_per_s", &Target::gateway_bytes_per_s},
      {"gateway_latency_s", &Target::gateway_latency_s},
      {"host_link_bytes_per_s", &Target::host_link_bytes_per_s},
      {"host_link_latency_s", &Target::host_link_latency_s},
      {"ipus_per_process", &Target::ipus_per_process},
  };
  return all;
}

}  // namespace

std::vector<std::string> Target::preset_names() {
  return {"host", "gc200", "pod4", "pod16", "pod64", "pod256", "gc2"};
}

Target Target::preset(const std::string& name, int host_threads, int host_processes) {
  if (name == "host") return host(host_threads, host_processes);
  if (name == "gc200") return gc200();
  if (name == "pod4") return pod(4);
  if (name == "pod16") return pod(16);
  if (name == "pod64") return pod(64);
  if (name == "pod256") return pod(256);
  if (name == "gc2") return gc2();
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
  if (vector_lanes_fp32 < 1 || vector_lanes_fp16 < 1) fail("vector lanes must be at least 1");
  if (!(load_store_bytes > 0)) fail("load_store_bytes must be positive");
  if (!(memory_bytes_per_cycle > 0)) fail("memory_bytes_per_cycle must be positive");
  if (!(copy_bytes_per_cycle > 0)) fail("copy_bytes_per_cycle must be positive");
  if (!(exchange_bytes_per_cycle > 0)) fail("exchange_bytes_per_cycle must be positive");
  for (double v : {loop_overhead_cycles, kernel_launch_cycles, fp64_cycles_per_flop,
                   transcendental_flops, amp_flops_per_cycle_fp32, amp_flops_per_cycle_fp16,
                   copy_cycles_per_block, exchange_cycles_per_fragment})
    if (!(v >= 0)) fail("issue-model, copy and fragment figures must not be negative");
  if (sync_cycles_ipu < 0 || sync_cycles_pod < 0) fail("sync cycles must not be negative");
  if (ipus_per_chassis < 1) fail("ipus_per_chassis must be at least 1");
  if (ipus_per_link_domain < 1) fail("ipus_per_link_domain must be at least 1");
  if (external_links_per_ipu < 0 || external_links_per_ipu > ipu_links_per_ipu)
    fail("external_links_per_ipu must lie in 0..ipu_links_per_ipu");
  if (ipus_per_link_domain > 1 && (ipu_links_per_ipu < 1 || !(ipu_link_bytes_per_s > 0)))
    fail("IPUs joined by IPU-Links need ipu_links_per_ipu >= 1 and ipu_link_bytes_per_s > 0");
  if (ipus_per_link_domain > 1 && ipus_per_chassis > 1 && links_per_chassis_pair() <= 0)
    fail(
        "the IPUs of a chassis need IPU-Links between them: ipu_links_per_ipu must exceed "
        "external_links_per_ipu");
  if (ipus_per_link_domain > ipus_per_chassis) {
    if (ipus_per_link_domain % ipus_per_chassis != 0)
      fail("ipus_per_link_domain (" + std::to_string(ipus_per_link_domain) +
           ") must be a multiple of ipus_per_chassis (" + std::to_string(ipus_per_chassis) + ")");
    if (external_links_per_ipu < 1)
      fail("a link domain of several chassis needs external_links_per_ipu >= 1");
  }
  if (ipus > ipus_per_link_domain && !(gateway_bytes_per_s > 0))
    fail("more IPUs (" + std::to_string(ipus) + ") than one link domain (" +
         std::to_string(ipus_per_link_domain) + ") needs gateway_bytes_per_s > 0");
  if (ipu_link_latency_s < 0 || gateway_latency_s < 0 || host_link_latency_s < 0 ||
      ipu_link_seconds_per_fragment < 0)
    fail("latencies must not be negative");
  if (host_link_bytes_per_s < 0) fail("host_link_bytes_per_s must not be negative");
  if (ipus_per_process < 0) fail("ipus_per_process must not be negative");
  if (ipus_per_process > 0 && ipus % ipus_per_process != 0)
    fail("ipus (" + std::to_string(ipus) + ") is not a multiple of ipus_per_process (" +
         std::to_string(ipus_per_process) + ")");
}

nlohmann::json Target::to_json() const {
  nlohmann::json j;
  j["name"] = name;
  j["kind"] = kind == TargetKind::host ? "host" : "ipu";
  j["tile_memory_bytes"] = tile_memory_bytes;
  j["link_topology"] = link_topology == LinkTopology::torus ? "torus" : "ladder";
  for (const Field& f : fields())
    std::visit([&](auto member) { j[f.key] = this->*member; }, f.member);
  return j;
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
      continue;
    }
    if (key == "kind") {
      const std::string k = value.is_string() ? value.get<std::string>() : "";
      if (k != "host" && k != "ipu")
        throw ConfigError(origin + ": target field 'kind' must be \"host\" or \"ipu\"");
      kind = k == "host" ? TargetKind::host : TargetKind::ipu;
      continue;
    }
    if (key == "link_topology") {
      const std::string k = value.is_string() ? value.get<std::string>() : "";
      if (k != "ladder" && k != "torus")
        throw ConfigError(origin +
                          ": target field 'link_topology' must be \"ladder\" or \"torus\"");
      link_topology = k == "torus" ? LinkTopology::torus : LinkTopology::ladder;
      continue;
    }
    if (key == "tile_memory_bytes") {
      const long long v = integer();
      if (v < 0) throw ConfigError(origin + ": tile_memory_bytes must not be negative");
      tile_memory_bytes = static_cast<std::size_t>(v);
      continue;
    }
    const auto f = std::find_if(fields().begin(), fields().end(),
                                [&, &key = key](const Field& x) { return key == x.key; });
    if (f == fields().end())
      throw ConfigError(origin + ": unknown target field '" + key +
                        "'; the fields are the keys of a preset's JSON (see docs/targets.md)");
    if (auto* m = std::get_if<int Target::*>(&f->member))
      this->*(*m) = int_field();
    else
      this->*std::get<double Target::*>(f->member) = number();
  }
}

}  // namespace tessera
