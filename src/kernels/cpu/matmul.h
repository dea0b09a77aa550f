// matmul.h: the linear layer y = x W^T + b, fast: packed, register-blocked SIMD (AVX-512, AVX2+FMA
// or portable scalar, picked by the context's level, see simd.h) and threaded on its pool
// (ex.workers()).
// Same names and signatures as ref::matmul.h (float). Every output element is reduced by one
// thread in a fixed order, so 1 and N threads give bitwise-identical results.
// The forward with a few rows (N <= 8, decoding) goes to cpu::matvec_forward instead (matvec.h):
// packing the whole weight for one row costs more than the product. The GEMMs run on the backend
// of matmul_backend.h: ours (gemm.h) or, in builds with oneDNN, its sgemm (the default there).
// Memory: packing uses per-thread grow-once buffers (at most 512 x 768 floats for B, 12 x 512
// for A per thread); steady-state calls allocate nothing. Readable twin: kernels/ref/matmul.h.
#pragma once

#include <cstddef>
#include <cstdint>

#include "core/exec_context.h"
#include "kernels/cpu/gemm.h"

namespace scratchgpt::cpu {

// --dtype bf16: a weight (OC, C) rounded and packed ahead for both products that read it, so that
// the calls between two AdamW steps pack none (GPT packs its Linears' weights once after each
// step). Made by matmul_pack_weight_bf16 for one context's level and backend: our GEMM's pair
// panels, or for oneDNN's bf16 matmul (matmul_backend.h's bf16_on_onednn) the weight in bf16 and
// its transpose; null: none.
struct WeightPairs {
  detail::PackedPairs wt;  // B = W^T (C x OC): the forward
  detail::PackedPairs w;   // B = W (OC x C): dinp
  const uint16_t* w16 = nullptr;   // (OC, C) bf16: the forward's B^T on oneDNN
  const uint16_t* wt16 = nullptr;  // (C, OC) bf16: dinp's B^T on oneDNN
};
// Where a weight's WeightPairs were packed (matmul_pack_weight_bf16's weight, C, OC and words),
// for packing rows of it again (matmul_pack_weight_bf16_rows; adamw.h's AdamWArray).
struct WeightPairsWords {
  const float* weight;
  uint32_t* words;
  int C, OC;
};
// The words matmul_pack_weight_bf16 writes for a weight (OC, C) at ex's level.
size_t matmul_weight_pairs_words(const ExecContext& ex, int C, int OC);
// Packs weight (OC, C) into words (matmul_weight_pairs_words of them), on ex's pool.
WeightPairs matmul_pack_weight_bf16(const ExecContext& ex, const float* weight, int C, int OC,
                                    uint32_t* words);
// Packs only rows [r0, r1) of weight again into the words matmul_pack_weight_bf16 filled (after
// those rows changed: AdamW's, adamw.h), on the calling thread; the same words as packing the
// whole weight again. Whole blocks: r0 a multiple of matmul_weight_row_block, r1 one or OC.
void matmul_pack_weight_bf16_rows(const ExecContext& ex, const float* weight, int C, int OC,
                                  uint32_t* words, int r0, int r1);
int matmul_weight_row_block(const ExecContext& ex, int OC);

// out (N, OC) = inp (N, C) @ weight (OC, C)^T + bias (OC) (bias may be null). N is usually B*T.
// pairs (bf16 only; may be null): weight packed ahead, read instead of weight.
void matmul_forward(const ExecContext& ex, float* out, const float* inp, const float* weight,
                    const float* bias, int N, int C, int OC, const WeightPairs* pairs = nullptr);

// Accumulates (+=) into dinp (N, C), dweight (OC, C), dbias (OC); any of them may be null.
// dinp = dout @ W;  dweight = dout^T @ inp (reduced over N in order);  dbias = sum_n dout.
// accumulate_dinp false: dinp is written (=) and never read, saving its clearing and reading.
// accumulate_dparams false: likewise dweight and dbias, each element 0.0f + its sum, the bits
// that adding into a cleared array gives (what a layer's first backward after zero_grad wants).
void matmul_backward(const ExecContext& ex, float* dinp, float* dweight, float* dbias,
                     const float* dout, const float* inp, const float* weight, int N, int C, int OC,
                     bool accumulate_dinp = true, bool accumulate_dparams = true,
                     const WeightPairs* pairs = nullptr);

}  // namespace scratchgpt::cpu
