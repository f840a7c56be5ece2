// Fuzz harness: md_ipu's restart files (read_restart), read into a fresh simulation that runs a
// few steps and writes a restart file again.
//
// A restart file ends with the CRC-32 of its bytes: an input that ends like one ("crc32 " and 8
// hex digits) gets its checksum recomputed, so that the fuzzer's changes reach the header and
// atom parsers behind the check instead of all stopping at it (restart_test covers the check).
#include <cstdio>
#include <string>

#include "fuzz_support.hpp"
#include "md_fuzz_support.hpp"
#include "tessera/core/checksum.hpp"

TESSERA_FUZZ_INIT() { tessera::fuzz::md_fixtures(); }

TESSERA_FUZZ_HARNESS(data, size) {
  std::string bytes(tessera::fuzz::text(data, size));
  constexpr std::size_t trailer = 15;  // "crc32 " + 8 hex digits + "\n"
  if (bytes.size() >= trailer && bytes.compare(bytes.size() - trailer, 6, "crc32 ") == 0 &&
      bytes.back() == '\n') {
    const std::size_t body = bytes.size() - trailer;
    char sealed[trailer + 1];
    std::snprintf(sealed, sizeof sealed, "crc32 %08x\n",
                  static_cast<unsigned>(tessera::crc32(std::string_view(bytes).substr(0, body))));
    bytes.replace(body, trailer, sealed);
  }
  tessera::fuzz::write_file("input.restart", bytes);
  tessera::fuzz::run_md_script(
      "read_restart input.restart\nthermo 1\nrun 3\nwrite_restart output.restart\n");
}
