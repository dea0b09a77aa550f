// device.h: where the engine computes and keeps its slabs: this CPU, or the CUDA GPU (--device).
// On cuda every slab (parameters, gradients, moments, activations, the KV cache) is CUDA managed
// memory: the GPU's kernels read it in place; init and checkpoints read and write it from the host
// after device_synchronize(), and a step's few host values (token ids in, losses and the sampler's
// logits out) go through device_copy, so no page moves in a step. Leaves out: several GPUs,
// streams other than the default one.
#pragma once

#include <cstddef>
#include <string>
#include <utility>

namespace scratchgpt {

enum class Device { kCpu, kCuda };
inline constexpr std::pair<Device, const char*> kDeviceNames[] = {{Device::kCpu, "cpu"},
                                                                  {Device::kCuda, "cuda"}};

// Whether this build has the CUDA backend (CMake's SCRATCHGPT_CUDA found nvcc).
bool cuda_built();
// A line naming the GPU ("NVIDIA H200, 132 SMs, 139.8 GiB, driver 13.0"); an Error naming the
// fix when the build has no CUDA or no GPU answers.
std::string cuda_describe();
// An Error naming the fix unless `device` can run here (cpu always can).
void require_device(Device device);

// The bytes the GPU has free now (0 in a build without CUDA).
size_t cuda_free_bytes();

// bytes of zeroed memory that both the host and `device` can read: malloc'ed for cpu (aligned
// to 64), managed memory for cuda. Throws OutOfMemory when refused, and on cuda for more than
// cuda_free_bytes() (managed memory past the GPU's would be granted and then stall it).
void* device_alloc(Device device, size_t bytes);
void device_free(Device device, void* p);
// Waits until every kernel launched for `device` has finished (no-op on cpu); an Error if one
// failed.
void device_synchronize(Device device);
// Hints that [p, p + bytes) is used by the GPU next (after the host wrote it: init, a checkpoint
// load), so its pages move now rather than one fault at a time. No-op on cpu.
void device_prefetch(Device device, const void* p, size_t bytes);
// Copies bytes between host memory and a slab (either way) without the host touching the slab's
// pages: on cuda through the copy engine, after the kernels already launched (a step's token ids
// in, its losses out; a managed page the host touches would move to the host and fault back).
void device_copy(Device device, void* dst, const void* src, size_t bytes);

}  // namespace scratchgpt
