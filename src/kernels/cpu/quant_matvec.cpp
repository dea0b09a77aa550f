// quant_matvec.cpp: conversion of a weight to bf16 or Q8, and the dispatch of the quantised matvec
// to the per-ISA row kernels, threaded over fixed chunks of output rows (see quant_matvec.h).
#include "kernels/cpu/quant_matvec.h"

#include <algorithm>
#include <cstdint>
#include <vector>

#include "core/check.h"
#include "core/cpu_features.h"
#include "core/thread_pool.h"
#include "kernels/cpu/simd/matvec_q8_simd.h"
#include "kernels/cpu/simd/matvec_simd.h"
#include "kernels/cpu/simd/simd.h"
#include "kernels/ref/quant.h"

namespace scratchgpt::cpu {

namespace {

constexpr int kRowsPerTask = 32;  // output rows per task, as matvec.cpp
constexpr int kMaxRows = 8;       // input rows per pass over the weights

using Bf16Fn = void (*)(float*, const float*, const uint16_t*, int64_t, const float*, int, int,
                        int, int, int);
using Q8Fn = void (*)(float*, const int8_t*, const float*, const int8_t*, const float*,
                      const float*, int, int, int, int, int);

// The AVX-512 Q8 unit is the VNNI build: without VNNI, AVX2's.
Q8Fn q8_fn(SimdLevel level) {
  if (level == SimdLevel::kAvx512 && !cpu_has_avx512_vnni()) level = SimdLevel::kAvx2;
  return pick<Q8Fn>(level, detail::matvec_q8_rows_avx512, detail::matvec_q8_rows_avx2,
                    detail::matvec_q8_rows_scalar);
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

}  // namespace

QuantizedWeight quantize_weight(const ExecContext& ex, WeightFormat format, const float* weight,
                                int OC, int C) {
  SG_CHECK(format != WeightFormat::kFp32, "quantize_weight: fp32 weights need no conversion");
  QuantizedWeight w;
  w.format = format, w.OC = OC, w.C = C;
  const int nb = ref::q8_blocks(C);
  if (format == WeightFormat::kBf16)
    w.bf16.resize(static_cast<size_t>(OC) * C);
  else
    w.q.resize(static_cast<size_t>(OC) * nb * ref::kQ8Block), w.d.resize(static_cast<size_t>(OC) * nb);
  ex.workers().parallel_for(OC, [&](int64_t b, int64_t e, int) {
    for (int64_t o = b; o < e; ++o) {
      const float* row = weight + o * C;  // (C)
      if (format == WeightFormat::kBf16)
        for (int k = 0; k < C; ++k) w.bf16[o * C + k] = ref::bf16_from_float(row[k]);
      else
        ref::quantize_q8(row, C, w.q.data() + o * nb * ref::kQ8Block, w.d.data() + o * nb);
    }
  });
  return w;
}

void quant_matvec_forward(const ExecContext& ex, float* out, const float* inp,
                          const QuantizedWeight& w, const float* bias, int N) {
  SG_CHECK(w.format != WeightFormat::kFp32, "quant_matvec_forward: the weight is not converted");
  const int C = w.C, OC = w.OC, nb = ref::q8_blocks(C);
  for (int n0 = 0; n0 < N; n0 += kMaxRows) {
    const int m = std::min(kMaxRows, N - n0);
    const float* x = inp + int64_t{n0} * C;  // (m, C)
    float* y = out + int64_t{n0} * OC;       // (m, OC)
    if (w.format == WeightFormat::kBf16) {
      const Bf16Fn fn = pick<Bf16Fn>(ex.isa, detail::matvec_rows_bf16_avx512,
                                     detail::matvec_rows_bf16_avx2, detail::matvec_rows_bf16_scalar);
      over_rows(ex, OC, int64_t{m} * C * OC,
                [&](int o0, int o1) { fn(y, x, w.bf16.data(), C, bias, m, C, OC, o0, o1); });
      continue;
    }
    // The inputs quantised once per call, on the caller: a small per-thread buffer that grows
    // to the largest (8, C) seen and is then reused.
    thread_local std::vector<int8_t> qx;
    thread_local std::vector<float> dx;
    qx.resize(std::max(qx.size(), static_cast<size_t>(m) * nb * ref::kQ8Block));
    dx.resize(std::max(dx.size(), static_cast<size_t>(m) * nb));
    for (int n = 0; n < m; ++n)
      ref::quantize_q8(x + int64_t{n} * C, C, qx.data() + int64_t{n} * nb * ref::kQ8Block,
                       dx.data() + int64_t{n} * nb);
    const Q8Fn fn = q8_fn(ex.isa);
    const int8_t* qxp = qx.data();
    const float* dxp = dx.data();
    over_rows(ex, OC, int64_t{m} * C * OC, [&](int o0, int o1) {
      fn(y, qxp, dxp, w.q.data(), w.d.data(), bias, m, nb, OC, o0, o1);
    });
  }
}

}  // namespace scratchgpt::cpu
