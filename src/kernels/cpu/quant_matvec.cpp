// quant_matvec.cpp: conversion of a weight to bf16 or Q8 (packed in panels of 16 rows), and the
// dispatch of the quantised matvec to the per-ISA kernels, threaded over fixed chunks of output
// rows (see quant_matvec.h).
#include "kernels/cpu/quant_matvec.h"

#include <algorithm>
#include <cstdint>
#include <vector>

#include "core/check.h"
#include "core/cpu_features.h"
#include "core/thread_pool.h"
#include "kernels/cpu/gemm.h"
#include "kernels/cpu/simd/matvec_q8_simd.h"
#include "kernels/cpu/simd/matvec_simd.h"
#include "kernels/cpu/simd/simd.h"
#include "kernels/ref/quant.h"

namespace scratchgpt::cpu {

namespace {

constexpr int kRowsPerTask = 32;  // output rows per task (two Q8 panels), as matvec.cpp
constexpr int kMaxRows = 8;       // bf16: input rows per pass over the weights
constexpr int kPanel = 16;        // Q8: output rows per panel
constexpr int kQ8ThreadedRows = 8;  // Q8: more input rows than this are quantised threaded
constexpr int kBf16GemmRows = 128;  // bf16 prompts: weight rows widened per task

using Bf16Fn = void (*)(float*, const float*, const uint16_t*, int64_t, const float*, int, int,
                        int, int, int);

// The AVX-512 Q8 unit is the VNNI build: without VNNI, AVX2's.
detail::Q8PanelsFn q8_fn(SimdLevel level) {
  if (level == SimdLevel::kAvx512 && !cpu_has_avx512_vnni()) level = SimdLevel::kAvx2;
  return pick<detail::Q8PanelsFn>(level, detail::matvec_q8_panels_avx512,
                                  detail::matvec_q8_panels_avx2, detail::matvec_q8_panels_scalar);
}

// The input quantisation: the AVX-512 unit's needs no VNNI, but goes with the product's unit.
detail::Q8QuantizeFn q8_quantize_fn(SimdLevel level) {
  if (level == SimdLevel::kAvx512 && !cpu_has_avx512_vnni()) level = SimdLevel::kAvx2;
  return pick<detail::Q8QuantizeFn>(level, detail::quantize_q8_rows_avx512,
                                    detail::quantize_q8_rows_avx2, detail::quantize_q8_rows_scalar);
}

// fn(o0, o1) over [0, OC) in tasks of kRowsPerTask rows; on the caller when small.
template <typename Fn>
void over_rows(const ExecContext& ex, int OC, int64_t work, const Fn& fn) {
  const int64_t tasks = (OC + kRowsPerTask - 1) / kRowsPerTask;
  if (work < 64 * 1024 || tasks == 1) return fn(0, OC);
  ex.workers().parallel_for(tasks, [&](int64_t b, int64_t e, int) {
    fn(static_cast<int>(b) * kRowsPerTask, static_cast<int>(std::min<int64_t>(e * kRowsPerTask, OC)));
  });
}

// Panel p of w: rows [16 p, 16 p + 16) of weight (OC, C) quantised (ref::quantize_q8), stored
// as the kernels read them (matvec_q8_simd.h): byte k of row i in block b at
// ((b * 8 + k / 4) * 16 + i) * 4 + k % 4, plus 128; rows past OC are zeros with scale 0.
void pack_q8_panel(QuantizedWeight& w, const float* weight, int p) {
  const int nb = ref::q8_blocks(w.C);
  std::vector<int8_t> q(static_cast<size_t>(nb) * ref::kQ8Block);  // (nb*32) one row
  std::vector<float> d(nb);                                         // (nb)
  uint8_t* pw = w.q.data() + int64_t{p} * nb * 512;
  float* pd = w.d.data() + int64_t{p} * nb * kPanel;
  for (int i = 0; i < kPanel; ++i) {
    const int64_t o = int64_t{p} * kPanel + i;
    if (o < w.OC)
      ref::quantize_q8(weight + o * w.C, w.C, q.data(), d.data());
    else
      std::fill(q.begin(), q.end(), int8_t{0}), std::fill(d.begin(), d.end(), 0.0f);
    for (int b = 0; b < nb; ++b) {
      for (int k = 0; k < ref::kQ8Block; ++k)
        pw[(int64_t{b} * 8 + k / 4) * 64 + i * 4 + k % 4] =
            static_cast<uint8_t>(q[b * ref::kQ8Block + k]) ^ 0x80;
      pd[b * kPanel + i] = d[b];
    }
  }
}

// out (N, OC) = Q8(inp) . w + bias: the inputs quantised once (threaded over rows for a prompt),
// then the panels threaded over, every input row against each panel while it is in cache.
void q8_forward(const ExecContext& ex, float* out, const float* inp, const QuantizedWeight& w,
                const float* bias, int N) {
  const int C = w.C, OC = w.OC, nb = ref::q8_blocks(C);
  const int64_t row = int64_t{nb} * ref::kQ8Block;
  // Per-thread buffers that grow to the largest N seen and are then reused.
  thread_local std::vector<int8_t> qx;  // (N, nb*32)
  thread_local std::vector<float> dx;   // (N, nb)
  thread_local std::vector<int32_t> cx; // (N, nb) -128 * the blocks' sums of qx
  qx.resize(std::max(qx.size(), static_cast<size_t>(N * row)));
  dx.resize(std::max(dx.size(), static_cast<size_t>(N) * nb));
  cx.resize(std::max(cx.size(), static_cast<size_t>(N) * nb));
  int8_t* qxp = qx.data();
  float* dxp = dx.data();
  int32_t* cxp = cx.data();
  const detail::Q8QuantizeFn quantize = q8_quantize_fn(ex.isa);
  const auto quantize_rows = [&](int64_t b, int64_t e, int) {
    quantize(inp, C, qxp, dxp, cxp, static_cast<int>(b), static_cast<int>(e));
  };
  if (N > kQ8ThreadedRows)
    ex.workers().parallel_for(N, quantize_rows);
  else
    quantize_rows(0, N, 0);
  const detail::Q8PanelsFn fn = q8_fn(ex.isa);
  over_rows(ex, OC, int64_t{N} * C * OC, [&](int o0, int o1) {
    fn(out, qxp, dxp, cxp, w.q.data(), w.d.data(), bias, N, nb, OC, o0 / kPanel,
       (o1 + kPanel - 1) / kPanel);
  });
}

// out (N, OC) for a prompt (N > kMaxRows) with bf16 weights: each task widens kBf16GemmRows
// weight rows to fp32 (exact; 384 KiB at C = 768, so they stay in its core's cache) and runs the
// packed fp32 GEMM (gemm.h) on them alone. A GEMM's element does not depend on how the columns
// are split, so this is the fp32 GEMM's result on the widened weights, at about fp32's speed.
void bf16_gemm(const ExecContext& ex, float* out, const float* inp, const QuantizedWeight& w,
               const float* bias, int N) {
  const int C = w.C, OC = w.OC;
  const int64_t chunks = (OC + kBf16GemmRows - 1) / kBf16GemmRows;
  ex.workers().parallel_for(chunks, [&](int64_t b, int64_t e, int) {
    thread_local std::vector<float> wide;  // (kBf16GemmRows, C)
    wide.resize(static_cast<size_t>(kBf16GemmRows) * C);
    for (int64_t c = b; c < e; ++c) {
      const int o0 = static_cast<int>(c) * kBf16GemmRows, rows = std::min(kBf16GemmRows, OC - o0);
      const uint16_t* src = w.bf16.data() + int64_t{o0} * C;  // (rows, C)
      for (int64_t i = 0; i < int64_t{rows} * C; ++i) wide[i] = ref::float_from_bf16(src[i]);
      // out[:, o0 : o0 + rows] (N, rows; row stride OC) = inp (N, C) @ wide^T + bias[o0:]
      detail::gemm(ex.isa, {.M = N, .N = rows, .K = C,
                            .A = inp, .rs_a = C, .cs_a = 1,
                            .B = wide.data(), .rs_b = 1, .cs_b = C,
                            .C = out + o0, .ldc = OC, .init = true,
                            .bias = bias ? bias + o0 : nullptr},
                   detail::serial_pool());
    }
  });
}

}  // namespace

QuantizedWeight quantize_weight(const ExecContext& ex, WeightFormat format, const float* weight,
                                int OC, int C) {
  SG_CHECK(format != WeightFormat::kFp32, "quantize_weight: fp32 weights need no conversion");
  QuantizedWeight w;
  w.format = format, w.OC = OC, w.C = C;
  if (format == WeightFormat::kBf16) {
    w.bf16.resize(static_cast<size_t>(OC) * C);
    ex.workers().parallel_for(OC, [&](int64_t b, int64_t e, int) {
      for (int64_t i = b * C; i < e * C; ++i) w.bf16[i] = ref::bf16_from_float(weight[i]);
    });
    return w;
  }
  const int nb = ref::q8_blocks(C), panels = (OC + kPanel - 1) / kPanel;
  w.q.resize(static_cast<size_t>(panels) * nb * 512);
  w.d.resize(static_cast<size_t>(panels) * nb * kPanel);
  ex.workers().parallel_for(panels, [&](int64_t b, int64_t e, int) {
    for (int64_t p = b; p < e; ++p) pack_q8_panel(w, weight, static_cast<int>(p));
  });
  return w;
}

void quant_matvec_forward(const ExecContext& ex, float* out, const float* inp,
                          const QuantizedWeight& w, const float* bias, int N) {
  SG_CHECK(w.format != WeightFormat::kFp32, "quant_matvec_forward: the weight is not converted");
  if (w.format == WeightFormat::kInt8) return q8_forward(ex, out, inp, w, bias, N);
  const int C = w.C, OC = w.OC;
  if (N > kMaxRows) return bf16_gemm(ex, out, inp, w, bias, N);
  const Bf16Fn fn = pick<Bf16Fn>(ex.isa, detail::matvec_rows_bf16_avx512,
                                 detail::matvec_rows_bf16_avx2, detail::matvec_rows_bf16_scalar);
  for (int n0 = 0; n0 < N; n0 += kMaxRows) {
    const int m = std::min(kMaxRows, N - n0);
    const float* x = inp + int64_t{n0} * C;  // (m, C)
    float* y = out + int64_t{n0} * OC;       // (m, OC)
    over_rows(ex, OC, int64_t{m} * C * OC,
              [&](int o0, int o1) { fn(y, x, w.bf16.data(), C, bias, m, C, OC, o0, o1); });
  }
}

}  // namespace scratchgpt::cpu
