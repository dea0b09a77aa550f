// gemm_scalar.cpp: the GEMM of gemm_impl.h over a plain 4-float "vector" (portable C++, for CPUs
// without AVX2+FMA and to test the blocking logic on its own). Products and sums stay separate
// (no fused multiply-add), like the scalar reference.
#include <cstdint>

#include "kernels/cpu/simd/gemm_simd.h"

// No auto-vectorisation here: this is the scalar path, and GCC 12's vectoriser (with -march=native)
// turned the in-place column-major A reads (AMode::kCols) into loads of rows past the strip's last
// one, which crashed on a page boundary. (GCC's pragma: clang, the fuzz preset's compiler, has no
// such file-wide switch and warns of an unknown pragma.)
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC optimize("no-tree-vectorize")
#endif

namespace scratchgpt::cpu::detail {
namespace {

struct VecScalar {
  struct T {
    float x[4];
  };
  static constexpr int kW = 4;
  static T zero() { return T{{0.0f, 0.0f, 0.0f, 0.0f}}; }
  static T load(const float* p) { return T{{p[0], p[1], p[2], p[3]}}; }
  static void store(float* p, T a) {
    for (int i = 0; i < 4; ++i) p[i] = a.x[i];
  }
  static T bcast(const float* p) { return T{{*p, *p, *p, *p}}; }
  static T fma(T a, T b, T c) {
    T r;
    for (int i = 0; i < 4; ++i) r.x[i] = a.x[i] * b.x[i] + c.x[i];
    return r;
  }
  static T add(T a, T b) {
    T r;
    for (int i = 0; i < 4; ++i) r.x[i] = a.x[i] + b.x[i];
    return r;
  }
  static constexpr bool kTranspose8 = false;  // pack_b_panel's scalar transpose instead
  static void transpose8(const float*, int64_t, float*, int64_t) {}
};

#include "kernels/cpu/simd/gemm_impl.h"

}  // namespace

void gemm_scalar(const GemmArgs& g, ThreadPool& pool) {
  gemm_blocked<VecScalar, 4, 2, 256, 512>(g, pool);
}

}  // namespace scratchgpt::cpu::detail
