// exec.cpp: see exec.h.
#include "run/exec.h"

#include "core/check.h"
#include "kernels/kernels.h"

namespace scratchgpt {

ExecContext use_exec_context(int threads, MatmulBackend matmul, const std::string& simd) {
  SG_CHECK(threads >= 0, "--threads must be >= 0 (0: all cores), got ", threads);
  ExecContext ctx;
  ctx.threads = threads;
  ctx.matmul = matmul;
  if (!simd.empty()) ctx.isa = simd_level_from_name(simd);  // kernels::use caps it at the CPU's
  kernels::use(ctx);
  ctx.matmul = kernels::current().matmul;  // auto resolved
  ctx.isa = kernels::current().isa;        // capped
  return ctx;
}

}  // namespace scratchgpt
