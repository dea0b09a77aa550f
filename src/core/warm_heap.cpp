// warm_heap.cpp: see warm_heap.h.
#include "core/warm_heap.h"

#include <cstdlib>
#include <cstring>

#if defined(__GLIBC__)
#include <malloc.h>
#endif

namespace scratchgpt {

void warm_heap(ThreadPool& pool, size_t bytes) {
#if defined(__GLIBC__)
  // Blocks up to 256 MiB come from the heap rather than a fresh mmap each, and a free never
  // gives the heap's top back to the system (both would fault the pages in again next step).
  mallopt(M_MMAP_THRESHOLD, 256 << 20);
  mallopt(M_TRIM_THRESHOLD, 1 << 30);
#endif
  pool.parallel_for(pool.num_threads(), [&](int64_t, int64_t, int) {
    // Each thread allocates from its own arena: touching a block there and freeing it leaves
    // that much touched memory at the top of the thread's heap for later allocations.
    void* p = std::malloc(bytes);
    if (p == nullptr) return;  // only a cache: running without it is correct
    // Not 0: the compiler would turn malloc + memset(0) into calloc, which skips fresh pages.
    std::memset(p, 1, bytes);
    asm volatile("" : : "r"(p) : "memory");  // nor may it drop the unused block
    std::free(p);
  });
}

}  // namespace scratchgpt
