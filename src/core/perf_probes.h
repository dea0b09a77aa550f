// perf_probes.h: what benchmarks measure about the machine and the process: the FMA peak in
// GFLOP/s (a loop of independent fused multiply-adds on every thread of a pool, the ceiling that
// "fraction of peak" figures are taken against), the memory read bandwidth (what bounds batch-1
// decoding, which reads every weight once per token) and the process's peak resident memory.
// Leaves out: cache sizes, write bandwidth.
#pragma once

#include <cstdint>
#include <string>

#include "core/thread_pool.h"

namespace scratchgpt {

// GFLOP/s of 12 independent chains of 8-wide (AVX2) or 16-wide (AVX-512) FMAs on every thread of
// pool at once, best of 3 short runs. The caller checks that the CPU has the instruction set.
double fma_peak_gflops(ThreadPool& pool, bool avx512);

// GB/s (1e9 bytes) of reading a buffer of `bytes` (far larger than the caches) on every thread of
// pool at once, each thread summing its own contiguous slice (touched first by that thread), best
// of 5 passes: the bandwidth a memory-bound kernel that streams its operand once can reach.
double memory_read_gbps(ThreadPool& pool, size_t bytes = size_t{1} << 30);

// Peak resident set of this process in MB: VmHWM (reset by exec) when /proc is there, else
// getrusage's ru_maxrss (which a child inherits from a big parent across fork + exec).
double peak_rss_mb();

// Minor page faults of this process so far (getrusage's ru_minflt, every thread): pages mapped in
// and zeroed on first touch. Its growth over a training step says whether the step maps fresh
// memory (it should not, after the first).
int64_t minor_page_faults();

// The CPU's model name with its family and model numbers ("AMD EPYC, family 25 model 17", from
// /proc/cpuinfo), or "unknown CPU": what benchmark figures are reported against. The numbers tell
// CPUs apart whose name a virtual machine shortens (Zen 3 is family 25 model 1, Zen 4 model 17).
std::string cpu_model_name();
// The same from the text of a /proc/cpuinfo (its first processor's lines).
std::string cpu_model_name_from(const std::string& cpuinfo);

}  // namespace scratchgpt
