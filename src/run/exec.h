// exec.h: the execution context of a command: built from its --threads, --matmul and --simd, with
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
Exec make_exec(int threads, MatmulBackend matmul, const std::string& simd = "",
               const std::string& device = "");

// --weights: "" or fp32, bf16 or int8 (kernels/cpu/quant_matvec.h); another name is an Error
// listing the choices.
kernels::WeightFormat weight_format(const std::string& name);

}  // namespace scratchgpt
