// cpu_test_util.h: shared helpers for the cpu:: kernel tests: deterministic random data, the
// reference run in double, tolerance checks that print the first mismatches, and the execution
// context the kernels are called with (thread count, SIMD level, our own GEMM).
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "core/cpu_features.h"
#include "core/exec_context.h"
#include "core/thread_pool.h"
#include "kernels/cpu/matmul_backend.h"

namespace scratchgpt::test {

inline std::vector<float> random_floats(size_t n, uint32_t seed, float lo = -1.0f,
                                        float hi = 1.0f) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<float> dist(lo, hi);
  std::vector<float> v(n);
  for (float& x : v) x = dist(gen);
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

}  // namespace scratchgpt::test
