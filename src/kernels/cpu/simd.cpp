// simd.cpp: see simd.h.
#include "kernels/cpu/simd.h"

#include <atomic>

namespace scratchgpt::cpu {

namespace {
std::atomic<int>& level_slot() {
  static std::atomic<int> level{static_cast<int>(detected_simd_level())};
  return level;
}
}  // namespace

SimdLevel simd_level() { return static_cast<SimdLevel>(level_slot().load(std::memory_order_relaxed)); }

SimdLevel set_simd_level(SimdLevel level) {
  const int best = static_cast<int>(detected_simd_level());
  const int want = static_cast<int>(level);
  level_slot().store(want < best ? want : best, std::memory_order_relaxed);
  return simd_level();
}

}  // namespace scratchgpt::cpu
