// exec_context.h: ExecContext, how (not what) the engine computes: worker threads, the SIMD code
// path, the matmul backend and the sequence length from which attention takes the fused kernel.
// The run layer builds one from the command's flags and hands it to the model (nn/) and to the
// kernels (kernels/kernels.h: kernels::use), so these choices are made in one place; the model
// and the kernels never read flags. Leaves out: devices other than this CPU (the CUDA seam).
#pragma once

#include <utility>

#include "core/cpu_features.h"

namespace scratchgpt {

// Which code computes cpu::matmul's products (kernels/cpu/matmul_backend.h): our GEMM, oneDNN's
// sgemm, or auto (oneDNN where the build has it, else ours).
enum class MatmulBackend { kAuto, kOwn, kOneDnn };
inline constexpr std::pair<MatmulBackend, const char*> kMatmulBackendNames[] = {
    {MatmulBackend::kAuto, "auto"}, {MatmulBackend::kOwn, "own"}, {MatmulBackend::kOneDnn, "onednn"}};

struct ExecContext {
  int threads = 0;                                 // worker threads; 0: all cores
  SimdLevel isa = default_simd_level();            // the kernels' code path (at most detected;
                                                   // SCRATCHGPT_SIMD or --simd lower it)
  MatmulBackend matmul = MatmulBackend::kAuto;     // resolved by kernels::use
  // Attention takes the fused (flash) kernel from this T when no weights are dropped: below it
  // the stored kernel measured faster (nn/causal_self_attention.h).
  int fused_attention_min_T = 1024;
};

}  // namespace scratchgpt
