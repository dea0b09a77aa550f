// matmul.cpp: cpu::matmul_* as three GEMMs (gemm.h) plus a column-sum for the bias gradient; a
// forward of a few rows (decoding) goes to the matrix-vector kernel (matvec.h) instead. The
// context's backend (matmul_backend.h) sends each of the three products to our GEMM or to
// oneDNN's (matmul_onednn.cpp). The weight gradient of a small layer is computed in two halves
// of the rows (dweight_by_row_halves). With ExecContext::dtype bf16 the products run on
// gemm_bf16 instead (matmul_*_bf16 below).
#include "kernels/cpu/matmul.h"

#include <cstdint>

#include "core/thread_pool.h"
#include "kernels/cpu/gemm.h"
#include "kernels/cpu/matmul_backend.h"
#include "kernels/cpu/matmul_onednn.h"
#include "kernels/cpu/matvec.h"
#include "kernels/cpu/parallel.h"

namespace scratchgpt::cpu {

namespace {
enum class Product { kForward, kDinp, kDweight };

// The weight gradient of a layer whose operands fit in a core's L2 (inp and dout, N x (C + OC)
// floats, at most 2 MiB) over many rows (N >= 512): the small model's every layer. Computed in two
// halves of the rows: the first added into dweight, the second into a partial (OC, C), then
// dweight += partial (the first half written instead when !accumulate). At two threads each thread
// reads the rows that it wrote itself (the row-parallel kernels before it split the rows in the
// same halves) instead of half of every row from the other core's cache: the small model's
// step 14.4 -> 14.0 ms, its weight gradients 4.2 (oneDNN's) or 5.0 (ours whole) -> 3.7 ms at two
// threads, no change at one. shakespeare-char at B = 8 (24 MiB of operands) gained nothing. The
// halves depend on the shape only, so the bits do not depend on the thread count.
bool dweight_in_row_halves(int N, int C, int OC) {
  return N >= 512 && int64_t{N} * (C + OC) <= 512 * 1024;
}

void dweight_by_row_halves(const ExecContext& ex, float* dweight, const float* dout,
                           const float* inp, int N, int C, int OC, bool accumulate) {
  ThreadPool& pool = ex.workers();
  // Rows of dweight per task: more tasks for more threads. In bf16 every task packs its half of
  // inp in pairs of rows itself, so as few tasks as the threads take (one a thread at two; 96 rows
  // packed qkv's inp 4 times, fc's 6: the small model's step 13.54 -> 13.29 ms, medians of ten
  // alternated runs on a Zen 4). The bits do not depend on it (each element sums its half's rows
  // in the same order whatever the tasks).
  const int half_threads = (pool.num_threads() + 1) / 2;
  const int row_block = ex.dtype == Dtype::kBf16 ? (OC + half_threads - 1) / half_threads : 96;
  const int blocks = (OC + row_block - 1) / row_block;
  const int64_t size = int64_t{OC} * C;
  float* partial = detail::thread_buffer(4, static_cast<size_t>(size));  // (OC, C)
  // Tasks half-major: at two threads, thread 0 takes the first half's blocks, thread 1 the second.
  pool.parallel_for(2 * blocks, [&](int64_t b, int64_t e, int) {
    for (int64_t t = b; t < e; ++t) {
      const int half = static_cast<int>(t / blocks), o0 = static_cast<int>(t % blocks) * row_block;
      const int n0 = half == 0 ? 0 : N / 2, n1 = half == 0 ? N / 2 : N;
      const int rows = OC - o0 < row_block ? OC - o0 : row_block;
      float* out = (half == 0 ? dweight : partial) + int64_t{o0} * C;  // (rows, C)
      // out (+)= dout[n0:n1, o0:o0+rows]^T (rows, n1 - n0) @ inp[n0:n1] (n1 - n0, C)
      // clang-format off
      (ex.dtype == Dtype::kBf16 ? detail::gemm_bf16 : detail::gemm)(
          ex.isa, {.M = rows, .N = C, .K = n1 - n0,
                   .A = dout + int64_t{n0} * OC + o0, .rs_a = 1, .cs_a = OC,
                   .B = inp + int64_t{n0} * C, .rs_b = C, .cs_b = 1,
                   .C = out, .ldc = C, .init = half == 1 || !accumulate},
          detail::serial_pool());
      // clang-format on
    }
  });
  detail::for_chunks(pool, size, [&](int64_t b, int64_t e) {
    for (int64_t i = b; i < e; ++i) dweight[i] += partial[i];
  });
}

// Whether the context's backend (kAuto: the build's default) runs product p of a layer with C
// inputs through oneDNN.
bool uses_onednn(const ExecContext& ex, Product p, int C) {
  switch (ex.matmul == MatmulBackend::kAuto ? default_matmul_backend() : ex.matmul) {
    case MatmulBackend::kOneDnn:
      return true;
    case MatmulBackend::kMixed:  // what measured faster (matmul_backend.h)
      return p == Product::kDinp && mixed_dinp_on_onednn(C);
    default:
      return false;
  }
}
// --dtype bf16 on oneDNN's bf16 matmul (bf16_on_onednn): each operand rounded first into a bf16
// copy in the layout gemm_bf16_nt reads, A (M, K) and B^T (N, K) row-major, in the calling
// thread's buffers 0 and 1 (our GEMM's packing buffers, idle meanwhile); a weight rounded ahead
// (WeightPairs' w16, wt16) is read as it is.
const uint16_t* bf16_rows(const ExecContext& ex, int slot, const float* x, int64_t n) {
  auto* out = reinterpret_cast<uint16_t*>(detail::thread_buffer(slot, size_t((n + 1) / 2)));
  detail::round_bf16(ex.isa, out, x, n, ex.workers());
  return out;
}
// x (rows, cols) rounded and transposed: (cols, rows).
const uint16_t* bf16_transposed(const ExecContext& ex, int slot, const float* x, int rows,
                                int cols) {
  auto* out =
      reinterpret_cast<uint16_t*>(detail::thread_buffer(slot, (size_t(rows) * cols + 1) / 2));
  detail::round_bf16_transposed(ex.isa, out, rows, x, rows, cols, cols, ex.workers());
  return out;
}

// --dtype bf16: the three products on gemm_bf16 (gemm.h: inputs rounded to bf16 as they are
// packed, multiplied in pairs, summed in fp32; vdpbf16ps on a CPU with AVX512_BF16) or on
// oneDNN's bf16 matmul (bf16_on_onednn: AMX where the CPU has it), never oneDNN's fp32 GEMM; the
// bias gradient sums dout itself, in fp32 (a reduction).
void matmul_forward_bf16(const ExecContext& ex, float* out, const float* inp, const float* weight,
                         const float* bias, int N, int C, int OC, const WeightPairs* pairs) {
  if (bf16_on_onednn(ex.matmul)) {
    // out (N, OC) = bf16(inp) (N, C) @ bf16(W)^T + bias: B^T = W
    const uint16_t* w16 =
        pairs && pairs->w16 ? pairs->w16 : bf16_rows(ex, 0, weight, int64_t{OC} * C);
    return onednn::gemm_bf16_nt(N, OC, C, bf16_rows(ex, 1, inp, int64_t{N} * C), w16, out, OC,
                                /*accumulate=*/false, bias, ex.workers());
  }
  // out (N, OC) = bf16(inp) (N, C) @ bf16(W)^T + bias: B[k][j] = W[j][k]
  // clang-format off
  detail::gemm_bf16(ex.isa, {.M = N, .N = OC, .K = C,
                             .A = inp, .rs_a = C, .cs_a = 1,
                             .B = weight, .rs_b = 1, .cs_b = C,
                             .C = out, .ldc = OC, .init = true, .bias = bias,
                             .Bp = pairs && pairs->wt.words ? &pairs->wt : nullptr},
                    ex.workers());
  // clang-format on
}

void matmul_backward_bf16(const ExecContext& ex, float* dinp, float* dweight, float* dbias,
                          const float* dout, const float* inp, const float* weight, int N, int C,
                          int OC, bool accumulate_dinp, bool accumulate_dparams,
                          const WeightPairs* pairs) {
  if (dbias) {
    ExecContext fp32 = ex;
    fp32.dtype = Dtype::kFp32;
    matmul_backward(fp32, nullptr, nullptr, dbias, dout, inp, weight, N, C, OC, accumulate_dinp,
                    accumulate_dparams);
  }
  if (bf16_on_onednn(ex.matmul)) {
    if (dinp) {  // dinp (N, C) (+)= bf16(dout) (N, OC) @ bf16(W) (OC, C): B^T = W^T (C, OC)
      const uint16_t* wt16 =
          pairs && pairs->wt16 ? pairs->wt16 : bf16_transposed(ex, 0, weight, OC, C);
      onednn::gemm_bf16_nt(N, C, OC, bf16_rows(ex, 1, dout, int64_t{N} * OC), wt16, dinp, C,
                           accumulate_dinp, nullptr, ex.workers());
    }
    if (dweight)  // dweight (OC, C) (+)= bf16(dout)^T (OC, N) @ bf16(inp) (N, C): B^T = inp^T
      onednn::gemm_bf16_nt(OC, C, N, bf16_transposed(ex, 0, dout, N, OC),
                           bf16_transposed(ex, 1, inp, N, C), dweight, C, accumulate_dparams,
                           nullptr, ex.workers());
    return;
  }
  // clang-format off
  if (dinp)  // dinp (N, C) (+)= bf16(dout) (N, OC) @ bf16(W) (OC, C)
    detail::gemm_bf16(ex.isa, {.M = N, .N = C, .K = OC,
                               .A = dout, .rs_a = OC, .cs_a = 1,
                               .B = weight, .rs_b = C, .cs_b = 1,
                               .C = dinp, .ldc = C, .init = !accumulate_dinp,
                               .Bp = pairs && pairs->w.words ? &pairs->w : nullptr},
                      ex.workers());
  // clang-format on
  if (dweight && dweight_in_row_halves(N, C, OC))  // as fp32's (each half summed in pairs)
    dweight_by_row_halves(ex, dweight, dout, inp, N, C, OC, accumulate_dparams);
  else if (dweight)  // dweight (OC, C) (+)= bf16(dout)^T (OC, N) @ bf16(inp) (N, C)
    detail::gemm_bf16(ex.isa, {.M = OC, .N = C, .K = N,
                               .A = dout, .rs_a = 1, .cs_a = OC,
                               .B = inp, .rs_b = C, .cs_b = 1,
                               .C = dweight, .ldc = C, .init = !accumulate_dparams},
                      ex.workers());
}
}  // namespace

size_t matmul_weight_pairs_words(const ExecContext& ex, int C, int OC) {
  if (bf16_on_onednn(ex.matmul)) return 2 * ((size_t(OC) * C + 1) / 2);  // W and W^T in bf16
  return detail::gemm_bf16_packed_words(ex.isa, C, OC) +
         detail::gemm_bf16_packed_words(ex.isa, OC, C);
}

int matmul_weight_row_block(const ExecContext& ex, int OC) {
  return bf16_on_onednn(ex.matmul) ? 64 : detail::gemm_bf16_panel(ex.isa, OC);
}

namespace {
// Rows [r0, r1) of weight (OC, C) into both layouts of its WeightPairs, on pool: for oneDNN W
// and W^T in bf16, for our GEMM the B operands of the forward (W^T: B[k][j] = W[j][k], whose
// columns are W's rows) and of dinp (W), as those calls read them.
void pack_weight_rows(const ExecContext& ex, const float* weight, int C, int OC, uint32_t* words,
                      int r0, int r1, ThreadPool& pool) {
  if (bf16_on_onednn(ex.matmul)) {
    auto* w16 = reinterpret_cast<uint16_t*>(words);
    auto* wt16 = reinterpret_cast<uint16_t*>(words + (size_t(OC) * C + 1) / 2);
    detail::round_bf16(ex.isa, w16 + int64_t{r0} * C, weight + int64_t{r0} * C,
                       int64_t{r1 - r0} * C, pool);
    detail::round_bf16_transposed(ex.isa, wt16 + r0, OC, weight + int64_t{r0} * C, r1 - r0, C, C,
                                  pool);
    return;
  }
  // clang-format off
  detail::gemm_bf16_pack_b_part(ex.isa, {.N = OC, .K = C, .B = weight, .rs_b = 1, .cs_b = C},
                                words, 0, C, r0, r1, pool);
  detail::gemm_bf16_pack_b_part(ex.isa, {.N = C, .K = OC, .B = weight, .rs_b = C, .cs_b = 1},
                                words + detail::gemm_bf16_packed_words(ex.isa, C, OC),
                                r0, r1, 0, C, pool);
  // clang-format on
}
}  // namespace

WeightPairs matmul_pack_weight_bf16(const ExecContext& ex, const float* weight, int C, int OC,
                                    uint32_t* words) {
  pack_weight_rows(ex, weight, C, OC, words, 0, OC, ex.workers());
  WeightPairs p;
  if (bf16_on_onednn(ex.matmul)) {
    p.w16 = reinterpret_cast<const uint16_t*>(words);
    p.wt16 = reinterpret_cast<const uint16_t*>(words + (size_t(OC) * C + 1) / 2);
    return p;
  }
  const SimdLevel path = detail::gemm_bf16_path(ex.isa);
  p.wt = {words, path, C, OC};
  p.w = {words + detail::gemm_bf16_packed_words(ex.isa, C, OC), path, OC, C};
  return p;
}

void matmul_pack_weight_bf16_rows(const ExecContext& ex, const float* weight, int C, int OC,
                                  uint32_t* words, int r0, int r1) {
  const int block = matmul_weight_row_block(ex, OC);
  SG_CHECK(0 <= r0 && r0 <= r1 && r1 <= OC && r0 % block == 0 && (r1 % block == 0 || r1 == OC),
           "matmul_pack_weight_bf16_rows: rows [", r0, ", ", r1, ") of ", OC,
           " are not whole blocks of ", block);
  pack_weight_rows(ex, weight, C, OC, words, r0, r1, detail::serial_pool());
}

void matmul_forward(const ExecContext& ex, float* out, const float* inp, const float* weight,
                    const float* bias, int N, int C, int OC, const WeightPairs* pairs) {
  if (ex.dtype == Dtype::kBf16)
    return matmul_forward_bf16(ex, out, inp, weight, bias, N, C, OC, pairs);
  if (N >= 1 && N <= kMatvecMaxN) return matvec_forward(ex, out, inp, weight, bias, N, C, OC);
  if (uses_onednn(ex, Product::kForward, C))
    return onednn::matmul_forward(out, inp, weight, bias, N, C, OC, ex.workers());
  // out (N, OC) = inp (N, C) @ W^T + bias: B[k][j] = W[j][k]
  detail::gemm(ex.isa, {.M = N, .N = OC, .K = C,
                        .A = inp, .rs_a = C, .cs_a = 1,
                        .B = weight, .rs_b = 1, .cs_b = C,
                        .C = out, .ldc = OC, .init = true, .bias = bias},
               ex.workers());
}

void matmul_backward(const ExecContext& ex, float* dinp, float* dweight, float* dbias,
                     const float* dout, const float* inp, const float* weight, int N, int C,
                     int OC, bool accumulate_dinp, bool accumulate_dparams,
                     const WeightPairs* pairs) {
  if (ex.dtype == Dtype::kBf16)
    return matmul_backward_bf16(ex, dinp, dweight, dbias, dout, inp, weight, N, C, OC,
                                accumulate_dinp, accumulate_dparams, pairs);
  ThreadPool& pool = ex.workers();
  // The products oneDNN takes are done first and dropped; the bias gradient is ours either way.
  float* onednn_dinp = uses_onednn(ex, Product::kDinp, C) ? dinp : nullptr;
  float* onednn_dweight = uses_onednn(ex, Product::kDweight, C) ? dweight : nullptr;
  if (onednn_dinp || onednn_dweight) {
    onednn::matmul_backward_data(onednn_dinp, onednn_dweight, dout, inp, weight, N, C, OC, pool,
                                 accumulate_dinp, accumulate_dparams);
    if (onednn_dinp) dinp = nullptr;
    if (onednn_dweight) dweight = nullptr;
  }
  if (dinp) {
    // dinp (N, C) += dout (N, OC) @ W (OC, C), or = when not accumulating
    detail::gemm(ex.isa, {.M = N, .N = C, .K = OC,
                          .A = dout, .rs_a = OC, .cs_a = 1,
                          .B = weight, .rs_b = C, .cs_b = 1,
                          .C = dinp, .ldc = C, .init = !accumulate_dinp},
                 pool);
  }
  if (dweight && dweight_in_row_halves(N, C, OC)) {
    dweight_by_row_halves(ex, dweight, dout, inp, N, C, OC, accumulate_dparams);
  } else if (dweight) {
    // dweight (OC, C) += dout^T (OC, N) @ inp (N, C): A[o][n] = dout[n][o]; = when !accumulate
    detail::gemm(ex.isa, {.M = OC, .N = C, .K = N,
                          .A = dout, .rs_a = 1, .cs_a = OC,
                          .B = inp, .rs_b = C, .cs_b = 1,
                          .C = dweight, .ldc = C, .init = !accumulate_dparams},
                 pool);
  }
  if (dbias) {
    // dbias (OC) += sum over n of dout (N, OC): chunks of kCols columns, each summed in n order
    // (the same order as the reference, so this part matches it bit for bit).
    constexpr int kCols = 64;
    const int64_t chunks = (OC + kCols - 1) / kCols;
    pool.parallel_for(chunks, [&](int64_t b, int64_t e, int) {
      for (int64_t ch = b; ch < e; ++ch) {
        const int o0 = static_cast<int>(ch) * kCols;
        const int w = OC - o0 < kCols ? OC - o0 : kCols;
        float acc[kCols] = {};
        for (int n = 0; n < N; ++n) {
          const float* d = dout + static_cast<int64_t>(n) * OC + o0;
          for (int j = 0; j < w; ++j) acc[j] += d[j];
        }
        for (int j = 0; j < w; ++j)
          dbias[o0 + j] = (accumulate_dparams ? dbias[o0 + j] : 0.0f) + acc[j];
      }
    });
  }
}

}  // namespace scratchgpt::cpu
