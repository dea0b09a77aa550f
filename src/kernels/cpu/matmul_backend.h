// matmul_backend.h: which code computes cpu::matmul's three products (forward, dinp, dweight) for
// more than a few rows. kOwn is our GEMM (gemm.h, the readable and portable one); kOneDnn is
// oneDNN's sgemm, present in builds with oneDNN (SCRATCHGPT_DNNL, on when libdnnl-dev is
// installed). The default is oneDNN where the build has it, since it measured at least as fast
// end to end on every model (BENCHMARKS.md), else ours. Decoding (N <= kMatvecMaxN), the bias
// gradient and attention always use our own kernels.
// The backend of a call is its ExecContext's `matmul` field (kAuto: the default).
#pragma once

#include <string>

#include "core/exec_context.h"

namespace scratchgpt::cpu {

using scratchgpt::MatmulBackend;  // core/exec_context.h

const char* matmul_backend_name(MatmulBackend b);  // "auto", "own" or "onednn"

// True when this build has oneDNN linked in.
bool onednn_available();

// kOneDnn when this build has oneDNN, else kOwn.
MatmulBackend default_matmul_backend();

// b with kAuto resolved to the default one; kOneDnn in a build without it throws
// scratchgpt::Error naming the fix (what the run layer checks before it builds a context).
MatmulBackend resolve_matmul_backend(MatmulBackend b);

// "auto" (the default backend), "own" or "onednn" (what --matmul takes); anything else, or onednn
// in a build without it, throws scratchgpt::Error naming the choices and the fix.
MatmulBackend parse_matmul_backend(const std::string& name);

}  // namespace scratchgpt::cpu
