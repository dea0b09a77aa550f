// exec.h: the execution context of a command: built from its --threads, --matmul, --simd and --dtype, with
// the worker pool it names, and handed to the model (build_model, GPT), which passes it to every
// kernel. Under mpirun, train gives each process its share of the machine's cores
// (run/train.cpp). The SIMD level is the best the CPU has, SCRATCHGPT_SIMD's when set, or --simd's.
#pragma once

#include <memory>
#include <string>

#include "core/exec_context.h"
#include "core/thread_pool.h"
#include "kernels/kernels.h"

namespace scratchgpt {

// An ExecContext and the pool it points at, owned: keep it alive as long as the model.
struct Exec {
  std::unique_ptr<ThreadPool> pool;
  ExecContext ctx;
};

// threads: 0 for all cores; matmul: kAuto resolves to the build's default; simd: "" (the default
// level) or avx512 / avx2 / scalar, capped at what the CPU has. A negative or absurd thread count,
// onednn or mixed in a build without oneDNN, or an unknown level is an Error naming the fix.
// device: "" or cpu, or cuda (the GPU: an Error naming the fix in a build without CUDA or on a
// machine without a GPU; attention then takes the fused kernel from T = 2048).
// dtype: bf16 on the CPU needs AVX512_BF16 (an Error naming the instruction set and the fix
// elsewhere), unless SCRATCHGPT_BF16_ANY_CPU=1 (bf16_allowed_anywhere); on cuda it always runs.
Exec make_exec(int threads, MatmulBackend matmul, const std::string& simd = "",
               const std::string& device = "", Dtype dtype = Dtype::kFp32);

// An Error naming the fix unless this machine can compute in dtype on device ("" or cpu, or cuda)
// with the matmul backend: bf16 on the CPU needs AVX512_BF16 (or bf16_allowed_anywhere), and on
// oneDNN's bf16 matmul (bf16_on_onednn) a oneDNN that has one here. make_exec calls it; train
// calls it before it creates its out dir.
void require_dtype(Dtype dtype, const std::string& device,
                   MatmulBackend matmul = MatmulBackend::kAuto);

// What train's and bench's banners add in bf16 ("" in fp32): what runs: vdpbf16ps where the CPU
// has it at the AVX-512 level, else the same sums on gemm_bf16's AVX2 or portable path (slower
// than fp32: SCRATCHGPT_BF16_ANY_CPU or a capped --simd); on cuda, bf16 tensor-core products.
const char* bf16_banner(const ExecContext& ctx);

// SCRATCHGPT_BF16_ANY_CPU=1: --dtype bf16 runs on a CPU without AVX512_BF16 too. Its matrix
// products are then gemm_bf16's AVX2 (or portable) path, two FMAs a bf16 pair where vdpbf16ps
// does one instruction, the same sums: bf16's numbers below fp32's speed, for the tests and
// quality checks of the bf16 path on any machine, not for training faster.
bool bf16_allowed_anywhere();

// --weights: "" or fp32, bf16 or int8 (kernels/cpu/quant_matvec.h); another name is an Error
// listing the choices.
kernels::WeightFormat weight_format(const std::string& name);

}  // namespace scratchgpt
