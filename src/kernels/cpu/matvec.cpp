// matvec.cpp: dispatch of matvec_forward to the per-ISA row kernels, threaded over fixed chunks of
// output rows (see matvec.h).
#include "kernels/cpu/matvec.h"

#include <cstdint>

#include "core/check.h"
#include "core/thread_pool.h"
#include "kernels/cpu/simd/matvec_simd.h"
#include "kernels/cpu/simd/simd.h"

namespace scratchgpt::cpu {

namespace {

// Output rows per task: a multiple of every row group, so chunk edges never split a group.
constexpr int kRowsPerTask = 32;
// Below this many multiply-adds the job runs on the caller: handing it to a worker costs more.
constexpr int64_t kSerialWork = 64 * 1024;

using RowsFn = void (*)(float*, const float*, const float*, int64_t, const float*, int, int, int,
                        int, int);

RowsFn rows_fn(SimdLevel level) {
  return pick<RowsFn>(level, detail::matvec_rows_avx512, detail::matvec_rows_avx2,
                      detail::matvec_rows_scalar);
}

}  // namespace

void matvec_forward(const ExecContext& ex, float* out, const float* inp, const float* weight,
                    const float* bias, int N, int C, int OC) {
  SG_CHECK(N >= 1 && N <= 8, "matvec_forward handles 1 to 8 rows, got N=", N);
  if (OC <= 0) return;
  const RowsFn fn = rows_fn(ex.isa);
  const int64_t tasks = (OC + kRowsPerTask - 1) / kRowsPerTask;
  if (int64_t{N} * C * OC < kSerialWork || tasks == 1) {
    fn(out, inp, weight, C, bias, N, C, OC, 0, OC);
    return;
  }
  ex.workers().parallel_for(tasks, [&](int64_t b, int64_t e, int) {
    const int o0 = static_cast<int>(b) * kRowsPerTask;
    const int o1 = e * kRowsPerTask < OC ? static_cast<int>(e) * kRowsPerTask : OC;
    fn(out, inp, weight, C, bias, N, C, OC, o0, o1);
  });
}

void matvec_forward_serial(SimdLevel level, float* out, const float* inp, const float* weight,
                           int64_t ldw, const float* bias, int N, int C, int OC) {
  SG_CHECK(N >= 1 && N <= 8, "matvec_forward handles 1 to 8 rows, got N=", N);
  SG_CHECK(ldw >= C, "matvec_forward_serial: row stride ", ldw, " is below the row length ", C);
  if (OC > 0) rows_fn(level)(out, inp, weight, ldw, bias, N, C, OC, 0, OC);
}

}  // namespace scratchgpt::cpu
