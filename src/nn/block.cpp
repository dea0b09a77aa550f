// block.cpp: Block forward, backward and single-token decoding.
#include "nn/block.h"

#include <algorithm>

#include "kernels/kernels.h"

namespace scratchgpt {

Block::Block(const GPTConfig& config)
    : ln_1(config.n_embd, config.bias),
      attn(config.n_embd, config.n_head, config.bias, config.dropout),
      ln_2(config.n_embd, config.bias),
      mlp(config.n_embd, config.activation, config.bias, config.dropout),
      C(config.n_embd) {}

void Block::plan(SlabPlanner& acts, SlabPlanner& scratch, int max_B, int max_T) {
  const int max_N = max_B * max_T;
  ln_1.plan(acts, max_N);
  attn.plan(acts, scratch, max_B, max_T);
  x1 = acts.take(int64_t{max_N} * C);
  ln_2.plan(acts, max_N);
  mlp.plan(acts, scratch, max_N);
  x2 = acts.take(int64_t{max_N} * C);
  dln = scratch.take(int64_t{max_N} * C);
}

const float* Block::forward(const ExecContext& ex, const float* x, int b, int t, Rng* rng) {
  B = b;
  T = t;
  const int N = B * T;
  // Each LayerNorm writes straight into the next product's kept bf16 input where there is one
  // (--dtype bf16 on cuda; then it returns null, which that product reads as "use the copy").
  const float* a = attn.forward(ex, ln_1.forward(ex, x, N, attn.c_attn.inp16), B, T, rng);
  kernels::residual_forward(ex, x1, x, a, int64_t{N} * C);  // x = x + attn(ln_1(x))
  const float* m = mlp.forward(ex, ln_2.forward(ex, x1, N, mlp.c_fc.inp16), N, rng);
  kernels::residual_forward(ex, x2, x1, m, int64_t{N} * C);  // x = x + mlp(ln_2(x))
  return x2;
}

void Block::backward(const ExecContext& ex, float* dx, const float* dout) {
  const int64_t n = int64_t{B} * T * C;
  // x2 = x1 + mlp(ln_2(x1)): the residual passes dout unchanged to x1 and to the branch, so the
  // branch reads dout itself and x1's gradient (built up in dx) starts as a copy of it.
  kernels::copy(ex, dx, dout, n);
  mlp.backward(ex, dln, dout);  // writes dln
  ln_2.backward(ex, dx, dln);   // dx = dL/dx1
  // x1 = x + attn(ln_1(x)): likewise, dL/dx1 goes to the branch and stays in dx
  attn.backward(ex, dln, dx);  // writes dln
  ln_1.backward(ex, dx, dln);  // dx = dL/dx
}

int64_t Block::decode_work_floats(int max_T, int max_n) const {
  // ln out (n, C), mean and rstd (n each, padded to 16), branch out (n, C), x1 (n, C), then the
  // larger of attention's and the MLP's work.
  const int64_t nC = int64_t{max_n} * C;
  return 3 * nC + 2 * (max_n + 16) +
         std::max(attn.decode_work_floats(max_T, max_n), int64_t{8} * nC);
}

void Block::decode(const ExecContext& ex, float* x, float* k_cache, float* v_cache, int pos, int n,
                   float* work) const {
  const int64_t nC = int64_t{n} * C;
  float* h = work;                // (n, C)
  float* mean = h + nC;           // (n)
  float* rstd = mean + n + 16;    // (n)
  float* branch = rstd + n + 16;  // (n, C)
  float* xa = branch + nC;        // (n, C)
  float* inner = xa + nC;         // attention or MLP work
  ln_1.apply(ex, h, mean, rstd, x, n);
  attn.decode(ex, branch, h, k_cache, v_cache, pos, n, inner);
  kernels::residual_forward(ex, xa, x, branch, nC);  // x = x + attn(ln_1(x))
  ln_2.apply(ex, h, mean, rstd, xa, n);
  mlp.decode(ex, branch, h, n, inner);
  kernels::residual_forward(ex, x, xa, branch, nC);  // x = x + mlp(ln_2(x))
}

}  // namespace scratchgpt
