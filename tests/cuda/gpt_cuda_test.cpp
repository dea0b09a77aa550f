// gpt_cuda_test.cpp: a GPT on the GPU against the same GPT on the CPU engine (the oracle the
// rest of the suite checks against PyTorch): the loss, every parameter's gradient and the
// weights after AdamW steps, GPT-2-shaped (GELU, tied lm_head, biases) and nanoGPT-shaped (no
// biases); and a training step gives the same bits from run to run. Skips, saying why, without
// a GPU or in a build without CUDA.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <vector>

#include "core/arena.h"
#include "core/rng.h"
#include "cuda/cuda_test_util.h"
#include "nn/gpt.h"
#include "test_util.h"
#include "train/optimizer.h"

namespace scratchgpt {
namespace {

GPTConfig config(bool gpt2) {
  GPTConfig c;
  c.vocab_size = 101;
  c.block_size = 48;
  c.n_layer = 3;
  c.n_head = 4;
  c.n_embd = 64;
  c.activation = gpt2 ? Activation::kGelu : Activation::kGeluExact;
  c.bias = gpt2;
  c.tied = gpt2;
  return c;
}

std::vector<int32_t> tokens(int n, uint32_t seed, int V) {
  std::vector<int32_t> t(n);
  uint32_t s = seed;
  for (auto& x : t) {
    s = s * 1664525u + 1013904223u;
    x = static_cast<int32_t>((s >> 8) % V);
  }
  return t;
}

double rel_err(const float* got, const float* want, int64_t n) {
  double num = 0, den = 0;
  for (int64_t i = 0; i < n; ++i) {
    num += double(got[i] - want[i]) * (got[i] - want[i]);
    den += double(want[i]) * want[i];
  }
  return std::sqrt(num / std::max(den, 1e-300));
}

TEST(GptCuda, LossGradientsAndStepsMatchTheCpuEngine) {
  SKIP_WITHOUT_GPU();
  for (bool gpt2 : {true, false}) {
    const GPTConfig c = config(gpt2);
    GPT cpu(c);
    GPT gpu(c, test::cuda_ctx(/*tf32=*/false));
    Rng r1(1337), r2(1337);
    cpu.init(r1);
    gpu.init(r2);
    const int B = 3, T = 40;
    const AdamWConfig adam{0.9f, 0.95f, 1e-8f, 0.1f, 1.0f};
    for (int step = 1; step <= 3; ++step) {
      const auto x = tokens(B * T, 10 + step, c.vocab_size);
      const auto y = tokens(B * T, 20 + step, c.vocab_size);
      cpu.zero_grad();
      gpu.zero_grad();
      const float lc = cpu.forward(x.data(), y.data(), B, T, nullptr);
      const float lg = gpu.forward(x.data(), y.data(), B, T, nullptr);
      EXPECT_NEAR(lg, lc, 2e-5 * std::abs(lc)) << "step " << step << (gpt2 ? " gpt2" : " nanogpt");
      cpu.backward();
      gpu.backward();
      device_synchronize(Device::kCuda);
      for (size_t i = 0; i < cpu.params().size(); ++i) {
        const Param& pc = cpu.params()[i];
        const Param& pg = gpu.params()[i];
        EXPECT_LE(rel_err(pg.grad.data, pc.grad.data, pc.grad.numel()), 2e-4)
            << pc.name << " gradient at step " << step << (gpt2 ? " gpt2" : " nanogpt");
      }
      const double nc = optimizer_step(cpu.exec(), cpu.params(), 1e-3f, adam, step);
      const double ng = optimizer_step(gpu.exec(), gpu.params(), 1e-3f, adam, step);
      EXPECT_NEAR(ng, nc, 1e-4 * nc) << "grad norm at step " << step;
    }
    for (size_t i = 0; i < cpu.params().size(); ++i) {
      const Param& pc = cpu.params()[i];
      const Param& pg = gpu.params()[i];
      EXPECT_LE(rel_err(pg.value.data, pc.value.data, pc.value.numel()), 1e-3)
          << pc.name << " after 3 steps" << (gpt2 ? " gpt2" : " nanogpt");
    }
  }
}

// What --device cuda runs by default: TF32 products and the fused attention (TF32 too).
TEST(GptCuda, TheDefaultTf32PathWithFusedAttentionFollowsTheCpuEngine) {
  SKIP_WITHOUT_GPU();
  const GPTConfig c = config(true);
  GPT cpu(c);
  ExecContext ex = test::cuda_ctx(/*tf32=*/true);
  ex.fused_attention_min_T = 1;
  GPT gpu(c, ex);
  Rng r1(5), r2(5);
  cpu.init(r1);
  gpu.init(r2);
  const int B = 2, T = 48;
  const auto x = tokens(B * T, 3, c.vocab_size), y = tokens(B * T, 4, c.vocab_size);
  cpu.zero_grad();
  gpu.zero_grad();
  const float lc = cpu.forward(x.data(), y.data(), B, T, nullptr);
  const float lg = gpu.forward(x.data(), y.data(), B, T, nullptr);
  EXPECT_EQ(gpu.attention_weights(0), nullptr) << "the fused kernel keeps no weights";
  EXPECT_NEAR(lg, lc, 1e-3 * std::abs(lc));
  cpu.backward();
  gpu.backward();
  device_synchronize(Device::kCuda);
  for (size_t i = 0; i < cpu.params().size(); ++i) {
    const Param& pc = cpu.params()[i];
    EXPECT_LE(rel_err(gpu.params()[i].grad.data, pc.grad.data, pc.grad.numel()), 1e-2)
        << pc.name << " gradient";
  }
}

// --dtype bf16 on the GPU against the CPU engine's bf16 (the same products' inputs rounded, the
// sums in another order). Two bf16 runs are close, not equal: a value computed in another order
// can round to the neighbouring bf16 value (often after a cancellation, as in the softmax's
// gradient), and that difference is bf16's size, not fp32's. So the yardstick is the CPU against
// itself in two sum orders (its scalar kernels against its SIMD ones): the GPU must be as close
// to the CPU's bf16 as that (within 2x), and as far from fp32 as the CPU's bf16 is (at least half).
TEST(GptCuda, Bf16FollowsTheCpuEnginesBf16) {
  SKIP_WITHOUT_GPU();
  for (bool gpt2 : {true, false}) {
    const GPTConfig c = config(gpt2);
    ExecContext cpu_ex, scalar_ex, gpu_ex = test::cuda_ctx(/*tf32=*/true);
    cpu_ex.dtype = scalar_ex.dtype = gpu_ex.dtype = Dtype::kBf16;
    scalar_ex.isa = SimdLevel::kScalar;
    GPT cpu(c, cpu_ex), scalar(c, scalar_ex), gpu(c, gpu_ex), fp32(c);
    GPT* const all[] = {&cpu, &scalar, &gpu, &fp32};
    for (GPT* g : all) {
      Rng r(1337);
      g->init(r);
    }
    const int B = 3, T = 40;
    const auto x = tokens(B * T, 11, c.vocab_size), y = tokens(B * T, 21, c.vocab_size);
    double loss[4];
    for (int i = 0; i < 4; ++i) {
      all[i]->zero_grad();
      loss[i] = all[i]->forward(x.data(), y.data(), B, T, nullptr);
      all[i]->backward();
    }
    device_synchronize(Device::kCuda);
    const std::string tag = gpt2 ? " gpt2" : " nanogpt";
    std::printf("bf16%s: loss cpu %.8f scalar %.8f gpu %.8f fp32 %.8f\n", tag.c_str(), loss[0],
                loss[1], loss[2], loss[3]);
    EXPECT_NE(loss[0], loss[3]) << "the CPU's bf16 ran as fp32" << tag;
    EXPECT_LE(std::abs(loss[2] - loss[0]), 2e-5 * loss[0]) << tag;  // fp32's own bound
    // Worst over the parameters of each run's gradient off the CPU's bf16, and the GPU's off fp32.
    double worst[4] = {}, gpu_fp32 = 0;
    for (size_t p = 0; p < cpu.params().size(); ++p) {
      const Param& pc = cpu.params()[p];
      for (int i = 1; i < 4; ++i)
        worst[i] = std::max(worst[i], rel_err(all[i]->params()[p].grad.data, pc.grad.data,
                                              pc.grad.numel()));
      gpu_fp32 = std::max(gpu_fp32, rel_err(gpu.params()[p].grad.data, fp32.params()[p].grad.data,
                                            pc.grad.numel()));
    }
    std::printf("bf16%s: worst gradient off the CPU's bf16: gpu %.2e, scalar CPU %.2e, fp32 "
                "%.2e; gpu off fp32 %.2e\n",
                tag.c_str(), worst[2], worst[1], worst[3], gpu_fp32);
    EXPECT_GT(worst[1], 0) << "the yardstick: scalar and SIMD sum in different orders" << tag;
    EXPECT_LE(worst[2], 2 * worst[1]) << tag;
    EXPECT_LE(worst[2], 1e-2) << tag;
    EXPECT_GE(gpu_fp32, 0.5 * worst[3]) << "the GPU's bf16 looks like fp32" << tag;
  }
}

TEST(GptCuda, TrainingStepsGiveTheSameBitsEveryRun) {
  SKIP_WITHOUT_GPU();
  const GPTConfig c = config(true);
  std::vector<std::vector<float>> weights;
  std::vector<std::vector<float>> losses;
  for (int run = 0; run < 4; ++run) {  // fp32 twice, then bf16 twice
    ExecContext ex = test::cuda_ctx(/*tf32=*/true);  // the default products and attention
    ex.fused_attention_min_T = 1;
    if (run >= 2) ex.dtype = Dtype::kBf16;
    GPT gpu(c, ex);
    Rng rng(7);
    gpu.init(rng);
    std::vector<float> ls;
    for (int step = 1; step <= 3; ++step) {
      const auto x = tokens(4 * 48, step, c.vocab_size), y = tokens(4 * 48, 50 + step, c.vocab_size);
      gpu.zero_grad();
      ls.push_back(gpu.forward(x.data(), y.data(), 4, 48, nullptr));
      gpu.backward();
      optimizer_step(gpu.exec(), gpu.params(), 1e-3f, AdamWConfig{}, step);
    }
    std::vector<float> w;
    for (const Param& p : gpu.params()) w.insert(w.end(), p.value.begin(), p.value.end());
    weights.push_back(w);
    losses.push_back(ls);
  }
  EXPECT_EQ(losses[0], losses[1]);
  EXPECT_TRUE(weights[0] == weights[1]) << "the weights differ after 3 steps";
  EXPECT_EQ(losses[2], losses[3]) << "bf16";
  EXPECT_TRUE(weights[2] == weights[3]) << "the weights differ after 3 bf16 steps";
}

// The driver grants managed memory past what the GPU has free (its pages would move to the host
// on demand, and so much of it can stall the GPU): device_alloc refuses it. One page past, so a
// missing refusal costs one page moved, not a stall.
TEST(GptCuda, ManagedMemoryPastTheGpusFreeMemoryIsRefused) {
  SKIP_WITHOUT_GPU();
  const size_t free_bytes = cuda_free_bytes();
  ASSERT_GT(free_bytes, size_t{1} << 30);
  EXPECT_THROW(device_alloc(Device::kCuda, free_bytes + 4096), OutOfMemory);
  void* p = device_alloc(Device::kCuda, size_t{1} << 20);  // within it: granted
  EXPECT_NE(p, nullptr);
  device_free(Device::kCuda, p);
}

TEST(GptCuda, DropoutSaysItIsCpuOnly) {
  SKIP_WITHOUT_GPU();
  GPTConfig c = config(true);
  c.dropout = 0.1f;
  EXPECT_NE(test::error_of([&] { GPT g(c, test::cuda_ctx()); }).find("--dropout 0"),
            std::string::npos);
}

// Decoding through the KV cache on the GPU gives the CPU's logits: a prompt longer than one
// prefill pass (64 rows), then tokens one at a time.
TEST(GptCuda, KvCacheDecodingMatchesTheCpu) {
  SKIP_WITHOUT_GPU();
  for (bool gpt2 : {true, false}) {
    GPTConfig c = config(gpt2);
    c.block_size = 96;
    GPT cpu(c);
    GPT gpu(c, test::cuda_ctx(/*tf32=*/false));
    Rng r1(11), r2(11);
    cpu.init(r1);
    gpu.init(r2);
    const auto prompt = tokens(70, 9, c.vocab_size);
    cpu.reset_cache();
    gpu.reset_cache();
    const float* lc = cpu.prefill(prompt.data(), 70);
    const float* lg = gpu.prefill(prompt.data(), 70);
    EXPECT_LE(rel_err(lg, lc, c.vocab_size), 1e-5) << "after the prompt" << (gpt2 ? " gpt2" : "");
    for (int i = 0; i < 5; ++i) {
      const int32_t next = (i * 17 + 3) % c.vocab_size;
      lc = cpu.decode_step(next);
      lg = gpu.decode_step(next);
      EXPECT_LE(rel_err(lg, lc, c.vocab_size), 1e-5) << "token " << i << (gpt2 ? " gpt2" : "");
    }
    EXPECT_EQ(gpu.cache_len(), 75);
  }
}

}  // namespace
}  // namespace scratchgpt
