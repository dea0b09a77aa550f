// simd.h: the one way the cpu:: kernels choose their code path: pick(), given the level of the
// ExecContext they were called with (ex.isa, core/exec_context.h) and the kernel's AVX-512, AVX2
// and portable instances. The level is never above what the CPU has: the run layer caps it
// (run/exec.h) and tests run every level up to detected_simd_level() to check each path against
// the scalar reference.
#pragma once

#include "core/cpu_features.h"

namespace scratchgpt::cpu {

// The instance for `level`. A kernel written for AVX2 only passes its AVX2 instance twice:
// pick(level, row_avx2, row_avx2, row_scalar); one whose AVX2 part does most of an array and
// leaves the tail to the portable loop passes a portable part that does nothing (adamw.cpp).
template <typename Fn>
Fn pick(SimdLevel level, Fn avx512, Fn avx2, Fn portable) {
  switch (level) {
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
