// exec.cpp: see exec.h.
#include "run/exec.h"

#include "core/check.h"
#include "kernels/kernels.h"

namespace scratchgpt {

ExecContext use_exec_context(int threads, MatmulBackend matmul) {
  SG_CHECK(threads >= 0, "--threads must be >= 0 (0: all cores), got ", threads);
  ExecContext ctx;
  ctx.threads = threads;
  ctx.matmul = matmul;
  kernels::use(ctx);
  ctx.matmul = kernels::current().matmul;  // auto resolved
  return ctx;
}

}  // namespace scratchgpt
