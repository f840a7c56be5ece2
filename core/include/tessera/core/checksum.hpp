// Checksums for the files Tessera writes and reads back (restart files).
//
// CRC-32 (IEEE 802.3, the polynomial of zlib and PNG, reflected, initial and final value
// 0xFFFFFFFF): it detects every error burst of up to 32 bits, so every flipped bit and every
// overwritten byte (or run of up to 4 bytes) in a file is found, which a sum or a hash only
// makes likely.
#pragma once

#include <cstdint>
#include <string_view>

namespace tessera {

// crc32("123456789") == 0xCBF43926.
std::uint32_t crc32(std::string_view bytes);

}  // namespace tessera
