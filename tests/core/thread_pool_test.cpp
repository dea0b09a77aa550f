// thread_pool_test.cpp: static partitioning covers every item once, and a reduction written by
// the kernel rule (each output owned by one chunk, fixed order inside it) is bitwise identical
// with 1 and with 2 threads.
#include "core/thread_pool.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cmath>
#include <cstring>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

using scratchgpt::ThreadPool;

TEST(ThreadPool, CoversEveryItemExactlyOnce) {
  for (int threads : {1, 2, 3, 8}) {
    ThreadPool pool(threads);
    for (int64_t n : {1, 2, 7, 64, 1001}) {
      std::vector<std::atomic<int>> hits(n);
      pool.parallel_for(n, [&](int64_t b, int64_t e, int) {
        for (int64_t i = b; i < e; ++i) hits[i]++;
      });
      for (int64_t i = 0; i < n; ++i) ASSERT_EQ(hits[i].load(), 1) << "n=" << n << " i=" << i;
    }
  }
}

// Row sums of a matrix with awkward float values: each row is one output element.
static std::vector<float> row_sums(ThreadPool& pool, const std::vector<float>& m, int rows, int cols) {
  std::vector<float> out(rows);
  pool.parallel_for(rows, [&](int64_t b, int64_t e, int) {
    for (int64_t r = b; r < e; ++r) {
      float acc = 0;
      for (int c = 0; c < cols; ++c) acc += m[r * cols + c];
      out[r] = acc;
    }
  });
  return out;
}

TEST(ThreadPool, ReductionIsBitwiseIdenticalWithOneAndTwoThreads) {
  const int rows = 257, cols = 1003;
  std::vector<float> m(rows * cols);
  for (size_t i = 0; i < m.size(); ++i) m[i] = std::sin(0.37f * i) * std::pow(10.0f, (i % 7) - 3.0f);
  ThreadPool one(1), two(2);
  auto a = row_sums(one, m, rows, cols);
  auto b = row_sums(two, m, rows, cols);
  EXPECT_EQ(0, std::memcmp(a.data(), b.data(), rows * sizeof(float)));
}

TEST(ThreadPool, NestedCallRunsSeriallyWithoutDeadlock) {
  ThreadPool pool(2);
  std::atomic<int64_t> total{0};
  pool.parallel_for(4, [&](int64_t b, int64_t e, int) {
    for (int64_t i = b; i < e; ++i)
      pool.parallel_for(10, [&](int64_t b2, int64_t e2, int) { total += e2 - b2; });
  });
  EXPECT_EQ(total.load(), 40);
}

// Back-to-back jobs (workers still spinning) and jobs after pauses longer than the spin (workers
// asleep) must each run every chunk exactly once; a lost wake-up would hang or drop a chunk.
TEST(ThreadPool, ManyJobsWithSpinningAndSleepingWorkers) {
  for (int threads : {2, 3}) {
    ThreadPool pool(threads);
    int64_t expected = 0;
    std::atomic<int64_t> total{0};
    for (int job = 0; job < 3000; ++job) {
      if (job % 500 == 499)
        std::this_thread::sleep_for(std::chrono::microseconds(3 * ThreadPool::kSpinMicros));
      const int64_t n = 1 + job % 7;
      pool.parallel_for(n, [&](int64_t b, int64_t e, int) {
        for (int64_t i = b; i < e; ++i) total += i + 1;
      });
      expected += n * (n + 1) / 2;
      ASSERT_EQ(total.load(), expected) << "threads=" << threads << " job=" << job;
    }
  }
}

// An exception thrown in a worker's chunk comes out of parallel_for on the caller (a worker that
// let it escape would end the process), after every other chunk has run; one thrown in the
// caller's own chunk waits for the workers first (they read the job from the caller's stack), the
// workers' chunks finished when it arrives. The pool runs jobs as before afterwards.
TEST(ThreadPool, AnExceptionInAnyChunkComesOutOnTheCallerAfterEveryChunk) {
  for (int threads : {2, 3}) {
    ThreadPool pool(threads);
    for (int thrower = 0; thrower < threads; ++thrower) {
      SCOPED_TRACE("threads " + std::to_string(threads) + ", chunk " + std::to_string(thrower) +
                   " throws");
      std::atomic<int> finished{0};
      try {
        pool.parallel_for(threads, [&](int64_t b, int64_t, int w) {
          if (w == thrower) throw std::runtime_error("chunk " + std::to_string(b));
          std::this_thread::sleep_for(std::chrono::milliseconds(20));  // outlast the thrower
          ++finished;
        });
        ADD_FAILURE() << "no exception came out";
      } catch (const std::runtime_error& e) {
        EXPECT_EQ(std::string(e.what()), "chunk " + std::to_string(thrower));
      }
      EXPECT_EQ(finished.load(), threads - 1) << "returned before the other chunks finished";
      std::atomic<int64_t> total{0};
      pool.parallel_for(100, [&](int64_t b, int64_t e, int) { total += e - b; });
      EXPECT_EQ(total.load(), 100) << "the pool after the exception";
    }
  }
}
