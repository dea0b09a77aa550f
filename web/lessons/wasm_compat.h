// wasm_compat.h: what Debian's emscripten 3.1.6 (libc++ and libc of early 2022) lacks and the tree
// uses, force-included (-include) in every file of the WebAssembly build (web/CMakeLists.txt).
// Leaves out: anything the lessons reach at run time; renameat2 only lets core/atomic_file.cpp
// compile (the book writes no files), and fails with ENOSYS if it were ever called.
#pragma once

#include <version>

#if !defined(__cpp_lib_bit_cast)
namespace std {
template <class To, class From>
constexpr To bit_cast(const From& from) noexcept {
  return __builtin_bit_cast(To, from);
}
}  // namespace std
#endif

#ifndef _SC_LEVEL2_CACHE_SIZE
#define _SC_LEVEL2_CACHE_SIZE (-1)  // sysconf fails; cpu_features.cpp then assumes 1 MiB
#endif

#if defined(__EMSCRIPTEN__) && defined(__cplusplus)
#include <cerrno>
#ifndef RENAME_NOREPLACE
#define RENAME_NOREPLACE (1 << 0)
#define RENAME_EXCHANGE (1 << 1)
inline int renameat2(int, const char*, int, const char*, unsigned) {
  errno = ENOSYS;
  return -1;
}
#endif
#endif
