// kernels.h: the entry layer of the kernels, what code above the model (train/, sample/, run/)
// includes instead of kernels/cpu/: it applies an ExecContext (core/exec_context.h) to the
// kernels and names the ops those layers call. Every op runs on cpu:: today; a CUDA backend
// (kernels/cuda/, same op names) would be chosen here by a device field of the context.
// Leaves out: per-call contexts: the kernels read the context last applied, process-wide.
#pragma once

#include <string>

#include "core/exec_context.h"
#include "kernels/cpu/adamw.h"
#include "kernels/cpu/global_norm.h"
#include "kernels/cpu/matmul.h"

namespace scratchgpt::kernels {

// Makes ctx the one the kernels run with: the pool's threads, the SIMD level (at most what the
// CPU has) and the matmul backend (kAuto resolved; kOneDnn in a build without oneDNN is an Error
// naming the fix).
void use(const ExecContext& ctx);
// What the kernels run with now (threads counted, level and backend resolved).
ExecContext current();

const char* matmul_name(MatmulBackend b);
bool onednn_available();

// The ops the optimizer calls (see their cpu:: headers).
using cpu::adamw_update;
using cpu::global_norm;
// The product bench times on its own (the lm_head's share of a decoded token).
using cpu::matmul_forward;

}  // namespace scratchgpt::kernels
