// bigram.cpp: see bigram.h.
#include "nn/bigram.h"

#include <cstring>

#include "core/check.h"
#include "kernels/kernels.h"
#include "nn/init.h"

namespace scratchgpt {

Bigram::Bigram(int V, const ExecContext& ctx) : V_(V), ctx_(ctx) {
  SG_CHECK(V > 0, "Bigram: vocab_size must be positive, got ", V);
  store_.build([this](ParamVisitor& v) {
    v.visit("token_embedding_table.weight", table_, dtable_, {V_, V_}, /*decay=*/true);
  });
}

void Bigram::init(Rng& rng) {
  init_embedding(rng, table_.data, V_, V_);  // nn.Embedding(V, V): normal_(0, 1)
}

float Bigram::forward(const int32_t* idx, const int32_t* targets, int B, int T,
                      Rng* /*dropout_rng: no dropout in a bigram*/) {
  SG_CHECK(B > 0 && T > 0, "Bigram::forward: B and T must be positive");
  const int64_t N = static_cast<int64_t>(B) * T;
  B_ = B, T_ = T;
  logits_buf_.resize(N * V_);
  idx_.assign(idx, idx + N);
  const float* table = table_.data;  // (V, V)
  for (int64_t n = 0; n < N; ++n) {
    SG_CHECK(idx[n] >= 0 && idx[n] < V_, "token id ", idx[n], " outside [0, ", V_, ")");
    // logits = self.token_embedding_table(idx)   (B, T, V)
    std::memcpy(logits_buf_.data() + n * V_, table + static_cast<int64_t>(idx[n]) * V_,
                sizeof(float) * V_);
  }
  logits_ = Tensor(logits_buf_.data(), {B, T, V_});
  have_targets_ = targets != nullptr;
  if (!targets) return 0.0f;
  for (int64_t n = 0; n < N; ++n)
    SG_CHECK(targets[n] >= 0 && targets[n] < V_, "target id ", targets[n], " outside [0, ", V_,
             ")");
  targets_.assign(targets, targets + N);
  probs_.resize(N * V_);
  losses_.resize(N);
  // loss = F.cross_entropy(logits.view(B*T, V), targets.view(B*T))
  kernels::crossentropy_forward(ctx_, losses_.data(), probs_.data(), logits_buf_.data(),
                                targets_.data(), static_cast<int>(N), V_);
  double sum = 0;
  for (float l : losses_) sum += l;
  return static_cast<float>(sum / static_cast<double>(N));
}

void Bigram::backward() {
  SG_CHECK(have_targets_, "Bigram::backward needs a forward with targets first");
  const int64_t N = static_cast<int64_t>(B_) * T_;
  // dloss/dlogits = (probs - onehot) / N, scattered into the table rows that were read.
  std::vector<float> dlogits(N * V_);  // (B, T, V), written by crossentropy_backward
  std::vector<float> dlosses(N, 1.0f / static_cast<float>(N));
  kernels::crossentropy_backward(ctx_, dlogits.data(), probs_.data(), targets_.data(),
                                 dlosses.data(), static_cast<int>(N), V_);
  float* dtable = dtable_.data;  // (V, V)
  for (int64_t n = 0; n < N; ++n) {
    float* row = dtable + static_cast<int64_t>(idx_[n]) * V_;
    const float* d = dlogits.data() + n * V_;
    for (int v = 0; v < V_; ++v) row[v] += d[v];
  }
}

const float* Bigram::decode_step(int32_t token) {
  SG_CHECK(token >= 0 && token < V_, "token id ", token, " outside [0, ", V_, ")");
  ++cache_len_;
  return table_.data + static_cast<int64_t>(token) * V_;
}

}  // namespace scratchgpt
