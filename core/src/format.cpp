#include "tessera/core/format.hpp"

#include <array>
#include <cmath>
#include <cstdio>

namespace tessera {
namespace {

std::string three_figures(double value, const char* unit) {
  char buf[64];
  if (value >= 100 || value == std::floor(value))
    std::snprintf(buf, sizeof buf, "%.0f %s", value, unit);
  else if (value >= 10)
    std::snprintf(buf, sizeof buf, "%.1f %s", value, unit);
  else
    std::snprintf(buf, sizeof buf, "%.2f %s", value, unit);
  return buf;
}

}  // namespace

std::string format_bytes(double bytes) {
  static constexpr std::array<const char*, 6> units{"B", "KiB", "MiB", "GiB", "TiB", "PiB"};
  std::size_t u = 0;
  while (std::fabs(bytes) >= 1024 && u + 1 < units.size()) {
    bytes /= 1024;
    ++u;
  }
  return three_figures(bytes, units[u]);
}

std::string format_seconds(double seconds) {
  const double a = std::fabs(seconds);
  if (a == 0) return "0 s";
  if (a < 1e-6) return three_figures(seconds * 1e9, "ns");
  if (a < 1e-3) return three_figures(seconds * 1e6, "us");
  if (a < 1) return three_figures(seconds * 1e3, "ms");
  return three_figures(seconds, "s");
}

}  // namespace tessera
