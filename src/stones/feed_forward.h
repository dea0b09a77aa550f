// feed_forward.h: the lecture's FeedForward, nn.Sequential(Linear(C, 4C), ReLU(), Linear(4C, C),
// Dropout), owning its weights and templated on F (double gradient checks, the block lesson).
// It exists beside the engine's MLP (nn/mlp.h: the same computation, float only, weights in the
// model's slab) because the stepping stones own their memory and run in double.
// Leaves out: GELU (the engine's MLP has it).
#pragma once

#include <vector>

#include "core/rng.h"
#include "stones/attend.h"

namespace scratchgpt::stones {

template <typename F>
struct FeedForward {
  int C = 0;
  float dropout = 0.0f;
  Linear<F> fc1, fc2;  // net[0]: C -> 4C, net[2]: 4C -> C
  int N = 0;
  std::vector<F> pre, act;  // (N, 4C) before and after ReLU
  std::vector<F> drop;      // (N, C) scaled dropout mask, empty in eval

  FeedForward(int n_embd, float dropout);
  void init(Rng& rng);  // net[0] then net[2]
  void forward(F* out /* (N, C) */, const F* x /* (N, C) */, int n, Rng* rng = nullptr);
  void backward(F* dx /* (N, C), accumulated */, const F* dout /* (N, C) */);
  void zero_grad();
};

}  // namespace scratchgpt::stones
