// kernels.cpp: see kernels.h.
#include "kernels/kernels.h"

#include "core/thread_pool.h"
#include "kernels/cpu/matmul_backend.h"
#include "kernels/cpu/simd/simd.h"

namespace scratchgpt::kernels {

void use(const ExecContext& ctx) {
  cpu::set_matmul_backend(ctx.matmul);  // first: the only step that can fail
  ThreadPool::set_global_threads(ctx.threads);
  cpu::set_simd_level(ctx.isa);
}

ExecContext current() {
  ExecContext ctx;
  ctx.threads = ThreadPool::global().num_threads();
  ctx.isa = cpu::simd_level();
  ctx.matmul = cpu::matmul_backend();
  return ctx;
}

const char* matmul_name(MatmulBackend b) { return cpu::matmul_backend_name(b); }

bool onednn_available() { return cpu::onednn_available(); }

}  // namespace scratchgpt::kernels
