// bench.cpp: see bench.h.
#include "run/bench.h"

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "core/check.h"
#include "core/cpu_features.h"
#include "core/perf_probes.h"
#include "core/rng.h"
#include "core/thread_pool.h"
#include "data/file_io.h"
#include "data/prepare.h"
#include "kernels/kernels.h"
#include "nn/gpt.h"
#include "run/exec.h"
#include "run/model_factory.h"
#include "sample/generate.h"
#include "sample/sampler.h"
#include "tokenizer/bpe.h"
#include "train/optimizer.h"
#include "train/train_config.h"

namespace scratchgpt {

namespace {

// A GPT that counts how often its cache is emptied: generate() empties it for the prompt and at
// every context crop.
struct CountingResets : GPT {
  using GPT::GPT;
  int resets = 0;
  void reset_cache() override {
    ++resets;
    GPT::reset_cache();
  }
};

// The GPT-2 presets (a 1024-token context): timed at T=64 (bench's --seq-len default) with B=4,
// so a step of gpt2 takes seconds, not minutes, on a laptop.
bool is_gpt2_shape(const std::string& preset) { return preset.rfind("gpt2", 0) == 0; }

// The preset's model and batch (train's table, train/train_config.h).
TrainConfig bench_config(const std::string& preset) {
  TrainConfig c = preset_config(preset);
  if (is_gpt2_shape(preset)) c.batch_size = 4;
  return c;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

double now_s() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

// The model of the flags: the preset's shape with the overrides applied.
TrainConfig flags_config(const BenchRequest& f) {
  TrainConfig cfg = bench_config(f.preset);
  GPTConfig& g = cfg.gpt;
  if (f.n_layer) g.n_layer = f.n_layer;
  if (f.n_head) g.n_head = f.n_head;
  if (f.n_embd) g.n_embd = f.n_embd;
  if (f.block_size) g.block_size = f.block_size;
  if (f.vocab_size) g.vocab_size = f.vocab_size;
  if (f.dropout >= 0) g.dropout = f.dropout;
  if (f.batch_size) cfg.batch_size = f.batch_size;
  g.validate();
  return cfg;
}

// --prompt-tokens P: P token ids spread over the vocabulary, prefilled into an empty cache as
// sample's prompt is (GPT::prefill), once untimed and then 3 times; the best time in seconds.
double time_prefill(GPT& model, int P, int V) {
  std::vector<int32_t> ids(static_cast<size_t>(P));
  for (int i = 0; i < P; ++i) ids[i] = static_cast<int32_t>((int64_t{i} * 7919 + 13) % V);
  double best = 1e30;
  for (int rep = 0; rep < 4; ++rep) {
    model.reset_cache();
    const double t0 = now_s();
    model.prefill(ids.data(), P);
    if (rep > 0) best = std::min(best, now_s() - t0);
  }
  return best;
}

// --sample N: a randomly initialised model, batch 1, a one-token prompt (id 0), N new tokens
// through the KV cache with generate() (temperature 1, no top-k/top-p, seeded), after one short
// untimed warm-up run. When the context fills, generate() keeps the last block_size/2 tokens and
// re-prefills them through the cache; that time is included.
void run_sample_bench(const BenchRequest& f, const ExecContext& ctx) {
  SG_CHECK(f.sample > 0, "--sample must be positive, got ", f.sample);
  TrainConfig cfg = flags_config(f);
  GPTConfig& g = cfg.gpt;
  g.dropout = 0.0f;  // inference
  SG_CHECK(f.prompt_tokens >= 0 && f.prompt_tokens <= g.block_size,
           "--prompt-tokens must be between 0 and the context (", g.block_size, "), got ",
           f.prompt_tokens, ": pass a shorter prompt or a larger --block-size");
  const kernels::WeightFormat weights = weight_format(f.weights);
  CountingResets model(g, ctx);
  Rng init_rng(cfg.seed);
  model.init(init_rng);
  const int64_t fp32_linear_bytes = model.linear_weight_bytes();
  model.convert_weights(weights);
  const std::vector<int32_t> prompt = {0};
  const SamplingOptions opt;  // temperature 1, all tokens
  Rng warm_rng(cfg.seed + 1);
  generate(model, g.block_size, prompt, std::min(f.sample, 16), opt, warm_rng, nullptr);
  Rng rng(cfg.seed);
  model.resets = 0;
  const double t0 = now_s();
  const std::vector<int32_t> out =
      generate(model, g.block_size, prompt, f.sample, opt, rng, nullptr);
  const double secs = now_s() - t0;
  SG_CHECK(static_cast<int>(out.size()) == f.sample, "generate returned ", out.size(),
           " tokens instead of ", f.sample);
  // Context crops: each one re-prefills the last block_size/2 tokens (the first reset is the
  // prompt's).
  const int crops = model.resets - 1;
  const double prefill_s =
      f.prompt_tokens > 0 ? time_prefill(model, f.prompt_tokens, g.vocab_size) : 0.0;
  const double tokens_per_s = f.sample / secs;
  const SimdLevel level = ctx.isa;
  const double rss_mb = peak_rss_mb(), resident_mb = scratchgpt::rss_mb();
  // The memory bound: each token reads every weight once (the lm_head the whole (V, C) matrix;
  // wte, when untied, and wpe one row each, counted as nothing), at the read bandwidth measured
  // here. The KV cache's reads (2 L t C floats at position t) are left out of the bound.
  const double C = g.n_embd;
  // With --weights bf16 or int8 the matrix products' weights count as stored (scales included).
  const double weight_bytes = 4.0 * (static_cast<double>(model.num_params()) - g.block_size * C -
                                     (g.tied ? 0 : g.vocab_size * C)) -
                              static_cast<double>(fp32_linear_bytes - model.linear_weight_bytes());
  // On the GPU: no CPU bandwidth bound and no host-side lm_head probe (0 in the JSON).
  const bool on_gpu = ctx.device == Device::kCuda;
  const double read_gbps = on_gpu ? 0.0 : memory_read_gbps(ctx.workers());
  const double bound_ms = on_gpu ? 0.0 : weight_bytes / (read_gbps * 1e9) * 1e3;
  const double ms_per_token = secs * 1e3 / f.sample;
  // Where a token's time goes: the lm_head matvec alone, timed on the model's own weight.
  std::vector<float> h(static_cast<size_t>(g.n_embd), 0.5f),
      logits(static_cast<size_t>(g.vocab_size));
  const float* head_w = model.param(g.tied ? "wte" : "lm_head.weight").value.data;
  const kernels::QuantizedWeight head_q =
      weights == kernels::WeightFormat::kFp32
          ? kernels::QuantizedWeight()
          : kernels::quantize_weight(ctx, weights, head_w, g.vocab_size, g.n_embd);
  const double head_bytes =
      head_q.format == kernels::WeightFormat::kFp32 ? 4.0 * g.vocab_size * C : head_q.bytes();
  double head_ms = on_gpu ? 0.0 : 1e30;
  for (int rep = 0; rep < (on_gpu ? 0 : 10); ++rep) {
    const double h0 = now_s();
    if (head_q.format == kernels::WeightFormat::kFp32)
      kernels::matmul_forward(ctx, logits.data(), h.data(), head_w, nullptr, 1, g.n_embd,
                              g.vocab_size);
    else
      kernels::quant_matvec_forward(ctx, logits.data(), h.data(), head_q, nullptr, 1);
    head_ms = std::min(head_ms, (now_s() - h0) * 1e3);
  }
  // And the sampler alone (softmax and multinomial over the vocabulary) on the prompt's logits.
  double sampler_ms = 1e30;
  {
    model.reset_cache();
    const float* l = model.prefill(prompt.data(), 1);
    const std::vector<float> logits_copy(l, l + g.vocab_size);
    std::vector<float> scratch;
    Rng draw_rng(cfg.seed + 2);
    for (int rep = 0; rep < 20; ++rep) {
      const double s0 = now_s();
      sample_token(ctx, logits_copy.data(), g.vocab_size, opt, draw_rng, scratch);
      sampler_ms = std::min(sampler_ms, (now_s() - s0) * 1e3);
    }
  }

  nlohmann::json j;
  j["impl"] = "scratchgpt";
  j["mode"] = "sample";
  j["preset"] = f.preset;
  j["n_layer"] = g.n_layer, j["n_head"] = g.n_head, j["n_embd"] = g.n_embd;
  j["vocab_size"] = g.vocab_size, j["block_size"] = g.block_size, j["dropout"] = g.dropout;
  j["bias"] = g.bias, j["tied"] = g.tied,
  j["activation"] = enum_name<Activation>(kActivationNames, g.activation);
  j["batch_size"] = 1, j["prompt_tokens"] = static_cast<int>(prompt.size());
  j["new_tokens"] = f.sample, j["temperature"] = opt.temperature, j["seed"] = cfg.seed;
  j["threads"] = ctx.threads();
  j["simd"] = simd_level_name(level);
  j["cpu"] = cpu_model_name();
  j["device"] = on_gpu ? "cuda" : "cpu";
  j["matmul"] = kernels::matmul_backend_name(ctx.matmul);
  j["weights"] = enum_name<kernels::WeightFormat>(kernels::kWeightFormatNames, weights);
  j["params"] = model.num_params();
  j["context_crops"] = crops;
  j["seconds"] = secs;
  j["tokens_per_s"] = tokens_per_s;
  j["ms_per_token"] = ms_per_token;
  j["weight_bytes_per_token"] = weight_bytes;
  j["memory_read_gbps"] = read_gbps;
  j["bound_ms_per_token"] = bound_ms;
  j["fraction_of_bound"] = bound_ms / ms_per_token;
  j["lm_head_ms"] = head_ms;
  j["sampler_ms"] = sampler_ms;
  j["peak_rss_mb"] = rss_mb;
  j["rss_mb"] = resident_mb;
  j["prefill_tokens"] = f.prompt_tokens;
  j["prefill_seconds"] = prefill_s;
  j["prefill_tokens_per_s"] = f.prompt_tokens > 0 ? f.prompt_tokens / prefill_s : 0.0;
  if (f.json) {
    std::printf("%s\n", j.dump().c_str());
    return;
  }
  std::printf(
      "scratchgpt bench --sample: preset %s  L=%d NH=%d C=%d V=%d block_size=%d  batch 1, "
      "%d threads, %s, %s weights\n",
      f.preset.c_str(), g.n_layer, g.n_head, g.n_embd, g.vocab_size, g.block_size, ctx.threads(),
      simd_level_name(level),
      enum_name<kernels::WeightFormat>(kernels::kWeightFormatNames, weights));
  if (on_gpu)
    std::printf("  gpu             %s\n", cuda_describe().c_str());
  else
    std::printf("  cpu             %s\n", cpu_model_name().c_str());
  std::printf("  params          %.2fM\n", model.num_params() / 1e6);
  std::printf(
      "  generated       %d tokens from a 1-token prompt in %.3f s (KV cache, "
      "temperature 1; %d context crops)\n",
      f.sample, secs, crops);
  std::printf("  tokens/s        %.1f\n", tokens_per_s);
  std::printf("  ms/token        %.3f\n", ms_per_token);
  if (f.prompt_tokens > 0)
    std::printf("  prompt          %d tokens prefilled in %.3f s: %.1f tokens/s (best of 3)\n",
                f.prompt_tokens, prefill_s, f.prompt_tokens / prefill_s);
  if (!on_gpu) {
    std::printf(
        "  memory bound    %.3f ms/token (%.1f MB of weights per token at %.1f GB/s measured "
        "read bandwidth): %.0f%% of the bound\n",
        bound_ms, weight_bytes / 1e6, read_gbps, 100.0 * bound_ms / ms_per_token);
    std::printf("  lm_head matvec  %.3f ms of each token (%d x %d weights, %.1f GB/s)\n", head_ms,
                g.vocab_size, g.n_embd, head_bytes / (head_ms * 1e-3) * 1e-9);
  }
  std::printf("  sampler         %.3f ms of each token (softmax and multinomial over %d logits)\n",
              sampler_ms, g.vocab_size);
  std::printf("  RSS             %.1f MB after the run (peak %.1f MB, loading included)\n",
              resident_mb, rss_mb);
}

// --tokenizer: the input repeated --repeat times, encoded 3 times on 1 thread and 3 times on
// --threads threads (if more than 1); the best of each.
void run_tokenizer_bench(const BenchRequest& f) {
  SG_CHECK(f.repeat > 0, "--repeat must be positive, got ", f.repeat);
  const BpeTokenizer tok =
      f.tokenizer == "gpt2" ? BpeTokenizer::gpt2() : BpeTokenizer::load(f.tokenizer);
  const std::string one = read_file(f.input.empty() ? default_dataset_path() : f.input);
  std::string text;
  text.reserve(one.size() * static_cast<size_t>(f.repeat));
  for (int r = 0; r < f.repeat; ++r) text += one;
  const double mb = static_cast<double>(text.size()) / 1e6;
  auto best_of_3 = [&](int threads, size_t* tokens) {
    double best = 1e30;
    for (int rep = 0; rep < 3; ++rep) {
      const double t0 = now_s();
      const std::vector<int32_t> ids = tok.encode_parallel(text, false, threads);
      best = std::min(best, now_s() - t0);
      *tokens = ids.size();
    }
    return best;
  };
  size_t tokens = 0;
  const double s1 = best_of_3(1, &tokens);
  const int threads =
      f.threads > 0 ? f.threads : static_cast<int>(std::thread::hardware_concurrency());
  const double sn = threads > 1 ? best_of_3(threads, &tokens) : s1;
  nlohmann::json j;
  j["impl"] = "scratchgpt";
  j["mode"] = "tokenizer";
  j["tokenizer"] = f.tokenizer;
  j["bytes"] = text.size();
  j["tokens"] = tokens;
  j["seconds_1_thread"] = s1;
  j["mb_per_s_1_thread"] = mb / s1;
  j["tokens_per_s_1_thread"] = static_cast<double>(tokens) / s1;
  j["threads"] = threads;
  j["mb_per_s_threads"] = mb / sn;
  if (f.json) {
    std::printf("%s\n", j.dump().c_str());
    return;
  }
  std::printf("scratchgpt bench --tokenizer %s: %.1f MB (%d x the input), %zu tokens\n",
              f.tokenizer.c_str(), mb, f.repeat, tokens);
  std::printf("  1 thread        %.3f s: %.1f MB/s, %.2fM tokens/s\n", s1, mb / s1,
              static_cast<double>(tokens) / s1 / 1e6);
  if (threads > 1)
    std::printf("  %d threads       %.3f s: %.1f MB/s, %.2fM tokens/s\n", threads, sn, mb / sn,
                static_cast<double>(tokens) / sn / 1e6);
}

// The training steps bench times: forward, backward and AdamW at (B, T), warm-up steps first.
void time_steps(const BenchRequest& f, const ExecContext& ctx, const TrainConfig& cfg, int B,
                int T) {
  const GPTConfig& g = cfg.gpt;
  GPT model(g, ctx);
  Rng init_rng(cfg.seed);
  model.init(init_rng);
  Rng dropout_rng(cfg.seed + 1);
  std::mt19937 gen(static_cast<uint32_t>(cfg.seed));
  std::uniform_int_distribution<int32_t> tok(0, g.vocab_size - 1);
  std::vector<int32_t> idx(static_cast<size_t>(B) * T), targets(idx.size());  // (B, T)

  // The FMA peaks (GFLOP/s, 0 where the level lacks the ISA or on the GPU), probed before the steps
  // and again after them, the best of both: a busy moment on a shared host only lowers a probe
  // (one probe after shakespeare-char's B=64 steps read half the usual peak on Zen 3).
  const SimdLevel level = ctx.isa;
  const bool on_gpu = ctx.device == Device::kCuda;  // the CPU's peaks and probes say nothing then
  auto peak = [&](bool avx512) {
    const bool has = !on_gpu && level >= (avx512 ? SimdLevel::kAvx512 : SimdLevel::kAvx2);
    return has ? fma_peak_gflops(ctx.workers(), avx512) : 0.0;
  };
  double peak_avx2 = peak(false), peak_avx512 = peak(true);
  // And the bf16 dot-product peak, vdpbf16ps's, where the CPU has AVX512_BF16 (--dtype bf16's
  // ceiling: twice the AVX-512 FMA one where the instruction runs at full width).
  auto peak_bf16_probe = [&]() {
    const bool has = !on_gpu && level == SimdLevel::kAvx512 && cpu_has_avx512_bf16();
    return has ? bf16_dot_peak_gflops(ctx.workers()) : 0.0;
  };
  double peak_bf16 = peak_bf16_probe();

  std::vector<double> fwd, bwd, opt;
  // Minor page faults per step: the first step maps the activations, the packing buffers and the
  // libraries' scratch; a step after it should map nothing new.
  int64_t first_step_faults = 0, max_faults = 0;
  float loss = 0;
  for (int step = 0; step < f.warmup + f.steps; ++step) {
    for (auto& t : idx) t = tok(gen);
    for (auto& t : targets) t = tok(gen);
    const int64_t faults0 = minor_page_faults();
    const double t0 = now_s();
    loss = model.forward(idx.data(), targets.data(), B, T, g.dropout > 0 ? &dropout_rng : nullptr);
    const double t1 = now_s();
    model.zero_grad();
    model.backward();
    const double t2 = now_s();
    optimizer_step(model, static_cast<float>(cfg.lr), adamw_config(cfg), step + 1);
    const double t3 = now_s();
    const int64_t faults = minor_page_faults() - faults0;
    if (step == 0) first_step_faults = faults;
    if (step >= 1 && step >= f.warmup) max_faults = std::max(max_faults, faults);
    if (step >= f.warmup) {
      fwd.push_back(t1 - t0);
      bwd.push_back(t2 - t1);
      opt.push_back(t3 - t2);
    }
  }
  std::vector<double> total(fwd.size());
  for (size_t i = 0; i < fwd.size(); ++i) total[i] = fwd[i] + bwd[i] + opt[i];
  const double step_s = median(total);
  const double tokens_per_s = B * T / step_s;
  const double flops_per_token = gpt_flops_per_token(g, T);
  const double gflops = flops_per_token * tokens_per_s * 1e-9;
  peak_avx2 = std::max(peak_avx2, peak(false));
  peak_avx512 = std::max(peak_avx512, peak(true));
  peak_bf16 = std::max(peak_bf16, peak_bf16_probe());
  const double rss_mb = peak_rss_mb();  // before the probe below allocates
  // What the host charges for moving a cache line between cores: it changes from hour to hour on
  // a shared host and moves every figure above with it (perf_probes.h).
  const double cross_core_ns = on_gpu ? 0.0 : cross_core_store_ns(ctx.workers());

  nlohmann::json j;
  j["impl"] = "scratchgpt";
  j["preset"] = f.preset;
  j["n_layer"] = g.n_layer, j["n_head"] = g.n_head, j["n_embd"] = g.n_embd;
  j["vocab_size"] = g.vocab_size, j["block_size"] = g.block_size, j["dropout"] = g.dropout;
  j["bias"] = g.bias, j["tied"] = g.tied,
  j["activation"] = enum_name<Activation>(kActivationNames, g.activation);
  j["batch_size"] = B, j["seq_len"] = T, j["threads"] = ctx.threads();
  j["simd"] = simd_level_name(level);
  j["matmul"] = kernels::matmul_backend_name(ctx.matmul);
  j["dtype"] = enum_name<Dtype>(kDtypeNames, ctx.dtype);
  j["params"] = model.num_params();
  j["steps"] = f.steps;
  j["loss"] = loss;
  j["ms_forward"] = median(fwd) * 1e3;
  j["ms_backward"] = median(bwd) * 1e3;
  j["ms_optimizer"] = median(opt) * 1e3;
  j["ms_per_step"] = step_s * 1e3;
  j["tokens_per_s"] = tokens_per_s;
  j["flops_per_token"] = flops_per_token;
  j["gflops"] = gflops;
  j["peak_gflops_avx2"] = peak_avx2;
  j["peak_gflops_avx512"] = peak_avx512;
  j["peak_gflops_bf16"] = peak_bf16;  // 0 without AVX512_BF16 (or below the AVX-512 level)
  j["peak_rss_mb"] = rss_mb;
  j["page_faults_first_step"] = first_step_faults;
  j["page_faults_per_step_max"] = max_faults;  // over the timed steps after the first
  j["cross_core_store_ns"] = cross_core_ns;    // 0 on one thread
  j["cpu"] = cpu_model_name();
  j["device"] = on_gpu ? "cuda" : "cpu";
  if (on_gpu) j["gpu"] = cuda_describe(), j["tf32"] = ctx.tf32;
  j["l2_bytes"] = l2_cache_bytes();
  if (f.json) {
    std::printf("%s\n", j.dump().c_str());
    return;
  }
  std::printf(
      "scratchgpt bench: preset %s  L=%d NH=%d C=%d V=%d  B=%d T=%d  %d threads, %s, matmul %s%s\n",
      f.preset.c_str(), g.n_layer, g.n_head, g.n_embd, g.vocab_size, B, T, ctx.threads(),
      simd_level_name(level), kernels::matmul_backend_name(ctx.matmul), bf16_banner(ctx));
  if (on_gpu)
    std::printf("  gpu             %s (float32 products %s)\n", cuda_describe().c_str(),
                ctx.tf32 ? "in TF32 on the tensor cores" : "in full fp32");
  else
    std::printf("  cpu             %s (L2 %s a core)\n", cpu_model_name().c_str(),
                format_bytes(static_cast<double>(l2_cache_bytes())).c_str());
  std::printf("  params          %.2fM\n", model.num_params() / 1e6);
  std::printf(
      "  step            %.2f ms (median of %d; forward %.2f, backward %.2f, optimizer %.2f)\n",
      step_s * 1e3, f.steps, median(fwd) * 1e3, median(bwd) * 1e3, median(opt) * 1e3);
  std::printf("  tokens/s        %.0f\n", tokens_per_s);
  std::printf("  achieved        %.1f GFLOP/s (%.3g GFLOP per token, 6N + 12 L NH HS T)\n", gflops,
              flops_per_token * 1e-9);
  if (peak_avx2 > 0)
    std::printf("  peak (AVX2 FMA loop, all threads)    %.1f GFLOP/s -> %.1f%% of it\n", peak_avx2,
                100 * gflops / peak_avx2);
  if (peak_avx512 > 0)
    std::printf("  peak (AVX-512 FMA loop, all threads) %.1f GFLOP/s -> %.1f%% of it\n",
                peak_avx512, 100 * gflops / peak_avx512);
  if (peak_bf16 > 0)
    std::printf("  peak (AVX512_BF16 vdpbf16ps loop)    %.1f GFLOP/s -> %.1f%% of it%s\n",
                peak_bf16, 100 * gflops / peak_bf16,
                ctx.dtype != Dtype::kBf16 ? ""
                : kernels::bf16_on_onednn(ctx.matmul) && kernels::onednn_has_amx()
                    ? " (not the ceiling: the products run on AMX tiles)"
                    : " (the ceiling of these bf16 products)");
  std::printf("  peak RSS        %.1f MB\n", rss_mb);
  std::printf("  page faults     %lld in the first step, at most %lld in a timed step after it\n",
              static_cast<long long>(first_step_faults), static_cast<long long>(max_faults));
  if (cross_core_ns > 0)
    std::printf(
        "  core to core    %.1f ns a cache line (a store to lines another core just read)\n",
        cross_core_ns);
}

}  // namespace

std::vector<std::string> bench_preset_names() {
  std::vector<std::string> names;
  for (const std::string& name : preset_names())
    if (preset_config(name).model == ModelKind::kGpt) names.push_back(name);
  return names;
}

void run_bench(const BenchRequest& f) {
  if (!f.tokenizer.empty()) return run_tokenizer_bench(f);
  SG_CHECK(f.sample == 0 || f.dtype == Dtype::kFp32,
           "--dtype applies to training steps; decoding (--sample) reads its weights in the "
           "precision --weights names: drop --dtype, or use --weights bf16");
  const Exec exec = make_exec(f.threads, f.matmul, f.simd, f.device, f.dtype);
  const ExecContext& ctx = exec.ctx;
  if (f.sample != 0) return run_sample_bench(f, ctx);
  SG_CHECK(f.weights.empty() || f.weights == "fp32",
           "--weights applies to bench --sample (decoding); a training step needs fp32 weights: "
           "drop --weights or add --sample N");
  SG_CHECK(f.steps > 0, "--steps must be positive, got ", f.steps);
  SG_CHECK(f.warmup >= 0, "--warmup must be >= 0, got ", f.warmup);
  TrainConfig cfg = flags_config(f);
  const GPTConfig& g = cfg.gpt;
  const int B = cfg.batch_size;
  const int T = f.seq_len ? f.seq_len : (is_gpt2_shape(f.preset) ? 64 : g.block_size);
  SG_CHECK(T > 0 && T <= g.block_size, "--seq-len must be in [1, block_size = ", g.block_size,
           "], got ", T);
  SG_CHECK(B > 0, "--batch-size must be positive, got ", B);
  // A config that cannot fit is refused before allocating, and an allocation refused anyway
  // names the same flags, as train's do (the bound at the T bench runs: its activations).
  constexpr const char* kNeeds = "benchmarking this config";
  constexpr const char* kFix = "lower --batch-size, --seq-len, --n-embd or --n-layer";
  TrainConfig at_T = cfg;
  at_T.gpt.block_size = T;
  check_fits_in_memory(training_bytes_lower_bound(at_T), kNeeds, kFix);
  with_memory_advice(kNeeds, kFix, [&] { time_steps(f, ctx, cfg, B, T); });
}

}  // namespace scratchgpt
