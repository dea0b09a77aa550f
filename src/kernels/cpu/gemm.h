// gemm.h: the single-precision matrix product behind cpu::matmul (and usable by other cpu::
// kernels): C (M, N) = bias + A B, or C += A B, with A and B read through arbitrary strides.
// Packed, register-blocked SIMD micro-kernels (AVX-512, AVX2+FMA, and a portable scalar one),
// threaded over row strips of C. Deterministic: every C element is reduced by one thread in a
// fixed order (K blocks in order, k in order inside), so any thread count gives the same bits.
// gemm_bf16: the same with bf16 inputs. Leaves out: alpha/beta scaling, fp16. Simpler twin: kernels/ref/matmul.h.
#pragma once

#include <cstddef>
#include <cstdint>

#include "core/cpu_features.h"
#include "core/thread_pool.h"

namespace scratchgpt::cpu::detail {

struct PackedPairs;

struct GemmArgs {
  int M = 0, N = 0, K = 0;
  const float* A = nullptr;  // A[i][k] = A[i * rs_a + k * cs_a], i < M, k < K
  int64_t rs_a = 0, cs_a = 0;
  const float* B = nullptr;  // B[k][j] = B[k * rs_b + j * cs_b], k < K, j < N
  int64_t rs_b = 0, cs_b = 0;
  float* C = nullptr;  // C[i][j] = C[i * ldc + j]
  int64_t ldc = 0;
  bool init = false;            // true: C = bias[j] (or 0) + A B; false: C += A B
  const float* bias = nullptr;  // (N) or nullptr; used only when init
  // Triangular structure to exploit (causal attention). lower_c: only C[i][j] with j <= i is
  // wanted; micro-tiles entirely above the diagonal are skipped (left unwritten). a_tri: A is
  // known to be zero for k > i (kLower) or for k < i (kUpper); those products are skipped.
  enum Tri { kFull = 0, kLower = 1, kUpper = 2 };
  bool lower_c = false;
  Tri a_tri = kFull;
  // gemm_bf16 only: B already packed by gemm_bf16_pack_b (B and its strides are then not read).
  const PackedPairs* Bp = nullptr;
};

// A B operand of gemm_bf16 rounded and packed ahead, for a B that many products read unchanged
// (a weight between two AdamW steps): the pair words in the order the path of `level` reads
// them (so only that level's gemm_bf16 may take it), for a K x N product.
struct PackedPairs {
  const uint32_t* words = nullptr;
  SimdLevel level = SimdLevel::kScalar;
  int K = 0, N = 0;
};

// Runs on `pool` with the code path of `level` (simd.h's pick).
void gemm(SimdLevel level, const GemmArgs& g, ThreadPool& pool);

// The same product with A and B rounded to bf16 and multiplied in pairs along k, summed in fp32
// (--dtype bf16's matrix products): gemm_bf16_impl.h defines the order of the sums, the same for
// every level, blocking and thread count; ref::gemm_bf16 is its plain loop. At kAvx512 it runs
// vdpbf16ps where the CPU has AVX512_BF16, else the AVX2 path. lower_c and a_tri as gemm's (the
// pairs skipped hold zeros of A only, so the sums are the loop's).
void gemm_bf16(SimdLevel level, const GemmArgs& g, ThreadPool& pool);
// The words gemm_bf16_pack_b writes for a K x N B at `level`: ceil(K / 2) pairs by N rounded up
// to the path's panel width.
size_t gemm_bf16_packed_words(SimdLevel level, int K, int N);
// Packs g's B (g.K x g.N through rs_b, cs_b; nothing else of g is read) into out, the words of
// gemm_bf16_packed_words, for gemm_bf16 at `level`: GemmArgs::Bp = &the result gives the bits
// of the same product with B itself.
PackedPairs gemm_bf16_pack_b(SimdLevel level, const GemmArgs& g, uint32_t* out, ThreadPool& pool);
// Packs again only B's rows [k0, k1) and columns [j0, j1) into out, as gemm_bf16_pack_b laid it
// out, the other words left as they are (after those values of B changed). Whole pairs and
// panels: k0 even, k1 even or g.K, j0 a multiple of gemm_bf16_panel(level, g.N), j1 one or g.N.
void gemm_bf16_pack_b_part(SimdLevel level, const GemmArgs& g, uint32_t* out, int k0, int k1,
                           int j0, int j1, ThreadPool& pool);
// The panel width of gemm_bf16's B at `level` for a product of N columns.
int gemm_bf16_panel(SimdLevel level, int N);
// The level whose code gemm_bf16 runs at `level` (AVX-512 only on a CPU with AVX512_BF16, else
// AVX2): what a PackedPairs records.
SimdLevel gemm_bf16_path(SimdLevel level);

// The operands of a library's bf16 product (oneDNN's, matmul_onednn.h), rounded to nearest even
// as gemm_bf16 rounds them (ref::bf16_from_float; the AVX-512 path with vcvtneps2bf16, which only
// differs on a denormal, read as zero by the instruction anyway), on `pool`:
//   round_bf16:            out[i] = bf16(x[i]) for i < n (out 4-byte aligned)
//   round_bf16_transposed: out (cols, rows) = bf16(x (rows, cols))^T, out's rows ld_out words
//                          apart, x's ld floats
void round_bf16(SimdLevel level, uint16_t* out, const float* x, int64_t n, ThreadPool& pool);
void round_bf16_transposed(SimdLevel level, uint16_t* out, int64_t ld_out, const float* x, int rows,
                           int cols, int64_t ld, ThreadPool& pool);

// A one-thread pool: gemm(level, g, serial_pool()) runs on the calling thread (for kernels that
// already parallelise outside, e.g. attention over (B, NH)). Safe to use from many threads.
ThreadPool& serial_pool();

// A 64-byte aligned buffer of at least n floats owned by the calling thread, one per slot; grows
// and never shrinks, and is touched whole when it grows, so steady-state calls allocate nothing
// and fault in no page. Slots: 0 packed B, 1 packed A, 2 attention's scratch, 3 layernorm's and
// 4 matmul's partial parameter gradients (filled by the pool's threads for the thread that owns
// the slot), 5 attention's transposed operand, 6 attention's (T, T) scores or their gradient
// when the caller keeps none (gemm_bf16's packed pairs use slots 0 and 1).
float* thread_buffer(int slot, size_t n);

}  // namespace scratchgpt::cpu::detail
