// perf_probes_test.cpp: the memory read probe gives a plausible bandwidth on one thread and on
// several, and the core-to-core probe a plausible time on two threads and none on one (they are
// timings: only their range can be checked); the CPU's name and numbers are read from
// /proc/cpuinfo text as the kernel writes it.
#include "core/perf_probes.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <string>

using namespace scratchgpt;

TEST(PerfProbes, MemoryReadBandwidthIsPlausible) {
  ThreadPool one(1), two(2);
  for (ThreadPool* pool : {&one, &two}) {
    const double gbps = memory_read_gbps(*pool, size_t{64} << 20);
    EXPECT_GT(gbps, 0.1);
    EXPECT_LT(gbps, 10000.0);  // 10 TB/s: no machine reads RAM this fast
  }
}

TEST(PerfProbes, CrossCoreStoreTimeIsPlausible) {
  ThreadPool one(1), two(2);
  EXPECT_EQ(cross_core_store_ns(one), 0.0);  // no other core to hand lines to
  const double ns = cross_core_store_ns(two);
  EXPECT_GT(ns, 0.0);
  EXPECT_LT(ns, 100000.0);  // 0.1 ms a cache line: far beyond any machine, a broken timer
}

// Two processors' blocks as Linux prints them (tab-padded keys, "model" after "cpu family" and
// before "model name"): the first block's values, "model" not confused with "model name".
TEST(PerfProbes, CpuModelNameFromCpuinfo) {
  const std::string two_cpus =
      "processor\t: 0\nvendor_id\t: AuthenticAMD\ncpu family\t: 25\nmodel\t\t: 17\n"
      "model name\t: AMD EPYC\nstepping\t: 1\nflags\t\t: fpu avx2 avx512f\n\n"
      "processor\t: 1\nvendor_id\t: GenuineIntel\ncpu family\t: 6\nmodel\t\t: 143\n"
      "model name\t: Other\n\n";
  EXPECT_EQ(cpu_model_name_from(two_cpus), "AMD EPYC, family 25 model 17");
  // No family or model line (other architectures): the name alone.
  EXPECT_EQ(cpu_model_name_from("model name\t: Some CPU  \n"), "Some CPU");
  // Nothing that names the CPU.
  EXPECT_EQ(cpu_model_name_from(""), "unknown CPU");
  EXPECT_EQ(cpu_model_name_from("processor\t: 0\nBogoMIPS\t: 50.00\n"), "unknown CPU");
  EXPECT_EQ(cpu_model_name_from(":\n: x\nmodel name:\n"), "unknown CPU");
}

// This machine's /proc/cpuinfo (where there is one) gives a name, not the fallback.
TEST(PerfProbes, CpuModelNameOfThisMachine) {
  if (std::FILE* fp = std::fopen("/proc/cpuinfo", "r")) {
    std::fclose(fp);
    EXPECT_NE(cpu_model_name(), "unknown CPU");
  }
}
