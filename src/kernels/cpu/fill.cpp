// fill.cpp: cpu::zero, cpu::copy, cpu::fill and cpu::scale (see fill.h): libc's memset and memcpy, and a
// plain loop, on each fixed chunk.
#include "kernels/cpu/fill.h"

#include <cstring>

#include "kernels/cpu/parallel.h"

namespace scratchgpt::cpu {

using detail::for_chunks;

void zero(const ExecContext& ex, float* x, int64_t n) {
  for_chunks(ex.workers(), n, [&](int64_t b, int64_t e) {
    std::memset(x + b, 0, static_cast<size_t>(e - b) * sizeof(float));
  });
}

void fill(const ExecContext& ex, float* x, int64_t n, float value) {
  for_chunks(ex.workers(), n, [&](int64_t b, int64_t e) {
    for (int64_t i = b; i < e; ++i) x[i] = value;
  });
}

void scale(const ExecContext& ex, float* x, int64_t n, float s) {
  for_chunks(ex.workers(), n, [&](int64_t b, int64_t e) {
    for (int64_t i = b; i < e; ++i) x[i] *= s;
  });
}

void copy(const ExecContext& ex, float* dst, const float* src, int64_t n) {
  for_chunks(ex.workers(), n, [&](int64_t b, int64_t e) {
    std::memcpy(dst + b, src + b, static_cast<size_t>(e - b) * sizeof(float));
  });
}

}  // namespace scratchgpt::cpu
