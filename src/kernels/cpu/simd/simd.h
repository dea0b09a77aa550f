// simd.h: which code path the cpu:: kernels take, and the one way they choose it: pick(), given
// the kernel's AVX-512, AVX2 and portable instances. By default the level is the best one the CPU
// supports (core/cpu_features.h); tests and benchmarks can force a slower one to check that every
// path agrees with the scalar reference. Not thread-safe against concurrent kernel calls: set it
// first.
#pragma once

#include "core/cpu_features.h"

namespace scratchgpt::cpu {

// The level the kernels use now.
SimdLevel simd_level();
// Uses min(level, detected_simd_level()); returns the level actually set.
SimdLevel set_simd_level(SimdLevel level);
// false: force the portable scalar paths; true: back to the best detected level.
inline void set_simd_enabled(bool enabled) {
  set_simd_level(enabled ? detected_simd_level() : SimdLevel::kScalar);
}

// The instance for the level in use. A kernel written for AVX2 only passes its AVX2 instance
// twice: pick(row_avx2, row_avx2, row_scalar); one whose AVX2 part does most of an array and
// leaves the tail to the portable loop passes a portable part that does nothing (adamw.cpp).
template <typename Fn>
Fn pick(Fn avx512, Fn avx2, Fn portable) {
  switch (simd_level()) {
    case SimdLevel::kAvx512:
      return avx512;
    case SimdLevel::kAvx2:
      return avx2;
    case SimdLevel::kScalar:
      break;
  }
  return portable;
}

}  // namespace scratchgpt::cpu
