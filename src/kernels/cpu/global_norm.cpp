// global_norm.cpp: see global_norm.h.
#include "kernels/cpu/global_norm.h"

#include <cmath>
#include <vector>

#include "core/thread_pool.h"

namespace scratchgpt::cpu {

namespace {

// Sum of squares of x[0, n) in double: 8 running sums (one per lane), added in a fixed order.
double sum_of_squares(const float* x, int64_t n) {
  double lane[8] = {};
  int64_t i = 0;
  for (; i + 8 <= n; i += 8)
    for (int j = 0; j < 8; ++j) lane[j] += static_cast<double>(x[i + j]) * x[i + j];
  double s = 0;
  for (int j = 0; j < 8; ++j) s += lane[j];
  for (; i < n; ++i) s += static_cast<double>(x[i]) * x[i];
  return s;
}

}  // namespace

double global_norm(const ExecContext& ex, int count, const float* const* x, const int64_t* n) {
  constexpr int64_t kPiece = kGlobalNormPiece;
  int64_t pieces = 0;
  for (int a = 0; a < count; ++a) pieces += (n[a] + kPiece - 1) / kPiece;
  thread_local std::vector<double> buffer;  // grows once; no allocation in later steps
  if (static_cast<int64_t>(buffer.size()) < pieces) buffer.resize(static_cast<size_t>(pieces));
  double* partial = buffer.data();  // the caller's buffer (a worker's thread_local is its own)
  ex.workers().parallel_for(pieces, [&](int64_t first, int64_t last, int) {
    // Walk to piece `first`, then through the pieces of [first, last) in order.
    int64_t piece = 0;
    for (int a = 0; a < count; ++a) {
      const int64_t pieces_a = (n[a] + kPiece - 1) / kPiece;
      for (int64_t k = 0; k < pieces_a; ++k, ++piece) {
        if (piece < first) continue;
        if (piece >= last) return;
        const int64_t b = k * kPiece, e = b + kPiece < n[a] ? b + kPiece : n[a];
        partial[piece] = sum_of_squares(x[a] + b, e - b);
      }
    }
  });
  double sum = 0;
  for (int64_t k = 0; k < pieces; ++k) sum += partial[k];
  return std::sqrt(sum);
}

}  // namespace scratchgpt::cpu
