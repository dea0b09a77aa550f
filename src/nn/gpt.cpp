// gpt.cpp: GPT construction (parameter slabs), init, forward, backward, KV-cache decoding.
#include "nn/gpt.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>

#include "kernels/kernels.h"

namespace scratchgpt {

GPT::GPT(const GPTConfig& config, const ExecContext& ctx)
    : config_(config),
      ctx_(ctx),
      V(config.vocab_size),
      C(config.n_embd),
      L(config.n_layer),
      emb_drop(config.dropout),
      ln_f(config.n_embd, config.bias),
      lm_head(config.n_embd, config.vocab_size, /*bias=*/false) {
  config_.validate();
  SG_CHECK(ctx.device == Device::kCpu || config_.dropout == 0.0f,
           "--device cuda trains with --dropout 0 only (attention dropout has no GPU kernel "
           "yet): pass --dropout 0, or --device cpu");
  blocks.reserve(static_cast<size_t>(L));
  for (int l = 0; l < L; ++l) {
    blocks.emplace_back(config_);
    // --dtype bf16 on cuda rounds its products' inputs in the stored kernel only (the GPU's fused
    // one has no bf16 path yet), so it plans the (B, NH, T, T) weights at every T; the CPU's fused
    // kernel rounds them too.
    const bool stored_only = ctx.dtype == Dtype::kBf16 && ctx.device == Device::kCuda;
    blocks.back().attn.fused_min_T =
        stored_only ? std::numeric_limits<int>::max() : ctx.fused_attention_min_T;
    blocks.back().attn.keep_bf16 = kernels::keeps_bf16_operands(ctx);
    blocks.back().mlp.keep_bf16 = kernels::keeps_bf16_operands(ctx);
  }

  store_.build([this](ParamVisitor& v) { visit_params(v); }, ctx.device);
  if (config_.tied) {  // lm_head.weight is wte (GPT-2's weight tying): one Param, both uses
    lm_head.weight = wte;
    lm_head.dweight = dwte;
  }

  grad_cuts_ = store_.grad_cuts(backward_groups());  // backward(ready)'s ranges
  std::vector<const float*> written;  // zero_grad() leaves each Linear's gradients to its backward
  for_each_linear([&](Linear& lin) {
    written.push_back(lin.dweight.data);  // tied: wte's, which encoder_backward then adds to
    if (lin.has_bias) written.push_back(lin.dbias.data);
  });
  store_.leave_to_backward(written);
}

void GPT::zero_grad() {
  store_.zero_grads(ctx_);
  for_each_linear([](Linear& l) { l.dparams_unset = true; });
}

namespace {
// The parameters in checkpoint order and names, over a GPT's modules (or stand-ins of the same
// shapes): one walk for building the model and for listing its tensors.
void walk_params(ParamVisitor& v, const GPTConfig& config, Tensor& wte, Tensor& dwte, Tensor& wpe,
                 Tensor& dwpe, std::vector<Block>& blocks, LayerNorm& ln_f, Linear& lm_head) {
  v.visit("wte", wte, dwte, {config.vocab_size, config.n_embd}, /*decay=*/true);
  v.visit("wpe", wpe, dwpe, {config.block_size, config.n_embd}, /*decay=*/true);
  for (size_t l = 0; l < blocks.size(); ++l)
    blocks[l].visit_params("blocks." + std::to_string(l), v);
  ln_f.visit_params("ln_f", v);
  if (!config.tied) lm_head.visit_params("lm_head", v);
}
}  // namespace

void GPT::visit_params(ParamVisitor& v) {
  walk_params(v, config_, wte, dwte, wpe, dwpe, blocks, ln_f, lm_head);
}

std::vector<ParamStore::Group> GPT::backward_groups() {
  std::vector<ParamStore::Group> groups{{"the embeddings", [this](ParamVisitor& v) {
                                           v.visit("wte", wte, dwte, {}, true);
                                           v.visit("wpe", wpe, dwpe, {}, true);
                                         }}};
  for (Block& b : blocks)
    groups.push_back({"block " + std::to_string(groups.size() - 1),
                      [&b](ParamVisitor& v) { b.visit_params("", v); }});
  groups.push_back({"ln_f", [this](ParamVisitor& v) {
                      ln_f.visit_params("", v);
                      if (!config_.tied) lm_head.visit_params("", v);
                    }});
  return groups;
}

std::vector<std::pair<std::string, std::vector<int64_t>>> gpt_param_shapes(
    const GPTConfig& config) {
  struct Record : ParamVisitor {
    std::vector<std::pair<std::string, std::vector<int64_t>>> out;
    void visit(const std::string& name, Tensor&, Tensor&, const std::vector<int64_t>& shape,
               bool) override {
      out.emplace_back(name, shape);
    }
  } record;
  Tensor wte, dwte, wpe, dwpe;  // modules allocate nothing: the store would
  std::vector<Block> blocks(static_cast<size_t>(config.n_layer), Block(config));
  LayerNorm ln_f(config.n_embd, config.bias);
  Linear lm_head(config.n_embd, config.vocab_size, /*bias=*/false);
  walk_params(record, config, wte, dwte, wpe, dwpe, blocks, ln_f, lm_head);
  return record.out;
}

Param& GPT::param(const std::string& name) { return store_.get(name); }

const float* GPT::attention_weights(int layer) const {
  SG_CHECK(layer >= 0 && layer < L, "layer ", layer, " is outside the model's ", L, " layers");
  const CausalSelfAttention& a = blocks[static_cast<size_t>(layer)].attn;
  return a.fused || a.att_stats != nullptr ? nullptr : a.att;  // (att keeps scores then)
}

const float* GPT::attention_qkv(int layer) const {
  SG_CHECK(layer >= 0 && layer < L, "layer ", layer, " is outside the model's ", L, " layers");
  return blocks[static_cast<size_t>(layer)].attn.c_attn.out;
}

const float* GPT::attention_heads(int layer) const {
  SG_CHECK(layer >= 0 && layer < L, "layer ", layer, " is outside the model's ", L, " layers");
  return blocks[static_cast<size_t>(layer)].attn.y;
}

void GPT::init(Rng& rng) {
  auto fill = [](const Tensor& t, float value) { std::fill(t.begin(), t.end(), value); };
  auto normal = [&rng](const Tensor& t, double std) { rng.normal(t.data, t.numel(), 0.0, std); };
  // Building nanoGPT's modules draws defaults that its init then overwrites; draw them too so
  // the generator stays in step: nn.Embedding normal_(0, 1), nn.Linear kaiming/bias uniform_.
  auto linear_defaults = [&rng](const Linear& lin) {
    const float bound = static_cast<float>(1.0 / std::sqrt(static_cast<double>(lin.C)));
    rng.uniform(lin.weight.data, lin.weight.numel(), -bound, bound);
    if (lin.has_bias) rng.uniform(lin.bias.data, lin.bias.numel(), -bound, bound);
  };
  rng.normal(wte.data, wte.numel(), 0.0, 1.0);
  rng.normal(wpe.data, wpe.numel(), 0.0, 1.0);
  for (Block& b : blocks) {
    linear_defaults(b.attn.c_attn);
    linear_defaults(b.attn.c_proj);
    linear_defaults(b.mlp.c_fc);
    linear_defaults(b.mlp.c_proj);
  }
  linear_defaults(lm_head);  // tied: lands in wte, as nanoGPT's shared tensor

  // _init_weights, applied module by module in registration order.
  normal(wte, 0.02);
  normal(wpe, 0.02);
  auto linear_init = [&](const Linear& lin) {
    normal(lin.weight, 0.02);
    if (lin.has_bias) fill(lin.bias, 0.0f);
  };
  auto layernorm_init = [&](const LayerNorm& ln) {
    fill(ln.weight, 1.0f);
    if (ln.has_bias) fill(ln.bias, 0.0f);
  };
  for (Block& b : blocks) {
    layernorm_init(b.ln_1);
    linear_init(b.attn.c_attn);
    linear_init(b.attn.c_proj);
    layernorm_init(b.ln_2);
    linear_init(b.mlp.c_fc);
    linear_init(b.mlp.c_proj);
  }
  layernorm_init(ln_f);
  linear_init(lm_head);
  // GPT-2's scaled init of the residual projections, in named_parameters order.
  const double proj_std = 0.02 / std::sqrt(2.0 * L);
  for (Block& b : blocks) {
    normal(b.attn.c_proj.weight, proj_std);
    normal(b.mlp.c_proj.weight, proj_std);
  }
  cache_len_ = 0;  // cached keys and values belong to the old weights
}

std::pair<size_t, size_t> GPT::layout(float* base, size_t scratch_offset, int B, int T) {
  const int64_t N = int64_t{B} * T;
  SlabPlanner acts(base, 0);
  // The token ids (B, T), int32 in float-sized slots: the GPU's kernels read them from the slab.
  idx_ = reinterpret_cast<int32_t*>(acts.take(N));
  targets_ = reinterpret_cast<int32_t*>(acts.take(N));
  emb_ = acts.take(N * C);
  emb_drop.plan(acts, acts, N * C);
  size_t scratch_end = scratch_offset;
  for (Block& b : blocks) {
    SlabPlanner scratch(base, scratch_offset);  // every block gets the same scratch addresses
    b.plan(acts, scratch, B, T);
    scratch_end = std::max(scratch_end, scratch.used());
  }
  ln_f.plan(acts, static_cast<int>(N));
  lm_head.plan(acts, static_cast<int>(N));
  // bf16 on cuda: every product's inputs are rounded once a step and kept (kernels::Bf16Keep),
  // the logits' gradient made in bf16 only.
  const bool keep16 = kernels::keeps_bf16_operands(ctx_);
  if (keep16) for_each_linear([&](Linear& l) { l.plan_bf16(acts, static_cast<int>(N)); });
  losses_ = acts.take(N);
  probs_ = keep16 ? nullptr : acts.take(N * V);     // bf16 on cuda: each row's max and 1 / sum
  ce_stats_ = keep16 ? acts.take(N * 2) : nullptr;  // instead (kernels::crossentropy_forward)
  dlosses_ = acts.take(N);
  dlogits_ = keep16 ? nullptr : acts.take(N * V);
  dlogits16_ = keep16 ? acts.take_bf16(N * V) : nullptr;
  dlnf_ = acts.take(N * C);
  dres_[0] = acts.take(N * C);
  dres_[1] = acts.take(N * C);
  demb_ = acts.take(N * C);
  return {acts.used(), scratch_end};
}

void GPT::plan_activations(int B, int T) {
  if (B <= max_B_ && T <= max_T_) return;
  const int new_B = std::max(B, max_B_), new_T = std::max(T, max_T_);
  const auto [acts_end, scratch_size] = layout(nullptr, 0, new_B, new_T);
  max_B_ = max_T_ = 0;  // nothing is planned until the new slab is carved (e.g. if it throws)
  have_forward_ = false;
  acts_.release();
  acts_.reserve(acts_end + scratch_size, ctx_.device);
  const auto [acts_end2, scratch_end2] = layout(acts_.base(), acts_end, new_B, new_T);
  SG_CHECK(acts_end2 == acts_end && scratch_end2 == acts_end + scratch_size,
           "activation layout is not deterministic");
  max_B_ = new_B;
  max_T_ = new_T;
}

void GPT::pack_bf16_weights() {
  if (ctx_.dtype != Dtype::kBf16 || ctx_.device != Device::kCpu || fp32_released_) return;
  if (pairs_at_ == store_.writes()) return;
  if (pair_words_.empty()) {
    size_t total = 0;
    for_each_linear([&](Linear& l) {
      total += Arena::round_up(kernels::matmul_weight_pairs_words(ctx_, l.C, l.OC));
    });
    pairs_.reserve(total);
    for_each_linear([&](Linear& l) {
      auto* words = reinterpret_cast<uint32_t*>(
          pairs_.alloc(kernels::matmul_weight_pairs_words(ctx_, l.C, l.OC)));
      pair_words_.push_back({l.weight.data, words, l.C, l.OC});
    });
  }
  size_t i = 0;
  for_each_linear([&](Linear& l) {
    l.pairs =
        kernels::matmul_pack_weight_bf16(ctx_, l.weight.data, l.C, l.OC, pair_words_[i++].words);
  });
  pairs_at_ = store_.writes();
}

std::span<const kernels::WeightPairsWords> GPT::packed_weights() {
  // Made by the first pack; then every Linear's weight (the tied lm_head's is wte) is a Param.
  if (fp32_released_) return {};
  return pair_words_;
}

float GPT::forward(const int32_t* idx, const int32_t* targets, int B, int T, Rng* dropout_rng) {
  const ExecContext& ex = ctx_;
  SG_CHECK(B > 0 && T > 0, "GPT::forward needs B > 0 and T > 0, got B=", B, " T=", T);
  SG_CHECK(T <= config_.block_size, "sequence length T=", T, " exceeds the model's block_size ",
           config_.block_size, ": crop the context to the last ", config_.block_size, " tokens");
  SG_CHECK(idx != nullptr, "GPT::forward: idx is null");
  const int64_t N = int64_t{B} * T;
  for (int64_t i = 0; i < N; ++i)
    SG_CHECK(idx[i] >= 0 && idx[i] < V, "token id ", idx[i], " at position ", i,
             " is outside the vocabulary [0, ", V, "): data and model use different tokenizers");
  if (targets)
    for (int64_t i = 0; i < N; ++i)
      SG_CHECK(targets[i] >= 0 && targets[i] < V, "target id ", targets[i], " at position ", i,
               " is outside the vocabulary [0, ", V, "): data and model use different tokenizers");
  plan_activations(B, T);
  pack_bf16_weights();
  B_ = B;
  T_ = T;
  // Copied in, not written in place: on cuda the host touches no page of the slab in a step.
  device_copy(ex.device, idx_, idx, sizeof(int32_t) * static_cast<size_t>(N));
  if (targets) device_copy(ex.device, targets_, targets, sizeof(int32_t) * static_cast<size_t>(N));

  kernels::encoder_forward(ex, emb_, idx_, wte.data, wpe.data, B, T,
                           C);                                      // x = wte[idx] + wpe[t]
  const float* x = emb_drop.forward(ex, emb_, N * C, dropout_rng);  // x = drop(x)
  for (Block& b : blocks) x = b.forward(ex, x, B, T, dropout_rng);  // x = block(x)
  const float* h = ln_f.forward(ex, x, static_cast<int>(N), lm_head.inp16);  // x = ln_f(x)
  const float* logits = lm_head.forward(ex, h, static_cast<int>(N));         // (B, T, V)
  have_forward_ = true;
  have_targets_ = targets != nullptr;
  if (!targets) {
    device_synchronize(ex.device);  // the caller reads the logits
    return 0.0f;
  }
  // loss = F.cross_entropy(logits.view(-1, V), targets.view(-1))
  kernels::crossentropy_forward(ex, losses_, probs_, logits, targets_, static_cast<int>(N), V,
                                ce_stats_);
  device_synchronize(ex.device);  // the caller may read the logits
  host_losses_.resize(static_cast<size_t>(N));
  device_copy(ex.device, host_losses_.data(), losses_, sizeof(float) * static_cast<size_t>(N));
  double sum = 0.0;
  for (float l : host_losses_) sum += l;
  return static_cast<float>(sum / static_cast<double>(N));
}

void GPT::backward(const GradsReady& ready) {
  const ExecContext& ex = ctx_;
  SG_CHECK(have_forward_ && have_targets_, "GPT::backward needs a preceding forward with targets");
  const int64_t N = int64_t{B_} * T_;
  // loss = mean_n losses[n]
  kernels::fill(ex, dlosses_, N, 1.0f / static_cast<float>(N));
  // losses = cross_entropy(logits, targets)
  kernels::crossentropy_backward(ex, dlogits_, probs_, targets_, dlosses_, static_cast<int>(N), V,
                                 dlogits16_, lm_head.out, ce_stats_);  // writes dlogits (or bf16)
  // logits = lm_head(h)    (tied: the gradient of lm_head.weight lands in wte's, written here
  // after zero_grad, before encoder_backward adds the embedding's part)
  lm_head.backward(ex, dlnf_, dlogits_, dlogits16_);  // writes dlnf
  // h = ln_f(x)
  float* d = dres_[0];
  kernels::zero(ex, d, N * C);
  ln_f.backward(ex, d, dlnf_);
  if (ready) ready(grad_cuts_[static_cast<size_t>(L)], store_.grad_slab().size());  // the tail
  // x = block(x), for each block in reverse
  for (int l = L - 1; l >= 0; --l) {
    float* dn = d == dres_[0] ? dres_[1] : dres_[0];
    blocks[l].backward(ex, dn, d);
    d = dn;
    if (ready) ready(grad_cuts_[static_cast<size_t>(l)], grad_cuts_[static_cast<size_t>(l) + 1]);
  }
  // x = drop(x)
  const float* de = emb_drop.backward(ex, demb_, d);
  // x = wte[idx] + wpe[t]
  kernels::encoder_backward(ex, dwte.data, dwpe.data, de, idx_, B_, T_, C);
  if (ready) ready(0, grad_cuts_[0]);  // wte (with a tied lm_head's part) and wpe
}

Tensor GPT::logits() {
  SG_CHECK(have_forward_, "GPT::logits: no forward has run yet");
  return Tensor(lm_head.out, {B_, T_, V});
}

void GPT::allocate_cache() {
  if (k_cache_ != nullptr) return;
  const int64_t bs = config_.block_size;
  const int rows = std::min(kPrefillRows, config_.block_size);
  const int64_t work = blocks[0].decode_work_floats(config_.block_size, rows);
  size_t total = 2 * Arena::round_up(static_cast<size_t>(L * bs * C)) +
                 Arena::round_up(static_cast<size_t>(rows * C)) + Arena::round_up(work) +
                 Arena::round_up(static_cast<size_t>(std::max(V, C) + 32)) +
                 Arena::round_up(static_cast<size_t>(rows));
  cache_.reserve(total, ctx_.device);
  k_cache_ = cache_.alloc(static_cast<size_t>(L * bs * C));
  v_cache_ = cache_.alloc(static_cast<size_t>(L * bs * C));
  dec_x_ = cache_.alloc(static_cast<size_t>(rows * C));
  dec_work_ = cache_.alloc(static_cast<size_t>(work));
  dec_logits_ = cache_.alloc(static_cast<size_t>(std::max(V, C) + 32));
  // The tokens of a pass (rows), int32 in float-sized slots: the GPU's kernels read them here.
  dec_tokens_ = reinterpret_cast<int32_t*>(cache_.alloc(static_cast<size_t>(rows)));
}

void GPT::reset_cache() {
  allocate_cache();
  cache_len_ = 0;
}

void GPT::convert_weights(kernels::WeightFormat format) {
  SG_CHECK(ctx_.device == Device::kCpu || format == kernels::WeightFormat::kFp32,
           "--weights bf16 and int8 decode on the CPU only: use --device cpu");
  SG_CHECK(!fp32_released_ || format != kernels::WeightFormat::kFp32,
           "GPT::convert_weights: the fp32 weights were given back after an earlier conversion: "
           "load the model again for fp32");
  for_each_linear([&](Linear& lin) {
    if (format == kernels::WeightFormat::kFp32) {
      lin.qweight = kernels::QuantizedWeight();
      return;
    }
    lin.qweight = kernels::quantize_weight(ctx_, format, lin.weight.data, lin.OC, lin.C);
    // One matrix at a time, so the fp32 copy never sits beside all of its conversion (gpt2-xl:
    // 6.2 GB of fp32 against 1.7 GB of int8). wte stays: the embedding lookup reads it.
    if (lin.weight.data != wte.data) {
      release_pages(lin.weight.data, static_cast<size_t>(lin.OC) * lin.C);
      fp32_released_ = true;
    }
  });
}

int64_t GPT::linear_weight_bytes() {
  int64_t bytes = 0;
  for_each_linear([&](Linear& lin) {
    bytes += lin.qweight.format == kernels::WeightFormat::kFp32 ? int64_t{4} * lin.OC * lin.C
                                                                : lin.qweight.bytes();
  });
  return bytes;
}

const float* GPT::decode_step(int32_t token) { return prefill(&token, 1); }

const float* GPT::prefill(const int32_t* tokens, int n) {
  const ExecContext& ex = ctx_;
  SG_CHECK(n >= 1, "GPT::prefill needs at least one token, got ", n);
  for (int i = 0; i < n; ++i)
    SG_CHECK(tokens[i] >= 0 && tokens[i] < V, "token id ", tokens[i],
             " is outside the vocabulary [0, ", V, ")");
  SG_CHECK(cache_len_ + n <= config_.block_size, "the KV cache is full (block_size ",
           config_.block_size, " tokens): reset_cache() and feed the last tokens again");
  allocate_cache();
  pack_bf16_weights();
  const int64_t layer_stride = int64_t{config_.block_size} * C;
  for (int done = 0; done < n;) {
    const int pos = cache_len_;
    const int m = std::min(n - done, std::min(kPrefillRows, config_.block_size));
    // x = wte[token] + wpe[pos + i]   (m, C)
    device_copy(ex.device, dec_tokens_, tokens + done, sizeof(int32_t) * static_cast<size_t>(m));
    kernels::encoder_forward(ex, dec_x_, dec_tokens_, wte.data, wpe.data + int64_t{pos} * C, 1, m,
                             C);
    for (int l = 0; l < L; ++l)
      blocks[l].decode(ex, dec_x_, k_cache_ + l * layer_stride, v_cache_ + l * layer_stride, pos, m,
                       dec_work_);
    cache_len_ = pos + m;
    done += m;
    if (done == n) {
      // logits = lm_head(ln_f(x)) of the last token only; the work area is free again
      const float* last = dec_x_ + int64_t{m - 1} * C;  // (C)
      float* h = dec_work_;                             // (C)
      float* stats = dec_work_ + C;
      ln_f.apply(ex, h, stats, stats + 1, last, 1);
      lm_head.apply(ex, dec_logits_, h, 1);
    }
  }
  // The sampler reads a host copy (the copy waits for the kernels): no page of the cache moves.
  host_logits_.resize(static_cast<size_t>(V));
  device_copy(ex.device, host_logits_.data(), dec_logits_, sizeof(float) * static_cast<size_t>(V));
  return host_logits_.data();
}

double gpt_flops_per_token(const GPTConfig& c, int T) {
  const double C = c.n_embd, V = c.vocab_size, L = c.n_layer;
  const double b = c.bias ? 1.0 : 0.0;
  const double per_block = 2 * (C + b * C)                                        // ln_1, ln_2
                           + 3 * C * C + b * 3 * C                                // attn.c_attn
                           + C * C + b * C                                        // attn.c_proj
                           + 4 * C * C + b * 4 * C                                // mlp.c_fc
                           + 4 * C * C + b * C;                                   // mlp.c_proj
  const double n = V * C + L * per_block + (C + b * C) + (c.tied ? 0.0 : V * C);  // all but wpe
  const double HS = C / c.n_head;
  return 6.0 * n + 12.0 * L * c.n_head * HS * T;
}

}  // namespace scratchgpt
