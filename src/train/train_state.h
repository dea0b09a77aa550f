// train_state.h: TrainState, where a run stands between two steps: its counters, the best
// validation loss, and the random streams (exact resume). Plain data: io/checkpoint.h saves it,
// train/batch_stream.h fills its generators, run/train.cpp keeps it. Leaves out: the weights and
// the AdamW moments (they live in the model's ParamStore).
#pragma once

#include <cmath>
#include <cstdint>
#include <vector>

namespace scratchgpt {

struct TrainState {
  int64_t iter = 0;             // optimizer steps completed (AdamW's next step is iter + 1)
  int64_t last_eval_iter = -1;  // the iter whose evaluation is already done and logged
  float best_val_loss = INFINITY;
  std::vector<uint8_t> batch_rng, dropout_rng;  // Rng::get_state()
  std::vector<int32_t> prefetch;  // rng_stream "nanogpt": x then y of the next step's batch
};

}  // namespace scratchgpt
