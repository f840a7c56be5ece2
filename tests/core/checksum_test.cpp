#include "tessera/core/checksum.hpp"

#include <gtest/gtest.h>

#include <string>

namespace tessera {
namespace {

TEST(Checksum, Crc32MatchesTheStandardCheckValue) {
  EXPECT_EQ(crc32("123456789"), 0xCBF43926u);
  EXPECT_EQ(crc32(""), 0u);
}

// Every single-bit flip of a message changes its CRC-32 (bursts of up to 32 bits are caught).
TEST(Checksum, Crc32SeesEveryFlippedBit) {
  std::string text(300, '\0');
  for (std::size_t i = 0; i < text.size(); ++i) text[i] = static_cast<char>(i * 37 + 11);
  const std::uint32_t good = crc32(text);
  for (std::size_t i = 0; i < text.size(); ++i)
    for (int bit = 0; bit < 8; ++bit) {
      std::string flipped = text;
      flipped[i] = static_cast<char>(flipped[i] ^ (1 << bit));
      ASSERT_NE(crc32(flipped), good) << "byte " << i << " bit " << bit;
    }
}

}  // namespace
}  // namespace tessera
