// simd.h: which code path the cpu:: kernels take. By default the best one the CPU supports
// (core/cpu_features.h); tests and benchmarks can force a slower one to check that every path
// agrees with the scalar reference. Not thread-safe against concurrent kernel calls: set it first.
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

}  // namespace scratchgpt::cpu
