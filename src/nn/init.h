// init.h: PyTorch's default parameter initialisations, drawn from Rng exactly as torch draws them,
// so a scratchgpt model seeded like a PyTorch one starts from bit-identical weights.
// Leaves out: xavier/orthogonal and other nn.init schemes the lectures do not use.
#pragma once

#include <cstdint>

#include "core/rng.h"

namespace scratchgpt {

// nn.Linear(C, OC, bias)'s constructor: weight ~ kaiming_uniform_(a = sqrt(5)), i.e.
// U(-b, b) with b = sqrt(3) * sqrt(2 / (1 + a^2)) / sqrt(C) (~ 1/sqrt(C)), then (if bias !=
// nullptr) bias ~ U(-1/sqrt(C), 1/sqrt(C)), in that order.
void init_linear(Rng& rng, float* weight /* (OC, C) */, float* bias /* (OC) or nullptr */, int OC,
                 int C);

// nn.Embedding(V, C)'s constructor: weight ~ normal_(0, 1).
void init_embedding(Rng& rng, float* weight /* (V, C) */, int V, int C);

// nn.init.normal_(w, mean, std), e.g. nanoGPT's normal_(0, 0.02). Pass mean and std as doubles (as
// Python does): tensors of fewer than 16 elements use them in double precision.
void init_normal(Rng& rng, float* w /* (n) */, int64_t n, double mean, double std);

// nn.init.uniform_(w, from, to).
void init_uniform(Rng& rng, float* w /* (n) */, int64_t n, double from, double to);

}  // namespace scratchgpt
