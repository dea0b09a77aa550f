// elementwise.cpp: the cpu:: kernels that are the reference loops run over fixed chunks in
// parallel (relu, residual, dropout) and the embedding (encoder). The reference templates
// are instantiated here, where -march lets the compiler vectorise them.
#include <cmath>
#include <cstdint>

#include "kernels/cpu/dropout.h"
#include "kernels/cpu/encoder.h"
#include "kernels/cpu/parallel.h"
#include "kernels/cpu/relu.h"
#include "kernels/cpu/residual.h"
#include "kernels/ref/dropout.h"
#include "kernels/ref/encoder.h"
#include "kernels/ref/relu.h"
#include "kernels/ref/residual.h"

namespace scratchgpt::cpu {

using detail::for_chunks;

void relu_forward(float* out, const float* inp, int64_t n) {
  for_chunks(n, [&](int64_t b, int64_t e) { ref::relu_forward(out + b, inp + b, e - b); });
}

void relu_backward(float* dinp, const float* inp, const float* dout, int64_t n) {
  for_chunks(n, [&](int64_t b, int64_t e) {
    ref::relu_backward(dinp + b, inp + b, dout + b, e - b);
  });
}

void residual_forward(float* out, const float* a, const float* b, int64_t n) {
  for_chunks(n, [&](int64_t i0, int64_t i1) {
    ref::residual_forward(out + i0, a + i0, b + i0, i1 - i0);
  });
}

void residual_backward(float* da, float* db, const float* dout, int64_t n) {
  for_chunks(n, [&](int64_t b, int64_t e) {
    ref::residual_backward(da + b, db + b, dout + b, e - b);
  });
}

void dropout_forward(float* out, float* mask, const float* inp, int64_t n, float p) {
  for_chunks(n, [&](int64_t b, int64_t e) {
    ref::dropout_forward(out + b, mask + b, inp + b, e - b, p);
  });
}

void dropout_backward(float* dinp, const float* dout, const float* mask, int64_t n) {
  for_chunks(n, [&](int64_t b, int64_t e) {
    ref::dropout_backward(dinp + b, dout + b, mask + b, e - b);
  });
}

void encoder_forward(float* out, const int32_t* inp, const float* wte, const float* wpe, int B,
                     int T, int C) {
  const int64_t rows = static_cast<int64_t>(B) * T;  // (b, t) pairs; wpe row is t = row % T
  detail::for_rows(rows, C, [&](int64_t r0, int64_t r1) {
    for (int64_t r = r0; r < r1; ++r) {
      const int t = static_cast<int>(r % T);
      ref::encoder_forward(out + r * C, inp + r, wte,
                           wpe ? wpe + static_cast<int64_t>(t) * C : nullptr, 1, 1, C);
    }
  });
}

void encoder_backward(float* dwte, float* dwpe, const float* dout, const int32_t* inp, int B,
                      int T, int C) {
  // Column ranges of C: every thread visits all (b, t) in order for its own columns.
  constexpr int kCols = 64;
  const int64_t ranges = (C + kCols - 1) / kCols;
  auto run = [&](int64_t begin, int64_t end) {
    const int c0 = static_cast<int>(begin) * kCols;
    const int c1 = end * kCols < C ? static_cast<int>(end) * kCols : C;
    for (int b = 0; b < B; ++b)
      for (int t = 0; t < T; ++t) {
        const int64_t r = static_cast<int64_t>(b) * T + t;
        const float* d = dout + r * C;
        float* e = dwte + static_cast<int64_t>(inp[r]) * C;
        float* p = dwpe ? dwpe + static_cast<int64_t>(t) * C : nullptr;
        for (int c = c0; c < c1; ++c) {
          e[c] += d[c];
          if (p) p[c] += d[c];
        }
      }
  };
  if (static_cast<int64_t>(B) * T * C < 2 * detail::kChunk || ranges == 1)
    run(0, ranges);
  else
    ThreadPool::global().parallel_for(ranges, [&](int64_t b, int64_t e, int) { run(b, e); });
}

}  // namespace scratchgpt::cpu
