// matmul_backend.h: which code computes cpu::matmul's three products (forward, dinp, dweight) for
// more than a few rows. kOwn is our GEMM (gemm.h, the readable and portable one); kOneDnn is
// oneDNN's sgemm, present in builds with oneDNN (SCRATCHGPT_DNNL, on when libdnnl-dev is
// installed); kMixed runs the input gradient on oneDNN (but see mixed_dinp_on_onednn) and the
// forward and the weight gradient on ours, what measured faster in the step (the forward: small
// model 14.4-15.0 against 15.1-15.6 ms, GPT-2 small 685-690 against 701-720 ms, though oneDNN's
// library call alone is faster on most forward shapes; the weight gradient: GPT-2 small 670-672
// against 663 ms a step, capped at AVX2 1109-1149 against 1055-1057 ms, shakespeare-char and the
// small model the same or a little faster; oneDNN's input gradient faster on most shapes;
// docs/bench-log.md). The default is kMixed where the build has oneDNN, else ours. Decoding
// (N <= kMatvecMaxN), the bias gradient and attention always use our own kernels.
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

// True when oneDNN runs its AVX2 kernels (a CPU without AVX-512, or DNNL_MAX_CPU_ISA=AVX2); false
// in a build without oneDNN.
bool onednn_below_avx512();

// Whether kMixed gives the input gradient of a layer with C inputs to oneDNN: yes, unless oneDNN
// runs its AVX2 kernels and C >= 512. dinp = dout @ W reads the weight (OC, C) as B, and with rows
// 2 KiB or more apart (and 64-byte aligned, as the model's tensors are) oneDNN's AVX2 sgemm ran
// 1.3-2.1x slower than ours (capped at AVX2 on a Zen 4: the MLP's down projection of all three
// target models; the step 2-7% faster; docs/bench-log.md). At AVX-512 oneDNN's is 3-8% faster.
bool mixed_dinp_on_onednn(int C);

// True when oneDNN has a bf16 matmul on this CPU (AVX-512 at least); false without oneDNN.
bool onednn_has_bf16();

// True when oneDNN's bf16 matmul runs on AMX tiles here (Sapphire Rapids class; DNNL_MAX_CPU_ISA
// can cap it); false in a build without oneDNN.
bool onednn_has_amx();

// Whether --dtype bf16's products run on oneDNN's bf16 matmul (matmul_onednn.h's gemm_bf16_nt)
// instead of ours (gemm_bf16) under backend b (kAuto: the default): onednn always, own never,
// mixed only where oneDNN drives AMX tiles (Sapphire Rapids class). Without AMX its brgemm runs
// the instruction ours runs (vdpbf16ps) and measured no faster on a Zen 4 (docs/bench-log.md),
// so the products keep gemm_bf16's bits there.
bool bf16_on_onednn(MatmulBackend b);

// "auto" (the default backend), "own", "onednn" or "mixed" (what --matmul takes); anything else,
// or onednn / mixed in a build without oneDNN, throws scratchgpt::Error naming the choices and the
// fix.
MatmulBackend parse_matmul_backend(const std::string& name);

}  // namespace scratchgpt::cpu
