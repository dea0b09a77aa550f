// exec.cpp: see exec.h.
#include "run/exec.h"

#include <algorithm>
#include <cstdlib>
#include <string>
#include <thread>

#include "core/check.h"
#include "core/enum_names.h"
#include "core/warm_heap.h"
#include "kernels/kernels.h"

namespace scratchgpt {

bool bf16_allowed_anywhere() {
  const char* v = std::getenv("SCRATCHGPT_BF16_ANY_CPU");
  return v != nullptr && std::string(v) == "1";
}

void require_dtype(Dtype dtype, const std::string& device, MatmulBackend matmul) {
  if (dtype != Dtype::kBf16 || device == "cuda") return;  // every GPU the backend builds for has bf16
  SG_CHECK(cpu_has_avx512_bf16() || bf16_allowed_anywhere(),
           "--dtype bf16 needs a CPU with AVX512_BF16 (Zen 4 and later, Sapphire Rapids, Cooper "
           "Lake); this one has ", simd_level_name(detected_simd_level()),
           " without it: pass --dtype fp32");
  SG_CHECK(!kernels::bf16_on_onednn(kernels::resolve_matmul_backend(matmul)) ||
               kernels::onednn_has_bf16(),
           "--matmul onednn with --dtype bf16: oneDNN has no bf16 matmul on this CPU (it needs "
           "AVX-512): pass --matmul own");
}

const char* bf16_banner(const ExecContext& ctx) {
  if (ctx.dtype != Dtype::kBf16) return "";
  if (ctx.device == Device::kCuda)
    return ", bf16 products (inputs rounded to bf16 on the tensor cores, fp32 sums and weights)";
  if (kernels::bf16_on_onednn(ctx.matmul))
    return kernels::onednn_has_amx()
               ? ", bf16 products (oneDNN's bf16 matmul on AMX tiles, sums in fp32; fp32 weights)"
               : ", bf16 products (oneDNN's bf16 matmul, sums in fp32; fp32 weights)";
  if (ctx.isa == SimdLevel::kAvx512 && cpu_has_avx512_bf16())
    return ", bf16 products (vdpbf16ps: bf16 pairs summed in fp32; fp32 weights)";
  return ", bf16 products (vdpbf16ps's sums without the instruction: bf16's numbers, slower than "
         "fp32)";
}

Exec make_exec(int threads, MatmulBackend matmul, const std::string& simd,
               const std::string& device, Dtype dtype) {
  SG_CHECK(threads >= 0, "--threads must be >= 0 (0 means all cores), got ", threads);
  // More threads than cores only slow the kernels down; thousands would exhaust the process.
  const int cores = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  const int most = std::max(8, 4 * cores);
  SG_CHECK(threads <= most, "--threads ", threads, " is more than ", most, " (4 x the ", cores,
           " cores here): pass --threads ", cores, ", or 0 for all cores");
  require_dtype(dtype, device, matmul);
  Exec exec;
  if (!device.empty())
    exec.ctx.device = enum_from_name<Device>(kDeviceNames, device, "--device");
  require_device(exec.ctx.device);
  // On the GPU the stored kernel (cuBLAS) measured faster at T = 1024 (GPT-2, B = 16, H100:
  // 126.6 against 177 ms a step, BENCHMARKS.md); the fused one keeps no (B, NH, T, T) weights,
  // which from T = 2048 take 16 MiB per batch row, head and layer.
  if (exec.ctx.device == Device::kCuda) exec.ctx.fused_attention_min_T = 2048;
  exec.ctx.dtype = dtype;
  exec.ctx.matmul = kernels::resolve_matmul_backend(matmul);  // first: it can fail
  if (!simd.empty()) exec.ctx.isa = cap_simd_level(simd_level_from_name(simd));
  exec.pool = std::make_unique<ThreadPool>(threads);
  exec.ctx.pool = exec.pool.get();
  // oneDNN's sgemm (backends onednn and mixed) mallocs its packing buffers on every call: a warm
  // heap per thread (kWarmHeapBytes) holds them, so steps after the first fault in
  // no pages (bench prints the count).
  if (exec.ctx.matmul != MatmulBackend::kOwn) warm_heap(*exec.pool);
  return exec;
}

kernels::WeightFormat weight_format(const std::string& name) {
  if (name.empty()) return kernels::WeightFormat::kFp32;
  return enum_from_name<kernels::WeightFormat>(kernels::kWeightFormatNames, name, "--weights");
}

}  // namespace scratchgpt
