#include "tessera/core/profile.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "tessera/core/atomic_file.hpp"
#include "tessera/core/error.hpp"
#include "tessera/core/format.hpp"

namespace tessera {
namespace {

using ::testing::HasSubstr;

TEST(Profile, AggregatesByNameAndTotals) {
  const Target t = Target::preset("gc200");
  Profile p(t);
  SuperstepCost a;
  a.compute_cycles = 1330;  // 1 us
  a.exchange_bytes = 100;
  SuperstepCost b;
  b.sync_cycles = 133;  // 0.1 us
  b.link_seconds = 2e-6;
  b.link_bytes = 64;
  p.record("sweep", a, 0.5);
  p.record("sweep", a, 0.5);
  p.record("reduce", b, 0.25);
  EXPECT_EQ(p.supersteps(), 3u);
  EXPECT_NEAR(p.simulated_seconds(), 2e-6 + 2.1e-6, 1e-15);
  EXPECT_DOUBLE_EQ(p.wall_seconds(), 1.25);

  const nlohmann::json j = p.to_json({10, 30, 20});
  EXPECT_EQ(j["target"]["tiles_per_ipu"], 1472);
  EXPECT_EQ(j["totals"]["supersteps"], 3);
  EXPECT_EQ(j["totals"]["exchange_bytes"], 200);
  ASSERT_EQ(j["supersteps_by_name"].size(), 2u);
  const auto& reduce = j["supersteps_by_name"][0];  // sorted by name
  EXPECT_EQ(reduce["name"], "reduce");
  EXPECT_EQ(reduce["count"], 1);
  EXPECT_NEAR(reduce["simulated_seconds"].get<double>(), 2.1e-6, 1e-15);
  EXPECT_EQ(j["timeline"].size(), 3u);
  EXPECT_EQ(j["memory"]["worst_tile"], 1);
  EXPECT_EQ(j["memory"]["worst_tile_high_water_bytes"], 30);

  const std::string s = p.summary({10, 30, 20});
  EXPECT_THAT(s, HasSubstr("simulated time   4.10 us in 3 supersteps"));
  EXPECT_THAT(s, HasSubstr("worst tile memory 30 B (tile 1) of 624 KiB (0%)"));
  EXPECT_THAT(s, HasSubstr("IPU-Links"));
}

TEST(Profile, TimelineStopsAtItsLimitButTotalsGoOn) {
  const Target t = Target::preset("gc200");
  Profile p(t);
  for (std::size_t i = 0; i < Profile::timeline_limit + 5; ++i) p.record("s", SuperstepCost{}, 0);
  const nlohmann::json j = p.to_json({});
  EXPECT_EQ(j["timeline"].size(), Profile::timeline_limit);
  EXPECT_TRUE(j["timeline_truncated"].get<bool>());
  EXPECT_EQ(j["totals"]["supersteps"], Profile::timeline_limit + 5);
}

TEST(AtomicFile, WritesThroughATemporaryName) {
  const std::string path = ::testing::TempDir() + "tessera_atomic.txt";
  write_file_atomically(path, "hello\n");
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  EXPECT_EQ(text.str(), "hello\n");
  EXPECT_FALSE(std::ifstream(path + ".tmp").good());
  std::remove(path.c_str());
}

TEST(AtomicFile, UnwritableDirectoryIsNamed) {
  try {
    write_file_atomically("/nonexistent/dir/profile.json", "x");
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_THAT(e.what(), HasSubstr("cannot write '/nonexistent/dir/profile.json': its folder "
                                    "'/nonexistent/dir' does not exist"));
  }
}

TEST(Format, BytesAndSeconds) {
  EXPECT_EQ(format_bytes(12), "12 B");
  EXPECT_EQ(format_bytes(624 * 1024), "624 KiB");
  EXPECT_EQ(format_bytes(1.5 * 1024 * 1024), "1.50 MiB");
  EXPECT_EQ(format_seconds(13.1e-6), "13.1 us");
  EXPECT_EQ(format_seconds(2.4e-3), "2.40 ms");
  EXPECT_EQ(format_seconds(0), "0 s");
}

}  // namespace
}  // namespace tessera
