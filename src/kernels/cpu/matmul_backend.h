// matmul_backend.h: which code computes cpu::matmul's three products (forward, dinp, dweight) for
// more than a few rows. kOwn is our GEMM (gemm.h, the readable and portable one); kOneDnn is
// oneDNN's sgemm, present in builds with oneDNN (SCRATCHGPT_DNNL, on when libdnnl-dev is
// installed); kMixed runs the forward on ours and the gradients on oneDNN, except the weight
// gradients of wide layers over many rows (matmul.cpp's own_dweight_faster) and of layers small
// enough to stay in L2 (its dweight_in_row_halves: the small model's), what measured faster
// (the forward: the step is faster on ours, small model 14.4-15.0 against 15.1-15.6 ms, GPT-2
// small 685-690 against 701-720 ms, though oneDNN's library call alone is faster on most forward
// shapes; matmul_bench at two threads: oneDNN's weight gradient up to 23% faster but ours 11-21%
// on shakespeare-char's MLP, oneDNN's input gradient faster on most shapes; BENCHMARKS.md). The
// default is kMixed where the build has oneDNN, else ours. Decoding (N <= kMatvecMaxN), the bias
// gradient and attention always use our own kernels.
// The backend of a call is its ExecContext's `matmul` field (kAuto: the default).
#pragma once

#include <string>

#include "core/exec_context.h"

namespace scratchgpt::cpu {

using scratchgpt::MatmulBackend;  // core/exec_context.h

const char* matmul_backend_name(MatmulBackend b);  // "auto", "own", "onednn" or "mixed"

// True when this build has oneDNN linked in.
bool onednn_available();

// kMixed when this build has oneDNN, else kOwn.
MatmulBackend default_matmul_backend();

// b with kAuto resolved to the default one; kOneDnn or kMixed in a build without oneDNN throws
// scratchgpt::Error naming the fix (what the run layer checks before it builds a context).
MatmulBackend resolve_matmul_backend(MatmulBackend b);

// "auto" (the default backend), "own", "onednn" or "mixed" (what --matmul takes); anything else,
// or onednn / mixed in a build without oneDNN, throws scratchgpt::Error naming the choices and the
// fix.
MatmulBackend parse_matmul_backend(const std::string& name);

}  // namespace scratchgpt::cpu
