// comm_scaling: the cost model's all-reduce time for a 100 MB gradient from pod4 to a
// simulated pod1024, next to the ring bounds 2 (p-1)/p n / B, as a Markdown table
// (docs/comm.md): B = all 10 of an IPU's IPU-Links (the old model's figure), and B = its 2
// external links only (a strict bound for rings that leave every M2000).
//
//   build-comm/bench/comm/comm_scaling [--bytes 100e6]
//
// Nothing runs on the tiles: comm::estimate walks the same schedules the
// Communicator executes and prices every step with the core cost model.
#include <CLI/CLI.hpp>
#include <algorithm>
#include <cstdio>
#include <string>

#include "tessera/comm/schedule.hpp"
#include "tessera/core/environment.hpp"
#include "tessera/core/options.hpp"

namespace {

using namespace tessera;
using namespace tessera::comm;

// A POD of `ipus` IPUs: POD256's figures (POD64 tori joined by gateways; below 64 IPUs a
// ladder, as the pod16 preset).
Target pod(int ipus) {
  Target t = Target::preset("pod256");
  t.name = "pod" + std::to_string(ipus);
  t.ipus = ipus;
  t.ipus_per_link_domain = std::min(ipus, 64);
  t.link_topology = ipus >= 64 ? LinkTopology::torus : LinkTopology::ladder;
  t.validate();
  return t;
}

std::vector<std::vector<int>> world_of(const Target& t) {
  std::vector<std::vector<int>> world(1);
  for (int i = 0; i < t.ipus; ++i) world[0].push_back(i);
  return world;
}

std::string ms(double seconds) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3f ms", seconds * 1e3);
  return buf;
}

}  // namespace

int main(int argc, char** argv) {
  return run_main(argc, argv, [](int argc, char** argv) {
    CLI::App app{"comm_scaling: modelled all-reduce time from pod4 to pod1024"};
    double bytes = 100e6;
    app.add_option("--bytes", bytes, "Bytes of float gradient per IPU")->check(CLI::PositiveNumber);
    if (auto code = parse_command_line(app, argc, argv)) return *code;
    const auto n = static_cast<std::size_t>(bytes / 4);
    std::printf(
        "| target | IPUs | ring | tree | hierarchical | automatic picks | bus bandwidth | "
        "bound, all 10 links | bound, 2 external links | picked / all-link bound | "
        "ring: latency terms |\n");
    std::printf("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |\n");
    for (int ipus : {4, 16, 64, 128, 256, 1024}) {
      const Target t = pod(ipus);
      const auto world = world_of(t);
      auto time = [&](Algorithm a) {
        return estimate(t, world, Collective::all_reduce, a, DataType::float32, n).seconds;
      };
      const Algorithm pick =
          choose_algorithm(t, world, Collective::all_reduce, DataType::float32, n);
      const double p = ipus;
      const double moved = 2 * (p - 1) / p * static_cast<double>(n) * 4;
      const double bound = moved / (t.ipu_links_per_ipu * t.ipu_link_bytes_per_s);
      const double strict = moved / (t.external_links_per_ipu * t.ipu_link_bytes_per_s);
      // Fixed costs of the flat ring: link latency and cross-IPU sync, 2 (p-1) times.
      const double latency = 2 * (p - 1) * (t.ipu_link_latency_s + t.seconds(t.sync_cycles_pod));
      // Up to POD64 there is one link domain, and hierarchical is the ring.
      const std::string two_level = ipus > 64 ? ms(time(Algorithm::hierarchical)) : "= ring";
      std::printf("| %s | %d | %s | %s | %s | %s | %.0f GB/s | %s | %s | %.2f | %s |\n",
                  t.name.c_str(), ipus, ms(time(Algorithm::ring)).c_str(),
                  ms(time(Algorithm::tree)).c_str(), two_level.c_str(), to_string(pick),
                  moved / time(pick) / 1e9, ms(bound).c_str(), ms(strict).c_str(),
                  time(pick) / bound, ms(latency).c_str());
    }
    // Where automatic leaves the tree, for floats on the world of each preset.
    for (const char* name : {"pod4", "pod16", "pod64", "pod256"}) {
      const Target t = Target::preset(name);
      const auto world = world_of(t);
      std::size_t floats = 1;
      Algorithm a = Algorithm::tree;
      while ((a = choose_algorithm(t, world, Collective::all_reduce, DataType::float32, floats)) ==
             Algorithm::tree)
        floats += std::max<std::size_t>(1, floats / 64);
      std::printf("%s: automatic all-reduce leaves the tree (for %s) from about %zu bytes\n", name,
                  to_string(a), floats * 4);
    }
    return 0;
  });
}
