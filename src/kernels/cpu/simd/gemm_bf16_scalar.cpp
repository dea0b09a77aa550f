// gemm_bf16_scalar.cpp: the pair GEMM of gemm_bf16_impl.h over plain floats, four lanes (for CPUs
// without AVX2 and to test the blocking on its own). Each pair: two products, each exact, added
// one at a time, odd first: the same bits as vdpbf16ps's fused steps.
#include <cstdint>

#include "kernels/cpu/simd/gemm_bf16_simd.h"

namespace scratchgpt::cpu::detail {
namespace {

// Lanes of fp32 sums (x) or of pair words (w): an operand of dot is words, the rest sums.
struct PairsScalar {
  struct T {
    float x[4];
    uint32_t w[4];
  };
  static constexpr int kW = 4;
  static T zero() { return T{{0.0f, 0.0f, 0.0f, 0.0f}, {}}; }
  static T load(const float* p) { return T{{p[0], p[1], p[2], p[3]}, {}}; }
  static void store(float* p, T a) {
    for (int i = 0; i < 4; ++i) p[i] = a.x[i];
  }
  static T add(T a, T b) {
    T r{};
    for (int i = 0; i < 4; ++i) r.x[i] = a.x[i] + b.x[i];
    return r;
  }
  static T words(const uint32_t* p) { return T{{}, {p[0], p[1], p[2], p[3]}}; }
  static T bcast_word(const uint32_t* p) { return T{{}, {*p, *p, *p, *p}}; }
  static float odd(uint32_t w) { return ref::float_from_bf16(static_cast<uint16_t>(w >> 16)); }
  static float even(uint32_t w) { return ref::float_from_bf16(static_cast<uint16_t>(w & 0xffffu)); }
  static T dot(T acc, T a, T b) {
    for (int i = 0; i < 4; ++i) {
      acc.x[i] += odd(a.w[i]) * odd(b.w[i]);
      acc.x[i] += even(a.w[i]) * even(b.w[i]);
    }
    return acc;
  }
};

#include "kernels/cpu/simd/gemm_bf16_impl.h"

}  // namespace

using Path = Blocking<PairsScalar, 4, 1, 128, 256>;

void gemm_bf16_scalar(const GemmArgs& g, ThreadPool& pool) { gemm_bf16_blocked<Path>(g, pool); }
void gemm_bf16_pack_b_scalar(const GemmArgs& g, uint32_t* out, ThreadPool& pool) {
  pack_b_whole<Path>(g, out, pool);
}
int gemm_bf16_nr_scalar(int) { return Path::NR; }

}  // namespace scratchgpt::cpu::detail
