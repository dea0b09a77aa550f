// matmul_backend.h: which code computes cpu::matmul's three products (forward, dinp, dweight) for
// more than a few rows. kOwn is our GEMM (gemm.h); kOneDnn is oneDNN's sgemm, present only in a
// build configured with -DSCRATCHGPT_DNNL=ON (apt: libdnnl-dev), kept for the comparison the
// engine's default is decided by (BENCHMARKS.md). Decoding (N <= kMatvecMaxN), the bias gradient
// and attention always use our own kernels. Not thread-safe against concurrent kernel calls.
#pragma once

#include <string>

namespace scratchgpt::cpu {

enum class MatmulBackend { kOwn = 0, kOneDnn = 1 };

const char* matmul_backend_name(MatmulBackend b);  // "own" or "onednn"

// True when this build has oneDNN linked in.
bool onednn_available();

// The backend in use now (kOwn by default).
MatmulBackend matmul_backend();

// Switches the backend; asking for kOneDnn in a build without it throws scratchgpt::Error.
void set_matmul_backend(MatmulBackend b);

// "own" or "onednn" (what --matmul takes); anything else, or onednn in a build without it,
// throws scratchgpt::Error naming the choices and the fix.
MatmulBackend parse_matmul_backend(const std::string& name);

}  // namespace scratchgpt::cpu
