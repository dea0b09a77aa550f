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

// GFLOP/s of 12 independent chains of vdpbf16ps (AVX512_BF16: per fp32 lane two products of
// bf16 pairs added, 4 flops) on every thread of pool at once, best of 3 short runs: the ceiling of
// --dtype bf16's matrix products. The caller checks cpu_has_avx512_bf16().
double bf16_dot_peak_gflops(ThreadPool& pool);

// GB/s (1e9 bytes) of reading a buffer of `bytes` (far larger than the caches) on every thread of
// pool at once, each thread summing its own contiguous part (touched first by that thread) as 8
// concurrent streams, best of 8 passes: the bandwidth a memory-bound kernel that streams its
// operand once (a matvec reads several weight rows at once) can reach; the DRAM bound of decoding.
double memory_read_gbps(ThreadPool& pool, size_t bytes = size_t{1} << 30);

// Nanoseconds per cache line of a store to lines that another core has just read (worker 1 of
// pool reads a 2 MiB buffer, then the calling thread writes one float to each of its lines; best
// of 5), or 0 with fewer than two threads. The price of handing data from core to core, which a
// shared host sets by where it places the vCPUs: the same 2-vCPU Zen 4 measured 14-27 ns in one
// hour and 3-5 in the next, against about 1 ns for lines no other core holds.
double cross_core_store_ns(ThreadPool& pool);

// Peak resident set of this process in MB: VmHWM (reset by exec) when /proc is there, else
// getrusage's ru_maxrss (which a child inherits from a big parent across fork + exec).
double peak_rss_mb();
// The resident set now (VmRSS), in MB.
double rss_mb();

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
