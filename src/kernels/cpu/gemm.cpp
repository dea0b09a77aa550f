// gemm.cpp: dispatch to the per-ISA GEMM and the per-thread packing buffers (see gemm.h).
#include "kernels/cpu/gemm.h"

#include <cstdlib>
#include <cstring>
#include <new>

#include "core/check.h"
#include "kernels/cpu/parallel.h"
#include "kernels/cpu/simd/gemm_bf16_simd.h"
#include "kernels/cpu/simd/gemm_simd.h"
#include "kernels/cpu/simd/simd.h"
#include "kernels/ref/bf16.h"

namespace scratchgpt::cpu::detail {

namespace {
// A product with nothing to multiply (M, N or K zero): with K = 0 and init, C = bias (or 0).
// Returns whether g is one (and so done).
bool empty_product(const GemmArgs& g) {
  if (g.M <= 0 || g.N <= 0) return true;
  if (g.K > 0) return false;
  if (g.init)
    for (int i = 0; i < g.M; ++i)
      for (int j = 0; j < g.N; ++j) g.C[i * g.ldc + j] = g.bias ? g.bias[j] : 0.0f;
  return true;
}
}  // namespace

void gemm(SimdLevel level, const GemmArgs& g, ThreadPool& pool) {
  if (empty_product(g)) return;
  pick(level, gemm_avx512, gemm_avx2, gemm_scalar)(g, pool);
}

SimdLevel gemm_bf16_path(SimdLevel level) {
  return level == SimdLevel::kAvx512 && !cpu_has_avx512_bf16() ? SimdLevel::kAvx2 : level;
}

void gemm_bf16(SimdLevel level, const GemmArgs& g, ThreadPool& pool) {
  level = gemm_bf16_path(level);
  if (g.Bp)
    SG_CHECK(g.Bp->level == level && g.Bp->K == g.K && g.Bp->N == g.N,
             "gemm_bf16: B was packed for another product or code path");
  if (empty_product(g)) return;
  pick(level, gemm_bf16_avx512, gemm_bf16_avx2, gemm_bf16_scalar)(g, pool);
}

int gemm_bf16_panel(SimdLevel level, int N) {
  return pick(gemm_bf16_path(level), gemm_bf16_nr_avx512, gemm_bf16_nr_avx2,
              gemm_bf16_nr_scalar)(N);
}

size_t gemm_bf16_packed_words(SimdLevel level, int K, int N) {
  const size_t nr = static_cast<size_t>(gemm_bf16_panel(level, N));
  return (static_cast<size_t>(K) + 1) / 2 * ((static_cast<size_t>(N) + nr - 1) / nr * nr);
}

PackedPairs gemm_bf16_pack_b(SimdLevel level, const GemmArgs& g, uint32_t* out, ThreadPool& pool) {
  gemm_bf16_pack_b_part(level, g, out, 0, g.K, 0, g.N, pool);
  return {out, gemm_bf16_path(level), g.K, g.N};
}

void gemm_bf16_pack_b_part(SimdLevel level, const GemmArgs& g, uint32_t* out, int k0, int k1,
                           int j0, int j1, ThreadPool& pool) {
  const int nr = gemm_bf16_panel(level, g.N);
  SG_CHECK(0 <= k0 && k0 <= k1 && k1 <= g.K && k0 % 2 == 0 && (k1 % 2 == 0 || k1 == g.K) &&
               0 <= j0 && j0 <= j1 && j1 <= g.N && j0 % nr == 0 && (j1 % nr == 0 || j1 == g.N),
           "gemm_bf16_pack_b_part: rows [", k0, ", ", k1, ") and columns [", j0, ", ", j1,
           ") are not whole pairs and panels of ", nr, " of a ", g.K, " x ", g.N, " B");
  if (k0 == k1 || j0 == j1) return;
  pick(gemm_bf16_path(level), gemm_bf16_pack_b_avx512, gemm_bf16_pack_b_avx2,
       gemm_bf16_pack_b_scalar)(g, out, k0, k1, j0, j1, pool);
}

void round_bf16(SimdLevel level, uint16_t* out, const float* x, int64_t n, ThreadPool& pool) {
  SG_CHECK(reinterpret_cast<uintptr_t>(out) % 4 == 0, "round_bf16: out must be 4-byte aligned");
  const auto round = pick(gemm_bf16_path(level), gemm_bf16_round_avx512, gemm_bf16_round_avx2,
                          gemm_bf16_round_scalar);
  // Chunks start at multiples of kChunk (even): on a pair word.
  for_chunks(pool, n, [&](int64_t i0, int64_t i1) { round(out + i0, x + i0, i1 - i0); });
}

void round_bf16_transposed(SimdLevel level, uint16_t* out, int64_t ld_out, const float* x, int rows,
                           int cols, int64_t ld, ThreadPool& pool) {
  const auto block = pick(gemm_bf16_path(level), gemm_bf16_round_transposed_avx512,
                          gemm_bf16_round_transposed_avx2, gemm_bf16_round_transposed_scalar);
  // Blocks of 64 x 64: a block's rows of x and of out stay in L1 while it is transposed.
  constexpr int kB = 64;
  const int64_t row_blocks = (rows + kB - 1) / kB, col_blocks = (cols + kB - 1) / kB;
  pool.parallel_for(row_blocks * col_blocks, [&](int64_t b, int64_t e, int) {
    for (int64_t t = b; t < e; ++t) {
      const int c0 = static_cast<int>(t / row_blocks) * kB;
      const int r0 = static_cast<int>(t % row_blocks) * kB;
      block(out + c0 * ld_out + r0, ld_out, x + r0 * ld + c0, ld, rows - r0 < kB ? rows - r0 : kB,
            cols - c0 < kB ? cols - c0 : kB);
    }
  });
}

ThreadPool& serial_pool() {
  static ThreadPool pool(1);
  return pool;
}

namespace {
struct ThreadBuffers {
  static constexpr int kSlots = 7;
  float* ptr[kSlots] = {};
  size_t cap[kSlots] = {};
  ~ThreadBuffers() {
    for (float* p : ptr) std::free(p);
  }
};
}  // namespace

float* thread_buffer(int slot, size_t n) {
  thread_local ThreadBuffers bufs;
  if (bufs.cap[slot] < n) {
    std::free(bufs.ptr[slot]);
    bufs.ptr[slot] = nullptr;
    bufs.cap[slot] = 0;
    const size_t bytes = ((n * sizeof(float) + 63) / 64) * 64;
    bufs.ptr[slot] = static_cast<float*>(std::aligned_alloc(64, bytes));
    if (!bufs.ptr[slot]) throw std::bad_alloc();
    // Touched whole now: a call may use only part of it (the GEMM writes edge panels only, at
    // offsets that depend on the shape), and a part first touched in a later step would fault
    // pages in during training (the steady-state page-fault test caught 74 pages in step 2).
    std::memset(bufs.ptr[slot], 0, bytes);
    bufs.cap[slot] = n;
  }
  return bufs.ptr[slot];
}

}  // namespace scratchgpt::cpu::detail
