// exec.h: the execution context of a command that runs in one process (eval, sample, bench):
// built from its --threads and --matmul, applied to the kernels (kernels::use) and returned with
// the backend resolved, to hand to the model (build_model, GPT). train builds its own
// (run/train.cpp): under mpirun a machine's cores are shared among its processes.
// The SIMD level is the best the CPU has, SCRATCHGPT_SIMD's when set, or --simd's.
#pragma once

#include <string>

#include "core/exec_context.h"

namespace scratchgpt {

// threads: 0 for all cores; matmul: kAuto resolves to the build's default. A negative thread
// count, or onednn in a build without oneDNN, is an Error naming the fix.
// simd: "" (the default level) or avx512 / avx2 / scalar, capped at what the CPU has.
ExecContext use_exec_context(int threads, MatmulBackend matmul, const std::string& simd = "");

}  // namespace scratchgpt
