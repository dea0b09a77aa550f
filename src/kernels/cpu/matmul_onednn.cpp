// matmul_onednn.cpp: the library backend of cpu::matmul (matmul_backend.h): the same three
// products through oneDNN's dnnl_sgemm, compiled in only with -DSCRATCHGPT_DNNL=ON.
// Threads: C is cut into tiles whose sizes depend on the shape only, each tile is one
// single-threaded dnnl_sgemm call over the whole K, and our ThreadPool hands tiles to workers;
// so 1 and N threads give bitwise-identical results, and oneDNN's OpenMP threads never compete
// with ours. Leaves out: bias (added by the caller's code), the bias gradient (ours).
#include "kernels/cpu/matmul_onednn.h"

#include <cstdint>

#include "core/check.h"
#include "core/thread_pool.h"

#ifdef SCRATCHGPT_HAVE_DNNL
#include <dnnl.h>
#include <omp.h>
#endif

namespace scratchgpt::cpu::onednn {

#ifdef SCRATCHGPT_HAVE_DNNL

bool available() { return true; }

bool below_avx512() {
  // The ISA values are bit sets: avx512_core's bits are in every AVX-512 level, not in avx2_vnni.
  static const bool below = (static_cast<unsigned>(dnnl_get_effective_cpu_isa()) &
                             dnnl_cpu_isa_avx512_core) != dnnl_cpu_isa_avx512_core;
  return below;
}

namespace {

// Tile sizes for C (M, N): start from at most 256 x 1024 and halve a side (the wider one,
// counting a row as worth 4 columns) until there are at least 8 tiles, enough for the threads to
// share evenly, or the tiles reach 32 x 64. A function of the shape only, never of the threads.
void tile_sizes(int M, int N, int& tm, int& tn) {
  tm = M < 256 ? M : 256;
  tn = N < 1024 ? N : 1024;
  auto tiles = [&] { return int64_t((M + tm - 1) / tm) * ((N + tn - 1) / tn); };
  while (tiles() < 8) {
    if (tn > 64 && (tn >= 4 * tm || tm <= 32))
      tn = (tn + 1) / 2;
    else if (tm > 32)
      tm = (tm + 1) / 2;
    else
      break;
  }
}

// C (M, N) = beta * C + op(A) op(B), row-major, where op(A) is (M, K) and op(B) is (K, N);
// trans_a: A is stored (K, M); trans_b: B is stored (N, K). Tiles of C run in parallel.
void sgemm_tiled(bool trans_a, bool trans_b, int M, int N, int K, const float* A, int64_t lda,
                 const float* B, int64_t ldb, float beta, float* C, int64_t ldc, ThreadPool& pool) {
  if (M <= 0 || N <= 0) return;
  int tm = 0, tn = 0;
  tile_sizes(M, N, tm, tn);
  const int mt = (M + tm - 1) / tm, nt = (N + tn - 1) / tn;
  pool.parallel_for(int64_t(mt) * nt, [&](int64_t b, int64_t e, int) {
    // oneDNN threads with OpenMP; one OpenMP thread per calling thread keeps it inside the tile.
    thread_local bool single = [] {
      omp_set_num_threads(1);
      return true;
    }();
    (void)single;
    for (int64_t t = b; t < e; ++t) {
      const int i0 = int(t / nt) * tm, j0 = int(t % nt) * tn;
      const int m = M - i0 < tm ? M - i0 : tm, n = N - j0 < tn ? N - j0 : tn;
      const float* a = A + (trans_a ? i0 : i0 * lda);
      const float* bb = B + (trans_b ? j0 * ldb : j0);
      const dnnl_status_t st =
          dnnl_sgemm(trans_a ? 'T' : 'N', trans_b ? 'T' : 'N', m, n, K, 1.0f, a, lda, bb, ldb,
                     beta, C + i0 * ldc + j0, ldc);
      SG_CHECK(st == dnnl_success, "oneDNN sgemm failed (status ", int(st), ") on a ", m, "x", n,
               "x", K, " product; run with --matmul own");
    }
  });
}

}  // namespace

void matmul_forward(float* out, const float* inp, const float* weight, const float* bias, int N,
                    int C, int OC, ThreadPool& pool) {
  // out (N, OC) = inp (N, C) @ weight (OC, C)^T
  sgemm_tiled(false, true, N, OC, C, inp, C, weight, C, 0.0f, out, OC, pool);
  if (bias) {
    pool.parallel_for(N, [&](int64_t b, int64_t e, int) {
      for (int64_t n = b; n < e; ++n) {
        float* o = out + n * OC;  // (OC)
        for (int j = 0; j < OC; ++j) o[j] = bias[j] + o[j];
      }
    });
  }
}

void matmul_backward_data(float* dinp, float* dweight, const float* dout, const float* inp,
                          const float* weight, int N, int C, int OC, ThreadPool& pool,
                          bool accumulate_dinp, bool accumulate_dweight) {
  // dinp (N, C) += dout (N, OC) @ weight (OC, C); beta 0 writes it without reading it
  if (dinp)
    sgemm_tiled(false, false, N, C, OC, dout, OC, weight, C, accumulate_dinp ? 1.0f : 0.0f, dinp,
                C, pool);
  // dweight (OC, C) += dout^T (OC, N) @ inp (N, C); beta 0 writes it
  if (dweight)
    sgemm_tiled(true, false, OC, C, N, dout, OC, inp, C, accumulate_dweight ? 1.0f : 0.0f, dweight,
                C, pool);
}

#else  // built without oneDNN

bool available() { return false; }

bool below_avx512() { return false; }

void matmul_forward(float*, const float*, const float*, const float*, int, int, int, ThreadPool&) {
  fail("this build has no oneDNN: reconfigure with -DSCRATCHGPT_DNNL=ON, or use --matmul own");
}

void matmul_backward_data(float*, float*, const float*, const float*, const float*, int, int, int,
                          ThreadPool&, bool, bool) {
  fail("this build has no oneDNN: reconfigure with -DSCRATCHGPT_DNNL=ON, or use --matmul own");
}

#endif

}  // namespace scratchgpt::cpu::onednn
