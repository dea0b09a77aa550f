// cpu_features.cpp: the process-wide SIMD level (see cpu_features.h).
#include "core/cpu_features.h"

#include <atomic>

namespace scratchgpt {

namespace {
std::atomic<int>& level_slot() {
  static std::atomic<int> level{static_cast<int>(detected_simd_level())};
  return level;
}
}  // namespace

SimdLevel active_simd_level() {
  return static_cast<SimdLevel>(level_slot().load(std::memory_order_relaxed));
}

SimdLevel set_active_simd_level(SimdLevel level) {
  const int best = static_cast<int>(detected_simd_level());
  const int want = static_cast<int>(level);
  level_slot().store(want < best ? want : best, std::memory_order_relaxed);
  return active_simd_level();
}

}  // namespace scratchgpt
