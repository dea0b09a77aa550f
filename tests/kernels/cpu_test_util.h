// cpu_test_util.h: shared helpers for the cpu:: kernel tests: deterministic random data, the
// reference run in double, tolerance checks that print the first mismatches, and the execution
// context the kernels are called with (thread count, SIMD level, our own GEMM), and the shapes and
// level-and-thread loop the row and elementwise kernel tests share.
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <initializer_list>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "core/cpu_features.h"
#include "core/exec_context.h"
#include "core/thread_pool.h"
#include "kernels/cpu/matmul_backend.h"
#include "uniform_draw.h"

namespace scratchgpt::test {

inline std::vector<float> random_floats(size_t n, uint32_t seed, float lo = -1.0f,
                                        float hi = 1.0f) {
  std::mt19937 gen(seed);
  std::vector<float> v(n);
  for (float& x : v) x = uniform_draw(gen, lo, hi);
  return v;
}

inline std::vector<double> to_double(const std::vector<float>& v) {
  return std::vector<double>(v.begin(), v.end());
}

// |got - want| <= atol + rtol * |want| everywhere; prints up to 5 mismatches side by side.
inline ::testing::AssertionResult all_close(const std::vector<float>& got,
                                            const std::vector<double>& want, double atol,
                                            double rtol) {
  if (got.size() != want.size()) return ::testing::AssertionFailure() << "size mismatch";
  int bad = 0;
  std::string msg;
  for (size_t i = 0; i < got.size(); ++i) {
    const double err = std::fabs(static_cast<double>(got[i]) - want[i]);
    if (!(err <= atol + rtol * std::fabs(want[i]))) {  // also catches NaN
      if (bad < 5)
        msg += "\n  [" + std::to_string(i) + "] got " + std::to_string(got[i]) + " want " +
               std::to_string(want[i]) + " err " + std::to_string(err);
      ++bad;
    }
  }
  if (bad) return ::testing::AssertionFailure() << bad << " of " << got.size() << " differ" << msg;
  return ::testing::AssertionSuccess();
}

// The share of elements farther than atol + 1e-4 |want| from want (the bf16 kernels against
// their twins: nearly none; against fp32's numbers: many).
inline double share_off(const std::vector<float>& got, const std::vector<double>& want,
                        double atol) {
  int64_t off = 0;
  for (size_t i = 0; i < got.size(); ++i)
    off += !(std::fabs(got[i] - want[i]) <= atol + 1e-4 * std::fabs(want[i]));
  return static_cast<double>(off) / static_cast<double>(got.size());
}

inline ::testing::AssertionResult bitwise_equal(const std::vector<float>& a,
                                                const std::vector<float>& b) {
  if (a.size() != b.size()) return ::testing::AssertionFailure() << "size mismatch";
  for (size_t i = 0; i < a.size(); ++i)
    if (std::memcmp(&a[i], &b[i], sizeof(float)) != 0)
      return ::testing::AssertionFailure() << "first difference at [" << i << "]: " << a[i]
                                           << " vs " << b[i];
  return ::testing::AssertionSuccess();
}

// Every SIMD level this CPU can run, slowest first.
inline std::vector<SimdLevel> simd_levels() {
  std::vector<SimdLevel> out;
  for (int l = 0; l <= static_cast<int>(detected_simd_level()); ++l)
    out.push_back(static_cast<SimdLevel>(l));
  return out;
}

// The ExecContext the kernel tests call the kernels with (test::ctx()): KernelEnv sets it to
// our own GEMM (these tests check our kernels, whatever the build's default backend), all cores
// and the best level; set_level and set_threads change it between runs of the same case.
struct TestContext {
  std::unique_ptr<ThreadPool> pool;
  ExecContext ctx;
};
inline TestContext& test_context() {
  static TestContext t;
  return t;
}
inline const ExecContext& ctx() { return test_context().ctx; }
// At most what the CPU has; returns the level set.
inline SimdLevel set_level(SimdLevel level) {
  return test_context().ctx.isa = cap_simd_level(level);
}
// A fresh pool of `threads` workers (0: all cores).
inline void set_threads(int threads) {
  TestContext& t = test_context();
  t.ctx.pool = nullptr;
  t.pool = std::make_unique<ThreadPool>(threads);
  t.ctx.pool = t.pool.get();
}

// For the test's duration: our own matmul, all cores, the best level; the same again at the end.
struct KernelEnv {
  KernelEnv() { reset(); }
  ~KernelEnv() { reset(); }
  static void reset() {
    set_threads(0);
    set_level(detected_simd_level());
    test_context().ctx.matmul = MatmulBackend::kOwn;
  }
};

// The row kernels' shapes, N rows of C: C = 1, 7, 15 (all tail at 8 / 16 lanes), 16, 17, 65, 100,
// 333, 50257; the ones of more than 2 * kChunk elements (parallel.h) are split over the threads.
struct Rows {
  int N, C;
};
inline constexpr Rows kRows[] = {{1, 1},  {3, 7},     {4, 15},    {3, 16},    {6, 17},
                                 {5, 65}, {400, 100}, {300, 333}, {2, 50257}, {3, 50257}};
inline constexpr int kThreads[] = {1, 2, 3};

// The elementwise kernels' sizes: tails below, at and past 8 and 16 lanes, and several chunks.
inline constexpr int64_t kSizes[] = {1, 7, 23, 40, 100003};

// Runs `body` at every SIMD level and with 1, 2 and 3 threads; body(n) returns the cpu outputs
// (concatenated) and checks them against the reference itself.
inline void for_levels_and_threads(const std::function<std::vector<float>(int64_t)>& body) {
  KernelEnv env;
  for (SimdLevel level : simd_levels()) {
    set_level(level);
    for (int64_t n : kSizes) {
      SCOPED_TRACE(std::string(simd_level_name(level)) + " n=" + std::to_string(n));
      set_threads(1);
      const auto one = body(n);
      for (int threads : {2, 3}) {
        set_threads(threads);
        EXPECT_TRUE(bitwise_equal(one, body(n))) << "1 vs " << threads << " threads";
      }
    }
  }
}

inline std::vector<float> concat(std::initializer_list<const std::vector<float>*> parts) {
  std::vector<float> out;
  for (auto* p : parts) out.insert(out.end(), p->begin(), p->end());
  return out;
}

}  // namespace scratchgpt::test
