// batch_stream.cpp: see batch_stream.h.
#include "train/batch_stream.h"

#include <algorithm>

#include "core/check.h"
#include "data/dataset.h"

namespace scratchgpt {

namespace {
// An evaluation's own generator is seeded by (seed, iter) alone, so it never shifts the training
// batches and a resumed run evaluates on exactly the same batches.
uint64_t eval_seed(uint64_t seed, int64_t iter) {
  return seed + 0x9E3779B97F4A7C15ULL * static_cast<uint64_t>(iter + 1);
}
// The dropout masks of micro-step `micro` of step iter (split mode).
uint64_t dropout_seed(uint64_t seed, int64_t iter, int micro) {
  return (seed + 2) ^ (0xD1B54A32D192ED03ULL * static_cast<uint64_t>(iter + 1)) ^
         (0x8CB92BA72F3D8DD7ULL * static_cast<uint64_t>(micro + 1));
}
}  // namespace

BatchStream::BatchStream(const uint32_t* train, int64_t n, int B, int T, uint64_t seed,
                         bool nanogpt)
    : train_(train),
      n_(n),
      B_(B),
      T_(T),
      seed_(seed),
      nanogpt_(nanogpt),
      batch_rng_(seed + 1),
      dropout_rng_(seed + 2),
      eval_rng_(seed),
      x_(static_cast<size_t>(B) * T),
      y_(x_.size()),
      xn_(x_.size()),
      yn_(x_.size()) {}

void BatchStream::draw(std::vector<int32_t>& x, std::vector<int32_t>& y) {
  get_batch(train_, n_, B_, T_, batch_rng_, x.data(),
            y.data());
}

void BatchStream::init_model(LanguageModel& model) {
  if (nanogpt_) {
    batch_rng_.manual_seed(seed_);  // torch.manual_seed(seed); model = GPT(...)
    model.init(batch_rng_);
    draw(xn_, yn_);  // X, Y = get_batch('train'): the very first batch
  } else {
    Rng init_rng(seed_);
    model.init(init_rng);
  }
}

void BatchStream::restore(const TrainState& state, const std::string& path) {
  batch_rng_.set_state(state.batch_rng);
  dropout_rng_.set_state(state.dropout_rng);
  if (!nanogpt_) return;
  const size_t BT = x_.size();
  SG_CHECK(state.prefetch.size() == 2 * BT, "checkpoint ", path, " holds a prefetched batch of ",
           state.prefetch.size() / 2, " tokens where B x T = ", BT,
           ": resume with the run's --batch-size and --block-size");
  std::copy(state.prefetch.begin(), state.prefetch.begin() + BT, xn_.begin());
  std::copy(state.prefetch.begin() + BT, state.prefetch.end(), yn_.begin());
}

void BatchStream::save(TrainState& state) const {
  state.batch_rng = batch_rng_.get_state();
  // split: the dropout generator is reseeded for every micro-step, so its state carries nothing;
  // a fixed one keeps checkpoints the same bits whichever process wrote them.
  state.dropout_rng = nanogpt_ ? dropout_rng_.get_state() : Rng(seed_ + 2).get_state();
  state.prefetch.clear();
  if (nanogpt_) {
    state.prefetch.insert(state.prefetch.end(), xn_.begin(), xn_.end());
    state.prefetch.insert(state.prefetch.end(), yn_.begin(), yn_.end());
  }
}

void BatchStream::skip() {
  SG_CHECK(!nanogpt_, "BatchStream::skip: the nanogpt stream cannot skip a micro-step");
  draw(x_, y_);
}

float BatchStream::forward(LanguageModel& model, int64_t iter, int micro) {
  if (!nanogpt_) {
    draw(x_, y_);
    dropout_rng_.manual_seed(dropout_seed(seed_, iter, micro));
    return model.forward(x_.data(), y_.data(), B_, T_, &dropout_rng_);
  }
  // nanoGPT: forward on the prefetched batch (its dropout masks from the one generator), then
  // fetch the next batch; the caller's backward comes after.
  x_.swap(xn_);
  y_.swap(yn_);
  const float loss = model.forward(x_.data(), y_.data(), B_, T_, &batch_rng_);
  draw(xn_, yn_);
  return loss;
}

Rng& BatchStream::eval_rng(int64_t iter, int eval_interval) {
  // nanogpt: nanoGPT evaluates only at multiples of eval_interval, from its one stream. The extra
  // evaluation of a run stopped elsewhere (max_iters) draws from its own generator, so that
  // resuming it continues the stream exactly.
  if (nanogpt_ && iter % eval_interval == 0) return batch_rng_;
  eval_rng_.manual_seed(eval_seed(seed_, iter));
  return eval_rng_;
}

}  // namespace scratchgpt
