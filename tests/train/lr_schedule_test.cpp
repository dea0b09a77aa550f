// lr_schedule_test.cpp: get_lr against nanoGPT's get_lr evaluated in Python (values below were
// printed by nanoGPT's function with learning_rate=1e-3, warmup_iters=100, lr_decay_iters=2000,
// min_lr=1e-4, as in the shakespeare-char-small preset).
#include "train/lr_schedule.h"

#include <gtest/gtest.h>

using namespace scratchgpt;

TEST(LrSchedule, MatchesNanoGPT) {
  const TrainConfig cfg = preset_config("shakespeare-char-small");
  const std::pair<int, double> want[] = {{0, 9.900990099009901e-06},
                                         {1, 1.9801980198019803e-05},
                                         {50, 0.000504950495049505},
                                         {99, 0.0009900990099009901},
                                         {100, 0.001},
                                         {101, 0.0009999993848585915},
                                         {500, 0.0009051132292283772},
                                         {1000, 0.0005871607054625496},
                                         {1050, 0.00055},
                                         {1999, 0.00010000061514140841},
                                         {2000, 0.0001},
                                         {2001, 0.0001},
                                         {5000, 0.0001}};
  for (const auto& [it, lr] : want) EXPECT_NEAR(get_lr(it, cfg), lr, 1e-15 * lr) << "it " << it;
}

TEST(LrSchedule, ConstantWhenDecayIsOff) {
  TrainConfig cfg = preset_config("bigram");
  for (int it : {0, 1, 100, 2999, 10000}) EXPECT_EQ(get_lr(it, cfg), 1e-2);
}
