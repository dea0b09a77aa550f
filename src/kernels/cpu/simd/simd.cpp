// simd.cpp: see simd.h. The level itself lives in core (core/cpu_features.h), so that the Rng's
// bulk draws follow the same switch without core depending on the kernels.
#include "kernels/cpu/simd/simd.h"

namespace scratchgpt::cpu {

SimdLevel simd_level() { return active_simd_level(); }

SimdLevel set_simd_level(SimdLevel level) { return set_active_simd_level(level); }

}  // namespace scratchgpt::cpu
