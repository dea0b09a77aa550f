// cpu_features.cpp: the SIMD level names, SCRATCHGPT_SIMD, and the machine's memory (see
// cpu_features.h).
#include "core/cpu_features.h"

#include <unistd.h>

#include <cstdio>
#include <cstdlib>

#include "core/check.h"

namespace scratchgpt {

uint64_t physical_memory_bytes() {
  const long pages = ::sysconf(_SC_PHYS_PAGES), page = ::sysconf(_SC_PAGESIZE);
  return pages > 0 && page > 0 ? static_cast<uint64_t>(pages) * static_cast<uint64_t>(page) : 0;
}

uint64_t l2_cache_bytes() {
  static const uint64_t bytes = [] {
    const long l2 = ::sysconf(_SC_LEVEL2_CACHE_SIZE);
    return l2 > 0 ? static_cast<uint64_t>(l2) : uint64_t{1} << 20;
  }();
  return bytes;
}

std::string format_bytes(double bytes) {
  const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
  int u = 0;
  while (bytes >= 1024.0 && u < 6) bytes /= 1024.0, ++u;
  char buf[64];
  std::snprintf(buf, sizeof(buf), u == 0 ? "%.0f %s" : "%.1f %s", bytes, units[u]);
  return buf;
}

SimdLevel simd_level_from_name(const std::string& name) {
  return enum_from_name<SimdLevel>(kSimdLevelNames, name, "SIMD level");
}

SimdLevel default_simd_level() {
  const char* env = std::getenv("SCRATCHGPT_SIMD");
  if (env == nullptr || *env == '\0') return detected_simd_level();
  const SimdLevel want = simd_level_from_name(env);
  return cap_simd_level(want);
}

}  // namespace scratchgpt
