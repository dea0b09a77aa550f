// cuda_test_util.h: what the CUDA tests share: a skip with the reason when this build or machine
// has no GPU, device buffers filled from and read back to host vectors, and a cuda ExecContext.
// The tests call the kernels through kernels/kernels.h (as the model does), so they build, and
// skip, in a build without CUDA.
#pragma once

#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "core/check.h"
#include "core/device.h"
#include "core/exec_context.h"

namespace scratchgpt::test {

// "" when a GPU can run the tests, else why not.
inline std::string no_gpu_reason() {
  if (!cuda_built()) return "this build has no CUDA backend (SCRATCHGPT_CUDA found no nvcc)";
  try {
    (void)cuda_describe();
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

#define SKIP_WITHOUT_GPU()                                 \
  do {                                                     \
    const std::string why = ::scratchgpt::test::no_gpu_reason(); \
    if (!why.empty()) GTEST_SKIP() << why;                 \
  } while (0)

// A cuda context; tf32 off unless asked, so products are fp32 like the references.
inline ExecContext cuda_ctx(bool tf32 = false) {
  ExecContext ex;
  ex.device = Device::kCuda;
  ex.tf32 = tf32;
  return ex;
}

// n elements of T in the GPU's (managed) memory.
template <typename T>
class GpuBuffer {
 public:
  explicit GpuBuffer(size_t n) : n_(n) {
    p_ = static_cast<T*>(device_alloc(Device::kCuda, n * sizeof(T) + 64));
  }
  explicit GpuBuffer(const std::vector<T>& v) : GpuBuffer(v.size()) {
    std::memcpy(p_, v.data(), v.size() * sizeof(T));
  }
  ~GpuBuffer() { device_free(Device::kCuda, p_); }
  GpuBuffer(const GpuBuffer&) = delete;
  GpuBuffer& operator=(const GpuBuffer&) = delete;
  T* get() const { return p_; }
  // Waits for the GPU, then copies out.
  std::vector<T> read() const {
    device_synchronize(Device::kCuda);
    return std::vector<T>(p_, p_ + n_);
  }

 private:
  T* p_ = nullptr;
  size_t n_ = 0;
};

// Poison: NaN everywhere, so an element a kernel forgot to write fails the comparison.
inline std::vector<float> nans(size_t n) {
  return std::vector<float>(n, std::numeric_limits<float>::quiet_NaN());
}

}  // namespace scratchgpt::test
