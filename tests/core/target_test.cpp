#include "tessera/core/target.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <CLI/CLI.hpp>
#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>

#include "tessera/core/error.hpp"
#include "tessera/core/options.hpp"

namespace tessera {
namespace {

using ::testing::HasSubstr;

template <class F>
std::string error_of(F&& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  return "no error";
}

TEST(Target, Gc200MatchesPublishedFigures) {
  const Target t = Target::preset("gc200");
  EXPECT_EQ(t.kind, TargetKind::ipu);
  EXPECT_EQ(t.ipus, 1);
  EXPECT_EQ(t.tiles_per_ipu, 1472);
  EXPECT_EQ(t.tile_memory_bytes, 624u * 1024u);
  EXPECT_EQ(t.workers_per_tile, 6);
  EXPECT_DOUBLE_EQ(t.clock_hz, 1.33e9);
  EXPECT_DOUBLE_EQ(t.exchange_bytes_per_cycle, 4.0);
  EXPECT_EQ(t.ipu_links_per_ipu, 10);
  // 320 GB/s over 10 links, both directions.
  EXPECT_DOUBLE_EQ(2 * t.ipu_links_per_ipu * t.ipu_link_bytes_per_s, 320e9);
  // ~900 MB of SRAM per IPU.
  EXPECT_NEAR(static_cast<double>(t.tile_memory_bytes) * t.tiles_per_ipu, 940e6, 10e6);
  EXPECT_NO_THROW(t.validate());
}

TEST(Target, Gc200PeaksAndBandwidthsMatchTheirSources) {
  const Target t = Target::preset("gc200");
  // The AMP peaks: 62.5 TFLOP/s FP32 and 250 FP16 (launch material), within 1 %.
  EXPECT_NEAR(t.amp_flops_per_cycle_fp32 * t.tiles_per_ipu * t.clock_hz, 62.5e12, 0.7e12);
  EXPECT_NEAR(t.amp_flops_per_cycle_fp16 * t.tiles_per_ipu * t.clock_hz, 250e12, 2.6e12);
  // "About 47 TB/s within an IPU"; "8 TB/s" exchange.
  EXPECT_NEAR(t.memory_bytes_per_cycle * t.tiles_per_ipu * t.clock_hz, 47e12, 1e12);
  EXPECT_NEAR(t.exchange_bytes_per_cycle * t.tiles_per_ipu * t.clock_hz, 8e12, 0.3e12);
  // Two of ten links leave the M2000 (8 ports for 4 IPUs); 8 join its IPUs, 8/3 per pair.
  EXPECT_EQ(t.ipus_per_chassis, 4);
  EXPECT_EQ(t.external_links_per_ipu, 2);
  EXPECT_DOUBLE_EQ(t.links_per_chassis_pair(), 8.0 / 3);
  // Barrel: 6 workers, 2 float and 4 half lanes; FP64 one emulation figure.
  EXPECT_EQ(t.vector_lanes_fp32, 2);
  EXPECT_EQ(t.vector_lanes_fp16, 4);
  EXPECT_GT(t.fp64_cycles_per_flop, 10);
  // Hosts reach an M2000 over 2 x 100 GbE.
  EXPECT_DOUBLE_EQ(t.host_link_bytes_per_s, 25e9);
}

TEST(Target, Gc2MatchesJiaEtAl) {
  const Target t = Target::preset("gc2");
  EXPECT_EQ(t.tiles_per_ipu, 1216);
  EXPECT_EQ(t.tile_memory_bytes, 256u * 1024u);
  EXPECT_DOUBLE_EQ(t.clock_hz, 1.6e9);
  EXPECT_NEAR(t.amp_flops_per_cycle_fp32 * t.tiles_per_ipu * t.clock_hz, 31.1e12, 0.2e12);
  EXPECT_NEAR(t.amp_flops_per_cycle_fp16 * t.tiles_per_ipu * t.clock_hz, 124.5e12, 0.5e12);
  EXPECT_DOUBLE_EQ(t.sync_cycles_ipu, 117);
  EXPECT_DOUBLE_EQ(t.sync_cycles_pod, 640);
  EXPECT_NO_THROW(t.validate());
}

TEST(Target, PodTopologies) {
  EXPECT_EQ(Target::preset("pod16").link_topology, LinkTopology::ladder);
  EXPECT_EQ(Target::preset("pod64").link_topology, LinkTopology::torus);
  const Target big = Target::preset("pod256");
  EXPECT_EQ(big.link_domains(), 4);
  EXPECT_EQ(big.link_domain_of_ipu(130), 2);
  EXPECT_EQ(big.chassis_of_ipu(130), 32);
}

TEST(Target, PodsAreBuiltFromGc200s) {
  for (const auto& [name, ipus] :
       {std::pair{"pod4", 4}, {"pod16", 16}, {"pod64", 64}, {"pod256", 256}}) {
    const Target t = Target::preset(name);
    EXPECT_EQ(t.ipus, ipus) << name;
    EXPECT_EQ(t.tiles_per_ipu, 1472) << name;
    EXPECT_EQ(t.total_tiles(), ipus * 1472) << name;
    EXPECT_EQ(t.ipus_per_chassis, 4) << name;
    EXPECT_EQ(t.ipus_per_link_domain, std::min(ipus, 64)) << name;
    EXPECT_NO_THROW(t.validate()) << name;
  }
}

TEST(Target, HostHasOneTilePerThreadAndNoMemoryCap) {
  const Target t = Target::preset("host", 3, 2);
  EXPECT_EQ(t.kind, TargetKind::host);
  EXPECT_EQ(t.ipus, 2);
  EXPECT_EQ(t.tiles_per_ipu, 3);
  EXPECT_FALSE(t.memory_limited());
  EXPECT_NO_THROW(t.validate());
}

TEST(Target, UnknownPresetListsThePresets) {
  const std::string what = error_of([] { Target::preset("gc300"); });
  EXPECT_THAT(what, HasSubstr("unknown target preset 'gc300'"));
  EXPECT_THAT(what, HasSubstr("gc200, pod4, pod16"));
}

TEST(Target, ValidateNamesTheBadFigure) {
  Target t = Target::preset("gc200");
  t.tiles_per_ipu = 0;
  EXPECT_THAT(error_of([&] { t.validate(); }), HasSubstr("tiles_per_ipu must be at least 1"));
  t = Target::preset("gc200");
  t.tile_memory_bytes = 0;
  EXPECT_THAT(error_of([&] { t.validate(); }), HasSubstr("needs tile_memory_bytes > 0"));
  t = Target::preset("pod256");
  t.gateway_bytes_per_s = 0;
  EXPECT_THAT(error_of([&] { t.validate(); }), HasSubstr("needs gateway_bytes_per_s"));
  t = Target::preset("pod16");
  t.ipus_per_process = 3;
  EXPECT_THAT(error_of([&] { t.validate(); }), HasSubstr("not a multiple of ipus_per_process"));
}

TEST(Target, JsonRoundTripsThroughOverrides) {
  const Target a = Target::preset("pod16");
  Target b = Target::preset("gc200");
  b.apply_overrides(a.to_json(), "test");
  EXPECT_EQ(a.to_json(), b.to_json());
}

TEST(Target, EveryFigureCanBeOverridden) {
  const Target base = Target::preset("pod64");
  const nlohmann::json j = base.to_json();
  for (const auto& [key, value] : j.items()) {
    if (!value.is_number()) continue;
    Target t = base;
    const nlohmann::json changed = {{key, value.get<double>() + 1}};
    t.apply_overrides(changed, "test");
    EXPECT_EQ(t.to_json()[key], value.get<double>() + 1) << key;
  }
  Target t = base;
  t.apply_overrides({{"link_topology", "ladder"}}, "test");
  EXPECT_EQ(t.link_topology, LinkTopology::ladder);
  EXPECT_THAT(error_of([&] {
                t.apply_overrides({{"link_topology", "ring"}}, "cli");
              }),
              HasSubstr("'link_topology' must be \"ladder\" or \"torus\""));
}

TEST(Target, OverrideErrorsNameTheFieldAndOrigin) {
  Target t = Target::preset("gc200");
  EXPECT_THAT(error_of([&] {
                t.apply_overrides({{"tiles_per_ipus", 4}}, "file 'x.json'");
              }),
              HasSubstr("file 'x.json': unknown target field 'tiles_per_ipus'"));
  EXPECT_THAT(error_of([&] {
                t.apply_overrides({{"ipus", "four"}}, "cli");
              }),
              HasSubstr("target field 'ipus' must be a number"));
  EXPECT_THAT(error_of([&] {
                t.apply_overrides({{"ipus", 2.5}}, "cli");
              }),
              HasSubstr("'ipus' must be an integer"));
  EXPECT_THAT(error_of([&] { t.apply_overrides(nlohmann::json::array(), "cli"); }),
              HasSubstr("must be a JSON object"));
}

RuntimeOptions parse(std::vector<std::string> args) {
  CLI::App app;
  RuntimeOptions o;
  add_runtime_options(app, o, "gc200");
  std::reverse(args.begin(), args.end());
  app.parse(args);
  return o;
}

TEST(Options, CommandLineOverridesThePreset) {
  const RuntimeOptions o =
      parse({"--target", "pod4", "--tiles-per-ipu", "64", "--tile-memory", "16KiB"});
  const Target t = resolve_target(o, 1, 1);
  EXPECT_EQ(t.name, "pod4");
  EXPECT_EQ(t.ipus, 4);
  EXPECT_EQ(t.tiles_per_ipu, 64);
  EXPECT_EQ(t.tile_memory_bytes, 16384u);
}

TEST(Options, DefaultTargetIsTheProgramsChoice) {
  const Target t = resolve_target(parse({}), 1, 1);
  EXPECT_EQ(t.name, "gc200");
}

TEST(Options, BadValuesAreRejectedByTheParser) {
  EXPECT_THROW(parse({"--ipus", "0"}), CLI::ValidationError);
  EXPECT_THROW(parse({"--tile-memory", "lots"}), CLI::ParseError);
}

class TargetFile : public ::testing::Test {
 protected:
  std::string path = ::testing::TempDir() + "tessera_target_test.json";
  void write(const std::string& text) { std::ofstream(path) << text; }
  void TearDown() override { std::remove(path.c_str()); }
};

TEST_F(TargetFile, BaseThenFields) {
  write(R"({"base": "gc200", "tiles_per_ipu": 8, "clock_hz": 1.85e9})");
  RuntimeOptions o;
  o.target = path;
  o.ipus = 2;
  const Target t = resolve_target(o, 1, 1);
  EXPECT_EQ(t.tiles_per_ipu, 8);
  EXPECT_DOUBLE_EQ(t.clock_hz, 1.85e9);
  EXPECT_EQ(t.ipus, 2);  // the command line comes last
  EXPECT_EQ(t.name, path);
}

TEST_F(TargetFile, MalformedFileIsAFormatError) {
  write(R"({"base": "gc200", )");
  RuntimeOptions o;
  o.target = path;
  EXPECT_THROW(resolve_target(o, 1, 1), FormatError);
  EXPECT_THAT(error_of([&] { resolve_target(o, 1, 1); }), HasSubstr("is not valid JSON"));
}

TEST_F(TargetFile, MissingBaseSaysWhatToWrite) {
  write(R"({"tiles_per_ipu": 8})");
  RuntimeOptions o;
  o.target = path;
  EXPECT_THAT(error_of([&] { resolve_target(o, 1, 1); }), HasSubstr("\"base\": a preset name"));
}

// A number beyond double range is the parser's out_of_range, not a parse error: still named.
TEST_F(TargetFile, NumberOutOfRangeIsNamed) {
  write(R"({"base": "gc200", "clock_hz": 1e999})");
  RuntimeOptions o;
  o.target = path;
  EXPECT_THAT(error_of([&] { resolve_target(o, 1, 1); }),
              HasSubstr("target file '" + path + "' holds a number out of range"));
}

TEST_F(TargetFile, MissingFileIsNamed) {
  RuntimeOptions o;
  o.target = "/nonexistent/machine.json";
  EXPECT_THAT(error_of([&] { resolve_target(o, 1, 1); }),
              HasSubstr("cannot open target file '/nonexistent/machine.json'"));
}

}  // namespace
}  // namespace tessera
