// exec_context.h: ExecContext, how (not what) the engine computes: the worker threads, the SIMD
// code path, the matmul backend and the sequence length from which attention takes the fused
// kernel. The run layer builds one from the command's flags (run/exec.h), hands it to the model
// (nn/), and the model passes it to every kernel it calls (kernels/kernels.h); no kernel reads a
// process-wide setting, so two contexts (two models, or a test's forced level) can live side by
// side. `device` picks the kernels: cpu:: on this CPU, cuda:: on the GPU (kernels/kernels.h), whose
// slabs are then managed memory (core/device.h).
#pragma once

#include <utility>

#include "core/cpu_features.h"
#include "core/device.h"
#include "core/thread_pool.h"

namespace scratchgpt {

// Which code computes cpu::matmul's products (kernels/cpu/matmul_backend.h): our GEMM, oneDNN's
// sgemm, mixed (each product on the one that measured faster for it), or auto (mixed where the
// build has oneDNN, else ours).
enum class MatmulBackend { kAuto, kOwn, kOneDnn, kMixed };
inline constexpr std::pair<MatmulBackend, const char*> kMatmulBackendNames[] = {
    {MatmulBackend::kAuto, "auto"},
    {MatmulBackend::kOwn, "own"},
    {MatmulBackend::kOneDnn, "onednn"},
    {MatmulBackend::kMixed, "mixed"}};

// The precision of the matrix products' inputs (--dtype): fp32, or bf16 (rounded to nearest even,
// the products summed in fp32; kernels/ref/bf16.h). Everything else (the weights the optimizer
// updates, gradients, layernorm, softmax, GELU, the loss, the reductions) stays fp32 either way.
enum class Dtype { kFp32, kBf16 };
inline constexpr std::pair<Dtype, const char*> kDtypeNames[] = {{Dtype::kFp32, "fp32"},
                                                                {Dtype::kBf16, "bf16"}};

struct ExecContext {
  Device device = Device::kCpu;  // where the kernels run and the model's slabs live
  // The workers the kernels split their work over (not owned; run/exec.h's Exec owns one). Null:
  // the process's default pool of one thread per core (ThreadPool::global()), what tests and
  // lessons use when they do not care.
  ThreadPool* pool = nullptr;
  SimdLevel isa = default_simd_level();         // the kernels' code path (at most detected;
                                                // SCRATCHGPT_SIMD or --simd lower it)
  MatmulBackend matmul = MatmulBackend::kAuto;  // kAuto: mixed where the build has oneDNN
  Dtype dtype = Dtype::kFp32;  // the matrix products' inputs (cpu::matmul, cpu::attention)
  // Attention takes the fused (flash) kernel from this T when no weights are dropped: below it
  // the stored kernel measured faster (nn/causal_self_attention.h).
  int fused_attention_min_T = 1024;
  // cuda only: float32 matrix products on the tensor cores in TF32 (10-bit mantissa inputs, fp32
  // sums), as nanoGPT's train.py and llm.c run them; false: full fp32 (--tf32 off, the tests).
  bool tf32 = true;

  ThreadPool& workers() const { return pool != nullptr ? *pool : ThreadPool::global(); }
  int threads() const { return workers().num_threads(); }
};

}  // namespace scratchgpt
