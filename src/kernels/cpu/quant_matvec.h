// quant_matvec.h: a Linear's weight held in fewer bytes for decoding (--weights): bf16 (half the
// bytes of fp32) or Q8 (blocks of 32 int8 with one float scale, 34/128 of them), converted once
// at load, and out (N, OC) = inp (N, C) @ W^T + b read from it. bf16 runs the fp32 matvec
// (matvec.h) on weights widened in registers; Q8 quantises each input row per block on the fly and
// sums blocks in int32 (vpdpbusd with AVX512_VNNI). Threaded over OC like matvec, so 1 and N
// threads agree bitwise. Readable twins: kernels/ref/quant.h. Leaves out: a GEMM for long prompts
// (N > 8 runs as groups of 8 rows, re-reading the weights per group), backward.
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
  std::vector<int8_t> q;       // (OC, nb * 32), nb = ref::q8_blocks(C), each row zero-padded
  std::vector<float> d;        // (OC, nb) the blocks' scales
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
