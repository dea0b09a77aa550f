// warm_heap.h: keeps the malloc heap of every thread of a pool mapped and touched, so that a
// library that allocates scratch on every call (oneDNN's sgemm packs its operands into buffers it
// mallocs and frees per call) reuses pages that are already there instead of faulting fresh,
// zeroed pages in during training steps. glibc: freed memory stays in the heap (no trimming, no
// per-call mmap below the threshold set here); elsewhere only the touch is done.
// Leaves out: our own buffers, which never need it (the model's slabs are mapped once, the GEMM's
// packing buffers grow once per thread).
#pragma once

#include <cstddef>

#include "core/thread_pool.h"

namespace scratchgpt {

// What run/exec.h warms per thread for oneDNN: its sgemm's largest scratch on GPT-2 small is
// about 4 MiB.
inline constexpr size_t kWarmHeapBytes = size_t{32} << 20;

// On every thread of pool (the caller included): allocate `bytes`, write every page, free.
void warm_heap(ThreadPool& pool, size_t bytes = kWarmHeapBytes);

}  // namespace scratchgpt
