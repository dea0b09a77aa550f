// arena_test.cpp: the Arena hands out aligned, zeroed, non-overlapping blocks; round_up plans the
// capacity exactly; overflow and a second reserve are checked Errors, never silent corruption.
#include "core/arena.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "core/check.h"

using namespace scratchgpt;

namespace {
bool aligned(const void* p) { return reinterpret_cast<uintptr_t>(p) % Arena::kAlign == 0; }
}  // namespace

TEST(Arena, RoundUpToWholeCacheLines) {
  constexpr size_t k = Arena::kAlign / sizeof(float);  // 16 floats
  EXPECT_EQ(Arena::round_up(0), 0u);
  EXPECT_EQ(Arena::round_up(1), k);
  EXPECT_EQ(Arena::round_up(k), k);
  EXPECT_EQ(Arena::round_up(k + 1), 2 * k);
  EXPECT_EQ(Arena::round_up(1000), 1008u);
}

TEST(Arena, EveryAllocationIsAlignedZeroedAndDisjoint) {
  const std::vector<size_t> sizes = {1, 15, 16, 17, 100, 3, 64};
  size_t plan = 0;
  for (size_t n : sizes) plan += Arena::round_up(n);
  Arena arena(plan);
  EXPECT_EQ(arena.capacity(), plan);
  EXPECT_TRUE(aligned(arena.base()));
  std::vector<float*> ptrs;
  for (size_t n : sizes) {
    float* p = arena.alloc(n);
    EXPECT_TRUE(aligned(p)) << "alloc(" << n << ")";
    for (size_t i = 0; i < n; ++i) ASSERT_EQ(p[i], 0.0f) << "alloc(" << n << ")[" << i << "]";
    for (size_t i = 0; i < n; ++i) p[i] = static_cast<float>(ptrs.size() + 1);  // fill it
    ptrs.push_back(p);
  }
  // Filling each block did not spill into any other.
  for (size_t b = 0; b < sizes.size(); ++b)
    for (size_t i = 0; i < sizes[b]; ++i) ASSERT_EQ(ptrs[b][i], static_cast<float>(b + 1));
  EXPECT_EQ(arena.used(), plan);  // the plan made with round_up is exact
}

TEST(Arena, OverflowIsACheckedErrorThatLeavesTheArenaUsable) {
  Arena arena(Arena::round_up(10) + Arena::round_up(20));
  arena.alloc(10);
  arena.alloc(20);
  const size_t used = arena.used();
  try {
    arena.alloc(1);
    FAIL() << "expected an Error on overflow";
  } catch (const Error& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find("Arena overflow"), std::string::npos) << msg;
    EXPECT_NE(msg.find("planned " + std::to_string(arena.capacity())), std::string::npos) << msg;
  }
  EXPECT_EQ(arena.used(), used);  // a failed alloc takes nothing
  EXPECT_NO_THROW(arena.alloc(0));
}

TEST(Arena, EmptyArenaRefusesAllocations) {
  Arena arena;
  EXPECT_THROW(arena.alloc(1), Error);
}

TEST(Arena, ReserveTwiceIsAnErrorButReleaseAllowsANewPlan) {
  Arena arena(32);
  EXPECT_THROW(arena.reserve(64), Error);
  float* p = arena.alloc(32);
  p[0] = 5.0f;
  arena.release();
  EXPECT_EQ(arena.used(), 0u);
  EXPECT_EQ(arena.capacity(), 0u);
  arena.reserve(64);
  EXPECT_EQ(arena.capacity(), 64u);
  float* q = arena.alloc(64);
  EXPECT_TRUE(aligned(q));
  for (int i = 0; i < 64; ++i) ASSERT_EQ(q[i], 0.0f);  // fresh slab, zeroed again
}

TEST(Arena, TensorViewsHaveTheirShapeAndOwnMemory) {
  const size_t plan = Arena::round_up(2 * 3 * 5) + Arena::round_up(7);
  Arena arena(plan);
  Tensor a = arena.tensor({2, 3, 5});  // (B, T, C)
  Tensor b = arena.tensor({7});
  EXPECT_EQ(a.shape_str(), "(2, 3, 5)");
  EXPECT_EQ(a.numel(), 30);
  EXPECT_EQ(b.numel(), 7);
  EXPECT_TRUE(aligned(a.data));
  EXPECT_TRUE(aligned(b.data));
  EXPECT_GE(b.data, a.data + a.numel());
  EXPECT_THROW(arena.tensor({1}), Error);
}

// Slabs of 2 MiB and more come from mmap (huge pages): still zeroed, aligned, counted.
TEST(Arena, LargeSlabIsZeroedAlignedAndCounted) {
  const long before = scratchgpt::Arena::slabs_reserved().load();
  scratchgpt::Arena arena(3u << 20);  // 12 MiB of floats
  EXPECT_EQ(scratchgpt::Arena::slabs_reserved().load(), before + 1);
  float* p = arena.alloc(3u << 20);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(p) % scratchgpt::Arena::kAlign, 0u);
  double sum = 0;
  for (size_t i = 0; i < (3u << 20); i += 1021) sum += p[i];
  EXPECT_EQ(sum, 0.0);
  p[(3u << 20) - 1] = 1.0f;  // the whole range is writable
  EXPECT_EQ(p[(3u << 20) - 1], 1.0f);
}

// release_pages gives back exactly the whole pages inside the range: they read as zeros, and the
// partial pages at either end (another tensor's memory) keep their values.
TEST(Arena, ReleasePagesZeroesTheWholePagesInsideTheRangeOnly) {
  scratchgpt::Arena arena(3u << 20);  // 12 MiB: an mmap slab
  const size_t n = 3u << 20;
  float* p = arena.alloc(n);
  for (size_t i = 0; i < n; ++i) p[i] = 1.0f;
  const size_t first = 1000, count = 200000;  // starts and ends inside a 4 KiB page
  scratchgpt::release_pages(p + first, count);
  const uintptr_t lo = (reinterpret_cast<uintptr_t>(p + first) + 4095) / 4096 * 4096;
  const uintptr_t hi = reinterpret_cast<uintptr_t>(p + first + count) / 4096 * 4096;
  size_t zeros = 0;
  for (size_t i = 0; i < n; ++i) {
    const uintptr_t a = reinterpret_cast<uintptr_t>(p + i);
    if (a >= lo && a < hi) {
      zeros += p[i] == 0.0f;
    } else if (p[i] != 1.0f) {
      ADD_FAILURE() << "float " << i << " outside the released pages changed";
      break;
    }
  }
  EXPECT_EQ(zeros, (hi - lo) / sizeof(float));
  EXPECT_GT(zeros, count - 2048);
  scratchgpt::release_pages(p, 10);  // inside one page: nothing to give back
  EXPECT_EQ(p[0], 1.0f);
}
