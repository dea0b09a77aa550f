// kernels.h: the entry layer of the kernels, what the model (nn/) and the code above it (train/,
// sample/, run/) include instead of kernels/cpu/: the ops, each taking the ExecContext
// (core/exec_context.h) that says how to run it as its first argument, and the matmul backend's
// names. The context's device picks the code: cpu:: (kernels/cpu/) or, in a build with
// SCRATCHGPT_CUDA, cuda:: (kernels/cuda/, the same names and arguments). Readable twins of every
// op: kernels/ref/.
#pragma once

#include "core/check.h"
#include "core/exec_context.h"
#include "kernels/cpu/adamw.h"
#include "kernels/cpu/attention.h"
#include "kernels/cpu/attention_decode.h"
#include "kernels/cpu/crossentropy.h"
#include "kernels/cpu/dropout.h"
#include "kernels/cpu/encoder.h"
#include "kernels/cpu/fill.h"
#include "kernels/cpu/flash_attention.h"
#include "kernels/cpu/gelu.h"
#include "kernels/cpu/global_norm.h"
#include "kernels/cpu/layernorm.h"
#include "kernels/cpu/matmul.h"
#include "kernels/cpu/matmul_backend.h"
#include "kernels/cpu/quant_matvec.h"
#include "kernels/cpu/relu.h"
#include "kernels/cpu/residual.h"
#include "kernels/cpu/softmax.h"
#include "kernels/cuda/ops.h"

namespace scratchgpt::kernels {

// The matmul backend: its name, whether this build has oneDNN, and kAuto resolved (kOneDnn in a
// build without it is an Error naming the fix).
using cpu::bf16_on_onednn;
using cpu::default_matmul_backend;
using cpu::matmul_backend_name;
using cpu::onednn_available;
using cpu::onednn_has_amx;
using cpu::onednn_has_bf16;
using cpu::resolve_matmul_backend;

#ifdef SCRATCHGPT_HAS_CUDA
inline constexpr bool kCudaBuild = true;
#else
inline constexpr bool kCudaBuild = false;
#endif
inline bool on_cuda(const ExecContext& ex) { return kCudaBuild && ex.device == Device::kCuda; }

// SG_KERNEL(op, (params), (args)): op(ex, params...) runs cuda::op on the GPU, else cpu::op.
// (Without CUDA in the build the cuda:: branch is discarded, so nothing needs its definition.)
#define SG_KERNEL(op, params, args)                                         \
  inline void op(const ExecContext& ex, SG_UNPAREN params) {                \
    if constexpr (kCudaBuild) {                                             \
      if (ex.device == Device::kCuda) return cuda::op(ex, SG_UNPAREN args); \
    }                                                                       \
    cpu::op(ex, SG_UNPAREN args);                                           \
  }
#define SG_UNPAREN(...) __VA_ARGS__
// SG_KERNEL_CUDA(op, (params), (args), (extra params), (extra args), cpu_ok): the same with
// trailing arguments only cuda:: takes (the bf16 copies a layer keeps, Bf16Keep; a result's bf16
// copy, out16; the cross-entropy's row statistics), each defaulted to "none". On the CPU they must
// be that (cpu_ok), which the model sees to: it passes them only where
// keeps_bf16_operands(ex).
#define SG_KERNEL_CUDA(op, params, args, extra_params, extra_args, cpu_ok)                         \
  inline void op(const ExecContext& ex, SG_UNPAREN params, SG_UNPAREN extra_params) {              \
    if constexpr (kCudaBuild) {                                                                    \
      if (ex.device == Device::kCuda) return cuda::op(ex, SG_UNPAREN args, SG_UNPAREN extra_args); \
    }                                                                                              \
    SG_CHECK(cpu_ok, #op ": the arguments " #extra_args " are cuda's only");                       \
    cpu::op(ex, SG_UNPAREN args);                                                                  \
  }
#define SG_KERNEL_B16(op, params, args) \
  SG_KERNEL_CUDA(op, params, args, (uint16_t* out16 = nullptr), (out16), out16 == nullptr)

// Whether a model keeps the bf16 copies of its products' inputs (cuda::Bf16Keep): bf16 on cuda.
// The CPU's products round their inputs as they pack them, so it has none.
using cuda::Bf16Keep;
inline bool keeps_bf16_operands(const ExecContext& ex) {
  return on_cuda(ex) && ex.dtype == Dtype::kBf16;
}
inline bool keeps_nothing(const Bf16Keep& k) {
  return k.inp == nullptr && k.weight == nullptr && k.dout == nullptr && k.stats == nullptr;
}

// The model's ops (nn/): the embeddings, the layers, attention (stored, fused, and decoding from
// the KV cache), the activations and the loss.
SG_KERNEL(encoder_forward,
          (float* out, const int32_t* inp, const float* wte, const float* wpe, int B, int T, int C),
          (out, inp, wte, wpe, B, T, C))
SG_KERNEL(encoder_backward,
          (float* dwte, float* dwpe, const float* dout, const int32_t* inp, int B, int T, int C),
          (dwte, dwpe, dout, inp, B, T, C))
SG_KERNEL_B16(layernorm_forward,
              (float* out, float* mean, float* rstd, const float* inp, const float* weight,
               const float* bias, int N, int C, float eps = 1e-5f),
              (out, mean, rstd, inp, weight, bias, N, C, eps))
SG_KERNEL(layernorm_backward,
          (float* dinp, float* dweight, float* dbias, const float* dout, const float* inp,
           const float* weight, const float* mean, const float* rstd, int N, int C),
          (dinp, dweight, dbias, dout, inp, weight, mean, rstd, N, C))
// The products take the bf16 copies cuda keeps (Bf16Keep), or the weight the CPU packed ahead
// for --dtype bf16 (WeightPairs, cpu/matmul.h): each device its own, the other's left empty.
using cpu::WeightPairs;
inline void matmul_forward(const ExecContext& ex, float* out, const float* inp, const float* weight,
                           const float* bias, int N, int C, int OC, const Bf16Keep& keep = {},
                           const WeightPairs* pairs = nullptr) {
  if constexpr (kCudaBuild) {
    if (ex.device == Device::kCuda) {
      SG_CHECK(pairs == nullptr, "matmul_forward: WeightPairs are the CPU's only");
      return cuda::matmul_forward(ex, out, inp, weight, bias, N, C, OC, keep);
    }
  }
  SG_CHECK(keeps_nothing(keep), "matmul_forward: the arguments (keep) are cuda's only");
  cpu::matmul_forward(ex, out, inp, weight, bias, N, C, OC, pairs);
}
inline void matmul_backward(const ExecContext& ex, float* dinp, float* dweight, float* dbias,
                            const float* dout, const float* inp, const float* weight, int N, int C,
                            int OC, bool accumulate_dinp = true, bool accumulate_dparams = true,
                            const Bf16Keep& kept = {}, const WeightPairs* pairs = nullptr) {
  if constexpr (kCudaBuild) {
    if (ex.device == Device::kCuda) {
      SG_CHECK(pairs == nullptr, "matmul_backward: WeightPairs are the CPU's only");
      return cuda::matmul_backward(ex, dinp, dweight, dbias, dout, inp, weight, N, C, OC,
                                   accumulate_dinp, accumulate_dparams, kept);
    }
  }
  SG_CHECK(keeps_nothing(kept), "matmul_backward: the arguments (kept) are cuda's only");
  cpu::matmul_backward(ex, dinp, dweight, dbias, dout, inp, weight, N, C, OC, accumulate_dinp,
                       accumulate_dparams, pairs);
}
SG_KERNEL_CUDA(attention_forward,
               (float* out, float* preatt, float* att, const float* qkv, const float* drop, int B,
                int T, int C, int NH),
               (out, preatt, att, qkv, drop, B, T, C, NH), (const Bf16Keep& keep = {}), (keep),
               keeps_nothing(keep))
SG_KERNEL_CUDA(attention_backward,
               (float* dqkv, float* dpreatt, float* datt, const float* dout, const float* qkv,
                const float* att, const float* drop, int B, int T, int C, int NH),
               (dqkv, dpreatt, datt, dout, qkv, att, drop, B, T, C, NH),
               (const Bf16Keep& kept = {}), (kept), keeps_nothing(kept))
// cuda: stats instead of probs (the forward), dlogits16, and the probabilities recomputed from
// the logits and stats (the backward); cuda::crossentropy_forward says how.
SG_KERNEL_CUDA(crossentropy_forward,
               (float* losses, float* probs, const float* logits, const int32_t* targets, int N,
                int V),
               (losses, probs, logits, targets, N, V), (float* stats = nullptr), (stats),
               stats == nullptr)
SG_KERNEL_CUDA(crossentropy_backward,
               (float* dlogits, const float* probs, const int32_t* targets, const float* dlosses,
                int N, int V),
               (dlogits, probs, targets, dlosses, N, V),
               (uint16_t* dlogits16 = nullptr, const float* logits = nullptr,
                const float* stats = nullptr),
               (dlogits16, logits, stats), dlogits16 == nullptr && stats == nullptr)
SG_KERNEL(dropout_forward, (float* out, float* mask, const float* inp, int64_t n, float p),
          (out, mask, inp, n, p))
SG_KERNEL(dropout_backward,
          (float* dinp, const float* dout, const float* mask, int64_t n, bool accumulate = true),
          (dinp, dout, mask, n, accumulate))
SG_KERNEL_B16(gelu_forward, (float* out, const float* inp, int64_t n), (out, inp, n))
SG_KERNEL_B16(gelu_backward, (float* dinp, const float* inp, const float* dout, int64_t n),
              (dinp, inp, dout, n))
SG_KERNEL_B16(gelu_exact_forward, (float* out, const float* inp, int64_t n), (out, inp, n))
SG_KERNEL_B16(gelu_exact_backward, (float* dinp, const float* inp, const float* dout, int64_t n),
              (dinp, inp, dout, n))
SG_KERNEL_B16(relu_forward, (float* out, const float* inp, int64_t n), (out, inp, n))
SG_KERNEL_B16(relu_backward, (float* dinp, const float* inp, const float* dout, int64_t n),
              (dinp, inp, dout, n))
SG_KERNEL(residual_forward, (float* out, const float* a, const float* b, int64_t n), (out, a, b, n))
// Clearing a gradient buffer before kernels accumulate into it, and passing one through
// unchanged (nn/ never clears or copies a buffer on one thread).
SG_KERNEL(zero, (float* x, int64_t n), (x, n))
SG_KERNEL(copy, (float* dst, const float* src, int64_t n), (dst, src, n))
SG_KERNEL(fill, (float* x, int64_t n, float value), (x, n, value))
SG_KERNEL(scale, (float* x, int64_t n, float s), (x, n, s))

SG_KERNEL(flash_attention_forward,
          (float* out, float* lse, const float* qkv, int B, int T, int C, int NH),
          (out, lse, qkv, B, T, C, NH))
SG_KERNEL(flash_attention_backward,
          (float* dqkv, const float* dout, const float* out, const float* lse, const float* qkv,
           int B, int T, int C, int NH),
          (dqkv, dout, out, lse, qkv, B, T, C, NH))
SG_KERNEL(attention_decode_forward,
          (float* out, const float* q, const float* k_cache, const float* v_cache, int n_ctx, int C,
           int NH, float* scratch),
          (out, q, k_cache, v_cache, n_ctx, C, NH, scratch))
using cpu::attention_decode_scratch_floats;
// CPU only: a weight packed ahead for --dtype bf16's products (WeightPairs above).
using cpu::matmul_pack_weight_bf16;
using cpu::matmul_weight_pairs_words;
using cpu::WeightPairsWords;
// CPU only for now: quantized weights.
// Weights held in bf16 or Q8 for decoding (--weights), and the matvec that reads them.
using cpu::kWeightFormatNames;
using cpu::quant_matvec_forward;
using cpu::quantize_weight;
using cpu::QuantizedWeight;
using cpu::WeightFormat;

// On the host whatever the device: the sampler's softmax over a host copy of the logits
// (sample/sampler.cpp).
inline void host_softmax_forward(const ExecContext& ex, float* out, const float* inp, int N,
                                 int C) {
  cpu::softmax_forward(ex, out, inp, N, C);
}

// The optimizer's ops (train/optimizer.cpp).
using cpu::AdamWArray;
SG_KERNEL(adamw_update,
          (float* param, const float* grad, float* m, float* v, int64_t n, float lr, float beta1,
           float beta2, float eps, float weight_decay, int t, float grad_scale = 1.0f),
          (param, grad, m, v, n, lr, beta1, beta2, eps, weight_decay, t, grad_scale))
SG_KERNEL(adamw_update_all,
          (int count, const AdamWArray* arrays, float lr, float beta1, float beta2, float eps,
           int t, float grad_scale = 1.0f),
          (count, arrays, lr, beta1, beta2, eps, t, grad_scale))
inline double global_norm(const ExecContext& ex, int count, const float* const* x,
                          const int64_t* n) {
  if constexpr (kCudaBuild) {
    if (ex.device == Device::kCuda) return cuda::global_norm(ex, count, x, n);
  }
  return cpu::global_norm(ex, count, x, n);
}

#undef SG_KERNEL
#undef SG_KERNEL_B16
#undef SG_KERNEL_CUDA
#undef SG_UNPAREN

}  // namespace scratchgpt::kernels
