// optimizer.cpp: see optimizer.h.
#include "train/optimizer.h"

#include <cmath>

#include "core/thread_pool.h"
#include "kernels/cpu/adamw.h"

namespace scratchgpt {

namespace {

// The gradient-norm work is cut into pieces of at most kPiece elements of one Param, numbered in
// Param order; each piece's sum is fixed, and the pieces are added in order.
constexpr int64_t kPiece = 16384;

int64_t count_pieces(const std::vector<Param>& params) {
  int64_t n = 0;
  for (const Param& p : params) n += (p.grad.numel() + kPiece - 1) / kPiece;
  return n;
}

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

double grad_global_norm(const std::vector<Param>& params) {
  const int64_t pieces = count_pieces(params);
  thread_local std::vector<double> buffer;  // grows once; no allocation in later steps
  if (static_cast<int64_t>(buffer.size()) < pieces) buffer.resize(static_cast<size_t>(pieces));
  double* partial = buffer.data();  // the caller's buffer (a worker's thread_local is its own)
  ThreadPool::global().parallel_for(pieces, [&](int64_t first, int64_t last, int) {
    // Walk to piece `first`, then through the pieces of [first, last) in order.
    int64_t piece = 0;
    for (const Param& p : params) {
      const int64_t n = p.grad.numel(), count = (n + kPiece - 1) / kPiece;
      for (int64_t k = 0; k < count; ++k, ++piece) {
        if (piece < first) continue;
        if (piece >= last) return;
        const int64_t b = k * kPiece, e = b + kPiece < n ? b + kPiece : n;
        partial[piece] = sum_of_squares(p.grad.data + b, e - b);
      }
    }
  });
  double sum = 0;
  for (int64_t k = 0; k < pieces; ++k) sum += partial[k];
  return std::sqrt(sum);
}

// torch's clip coefficient, or 1 when there is nothing to clip.
static float clip_coefficient(double norm, double max_norm) {
  if (max_norm <= 0) return 1.0f;
  const double coef = max_norm / (norm + 1e-6);
  return coef < 1.0 ? static_cast<float>(coef) : 1.0f;
}

double clip_grad_norm(std::vector<Param>& params, double max_norm) {
  const double norm = grad_global_norm(params);
  const float coef = clip_coefficient(norm, max_norm);
  if (coef != 1.0f) scale_grads(params, coef);
  return norm;
}

void scale_grads(std::vector<Param>& params, float s) {
  for (Param& p : params)
    for (float& g : p.grad) g *= s;
}

void adamw_step(std::vector<Param>& params, float lr, const TrainConfig& cfg, int t) {
  for (Param& p : params) {
    cpu::adamw_update(p.value.data, p.grad.data, p.m.data, p.v.data, p.value.numel(), lr, cfg.beta1,
                      cfg.beta2, cfg.eps, p.decay ? cfg.weight_decay : 0.0f, t);
  }
}

double optimizer_step(std::vector<Param>& params, float lr, const TrainConfig& cfg, int t) {
  const double norm = grad_global_norm(params);
  const float coef = clip_coefficient(norm, cfg.grad_clip);
  for (Param& p : params) {
    cpu::adamw_update(p.value.data, p.grad.data, p.m.data, p.v.data, p.value.numel(), lr, cfg.beta1,
                      cfg.beta2, cfg.eps, p.decay ? cfg.weight_decay : 0.0f, t, coef);
  }
  return norm;
}

}  // namespace scratchgpt
