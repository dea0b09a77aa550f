// evaluate.h: the loss of a language model on a split of token ids, two ways ('scratchgpt eval',
// src/run/eval.h, applies them to a checkpoint).
//   estimate_loss  nanoGPT's estimate_loss: the mean over eval_iters random (B, T) batches. What
//                  'train' logs every eval_interval steps: cheap, but noisy (on Tiny Shakespeare,
//                  20 batches of 12 x 64 scatter by about +-0.012 around the full loss).
//   full_loss      every non-overlapping T-token window of the split exactly once: the mean
//                  cross-entropy over all of its tokens, deterministic, the figure to compare
//                  runs and implementations by.
// Leaves out: sliding-window (strided) evaluation, which scores every token with a full context.
#pragma once

#include <cstdint>
#include <vector>

#include "core/rng.h"
#include "dist/comm.h"
#include "nn/language_model.h"

namespace scratchgpt {

// x, y: scratch of B * T ids each. Eval mode (no dropout). With comm, the batches are shared out
// among the processes (batch k to rank k mod size; every rank draws them all) and the mean is
// taken over all of them in order: the same bits as one process.
float estimate_loss(LanguageModel& model, const std::vector<uint32_t>& data, int B, int T,
                    int eval_iters, Rng& rng, std::vector<int32_t>& x, std::vector<int32_t>& y,
                    Comm& comm);
float estimate_loss(LanguageModel& model, const std::vector<uint32_t>& data, int B, int T,
                    int eval_iters, Rng& rng, std::vector<int32_t>& x, std::vector<int32_t>& y);

struct FullLoss {
  double loss = 0;      // mean cross-entropy (nats) per predicted token
  int64_t windows = 0;  // (n - 1) / T windows: x = data[w*T, w*T + T), y = x shifted by one
  int64_t tokens = 0;   // windows * T predicted tokens
};

// Windows go through the model B at a time (the last batch may be smaller). An Error if the data
// holds fewer than T + 1 tokens.
FullLoss full_loss(LanguageModel& model, const uint32_t* data, int64_t n, int B, int T);

}  // namespace scratchgpt
