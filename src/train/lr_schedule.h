// lr_schedule.h: nanoGPT's get_lr: linear warmup, then cosine decay to min_lr, then min_lr.
//   it <  warmup:          lr * (it + 1) / (warmup + 1)
//   it >  lr_decay_iters:  min_lr
//   else:                  min_lr + coeff * (lr - min_lr),
//                          coeff = 0.5 * (1 + cos(pi * (it - warmup) / (decay - warmup)))
// Computed in double as Python does. decay_lr == false gives the constant lr.
#pragma once

#include "train/train_config.h"

namespace scratchgpt {

double get_lr(int it, const TrainConfig& cfg);

}  // namespace scratchgpt
