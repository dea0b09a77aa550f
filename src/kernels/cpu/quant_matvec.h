// quant_matvec.h: a Linear's weight held in fewer bytes for decoding (--weights): bf16 (half the
// bytes of fp32) or Q8 (blocks of 32 int8 with one float scale, 34/128 of them), converted once
// at load, and out (N, OC) = inp (N, C) @ W^T + b read from it. bf16 runs the fp32 matvec
// (matvec.h) on weights widened in registers, and a prompt (more than 8 rows) the fp32 GEMM
// (gemm.h) on chunks of 128 rows widened at a time, a chunk to a task. Q8 is stored in panels of 16 rows interleaved by 4
// bytes, so each vector lane is one output row (kernels/cpu/simd/matvec_q8_impl.h); the input rows
// are quantised per block on the fly and each block summed in int32 (vpdpbusd with AVX512_VNNI),
// every input row against a panel while it is in cache: one pass over the weights for a whole
// prompt, which makes it a GEMM for prefill and eval. Threaded over output rows like matvec, so 1
// and N threads agree bitwise. Readable twins: kernels/ref/quant.h (on plain rows; the same bits).
// Leaves out: backward; AVX-VNNI (256-bit vpdpbusd) on CPUs with AVX2 only.
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

#include "core/exec_context.h"
#include "core/enum_names.h"

namespace scratchgpt::cpu {

enum class WeightFormat { kFp32, kBf16, kInt8 };
inline constexpr std::pair<WeightFormat, const char*> kWeightFormatNames[] = {
    {WeightFormat::kFp32, "fp32"}, {WeightFormat::kBf16, "bf16"}, {WeightFormat::kInt8, "int8"}};

// A (OC, C) weight matrix in bf16 or Q8 (nothing for fp32: the model's own weight is used).
struct QuantizedWeight {
  WeightFormat format = WeightFormat::kFp32;
  int OC = 0, C = 0;
  std::vector<uint16_t> bf16;  // (OC, C)
  // Q8: (panels, nb, 8, 16, 4), panels = ceil(OC / 16), nb = ref::q8_blocks(C): in block b,
  // byte k of panel row i at (k / 4) * 64 + i * 4 + k % 4, stored + 128 (unsigned); rows and
  // bytes past OC and C are zeros (128).
  std::vector<uint8_t> q;
  std::vector<float> d;  // (panels, nb, 16) the blocks' scales (0 past OC)
  // The bytes a matvec reads from it.
  int64_t bytes() const {
    return static_cast<int64_t>(bf16.size() * 2 + q.size() + d.size() * sizeof(float));
  }
};

// Converts weight (OC, C) to `format` (kBf16 or kInt8; threaded over rows).
QuantizedWeight quantize_weight(const ExecContext& ex, WeightFormat format, const float* weight,
                                int OC, int C);

// out (N, OC) = inp (N, C) @ w^T + bias (OC) (bias may be null), any N >= 1.
void quant_matvec_forward(const ExecContext& ex, float* out, const float* inp,
                          const QuantizedWeight& w, const float* bias, int N);

}  // namespace scratchgpt::cpu
