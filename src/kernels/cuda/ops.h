// ops.h: the CUDA kernels, cuda::, with the names and arguments of their cpu:: and ref:: twins
// (kernels/cpu/, kernels/ref/). Every pointer is device-readable memory (the model's managed slabs,
// core/device.h) except where an argument says host. Calls are asynchronous on the default
// stream, except those that return a value (global_norm), which wait for it.
// Sums are deterministic: a fixed order of partial sums, no atomics, so a training step gives the
// same bits from run to run. Defined in src/kernels/cuda/*.cu, built only with SCRATCHGPT_CUDA;
// kernels/kernels.h calls them when ExecContext::device is cuda.
// Leaves out: quantized weights, attention dropout.
#pragma once

#include <cstdint>

#include "core/exec_context.h"
#include "kernels/cpu/adamw.h"  // AdamWArray

namespace scratchgpt::cuda {

// --dtype bf16: the bf16 copies (ref::round_bf16's numbers, as uint16_t bits) of a product's
// inputs that a layer keeps from its forward for its backward, so each is rounded once a step
// instead of in both passes. A null member: rounded where it is needed, into scratch memory.
// Ignored in fp32.
struct Bf16Keep {
  uint16_t* inp = nullptr;     // matmul: inp (N, C);  attention: qkv (B, T, 3C)
  uint16_t* weight = nullptr;  // matmul: weight (OC, C);  attention: the weights att (B, NH, T, T)
  const uint16_t* dout = nullptr;  // matmul backward: dout (N, OC) already rounded by its producer
  // attention, with weight: each row's softmax maximum and 1 / denominator, (B, NH, T) pairs.
  // The fp32 att then keeps the scaled scores instead of the weights (the weights are only
  // written in bf16), and the backward recomputes each weight from them, to the same bits.
  float* stats = nullptr;
};

// out (B, T, C) = wte[inp] + wpe[t]; inp (B, T) token ids.
void encoder_forward(const ExecContext& ex, float* out, const int32_t* inp, const float* wte,
                     const float* wpe, int B, int T, int C);
// dwte[inp[b, t]] += dout[b, t]; dwpe[t] += sum_b dout[b, t]; each row's sum in (b, t) order.
void encoder_backward(const ExecContext& ex, float* dwte, float* dwpe, const float* dout,
                      const int32_t* inp, int B, int T, int C);

// out = (x - mean) * rstd * weight + bias per row of C; bias may be null (none). out16 not null:
// out rounded to bf16 there instead (out unwritten, may be null: the next product's kept input).
void layernorm_forward(const ExecContext& ex, float* out, float* mean, float* rstd,
                       const float* inp, const float* weight, const float* bias, int N, int C,
                       float eps = 1e-5f, uint16_t* out16 = nullptr);
// dinp += ...; dweight += ...; dbias += ... (dbias may be null).
void layernorm_backward(const ExecContext& ex, float* dinp, float* dweight, float* dbias,
                        const float* dout, const float* inp, const float* weight, const float* mean,
                        const float* rstd, int N, int C);

// out (N, OC) = inp (N, C) weight^T (OC, C) + bias (OC), through cuBLAS: fp32 inputs (TF32 when
// ex.tf32), or with ex.dtype bf16 both inputs rounded to bf16 (ref::matmul_forward_bf16).
// bf16: forward writes keep.inp and keep.weight when given (inp null: its producer wrote keep.inp
// already); backward reads them (and kept.dout, then dout may be null unless dbias is wanted)
// instead of rounding again.
void matmul_forward(const ExecContext& ex, float* out, const float* inp, const float* weight,
                    const float* bias, int N, int C, int OC, const Bf16Keep& keep = {});
void matmul_backward(const ExecContext& ex, float* dinp, float* dweight, float* dbias,
                     const float* dout, const float* inp, const float* weight, int N, int C, int OC,
                     bool accumulate_dinp = true, bool accumulate_dparams = true,
                     const Bf16Keep& kept = {});

// Causal self-attention over qkv (B, T, 3C): att (B, NH, T, T) keeps the softmax weights; preatt
// must be null and drop null (no attention dropout on the GPU yet). ex.dtype bf16 rounds each
// product's inputs to bf16 (ref::attention_forward/backward with bf16); keep.inp and
// keep.weight, when given, receive qkv's and att's bf16 copies for the backward's kept.
void attention_forward(const ExecContext& ex, float* out, float* preatt, float* att,
                       const float* qkv, const float* drop, int B, int T, int C, int NH,
                       const Bf16Keep& keep = {});
// The fused (flash) kernel: out (B, T, C) and lse (B, NH, T) as cpu::flash_attention_forward,
// the products in TF32 on the tensor cores; heads of up to 128 channels. No bf16 (an error; the
// model plans the stored kernel in bf16).
void flash_attention_forward(const ExecContext& ex, float* out, float* lse, const float* qkv, int B,
                             int T, int C, int NH);
void flash_attention_backward(const ExecContext& ex, float* dqkv, const float* dout,
                              const float* out, const float* lse, const float* qkv, int B, int T,
                              int C, int NH);
// One query against the KV cache, as cpu::attention_decode_forward (heads of up to 256
// channels); scratch: attention_decode_scratch_floats(n_ctx, C, NH) floats of device memory.
void attention_decode_forward(const ExecContext& ex, float* out, const float* q,
                              const float* k_cache, const float* v_cache, int n_ctx, int C, int NH,
                              float* scratch);
// Writes dqkv (B, T, 3C); dpreatt and datt must be null, drop null.
void attention_backward(const ExecContext& ex, float* dqkv, float* dpreatt, float* datt,
                        const float* dout, const float* qkv, const float* att, const float* drop,
                        int B, int T, int C, int NH, const Bf16Keep& kept = {});

// probs null: stats (N, 2) gets each row's maximum and 1 / sum instead of the probabilities.
void crossentropy_forward(const ExecContext& ex, float* losses, float* probs, const float* logits,
                          const int32_t* targets, int N, int V, float* stats = nullptr);
// dlogits16 not null: the gradient goes there rounded to bf16 (the lm_head's kept.dout) and
// dlogits is not written (may be null). probs null: each probability recomputed from logits and
// the forward's stats: the same bits, but for the target's p - 1, which nvcc fuses into one
// multiply-add there (p not rounded first), so its last bit may differ.
void crossentropy_backward(const ExecContext& ex, float* dlogits, const float* probs,
                           const int32_t* targets, const float* dlosses, int N, int V,
                           uint16_t* dlogits16 = nullptr, const float* logits = nullptr,
                           const float* stats = nullptr);

// The activations: out16 / dinp16, when not null, get the result rounded to bf16 (the next
// product's input in --dtype bf16); a forward then writes no fp32 out (it may be null).
void gelu_forward(const ExecContext& ex, float* out, const float* inp, int64_t n,
                  uint16_t* out16 = nullptr);
void gelu_backward(const ExecContext& ex, float* dinp, const float* inp, const float* dout,
                   int64_t n, uint16_t* dinp16 = nullptr);
void gelu_exact_forward(const ExecContext& ex, float* out, const float* inp, int64_t n,
                        uint16_t* out16 = nullptr);
void gelu_exact_backward(const ExecContext& ex, float* dinp, const float* inp, const float* dout,
                         int64_t n, uint16_t* dinp16 = nullptr);
void relu_forward(const ExecContext& ex, float* out, const float* inp, int64_t n,
                  uint16_t* out16 = nullptr);
void relu_backward(const ExecContext& ex, float* dinp, const float* inp, const float* dout,
                   int64_t n, uint16_t* dinp16 = nullptr);
void residual_forward(const ExecContext& ex, float* out, const float* a, const float* b, int64_t n);
void dropout_forward(const ExecContext& ex, float* out, float* mask, const float* inp, int64_t n,
                     float p);
void dropout_backward(const ExecContext& ex, float* dinp, const float* dout, const float* mask,
                      int64_t n, bool accumulate = true);
void zero(const ExecContext& ex, float* x, int64_t n);
void copy(const ExecContext& ex, float* dst, const float* src, int64_t n);
void fill(const ExecContext& ex, float* x, int64_t n, float value);
// x *= s
void scale(const ExecContext& ex, float* x, int64_t n, float s);

// AdamW on each array (the struct array itself on the host).
void adamw_update(const ExecContext& ex, float* param, const float* grad, float* m, float* v,
                  int64_t n, float lr, float beta1, float beta2, float eps, float weight_decay,
                  int t, float grad_scale = 1.0f);
void adamw_update_all(const ExecContext& ex, int count, const cpu::AdamWArray* arrays, float lr,
                      float beta1, float beta2, float eps, int t, float grad_scale = 1.0f);
// sqrt of the sum of squares of count arrays (x and n on the host, x[i] device-readable), summed
// in a fixed order; waits for the result.
double global_norm(const ExecContext& ex, int count, const float* const* x, const int64_t* n);

}  // namespace scratchgpt::cuda
