// perf_probes_test.cpp: the memory read probe gives a plausible bandwidth on one thread and on
// several (it is a timing: only its range can be checked).
#include "core/perf_probes.h"

#include <gtest/gtest.h>

using namespace scratchgpt;

TEST(PerfProbes, MemoryReadBandwidthIsPlausible) {
  ThreadPool one(1), two(2);
  for (ThreadPool* pool : {&one, &two}) {
    const double gbps = memory_read_gbps(*pool, size_t{64} << 20);
    EXPECT_GT(gbps, 0.1);
    EXPECT_LT(gbps, 10000.0);  // 10 TB/s: no machine reads RAM this fast
  }
}
