// batch_stream.h: BatchStream, where a run's random numbers go: the model's init, the training
// batches (with nanoGPT's prefetch), the dropout masks and the evaluation batches, in one of two
// modes (TrainConfig::rng_stream):
//   split    a generator per purpose: init from seed, batches from seed + 1, the dropout masks of
//            micro-step m of step i from (seed, i, m) alone, each evaluation from (seed, iter)
//            alone: evaluations never move the batches, and a micro-step draws the same batch and
//            masks whichever process of a data-parallel run computes it;
//   nanogpt  nanoGPT's train.py: one generator, torch.manual_seed(seed), drawn in its order (init;
//            the first batch; per step the evaluation's batches when due, the forward's dropout
//            masks, and the next batch, prefetched before the backward).
// The trainer never needs to know which: it asks for the next forward and for an evaluation's
// generator, and saves and restores the stream with the checkpoint. Leaves out: epochs, sharding.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/rng.h"
#include "nn/language_model.h"
#include "train/train_state.h"

namespace scratchgpt {

class BatchStream {
 public:
  // train: the training split's n tokens (not copied: they must outlive the stream); B, T: the
  // batch shape.
  BatchStream(const uint32_t* train, int64_t n, int B, int T, uint64_t seed, bool nanogpt);

  // A fresh run: the model's init (and in nanogpt mode the first batch), in the mode's order.
  void init_model(LanguageModel& model);
  // A resumed run: the generators and the prefetched batch as the checkpoint holds them (path
  // names the checkpoint in errors).
  void restore(const TrainState& state, const std::string& path);
  void save(TrainState& state) const;  // the generators and the prefetched batch

  // Micro-step `micro` of step iter: the forward in training mode on the next batch (nanogpt:
  // the prefetched one, then the batch after it is drawn, before the caller's backward). Returns
  // the mean loss.
  float forward(LanguageModel& model, int64_t iter, int micro);
  // Draws the next batch without using it: a micro-step another process computes (split only).
  void skip();
  bool nanogpt() const { return nanogpt_; }
  // The generator an evaluation at iter draws its batches from.
  Rng& eval_rng(int64_t iter, int eval_interval);

 private:
  void draw(std::vector<int32_t>& x, std::vector<int32_t>& y);

  const uint32_t* train_;
  int64_t n_;
  int B_, T_;
  uint64_t seed_;
  bool nanogpt_;
  Rng batch_rng_, dropout_rng_, eval_rng_;
  std::vector<int32_t> x_, y_;    // (B, T) this micro-step's batch
  std::vector<int32_t> xn_, yn_;  // (B, T) nanogpt: the next micro-step's batch, prefetched
};

}  // namespace scratchgpt
