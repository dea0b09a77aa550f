// lr_schedule.cpp: see lr_schedule.h.
#include "train/lr_schedule.h"

#include <cmath>

namespace scratchgpt {

double get_lr(int it, const TrainConfig& cfg) {
  const double lr = cfg.lr, min_lr = cfg.min_lr;
  if (!cfg.decay_lr) return lr;
  if (it < cfg.warmup_iters) return lr * (it + 1) / (cfg.warmup_iters + 1);
  if (it > cfg.lr_decay_iters) return min_lr;
  const double ratio =
      static_cast<double>(it - cfg.warmup_iters) / (cfg.lr_decay_iters - cfg.warmup_iters);
  const double coeff = 0.5 * (1.0 + std::cos(M_PI * ratio));  // from 1 down to 0
  return min_lr + coeff * (lr - min_lr);
}

}  // namespace scratchgpt
