// perf_probes.cpp: see perf_probes.h.
#include "core/perf_probes.h"

#include <immintrin.h>
#include <sys/resource.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>

#include "core/cpu_features.h"
#include "core/simd_target.h"
#include "core/text.h"

namespace scratchgpt {

namespace {

double now_s() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

SG_TARGET_BEGIN("avx2,fma")
// 12 independent accumulator chains of 8-wide FMAs: 192 flops per iteration.
float fma_loop_avx2(int64_t iters) {
  __m256 a[12];
  for (int i = 0; i < 12; ++i) a[i] = _mm256_set1_ps(0.001f * i);
  const __m256 x = _mm256_set1_ps(0.999f), y = _mm256_set1_ps(0.001f);
  for (int64_t it = 0; it < iters; ++it) {
#pragma GCC unroll 12
    for (int i = 0; i < 12; ++i) a[i] = _mm256_fmadd_ps(a[i], x, y);
  }
  float s = 0;
  for (int i = 0; i < 12; ++i) s += _mm256_cvtss_f32(a[i]);
  return s;
}
SG_TARGET_END

SG_TARGET_BEGIN("avx512f")
// The same with 16-wide FMAs: 384 flops per iteration.
float fma_loop_avx512(int64_t iters) {
  __m512 a[12];
  for (int i = 0; i < 12; ++i) a[i] = _mm512_set1_ps(0.001f * i);
  const __m512 x = _mm512_set1_ps(0.999f), y = _mm512_set1_ps(0.001f);
  for (int64_t it = 0; it < iters; ++it) {
#pragma GCC unroll 12
    for (int i = 0; i < 12; ++i) a[i] = _mm512_fmadd_ps(a[i], x, y);
  }
  float s = 0;
  for (int i = 0; i < 12; ++i) s += _mm512_cvtss_f32(a[i]);
  return s;
}
SG_TARGET_END

SG_TARGET_BEGIN("avx512f,avx512bf16")
// 12 independent chains of vdpbf16ps: each lane adds two products of bf16 pairs, 16 lanes, so 64
// flops an instruction (two multiplies and two adds a lane) and 768 per iteration. The pairs:
// 1 and 2^-10, so the sums grow by 2^-9 an instruction and stay normal and finite.
float dot_loop_avx512_bf16(int64_t iters) {
  __m512 a[12];
  for (int i = 0; i < 12; ++i) a[i] = _mm512_set1_ps(0.001f * i);
  const __m512bh x = __builtin_bit_cast(__m512bh, _mm512_set1_epi32(0x3f803f80));  // (1, 1)
  const __m512bh y = __builtin_bit_cast(__m512bh, _mm512_set1_epi32(0x3a803a80));  // 2^-10 twice
  for (int64_t it = 0; it < iters; ++it) {
#pragma GCC unroll 12
    for (int i = 0; i < 12; ++i) a[i] = _mm512_dpbf16_ps(a[i], x, y);
  }
  float s = 0;
  for (int i = 0; i < 12; ++i) s += _mm512_cvtss_f32(a[i]);
  return s;
}
SG_TARGET_END

// Sums of `blocks` blocks of 64 floats (256 bytes) from each of kStreams slices of one thread's
// part at once, with independent accumulators: the loads are the limit. Several streams per core,
// as a matvec reads several weight rows at once, keep more lines in flight than one sequential
// stream whose hardware prefetcher runs one page ahead (one stream read 2.6-38 GB/s where the
// lm_head matvec reached 55.7 GB/s: issue 43).
constexpr int kStreams = 8;

SG_TARGET_BEGIN("avx2")
float sum_avx2(const float* const* p, int64_t blocks) {
  __m256 a[kStreams];
  for (auto& v : a) v = _mm256_setzero_ps();
  for (int64_t k = 0; k < blocks * 64; k += 64)
    for (int s = 0; s < kStreams; ++s)
      for (int i = 0; i < 8; ++i) a[s] = _mm256_add_ps(a[s], _mm256_loadu_ps(p[s] + k + 8 * i));
  float t = 0;
  for (auto& v : a) t += _mm256_cvtss_f32(v);
  return t;
}
SG_TARGET_END

SG_TARGET_BEGIN("avx512f")
float sum_avx512(const float* const* p, int64_t blocks) {
  __m512 a[kStreams];
  for (auto& v : a) v = _mm512_setzero_ps();
  for (int64_t k = 0; k < blocks * 64; k += 64)
    for (int s = 0; s < kStreams; ++s)
      for (int i = 0; i < 4; ++i) a[s] = _mm512_add_ps(a[s], _mm512_loadu_ps(p[s] + k + 16 * i));
  float t = 0;
  for (auto& v : a) t += _mm512_cvtss_f32(v);
  return t;
}
SG_TARGET_END

float sum_scalar(const float* const* p, int64_t blocks) {
  float a[8] = {};
  for (int64_t k = 0; k < blocks * 64; k += 64)
    for (int s = 0; s < kStreams; ++s)
      for (int i = 0; i < 64; ++i) a[i % 8] += p[s][k + i];
  return a[0] + a[1] + a[2] + a[3] + a[4] + a[5] + a[6] + a[7];
}

// GFLOP/s of loop(iters) on every thread of pool at once, `flops` an iteration, best of 3 runs.
double best_gflops(ThreadPool& pool, float (*loop)(int64_t), int64_t iters, double flops) {
  const double total = flops * static_cast<double>(iters) * pool.num_threads();
  double best = 0;
  std::atomic<float> sink{0};
  for (int rep = 0; rep < 3; ++rep) {
    const double t0 = now_s();
    pool.parallel_for(pool.num_threads(),
                      [&](int64_t, int64_t, int) { sink = sink + loop(iters); });
    best = std::max(best, total / (now_s() - t0) * 1e-9);
  }
  return best;
}

}  // namespace

double fma_peak_gflops(ThreadPool& pool, bool avx512) {
  return avx512 ? best_gflops(pool, fma_loop_avx512, 20'000'000, 384.0)
                : best_gflops(pool, fma_loop_avx2, 20'000'000, 192.0);
}

double bf16_dot_peak_gflops(ThreadPool& pool) {
  return best_gflops(pool, dot_loop_avx512_bf16, 10'000'000, 768.0);
}

double memory_read_gbps(ThreadPool& pool, size_t bytes) {
  const int threads = pool.num_threads();
  // Whole blocks of 64 floats, kStreams slices per thread: the threads read disjoint parts.
  const int64_t per_slice = static_cast<int64_t>(bytes / sizeof(float)) / 64 / kStreams / threads;
  const int64_t n = per_slice * 64 * kStreams * threads;
  // Left uninitialised here: each worker first-touches its own part.
  const std::unique_ptr<float[]> buf(new float[static_cast<size_t>(n)]);
  float* data = buf.get();
  const int64_t part = n / threads;
  pool.parallel_for(threads, [&](int64_t b, int64_t e, int) {
    std::fill(data + b * part, data + e * part, 1.0f);
  });
  const SimdLevel level = detected_simd_level();
  const bool avx512 = level == SimdLevel::kAvx512, avx2 = level == SimdLevel::kAvx2;
  std::atomic<float> sink{0};
  double best = 0;
  for (int rep = 0; rep < 8; ++rep) {
    const double t0 = now_s();
    pool.parallel_for(threads, [&](int64_t b, int64_t e, int) {
      for (int64_t w = b; w < e; ++w) {  // one part per item, so each thread reads its own
        const float* p[kStreams];
        for (int s = 0; s < kStreams; ++s) p[s] = data + w * part + s * per_slice * 64;
        sink = sink + (avx512 ? sum_avx512(p, per_slice)
                       : avx2 ? sum_avx2(p, per_slice)
                              : sum_scalar(p, per_slice));
      }
    });
    best = std::max(best, static_cast<double>(n) * sizeof(float) / (now_s() - t0) * 1e-9);
  }
  return best;
}

double cross_core_store_ns(ThreadPool& pool) {
  if (pool.num_threads() < 2) return 0.0;
  constexpr int64_t kLines = 32768, kFloatsPerLine = 16;  // 2 MiB
  const std::unique_ptr<float[]> buf(new float[kLines * kFloatsPerLine]());
  float* data = buf.get();
  std::atomic<float> sink{0};
  double best = 1e30;
  for (int rep = 0; rep < 5; ++rep) {
    pool.parallel_for(2, [&](int64_t b, int64_t, int) {  // item 1 goes to worker 1
      if (b != 1) return;
      float s = 0;
      for (int64_t l = 0; l < kLines; ++l) s += data[l * kFloatsPerLine];
      sink = sink + s;
    });
    const double t0 = now_s();
    for (int64_t l = 0; l < kLines; ++l) data[l * kFloatsPerLine] += 1.0f;
    best = std::min(best, (now_s() - t0) * 1e9 / kLines);
  }
  return best;
}

namespace {
// A "Name: N kB" line of /proc/self/status in MB; -1 where there is none.
double proc_status_mb(const char* format) {
  long kb = -1;
  if (std::FILE* fp = std::fopen("/proc/self/status", "r")) {
    char line[256];
    while (std::fgets(line, sizeof line, fp))
      if (std::sscanf(line, format, &kb) == 1) break;
    std::fclose(fp);
  }
  return kb >= 0 ? kb / 1024.0 : -1.0;
}
}  // namespace

double peak_rss_mb() {
  const double mb = proc_status_mb("VmHWM: %ld kB");
  if (mb >= 0) return mb;
  rusage ru{};
  getrusage(RUSAGE_SELF, &ru);
  return ru.ru_maxrss / 1024.0;  // KiB on Linux
}

double rss_mb() { return std::max(proc_status_mb("VmRSS: %ld kB"), 0.0); }

int64_t minor_page_faults() {
  rusage ru{};
  getrusage(RUSAGE_SELF, &ru);
  return ru.ru_minflt;
}

std::string cpu_model_name_from(const std::string& cpuinfo) {
  std::string name, family, model;
  size_t pos = 0;
  while (pos < cpuinfo.size()) {
    size_t eol = cpuinfo.find('\n', pos);
    if (eol == std::string::npos) eol = cpuinfo.size();
    const std::string line = cpuinfo.substr(pos, eol - pos);
    pos = eol + 1;
    const size_t colon = line.find(':');
    if (colon == std::string::npos) {
      if (trimmed(line).empty() && !name.empty()) break;  // the end of the first processor's block
      continue;
    }
    const std::string key = trimmed(line.substr(0, colon)), value = trimmed(line.substr(colon + 1));
    if (key == "model name" && name.empty())
      name = value;
    else if (key == "cpu family" && family.empty())
      family = value;
    else if (key == "model" && model.empty())
      model = value;
  }
  if (name.empty()) return "unknown CPU";
  if (!family.empty() && !model.empty()) name += ", family " + family + " model " + model;
  return name;
}

std::string cpu_model_name() {
  std::string text;
  if (std::FILE* fp = std::fopen("/proc/cpuinfo", "r")) {
    char buf[4096];
    size_t got;
    // The first processor's block is enough (a few KiB); stop at the first blank line after it.
    while ((got = std::fread(buf, 1, sizeof buf, fp)) > 0) {
      text.append(buf, got);
      if (text.find("\n\n") != std::string::npos || text.size() > (size_t{1} << 20)) break;
    }
    std::fclose(fp);
  }
  return cpu_model_name_from(text);
}

}  // namespace scratchgpt
