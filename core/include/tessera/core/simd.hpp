// Which vector instructions the host kernels use.
//
// One binary serves every x86-64 machine: a kernel is compiled twice, for the x86-64 baseline
// (SSE2) and for AVX2, and simd_level() picks one at run time, AVX2 where the CPU has it. The two
// builds do the same arithmetic in the same order (four lanes, no fused multiply-add, the lanes
// summed as (l0 + l1) + (l2 + l3)), so a run gives the same bits at either level. Elsewhere than
// x86-64 there is only the baseline.
//
// TESSERA_SIMD=baseline|avx2 in the environment chooses instead, to check that the levels agree
// or to rule the vector code out; a level the CPU lacks, or another word, is refused with a
// ConfigError at the first call. Thread-safe: read once, then shared.
#pragma once

#include <string_view>

#include "tessera/core/error.hpp"

namespace tessera {

enum class SimdLevel { baseline, avx2 };

// The level the kernels run at: TESSERA_SIMD's, else the best the CPU has.
SimdLevel simd_level();

// "baseline" or "avx2".
std::string_view simd_level_name(SimdLevel level);

// For tests: the kernels run at `level` while this object lives (one at a time, set between runs
// from the thread that starts them). Throws ConfigError for a level the CPU lacks.
class ScopedSimdLevel {
 public:
  explicit ScopedSimdLevel(SimdLevel level);
  ~ScopedSimdLevel();
  ScopedSimdLevel(const ScopedSimdLevel&) = delete;
  ScopedSimdLevel& operator=(const ScopedSimdLevel&) = delete;

 private:
  SimdLevel previous_;
};

}  // namespace tessera
