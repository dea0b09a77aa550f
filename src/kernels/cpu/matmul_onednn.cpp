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

#include <dnnl.hpp>
#include <map>
#include <memory>
#include <mutex>
#include <tuple>
#include <vector>
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

// oneDNN's threads are OpenMP's: one per calling thread keeps a call inside its tile.
void one_openmp_thread() {
  thread_local bool single = [] {
    omp_set_num_threads(1);
    return true;
  }();
  (void)single;
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
    one_openmp_thread();
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

dnnl::engine& cpu_engine() {
  static dnnl::engine engine(dnnl::engine::kind::cpu, 0);
  return engine;
}

// The matmul primitive of one tile shape of gemm_bf16_nt: A (m, K) and B^T (n, K) bf16, C (m, n)
// fp32, all dense (oneDNN 2.6 takes its brgemm kernels only for dense operands: with rows further
// apart it falls back to its older gemm). Made once and kept; any thread runs it with its own
// stream and scratchpad (scratchpad_mode::user: the library's own is shared by all threads).
struct Bf16Tile {
  dnnl::memory::desc a, bt, c, scratch;
  dnnl::matmul prim;
};

const Bf16Tile& bf16_tile(int m, int n, int K, bool accumulate) {
  static std::mutex mu;
  static std::map<std::tuple<int, int, int, bool>, std::unique_ptr<Bf16Tile>> made;
  const std::lock_guard<std::mutex> lock(mu);
  std::unique_ptr<Bf16Tile>& tile = made[{m, n, K, accumulate}];
  if (tile) return *tile;
  using dt = dnnl::memory::data_type;
  using tag = dnnl::memory::format_tag;
  auto t = std::make_unique<Bf16Tile>();
  t->a = dnnl::memory::desc({m, K}, dt::bf16, tag::ab);
  t->bt = dnnl::memory::desc({K, n}, dt::bf16, tag::ba);  // B (K, n) stored as B^T (n, K)
  t->c = dnnl::memory::desc({m, n}, dt::f32, tag::ab);
  dnnl::primitive_attr attr;
  attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
  if (accumulate) {  // C += A B: the sum post-op adds C's old value to the finished sums
    dnnl::post_ops ops;
    ops.append_sum(1.0f);
    attr.set_post_ops(ops);
  }
  try {
    const dnnl::matmul::primitive_desc pd(dnnl::matmul::desc(t->a, t->bt, t->c), attr,
                                          cpu_engine());
    t->scratch = pd.scratchpad_desc();
    t->prim = dnnl::matmul(pd);
  } catch (const dnnl::error& e) {
    fail("oneDNN has no bf16 matmul on this CPU (", e.what(), "): run with --matmul own");
  }
  tile = std::move(t);
  return *tile;
}

}  // namespace

bool has_bf16() {
  static const bool bf16 = [] {
    try {
      bf16_tile(16, 16, 16, false);
      return true;
    } catch (const Error&) {
      return false;
    }
  }();
  return bf16;
}

bool has_amx() {
  static const bool amx = (static_cast<unsigned>(dnnl_get_effective_cpu_isa()) &
                           dnnl_cpu_isa_avx512_core_amx) == dnnl_cpu_isa_avx512_core_amx;
  return amx;
}

void gemm_bf16_nt(int M, int N, int K, const uint16_t* A, const uint16_t* BT, float* C, int64_t ldc,
                  bool accumulate, const float* bias, ThreadPool& pool) {
  if (M <= 0 || N <= 0) return;
  if (K <= 0) {  // nothing to multiply: C = bias (or 0), or unchanged
    if (!accumulate)
      for (int i = 0; i < M; ++i)
        for (int j = 0; j < N; ++j) C[i * ldc + j] = bias ? bias[j] : 0.0f;
    return;
  }
  int tm = 0, tn = 0;
  tile_sizes(M, N, tm, tn);
  const int mt = (M + tm - 1) / tm, nt = (N + tn - 1) / tn;
  // The primitives of the (at most four) tile shapes, made here: an error is thrown on the
  // calling thread, and the workers take no lock.
  const int m_last = M - (mt - 1) * tm, n_last = N - (nt - 1) * tn;
  const Bf16Tile* tiles[2][2] = {
      {&bf16_tile(tm, tn, K, accumulate), &bf16_tile(tm, n_last, K, accumulate)},
      {&bf16_tile(m_last, tn, K, accumulate), &bf16_tile(m_last, n_last, K, accumulate)}};
  pool.parallel_for(int64_t(mt) * nt, [&](int64_t b, int64_t e, int) {
    one_openmp_thread();
    thread_local dnnl::stream stream(cpu_engine());
    thread_local std::vector<uint8_t> scratch;
    thread_local std::vector<float> part;  // a tile narrower than C, dense
    for (int64_t t = b; t < e; ++t) {
      // Column blocks outermost: a thread's run of tiles reads one block of B^T.
      const int j0 = int(t / mt) * tn, i0 = int(t % mt) * tm;
      const int m = M - i0 < tm ? M - i0 : tm, n = N - j0 < tn ? N - j0 : tn;
      const bool dense = n == ldc;  // the tile's rows are whole rows of C
      float* c = C + i0 * ldc + j0;
      if (!dense) {
        if (part.size() < size_t(m) * n) part.resize(size_t(m) * n);
        if (accumulate)
          for (int i = 0; i < m; ++i)
            for (int j = 0; j < n; ++j) part[size_t(i) * n + j] = c[i * ldc + j];
      }
      const Bf16Tile& p = *tiles[i0 + tm >= M][j0 + tn >= N];
      if (scratch.size() < p.scratch.get_size()) scratch.resize(p.scratch.get_size());
      const dnnl::engine& engine = cpu_engine();
      dnnl::memory a(p.a, engine, const_cast<uint16_t*>(A + int64_t(i0) * K));
      dnnl::memory bt(p.bt, engine, const_cast<uint16_t*>(BT + int64_t(j0) * K));
      dnnl::memory out(p.c, engine, dense ? c : part.data());
      dnnl::memory pad(p.scratch, engine, scratch.data());
      p.prim.execute(stream, {{DNNL_ARG_SRC, a},
                              {DNNL_ARG_WEIGHTS, bt},
                              {DNNL_ARG_DST, out},
                              {DNNL_ARG_SCRATCHPAD, pad}});
      stream.wait();
      const float* bias_j = bias && !accumulate ? bias + j0 : nullptr;
      if (dense && bias_j) {
        for (int i = 0; i < m; ++i)
          for (int j = 0; j < n; ++j) c[i * ldc + j] = bias_j[j] + c[i * ldc + j];
      } else if (!dense) {
        for (int i = 0; i < m; ++i)
          for (int j = 0; j < n; ++j) {
            const float v = part[size_t(i) * n + j];
            c[i * ldc + j] = bias_j ? bias_j[j] + v : v;
          }
      }
    }
  });
}

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

bool has_amx() { return false; }

bool has_bf16() { return false; }

void gemm_bf16_nt(int, int, int, const uint16_t*, const uint16_t*, float*, int64_t, bool,
                  const float*, ThreadPool&) {
  fail("this build has no oneDNN: reconfigure with -DSCRATCHGPT_DNNL=ON, or use --matmul own");
}

void matmul_forward(float*, const float*, const float*, const float*, int, int, int, ThreadPool&) {
  fail("this build has no oneDNN: reconfigure with -DSCRATCHGPT_DNNL=ON, or use --matmul own");
}

void matmul_backward_data(float*, float*, const float*, const float*, const float*, int, int, int,
                          ThreadPool&, bool, bool) {
  fail("this build has no oneDNN: reconfigure with -DSCRATCHGPT_DNNL=ON, or use --matmul own");
}

#endif

}  // namespace scratchgpt::cpu::onednn
