// device.cpp: see device.h. The CUDA runtime is called only in a build with SCRATCHGPT_HAS_CUDA.
#include "core/device.h"

#include <cstdlib>
#include <cstring>
#include <sstream>

#include "core/arena.h"
#include "core/check.h"

#ifdef SCRATCHGPT_HAS_CUDA
#include <cuda_runtime.h>
#endif

namespace scratchgpt {

#ifdef SCRATCHGPT_HAS_CUDA
namespace {
void cuda_check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) fail("CUDA: ", what, " failed: ", cudaGetErrorString(e));
}
int cuda_devices() {
  int n = 0;
  if (cudaGetDeviceCount(&n) != cudaSuccess) {
    cudaGetLastError();  // clear it: no driver or no GPU
    return 0;
  }
  return n;
}
}  // namespace

bool cuda_built() { return true; }

std::string cuda_describe() {
  SG_CHECK(cuda_devices() > 0, "--device cuda: no CUDA GPU answers here (",
           "is the driver loaded? nvidia-smi says); use --device cpu");
  cudaDeviceProp prop{};
  cuda_check(cudaGetDeviceProperties(&prop, 0), "cudaGetDeviceProperties");
  int driver = 0;
  cudaDriverGetVersion(&driver);
  std::ostringstream os;
  os << prop.name << ", " << prop.multiProcessorCount << " SMs, sm_" << prop.major << prop.minor
     << ", " << static_cast<double>(prop.totalGlobalMem) / (1 << 30) << " GiB, driver "
     << driver / 1000 << "." << (driver % 1000) / 10;
  return os.str();
}

void require_device(Device device) {
  if (device == Device::kCuda) (void)cuda_describe();
}

size_t cuda_free_bytes() {
  size_t free_bytes = 0, total_bytes = 0;
  cuda_check(cudaMemGetInfo(&free_bytes, &total_bytes), "cudaMemGetInfo");
  return free_bytes;
}

void* device_alloc(Device device, size_t bytes) {
  if (bytes == 0) bytes = Arena::kAlign;
  if (device == Device::kCpu) {
    bytes = (bytes + Arena::kAlign - 1) / Arena::kAlign * Arena::kAlign;
    void* p = std::aligned_alloc(Arena::kAlign, bytes);
    if (p == nullptr) throw OutOfMemory(bytes);
    std::memset(p, 0, bytes);
    return p;
  }
  // The driver grants managed memory past what the GPU holds (its pages would then move to the
  // host and back on demand), and so much of it can stall the GPU: refused here, as cudaMalloc
  // refuses memory it does not have.
  if (bytes > cuda_free_bytes()) throw OutOfMemory(bytes);
  void* p = nullptr;
  if (cudaMallocManaged(&p, bytes) != cudaSuccess) {
    cudaGetLastError();
    throw OutOfMemory(bytes);
  }
  cuda_check(cudaMemset(p, 0, bytes), "cudaMemset");  // zeroed on the GPU: the pages start there
  cuda_check(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
  return p;
}

void device_free(Device device, void* p) {
  if (p == nullptr) return;
  if (device == Device::kCpu) return std::free(p);
  cudaDeviceSynchronize();  // nothing may still read it
  cudaFree(p);
}

void device_synchronize(Device device) {
  if (device == Device::kCpu) return;
  cuda_check(cudaDeviceSynchronize(), "a kernel");
}

void device_prefetch(Device device, const void* p, size_t bytes) {
  if (device == Device::kCpu || p == nullptr || bytes == 0) return;
  cudaMemLocation loc{};
  loc.type = cudaMemLocationTypeDevice;
  loc.id = 0;
  // A hint only: where it is refused (no concurrent managed access), pages still move on demand.
  if (cudaMemPrefetchAsync(p, bytes, loc, 0, nullptr) != cudaSuccess) cudaGetLastError();
}

void device_copy(Device device, void* dst, const void* src, size_t bytes) {
  if (bytes == 0) return;
  if (device == Device::kCpu) {
    std::memcpy(dst, src, bytes);
    return;
  }
  cuda_check(cudaMemcpy(dst, src, bytes, cudaMemcpyDefault), "cudaMemcpy");
}

#else  // no CUDA in this build

bool cuda_built() { return false; }

std::string cuda_describe() {
  fail("--device cuda: this build has no CUDA backend (nvcc was not found when it was "
       "configured): install the CUDA toolkit and rebuild with -DSCRATCHGPT_CUDA=ON, or use "
       "--device cpu");
}

void require_device(Device device) {
  if (device == Device::kCuda) (void)cuda_describe();
}

size_t cuda_free_bytes() { return 0; }

void* device_alloc(Device device, size_t bytes) {
  if (device == Device::kCuda) (void)cuda_describe();
  if (bytes == 0) bytes = Arena::kAlign;
  bytes = (bytes + Arena::kAlign - 1) / Arena::kAlign * Arena::kAlign;
  void* p = std::aligned_alloc(Arena::kAlign, bytes);
  if (p == nullptr) throw OutOfMemory(bytes);
  std::memset(p, 0, bytes);
  return p;
}

void device_free(Device, void* p) { std::free(p); }
void device_synchronize(Device) {}
void device_prefetch(Device, const void*, size_t) {}
void device_copy(Device, void* dst, const void* src, size_t bytes) {
  if (bytes > 0) std::memcpy(dst, src, bytes);
}

#endif

}  // namespace scratchgpt
