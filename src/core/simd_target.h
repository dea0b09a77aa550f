// simd_target.h: SG_TARGET_BEGIN("avx2,fma") ... SG_TARGET_END compiles the functions between them
// for that instruction set, whatever -march the build uses, so one binary carries every path and
// picks one at run time (core/cpu_features.h). GCC: push_options + target; clang (the fuzz
// build): an attribute pushed onto every function. Code inside must only run after a check that
// the CPU has the instructions. Leaves out: MSVC.
#pragma once

#define SG_PRAGMA(x) _Pragma(#x)
#if defined(__clang__)
#define SG_TARGET_BEGIN(isa) \
  SG_PRAGMA(clang attribute push(__attribute__((target(isa))), apply_to = function))
#define SG_TARGET_END SG_PRAGMA(clang attribute pop)
#else
#define SG_TARGET_BEGIN(isa) SG_PRAGMA(GCC push_options) SG_PRAGMA(GCC target(isa))
#define SG_TARGET_END SG_PRAGMA(GCC pop_options)
#endif
