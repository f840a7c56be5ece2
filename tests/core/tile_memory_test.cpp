#include "tessera/core/tile_memory.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "tessera/core/error.hpp"

namespace tessera {
namespace {

using ::testing::HasSubstr;

TEST(TileMemory, ChargesReleasesAndKeepsTheHighWaterMark) {
  TileMemory m(7, 1000);
  m.charge(400, "a");
  m.charge(300, "b");
  m.release(400, "a");
  m.charge(100, "c");
  EXPECT_EQ(m.used(), 400u);
  EXPECT_EQ(m.high_water(), 700u);
  const auto top = m.largest(5);
  ASSERT_EQ(top.size(), 2u);
  EXPECT_EQ(top[0].first, "b");
  EXPECT_EQ(top[0].second, 300u);
  EXPECT_EQ(top[1].first, "c");
}

TEST(TileMemory, ExactlyTheBudgetFitsOneMoreByteDoesNot) {
  TileMemory m(0, 64);
  EXPECT_NO_THROW(m.charge(64, "all"));
  EXPECT_THROW(m.charge(1, "one more"), TileOutOfMemory);
  EXPECT_EQ(m.used(), 64u);  // a refused request charges nothing
}

TEST(TileMemory, OutOfMemoryReportNamesTileBudgetRequestAndLargestAllocations) {
  TileMemory m(42, 4096);
  m.charge(3000, "md.positions");
  m.charge(1000, "md.velocities");
  try {
    m.charge(512, "md.neighbors");
    FAIL() << "no error";
  } catch (const TileOutOfMemory& e) {
    EXPECT_EQ(e.tile(), 42);
    EXPECT_EQ(e.budget(), 4096u);
    EXPECT_EQ(e.requested(), 512u);
    const std::string what = e.what();
    EXPECT_THAT(what, HasSubstr("tile 42 is out of memory"));
    EXPECT_THAT(what, HasSubstr("'md.neighbors' asked for 512 B"));
    EXPECT_THAT(what, HasSubstr("with 3.91 KiB of its 4 KiB in use"));
    EXPECT_THAT(what, HasSubstr("2.93 KiB  md.positions"));
    EXPECT_THAT(what, HasSubstr("1000 B  md.velocities"));
    EXPECT_THAT(what, HasSubstr("--tile-memory"));
  }
}

TEST(TileMemory, UnlimitedBudgetNeverFails) {
  TileMemory m(0, 0);
  EXPECT_NO_THROW(m.charge(std::size_t{1} << 40, "huge"));
  EXPECT_THAT(m.report(), HasSubstr("budget unlimited"));
}

TEST(TileVector, AllocationsAreChargedAndReturned) {
  TileMemory m(3, 1 << 20);
  {
    TileVector<double> v(1000, 0.0, TileAllocator<double>(m, "v"));
    EXPECT_EQ(m.used(), 8000u);
    v.clear();
    v.shrink_to_fit();
    EXPECT_EQ(m.used(), 0u);
    v.resize(10);
    EXPECT_EQ(m.used(), 80u);
  }
  EXPECT_EQ(m.used(), 0u);
  EXPECT_EQ(m.high_water(), 8000u);
}

TEST(TileVector, GrowthBeyondTheBudgetThrowsBeforeAllocating) {
  TileMemory m(5, 1024);
  TileVector<double> v(TileAllocator<double>(m, "grid"));
  v.resize(100);
  EXPECT_THROW(v.resize(1u << 30), TileOutOfMemory);  // 8 GiB: must fail before touching the heap
  EXPECT_EQ(v.size(), 100u);
  EXPECT_EQ(m.used(), 800u);
}

}  // namespace
}  // namespace tessera
