// arena.h: Arena, one aligned slab with bump allocation. Memory is planned, not discovered:
// size the slab once (e.g. by walking the parameter visitor), then hand out views; nothing is
// freed individually. Leaves out: growth after the first allocation (it is a checked error).
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <initializer_list>
#include <memory>
#include <string>

#include <sys/mman.h>

#include "core/check.h"
#include "core/device.h"
#include "core/tensor.h"

namespace scratchgpt {

// A slab the system would not give (mmap or aligned_alloc failed). An Error, so anything that
// catches Errors still does; the commands that size the slabs catch it to name their flags
// (run/model_factory.h: with_memory_advice).
class OutOfMemory : public Error {
 public:
  explicit OutOfMemory(size_t n)
      : Error("out of memory allocating " + std::to_string(n) + " bytes"), bytes(n) {}
  size_t bytes;
};

namespace detail {
// Frees an Arena slab: the GPU's (device_free), munmap for slabs that came from mmap
// (mapped_bytes > 0), free() otherwise.
struct SlabFree {
  size_t mapped_bytes = 0;
  bool on_gpu = false;
  void operator()(float* p) const {
    if (on_gpu) {
      device_free(Device::kCuda, p);
    } else if (mapped_bytes) {
      ::munmap(p, mapped_bytes);
    } else {
      std::free(p);
    }
  }
};
}  // namespace detail

// Gives the whole pages inside [p, p + n floats) of a host slab back to the system
// (MADV_DONTNEED): for a tensor that is no longer read, such as a Linear's fp32 weight once
// --weights int8 has converted it. Those pages read as zeros afterwards; the partial pages at
// either end stay.
inline void release_pages(float* p, size_t n) {
  constexpr uintptr_t kPage = 4096;
  const uintptr_t begin = (reinterpret_cast<uintptr_t>(p) + kPage - 1) / kPage * kPage;
  const uintptr_t end = reinterpret_cast<uintptr_t>(p + n) / kPage * kPage;
  if (end > begin) ::madvise(reinterpret_cast<void*>(begin), end - begin, MADV_DONTNEED);
}

class Arena {
 public:
  static constexpr size_t kAlign = 64;  // one cache line, and room for AVX-512 loads

  Arena() = default;
  explicit Arena(size_t capacity_floats) { reserve(capacity_floats); }

  // Allocates the slab (on cuda: managed memory, core/device.h); may be called once, or again
  // after release().
  void reserve(size_t capacity_floats, Device device = Device::kCpu) {
    SG_CHECK(slab_ == nullptr, "Arena::reserve called twice");
    slabs_reserved().fetch_add(1, std::memory_order_relaxed);
    capacity_ = round_up(capacity_floats);
    size_t bytes = capacity_ * sizeof(float);
    if (device == Device::kCuda) {
      void* p = device_alloc(device, bytes);
      slab_ = std::unique_ptr<float, Free>(static_cast<float*>(p), Free{0, true});
    } else if (bytes >= kHugePage) {
      // Large slabs come straight from the kernel: already zero, faulted in lazily, and backed by
      // transparent huge pages where available (512x fewer page faults than 4 KiB pages).
      bytes = (bytes + kHugePage - 1) / kHugePage * kHugePage;
      void* p = ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
      if (p == MAP_FAILED) throw OutOfMemory(bytes);
      ::madvise(p, bytes, MADV_HUGEPAGE);
      slab_ = std::unique_ptr<float, Free>(static_cast<float*>(p), Free{bytes});
    } else {
      void* p = std::aligned_alloc(kAlign, bytes == 0 ? kAlign : bytes);
      if (p == nullptr) throw OutOfMemory(bytes);
      std::memset(p, 0, bytes);
      slab_ = std::unique_ptr<float, Free>(static_cast<float*>(p), Free{0});
    }
  }

  // Returns n zero-initialised floats, aligned to kAlign.
  float* alloc(size_t n) {
    size_t need = round_up(n);
    SG_CHECK(used_ + need <= capacity_, "Arena overflow: need ", used_ + need, " floats, planned ",
             capacity_);
    float* p = slab_.get() + used_;
    used_ += need;
    return p;
  }
  Tensor tensor(std::initializer_list<int64_t> dims) {
    int64_t n = 1;
    for (int64_t d : dims) n *= d;
    return Tensor(alloc(static_cast<size_t>(n)), dims);
  }

  // Floats a request of n really takes (alignment padding included): use it to plan capacity.
  static size_t round_up(size_t n) {
    constexpr size_t k = kAlign / sizeof(float);
    return (n + k - 1) / k * k;
  }
  size_t used() const { return used_; }
  size_t capacity() const { return capacity_; }
  float* base() const { return slab_.get(); }
  // How many slabs the process has reserved so far: tests use it to prove that a training step at
  // a planned shape allocates nothing.
  static std::atomic<long>& slabs_reserved() {
    static std::atomic<long> n{0};
    return n;
  }
  void release() {
    slab_.reset();
    used_ = capacity_ = 0;
  }

 private:
  static constexpr size_t kHugePage = size_t(2) << 20;
  using Free = detail::SlabFree;
  std::unique_ptr<float, Free> slab_;
  size_t capacity_ = 0;
  size_t used_ = 0;
};

}  // namespace scratchgpt
