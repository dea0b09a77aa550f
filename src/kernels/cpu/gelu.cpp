// gelu.cpp: cpu::gelu_* and cpu::gelu_exact_* (see gelu.h): the per-ISA kernels of gelu_impl.h
// (gelu_avx2.cpp, gelu_avx512.cpp) or the reference loops, threaded over fixed chunks.
#include "kernels/cpu/gelu.h"

#include <cstdint>

#include "kernels/cpu/parallel.h"
#include "kernels/cpu/simd/gelu_simd.h"
#include "kernels/cpu/simd/simd.h"
#include "kernels/ref/gelu.h"

namespace scratchgpt::cpu {

namespace {

using ForwardFn = void (*)(float*, const float*, int64_t);
using BackwardFn = void (*)(float*, const float*, const float*, int64_t);

void run_forward(ThreadPool& pool, ForwardFn fn, float* out, const float* inp, int64_t n) {
  detail::for_chunks(pool, n, [&](int64_t b, int64_t e) { fn(out + b, inp + b, e - b); });
}

void run_backward(ThreadPool& pool, BackwardFn fn, float* dinp, const float* inp, const float* dout,
                  int64_t n) {
  detail::for_chunks(pool, n,
                     [&](int64_t b, int64_t e) { fn(dinp + b, inp + b, dout + b, e - b); });
}

}  // namespace

void gelu_forward(const ExecContext& ex, float* out, const float* inp, int64_t n) {
  run_forward(ex.workers(),
              pick<ForwardFn>(ex.isa, detail::gelu_forward_avx512, detail::gelu_forward_avx2,
                              ref::gelu_forward<float>),
              out, inp, n);
}

void gelu_backward(const ExecContext& ex, float* dinp, const float* inp, const float* dout,
                   int64_t n) {
  run_backward(ex.workers(),
               pick<BackwardFn>(ex.isa, detail::gelu_backward_avx512, detail::gelu_backward_avx2,
                                ref::gelu_backward<float>),
               dinp, inp, dout, n);
}

void gelu_exact_forward(const ExecContext& ex, float* out, const float* inp, int64_t n) {
  run_forward(ex.workers(),
              pick<ForwardFn>(ex.isa, detail::gelu_exact_forward_avx512,
                              detail::gelu_exact_forward_avx2, ref::gelu_exact_forward<float>),
              out, inp, n);
}

void gelu_exact_backward(const ExecContext& ex, float* dinp, const float* inp, const float* dout,
                         int64_t n) {
  run_backward(ex.workers(),
               pick<BackwardFn>(ex.isa, detail::gelu_exact_backward_avx512,
                                detail::gelu_exact_backward_avx2, ref::gelu_exact_backward<float>),
               dinp, inp, dout, n);
}

}  // namespace scratchgpt::cpu
