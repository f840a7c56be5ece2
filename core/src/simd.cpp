#include "tessera/core/simd.hpp"

#include <atomic>
#include <cstdlib>
#include <string>

#include "tessera/core/error.hpp"

namespace tessera {
namespace {

bool cpu_has(SimdLevel level) {
  if (level == SimdLevel::baseline) return true;
#if defined(__x86_64__)
  return __builtin_cpu_supports("avx2");
#else
  return false;
#endif
}

void require_cpu_has(SimdLevel level, const std::string& where) {
  if (!cpu_has(level))
    throw ConfigError(where + " asks for " + std::string(simd_level_name(level)) +
                      ", which this CPU does not have; use baseline");
}

SimdLevel from_environment() {
  const char* chosen = std::getenv("TESSERA_SIMD");
  if (chosen == nullptr || *chosen == '\0')
    return cpu_has(SimdLevel::avx2) ? SimdLevel::avx2 : SimdLevel::baseline;
  const std::string word = chosen;
  SimdLevel level;
  if (word == "baseline")
    level = SimdLevel::baseline;
  else if (word == "avx2")
    level = SimdLevel::avx2;
  else
    throw ConfigError("TESSERA_SIMD=" + word + ": use baseline or avx2");
  require_cpu_has(level, "TESSERA_SIMD=" + word);
  return level;
}

std::atomic<int> overridden{-1};  // a ScopedSimdLevel's level, or -1

}  // namespace

SimdLevel simd_level() {
  const int forced = overridden.load(std::memory_order_relaxed);
  if (forced >= 0) return static_cast<SimdLevel>(forced);
  static const SimdLevel chosen = from_environment();
  return chosen;
}

std::string_view simd_level_name(SimdLevel level) {
  return level == SimdLevel::avx2 ? "avx2" : "baseline";
}

ScopedSimdLevel::ScopedSimdLevel(SimdLevel level) : previous_(simd_level()) {
  require_cpu_has(level, "ScopedSimdLevel");
  overridden.store(static_cast<int>(level), std::memory_order_relaxed);
}

ScopedSimdLevel::~ScopedSimdLevel() {
  overridden.store(static_cast<int>(previous_), std::memory_order_relaxed);
}

}  // namespace tessera
