// gpt_alloc_test.cpp: memory is planned, not discovered: after the first step at a given (B, T),
// a training step (zero_grad, forward with dropout, backward) and decode steps allocate no buffer.
// Counts every operator new in this executable (hence a file of its own), buffers (>= 1 KiB) and
// small ones (closures, strings) apart, and expects none of either.
#include <gtest/gtest.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <new>
#include <vector>

#include "core/arena.h"
#include "core/rng.h"
#include "nn/gpt.h"

namespace {
constexpr std::size_t kBufferBytes = 1024;
std::atomic<long> g_allocations{0};  // of kBufferBytes or more
std::atomic<long> g_small{0};
}  // namespace

// The slabs (core/arena.h, from aligned_alloc or mmap) are counted by Arena itself.
static long slab_and_buffer_allocations() {
  return g_allocations.load() + scratchgpt::Arena::slabs_reserved().load();
}

// The replacements pair malloc with free; kept out of line so that GCC's -Wmismatched-new-delete
// does not see a free() of memory it believes came from a built-in operator new.
__attribute__((noinline)) void* operator new(std::size_t n) {
  (n >= kBufferBytes ? g_allocations : g_small).fetch_add(1, std::memory_order_relaxed);
  if (void* p = std::malloc(n == 0 ? 1 : n)) return p;
  throw std::bad_alloc();
}
__attribute__((noinline)) void operator delete(void* p) noexcept { std::free(p); }
__attribute__((noinline)) void operator delete(void* p, std::size_t) noexcept { std::free(p); }

namespace scratchgpt {
namespace {

TEST(GptAlloc, TrainingAndDecodeStepsAllocateNothingOnceShapesAreSeen) {
  GPTConfig cfg;
  cfg.vocab_size = 29;
  cfg.block_size = 32;
  cfg.n_layer = 2;
  cfg.n_head = 4;
  cfg.n_embd = 64;
  cfg.dropout = 0.1f;
  GPT gpt(cfg);
  Rng rng(1);
  gpt.init(rng);
  const int B = 4, T = 32;
  std::vector<int32_t> idx(B * T), tgt(B * T);
  for (int i = 0; i < B * T; ++i) {
    idx[i] = (i * 7) % cfg.vocab_size;
    tgt[i] = (i * 11 + 3) % cfg.vocab_size;
  }
  auto step = [&] {
    gpt.zero_grad();
    gpt.forward(idx.data(), tgt.data(), B, T, &rng);
    gpt.backward();
    gpt.forward(idx.data(), tgt.data(), B, T / 2, nullptr);  // smaller shapes reuse the plan
  };
  step();  // plans the activations (and lets the kernels size their grow-once scratch)
  gpt.reset_cache();
  gpt.decode_step(1);

  const long before = slab_and_buffer_allocations(), small_before = g_small.load();
  step();
  step();
  gpt.reset_cache();
  for (int t = 0; t < cfg.block_size; ++t) gpt.decode_step(t % cfg.vocab_size);
  EXPECT_EQ(slab_and_buffer_allocations() - before, 0) << "buffer allocations inside planned steps";
  EXPECT_EQ(g_small.load() - small_before, 0) << "small allocations inside planned steps";

  // Growing (B, T) re-plans once (and allocates), then is quiet again.
  std::vector<int32_t> big(8 * T, 1);
  const long before_grow = slab_and_buffer_allocations();
  gpt.forward(big.data(), big.data(), 8, T, nullptr);
  const long after_grow = slab_and_buffer_allocations();
  EXPECT_GT(after_grow, before_grow) << "the re-planned slab must be seen";
  gpt.forward(big.data(), big.data(), 8, T, nullptr);
  EXPECT_EQ(slab_and_buffer_allocations() - after_grow, 0);
}

}  // namespace
}  // namespace scratchgpt
