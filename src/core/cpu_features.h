// cpu_features.h: what the CPU we run on can do, asked once at run time (CPUID via
// __builtin_cpu_supports), so a portable build (no -march=native) still picks the fast kernels.
// Which level the fast code uses is not kept here: an ExecContext (core/exec_context.h) carries
// it to the kernels, and each Rng has its own (Rng::set_simd_level).
// Also the size of a core's L2 cache (which operands the GEMM reads in place).
// Leaves out: core topology and the other caches (the kernels' block sizes are fixed).
#pragma once

#include <cstdint>
#include <string>
#include <utility>

#include "core/enum_names.h"

namespace scratchgpt {

// The instruction sets the cpu:: kernels have code paths for, slowest first.
enum class SimdLevel { kScalar = 0, kAvx2 = 1, kAvx512 = 2 };
// As --simd and SCRATCHGPT_SIMD spell them (simd_level_from_name).
inline constexpr std::pair<SimdLevel, const char*> kSimdLevelNames[] = {
    {SimdLevel::kAvx512, "avx512"}, {SimdLevel::kAvx2, "avx2"}, {SimdLevel::kScalar, "scalar"}};
// As reports, benchmarks and test traces print them: the instruction sets each level needs.
inline constexpr std::pair<SimdLevel, const char*> kSimdLevelLabels[] = {
    {SimdLevel::kScalar, "scalar"}, {SimdLevel::kAvx2, "avx2+fma"}, {SimdLevel::kAvx512, "avx512f"}};

inline const char* simd_level_name(SimdLevel s) {
  return enum_name<SimdLevel>(kSimdLevelLabels, s);
}

// The best level this CPU supports (AVX2 needs FMA as well; AVX-512 needs F and VL).
inline SimdLevel detected_simd_level() {
#if defined(__x86_64__) || defined(__i386__)
  static const SimdLevel level = [] {
    __builtin_cpu_init();
    const bool avx2 = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
    const bool avx512 =
        avx2 && __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512vl");
    return avx512 ? SimdLevel::kAvx512 : avx2 ? SimdLevel::kAvx2 : SimdLevel::kScalar;
  }();
  return level;
#else
  return SimdLevel::kScalar;
#endif
}

// Whether the CPU has AVX512_VNNI (vpdpbusd, the int8 dot product of the Q8 matvec's AVX-512
// path; Cascade Lake and later Intel, Zen 4 and later AMD).
inline bool cpu_has_avx512_vnni() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_cpu_init();
  return detected_simd_level() == SimdLevel::kAvx512 && __builtin_cpu_supports("avx512vnni");
#else
  return false;
#endif
}

// Whether the CPU has AVX512_BF16 (vdpbf16ps: bf16 pairs multiplied and summed into fp32 lanes;
// Cooper Lake and Sapphire Rapids Intel, Zen 4 and later AMD; each has AVX512BW too, which
// gemm_bf16's packers use): what --dtype bf16 needs.
inline bool cpu_has_avx512_bf16() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_cpu_init();
  return detected_simd_level() == SimdLevel::kAvx512 && __builtin_cpu_supports("avx512bf16") &&
         __builtin_cpu_supports("avx512bw");
#else
  return false;
#endif
}

// "scalar", "avx2" or "avx512" (as --simd and SCRATCHGPT_SIMD spell them) -> the level; an
// unknown name is an Error listing the three.
SimdLevel simd_level_from_name(const std::string& name);
// The level the engine runs at unless told otherwise: SCRATCHGPT_SIMD when set (capped at what the
// CPU has: on an AVX-512 machine, SCRATCHGPT_SIMD=avx2 measures the AVX2 code), else the best.
SimdLevel default_simd_level();

// The L2 cache of one core in bytes, asked once (glibc's sysconf, which reads CPUID); 1 MiB when
// the system does not say. Zen 3: 512 KiB; Sapphire Rapids: 2 MiB.
uint64_t l2_cache_bytes();

// Physical memory in bytes (0 if unknown), to refuse a model that cannot fit before allocating it.
uint64_t physical_memory_bytes();
// "1.5 GiB", "300.0 MiB": a byte count for messages.
std::string format_bytes(double bytes);

// min(level, detected_simd_level()): what a context may ask for on this CPU.
inline SimdLevel cap_simd_level(SimdLevel level) {
  return level < detected_simd_level() ? level : detected_simd_level();
}

}  // namespace scratchgpt
