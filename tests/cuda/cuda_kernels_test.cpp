// cuda_kernels_test.cpp: every cuda:: kernel against its readable ref:: twin (kernels/ref/),
// computed in double on the same float inputs, at shapes that are not multiples of the kernels'
// block sizes; outputs poisoned with NaN first, so an unwritten element fails. Where the CUDA
// kernel sums in the reference's own order (the embedding gradients, AdamW) the float reference
// must match bit for bit. And: the same call twice gives the same bits (no atomics in sums).
// Skips, saying why, without a GPU or in a build without CUDA (but the two CublasLoader tests,
// which need the CUDA build only).
#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <cstdint>
#include <limits>
#include <tuple>
#include <vector>

#ifdef SCRATCHGPT_HAS_CUDA
#include <cublasLt.h>
#endif

#include <cstdio>
#include <fstream>
#include <sstream>

#include "cuda/cuda_test_util.h"
#include "kernels/kernels.h"
#include "kernels/ref/adamw.h"
#include "kernels/ref/attention.h"
#include "kernels/ref/bf16.h"
#include "kernels/ref/crossentropy.h"
#include "kernels/ref/dropout.h"
#include "kernels/ref/encoder.h"
#include "kernels/ref/fill.h"
#include "kernels/ref/gelu.h"
#include "kernels/ref/global_norm.h"
#include "kernels/ref/layernorm.h"
#include "kernels/ref/matmul.h"
#include "kernels/ref/relu.h"
#include "test_util.h"

namespace scratchgpt {
namespace {

using test::cuda_ctx;
using test::GpuBuffer;
using test::nans;
using test::random_vector;

std::vector<double> widen(const std::vector<float>& v) { return {v.begin(), v.end()}; }

// |got - want| / |want| over the whole array (the 2-norms), and no NaN.
void expect_rel(const std::vector<float>& got, const std::vector<double>& want, double tol,
                const std::string& what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  double num = 0, den = 0;
  for (size_t i = 0; i < got.size(); ++i) {
    ASSERT_FALSE(std::isnan(got[i])) << what << ": element " << i << " is NaN (not written?)";
    num += (got[i] - want[i]) * (got[i] - want[i]);
    den += want[i] * want[i];
  }
  EXPECT_LE(std::sqrt(num / std::max(den, 1e-300)), tol) << what;
}

TEST(CudaKernels, EncoderForwardAndBackwardSumInTheReferenceOrder) {
  SKIP_WITHOUT_GPU();
  const int B = 3, T = 37, C = 70, V = 11;  // few tokens: many repeats per row of wte
  std::vector<int32_t> ids(B * T);
  for (size_t i = 0; i < ids.size(); ++i) ids[i] = static_cast<int32_t>((i * 7 + i / 5) % V);
  const auto wte = random_vector<float>(V * C, 1), wpe = random_vector<float>(T * C, 2);
  const auto dout = random_vector<float>(B * T * C, 3);
  auto dwte = random_vector<float>(V * C, 4), dwpe = random_vector<float>(T * C, 5);
  GpuBuffer<int32_t> g_ids(ids);
  GpuBuffer<float> g_wte(wte), g_wpe(wpe), g_out(nans(B * T * C)), g_dout(dout), g_dwte(dwte),
      g_dwpe(dwpe);
  const ExecContext ex = cuda_ctx();
  kernels::encoder_forward(ex, g_out.get(), g_ids.get(), g_wte.get(), g_wpe.get(), B, T, C);
  kernels::encoder_backward(ex, g_dwte.get(), g_dwpe.get(), g_dout.get(), g_ids.get(), B, T, C);
  std::vector<float> out(B * T * C);
  ref::encoder_forward(out.data(), ids.data(), wte.data(), wpe.data(), B, T, C);
  ref::encoder_backward(dwte.data(), dwpe.data(), dout.data(), ids.data(), B, T, C);
  EXPECT_EQ(g_out.read(), out);
  EXPECT_EQ(g_dwte.read(), dwte) << "dwte: not summed in (b, t) order";
  EXPECT_EQ(g_dwpe.read(), dwpe) << "dwpe: not summed in b order";
}

TEST(CudaKernels, LayerNormMatchesTheReference) {
  SKIP_WITHOUT_GPU();
  const int N = 301, C = 77;
  for (bool bias : {true, false}) {
    const auto x = random_vector<float>(N * C, 10, -2, 3), w = random_vector<float>(C, 11);
    const auto b = random_vector<float>(C, 12), dout = random_vector<float>(N * C, 13);
    const auto dx0 = random_vector<float>(N * C, 14), dw0 = random_vector<float>(C, 15);
    const auto db0 = random_vector<float>(C, 16);
    GpuBuffer<float> gx(x), gw(w), gb(b), gout(nans(N * C)), gmean(nans(N)), grstd(nans(N)),
        gdout(dout), gdx(dx0), gdw(dw0), gdb(db0);
    const ExecContext ex = cuda_ctx();
    kernels::layernorm_forward(ex, gout.get(), gmean.get(), grstd.get(), gx.get(), gw.get(),
                               bias ? gb.get() : nullptr, N, C);
    kernels::layernorm_backward(ex, gdx.get(), gdw.get(), bias ? gdb.get() : nullptr, gdout.get(),
                                gx.get(), gw.get(), gmean.get(), grstd.get(), N, C);
    auto dx = widen(dx0), dw = widen(dw0), db = widen(db0), xd = widen(x), wd = widen(w),
         bd = widen(b), doutd = widen(dout);
    std::vector<double> out(N * C), mean(N), rstd(N);
    ref::layernorm_forward(out.data(), mean.data(), rstd.data(), xd.data(), wd.data(),
                           bias ? bd.data() : nullptr, N, C);
    ref::layernorm_backward(dx.data(), dw.data(), bias ? db.data() : nullptr, doutd.data(),
                            xd.data(), wd.data(), mean.data(), rstd.data(), N, C);
    const std::string tag = bias ? " (bias)" : " (no bias)";
    expect_rel(gout.read(), out, 1e-6, "out" + tag);
    expect_rel(gmean.read(), mean, 1e-6, "mean" + tag);
    expect_rel(grstd.read(), rstd, 1e-6, "rstd" + tag);
    expect_rel(gdx.read(), dx, 1e-5, "dinp" + tag);
    expect_rel(gdw.read(), dw, 1e-5, "dweight" + tag);
    if (bias) expect_rel(gdb.read(), db, 1e-5, "dbias" + tag);
    if (!bias) {
      EXPECT_EQ(gdb.read(), db0) << "a bias-free LayerNorm must not touch dbias";
    }
  }
}

TEST(CudaKernels, MatmulMatchesTheReferenceInFp32AndTf32) {
  SKIP_WITHOUT_GPU();
  const int N = 133, C = 70, OC = 91;
  const auto x = random_vector<float>(N * C, 20), w = random_vector<float>(OC * C, 21);
  const auto b = random_vector<float>(OC, 22), dout = random_vector<float>(N * OC, 23);
  const auto dx0 = random_vector<float>(N * C, 24), dw0 = random_vector<float>(OC * C, 25);
  const auto db0 = random_vector<float>(OC, 26);
  for (bool tf32 : {false, true}) {
    for (bool accumulate : {true, false}) {
      const double tol = tf32 ? 3e-3 : 1e-6;  // TF32 keeps 10 mantissa bits of each input
      GpuBuffer<float> gx(x), gw(w), gb(b), gout(nans(N * OC)), gdout(dout), gdw(dw0), gdb(db0);
      GpuBuffer<float> gdx(accumulate ? dx0 : nans(N * C));
      const ExecContext ex = cuda_ctx(tf32);
      kernels::matmul_forward(ex, gout.get(), gx.get(), gw.get(), gb.get(), N, C, OC);
      kernels::matmul_backward(ex, gdx.get(), gdw.get(), gdb.get(), gdout.get(), gx.get(), gw.get(),
                               N, C, OC, accumulate, accumulate);
      auto dx = widen(dx0), dw = widen(dw0), db = widen(db0);
      const auto xd = widen(x), wd = widen(w), bd = widen(b), doutd = widen(dout);
      std::vector<double> out(N * OC);
      ref::matmul_forward(out.data(), xd.data(), wd.data(), bd.data(), N, C, OC);
      ref::matmul_backward(dx.data(), dw.data(), db.data(), doutd.data(), xd.data(), wd.data(), N,
                           C, OC, accumulate, accumulate);
      const std::string tag =
          std::string(tf32 ? " tf32" : " fp32") + (accumulate ? " accumulate" : " write");
      expect_rel(gout.read(), out, tol, "out" + tag);
      expect_rel(gdx.read(), dx, tol, "dinp" + tag);
      expect_rel(gdw.read(), dw, tol, "dweight" + tag);
      expect_rel(gdb.read(), db, 1e-6, "dbias" + tag);
    }
  }
}

TEST(CudaKernels, CausalAttentionMatchesTheReference) {
  SKIP_WITHOUT_GPU();
  // T = 600: three of the kernel's blocks of 256 rows, the last one short.
  for (const auto& [B, T, C, NH] : std::vector<std::array<int, 4>>{
           {2, 37, 48, 4}, {1, 130, 64, 2}, {3, 64, 96, 3}, {1, 600, 32, 2}}) {
    const auto qkv = random_vector<float>(int64_t{B} * T * 3 * C, 30 + T, -2, 2);
    const auto dout = random_vector<float>(int64_t{B} * T * C, 31 + T);
    GpuBuffer<float> gqkv(qkv), gout(nans(size_t(B) * T * C)), gatt(nans(size_t(B) * NH * T * T)),
        gdout(dout), gdqkv(nans(size_t(B) * T * 3 * C));
    const ExecContext ex = cuda_ctx();
    kernels::attention_forward(ex, gout.get(), nullptr, gatt.get(), gqkv.get(), nullptr, B, T, C,
                               NH);
    kernels::attention_backward(ex, gdqkv.get(), nullptr, nullptr, gdout.get(), gqkv.get(),
                                gatt.get(), nullptr, B, T, C, NH);
    const auto qkvd = widen(qkv), doutd = widen(dout);
    std::vector<double> out(size_t(B) * T * C), pre(size_t(B) * NH * T * T), att(pre.size()),
        datt(pre.size()), dpre(pre.size()), dqkv(qkv.size());
    ref::attention_forward(out.data(), pre.data(), att.data(), qkvd.data(), (const double*)nullptr,
                           B, T, C, NH);
    ref::attention_backward(dqkv.data(), dpre.data(), datt.data(), doutd.data(), qkvd.data(),
                            att.data(), (const double*)nullptr, B, T, C, NH);
    const std::string tag = " T=" + std::to_string(T);
    expect_rel(gout.read(), out, 1e-5, "out" + tag);
    expect_rel(gatt.read(), att, 1e-5, "att" + tag);
    expect_rel(gdqkv.read(), dqkv, 1e-5, "dqkv" + tag);
  }
}

// The fused kernel rounds the products' inputs to TF32: about 1e-3 of the reference.
TEST(CudaKernels, FlashAttentionMatchesTheReferenceAtEveryHeadSize) {
  SKIP_WITHOUT_GPU();
  // (B, T, C, NH): heads of 64 (GPT-2), 12 and 32 (padded inside the tiles), 128; T not a
  // multiple of the 64-row tiles, and T below one tile.
  for (const auto& [B, T, C, NH] : std::vector<std::array<int, 4>>{
           {2, 100, 128, 2}, {1, 130, 48, 4}, {2, 70, 96, 3}, {1, 65, 256, 2}, {3, 9, 64, 1}}) {
    const auto qkv = random_vector<float>(int64_t{B} * T * 3 * C, 80 + T, -2, 2);
    const auto dout = random_vector<float>(int64_t{B} * T * C, 81 + T);
    GpuBuffer<float> gqkv(qkv), gout(nans(size_t(B) * T * C)), glse(nans(size_t(B) * NH * T)),
        gdout(dout), gdqkv(nans(size_t(B) * T * 3 * C));
    const ExecContext ex = cuda_ctx(true);
    kernels::flash_attention_forward(ex, gout.get(), glse.get(), gqkv.get(), B, T, C, NH);
    kernels::flash_attention_backward(ex, gdqkv.get(), gdout.get(), gout.get(), glse.get(),
                                      gqkv.get(), B, T, C, NH);
    const auto qkvd = widen(qkv), doutd = widen(dout);
    std::vector<double> out(size_t(B) * T * C), pre(size_t(B) * NH * T * T), att(pre.size()),
        datt(pre.size()), dpre(pre.size()), dqkv(qkv.size()), lse(size_t(B) * NH * T);
    ref::attention_forward(out.data(), pre.data(), att.data(), qkvd.data(), (const double*)nullptr,
                           B, T, C, NH);
    ref::attention_backward(dqkv.data(), dpre.data(), datt.data(), doutd.data(), qkvd.data(),
                            att.data(), (const double*)nullptr, B, T, C, NH);
    for (size_t row = 0; row < lse.size(); ++row) {  // log sum_s exp(scaled score), s <= t
      const int t = static_cast<int>(row % T);
      double mx = -1e300, sum = 0;
      for (int s = 0; s <= t; ++s) mx = std::max(mx, pre[row * T + s]);
      for (int s = 0; s <= t; ++s) sum += std::exp(pre[row * T + s] - mx);
      lse[row] = mx + std::log(sum);
    }
    const std::string tag =
        " B=" + std::to_string(B) + " T=" + std::to_string(T) + " HS=" + std::to_string(C / NH);
    expect_rel(gout.read(), out, 3e-3, "out" + tag);
    expect_rel(glse.read(), lse, 1e-3, "lse" + tag);
    expect_rel(gdqkv.read(), dqkv, 5e-3, "dqkv" + tag);
    // no atomics: the same bits again
    const auto first = gdqkv.read();
    kernels::flash_attention_backward(ex, gdqkv.get(), gdout.get(), gout.get(), glse.get(),
                                      gqkv.get(), B, T, C, NH);
    EXPECT_TRUE(gdqkv.read() == first) << "dqkv changed between two calls" << tag;
  }
}

// Decoding: one query against the cache is the last row of the whole sequence's attention.
TEST(CudaKernels, AttentionDecodeIsTheLastRowOfTheReference) {
  SKIP_WITHOUT_GPU();
  for (const auto& [T, C, NH] :
       std::vector<std::array<int, 3>>{{1, 64, 4}, {37, 96, 2}, {300, 768, 12}}) {
    const auto qkv = random_vector<float>(int64_t{T} * 3 * C, 90 + T, -2, 2);
    std::vector<float> k(size_t(T) * C), v(size_t(T) * C);
    for (int t = 0; t < T; ++t)
      for (int c = 0; c < C; ++c) {
        k[size_t(t) * C + c] = qkv[size_t(t) * 3 * C + C + c];
        v[size_t(t) * C + c] = qkv[size_t(t) * 3 * C + 2 * C + c];
      }
    const std::vector<float> q(qkv.end() - 3 * C, qkv.end() - 2 * C);
    GpuBuffer<float> gq(q), gk(k), gv(v), gout(nans(C)),
        gscratch(size_t(kernels::attention_decode_scratch_floats(T, C, NH)));
    kernels::attention_decode_forward(cuda_ctx(), gout.get(), gq.get(), gk.get(), gv.get(), T, C,
                                      NH, gscratch.get());
    const auto qkvd = widen(qkv);
    std::vector<double> out(size_t(T) * C), pre(size_t(NH) * T * T), att(pre.size());
    ref::attention_forward(out.data(), pre.data(), att.data(), qkvd.data(), (const double*)nullptr,
                           1, T, C, NH);
    const std::vector<double> last(out.end() - C, out.end());
    expect_rel(gout.read(), last, 1e-5, "decode T=" + std::to_string(T));
  }
}

TEST(CudaKernels, CrossEntropyMatchesTheReference) {
  SKIP_WITHOUT_GPU();
  const int N = 77;
  for (const int V : {1003, 4096}) {  // scalar rows, and float4 rows (V % 4 == 0)
    const auto logits = random_vector<float>(N * V, 40, -8, 8);
    std::vector<int32_t> targets(N);
    for (int n = 0; n < N; ++n) targets[n] = (n * 131) % V;
    std::vector<float> dl(N, 1.0f / N);
    GpuBuffer<float> glog(logits), glosses(nans(N)), gprobs(nans(N * V)), gdl(dl),
        gdlog(nans(N * V));
    GpuBuffer<int32_t> gt(targets);
    const ExecContext ex = cuda_ctx();
    kernels::crossentropy_forward(ex, glosses.get(), gprobs.get(), glog.get(), gt.get(), N, V);
    kernels::crossentropy_backward(ex, gdlog.get(), gprobs.get(), gt.get(), gdl.get(), N, V);
    const auto ld = widen(logits), dld = widen(dl);
    std::vector<double> losses(N), probs(N * V), dlog(N * V);
    ref::crossentropy_forward(losses.data(), probs.data(), ld.data(), targets.data(), N, V);
    ref::crossentropy_backward(dlog.data(), probs.data(), targets.data(), dld.data(), N, V);
    const std::string at = " V=" + std::to_string(V);
    expect_rel(glosses.read(), losses, 1e-6, "losses" + at);
    expect_rel(gprobs.read(), probs, 1e-5, "probs" + at);
    expect_rel(gdlog.read(), dlog, 1e-5, "dlogits" + at);
  }
}

TEST(CudaKernels, ElementwiseOpsMatchTheReference) {
  SKIP_WITHOUT_GPU();
  const int64_t n = 100003;
  const auto x = random_vector<float>(n, 50, -5, 5), y = random_vector<float>(n, 51);
  const auto xd = widen(x), yd = widen(y);
  const ExecContext ex = cuda_ctx();
  GpuBuffer<float> gx(x), gy(y), gout(nans(n));
  std::vector<double> want(n);
  auto check = [&](const char* what, double tol) { expect_rel(gout.read(), want, tol, what); };
  kernels::gelu_forward(ex, gout.get(), gx.get(), n);
  ref::gelu_forward(want.data(), xd.data(), n);
  check("gelu_forward", 1e-6);
  kernels::gelu_backward(ex, gout.get(), gx.get(), gy.get(), n);
  ref::gelu_backward(want.data(), xd.data(), yd.data(), n);
  check("gelu_backward", 1e-6);
  kernels::gelu_exact_forward(ex, gout.get(), gx.get(), n);
  ref::gelu_exact_forward(want.data(), xd.data(), n);
  check("gelu_exact_forward", 1e-6);
  kernels::gelu_exact_backward(ex, gout.get(), gx.get(), gy.get(), n);
  ref::gelu_exact_backward(want.data(), xd.data(), yd.data(), n);
  check("gelu_exact_backward", 1e-6);
  kernels::relu_forward(ex, gout.get(), gx.get(), n);
  ref::relu_forward(want.data(), xd.data(), n);
  check("relu_forward", 0);
  kernels::relu_backward(ex, gout.get(), gx.get(), gy.get(), n);
  ref::relu_backward(want.data(), xd.data(), yd.data(), n);
  check("relu_backward", 0);
  kernels::residual_forward(ex, gout.get(), gx.get(), gy.get(), n);
  for (int64_t i = 0; i < n; ++i) want[i] = float(x[i] + y[i]);
  check("residual_forward", 0);
  kernels::copy(ex, gout.get(), gy.get(), n);
  EXPECT_EQ(gout.read(), y) << "copy";
  kernels::zero(ex, gout.get(), n);
  EXPECT_EQ(gout.read(), std::vector<float>(n, 0.0f)) << "zero";
  kernels::fill(ex, gout.get(), n, -1.25f);
  EXPECT_EQ(gout.read(), std::vector<float>(n, -1.25f)) << "fill";
  {
    GpuBuffer<float> gs(y);
    kernels::scale(ex, gs.get(), n, 0.37f);
    std::vector<float> s = y;
    ref::scale(s.data(), n, 0.37f);
    EXPECT_EQ(gs.read(), s) << "scale";
  }
  // dropout: the keep mask is drawn by the caller; the kernel scales it and applies it
  std::vector<float> keep(n);
  for (int64_t i = 0; i < n; ++i) keep[i] = (i * 2654435761u) % 10 < 8 ? 1.0f : 0.0f;
  GpuBuffer<float> gmask(keep), gd(y);
  kernels::dropout_forward(ex, gout.get(), gmask.get(), gx.get(), n, 0.2f);
  kernels::dropout_backward(ex, gd.get(), gy.get(), gmask.get(), n, true);
  std::vector<float> mask = keep, out(n), d = y;
  ref::dropout_forward(out.data(), mask.data(), x.data(), n, 0.2f);
  ref::dropout_backward(d.data(), y.data(), mask.data(), n, true);
  EXPECT_EQ(gout.read(), out) << "dropout_forward";
  EXPECT_EQ(gmask.read(), mask) << "dropout mask";
  EXPECT_EQ(gd.read(), d) << "dropout_backward";
}

TEST(CudaKernels, AdamWMatchesTheReferenceBitForBitAndTheNormInDouble) {
  SKIP_WITHOUT_GPU();
  const int64_t n = 70001;
  auto p = random_vector<float>(n, 60), g = random_vector<float>(n, 61);
  auto m = random_vector<float>(n, 62, -0.1, 0.1), v = random_vector<float>(n, 63, 0, 0.01);
  GpuBuffer<float> gp(p), gg(g), gm(m), gv(v);
  const ExecContext ex = cuda_ctx();
  for (int t = 1; t <= 3; ++t) {
    kernels::adamw_update(ex, gp.get(), gg.get(), gm.get(), gv.get(), n, 1e-3f, 0.9f, 0.95f, 1e-8f,
                          0.1f, t, 0.5f);
    ref::adamw_update(p.data(), g.data(), m.data(), v.data(), n, 1e-3f, 0.9f, 0.95f, 1e-8f, 0.1f, t,
                      0.5f);
  }
  EXPECT_EQ(gm.read(), m) << "m";
  EXPECT_EQ(gv.read(), v) << "v";
  // param: the reference's float ops in its order; sqrt and division are correctly rounded on
  // both sides, so the bits agree
  EXPECT_EQ(gp.read(), p) << "param";

  // adamw_update_all: every array in one launch, each with its own weight decay
  auto p2 = random_vector<float>(333, 66), g2 = random_vector<float>(333, 67);
  auto m2 = random_vector<float>(333, 68, -0.1, 0.1), v2 = random_vector<float>(333, 69, 0, 0.01);
  GpuBuffer<float> gp2(p2), gg2(g2), gm2(m2), gv2(v2);
  const kernels::AdamWArray arrays[] = {{gp.get(), gg.get(), gm.get(), gv.get(), n, 0.1f},
                                        {gp2.get(), gg2.get(), gm2.get(), gv2.get(), 333, 0.0f}};
  kernels::adamw_update_all(ex, 2, arrays, 3e-4f, 0.9f, 0.95f, 1e-8f, 4, 0.7f);
  ref::adamw_update(p.data(), g.data(), m.data(), v.data(), n, 3e-4f, 0.9f, 0.95f, 1e-8f, 0.1f, 4,
                    0.7f);
  ref::adamw_update(p2.data(), g2.data(), m2.data(), v2.data(), 333, 3e-4f, 0.9f, 0.95f, 1e-8f,
                    0.0f, 4, 0.7f);
  EXPECT_EQ(gp.read(), p) << "adamw_update_all, array 0";
  EXPECT_EQ(gp2.read(), p2) << "adamw_update_all, array 1";
  EXPECT_EQ(gv2.read(), v2) << "adamw_update_all, array 1's v";

  const auto a = random_vector<float>(200000, 64), b = random_vector<float>(3, 65);
  GpuBuffer<float> ga(a), gb(b);
  const float* xs[] = {ga.get(), gb.get()};
  const float* hs[] = {a.data(), b.data()};
  const int64_t ns[] = {200000, 3};
  const double got = kernels::global_norm(ex, 2, xs, ns);
  EXPECT_NEAR(got, ref::global_norm(2, hs, ns), 1e-12 * got);
  EXPECT_EQ(got, kernels::global_norm(ex, 2, xs, ns)) << "the norm changed between two calls";
}

// --dtype bf16: both inputs of each product rounded to bf16 (nearest even), the sums fp32 on the
// tensor cores. Against the twin (ref::matmul_*_bf16: the same rounded inputs, double sums) only
// the order of the sums differs; TF32 or unrounded fp32 would be ~1e-3 off it. Against the exact
// product of the unrounded inputs, each element within the error bound of rounding both factors,
// |ab - bf16(a) bf16(b)| <= (2^-8 + 2^-18) |ab|, plus fp32's sums of K terms, K 2^-23 sum |ab|.
TEST(CudaKernels, MatmulInBf16MatchesItsTwinAndTheRoundingBound) {
  SKIP_WITHOUT_GPU();
  const int N = 133, C = 70, OC = 91;
  const auto x = random_vector<float>(N * C, 120), w = random_vector<float>(OC * C, 121);
  const auto b = random_vector<float>(OC, 122), dout = random_vector<float>(N * OC, 123);
  const auto dx0 = random_vector<float>(N * C, 124), dw0 = random_vector<float>(OC * C, 125);
  const auto db0 = random_vector<float>(OC, 126);
  auto abs_of = [](std::vector<double> v) {
    for (double& e : v) e = std::abs(e);
    return v;
  };
  const auto xd = widen(x), wd = widen(w), bd = widen(b), doutd = widen(dout);
  // sum |a||b| of each element: the bound's scale.
  std::vector<double> out_abs(N * OC), dx_abs(N * C, 0.0), dw_abs(OC * C, 0.0), db_abs(OC, 0.0);
  ref::matmul_forward(out_abs.data(), abs_of(xd).data(), abs_of(wd).data(), (const double*)nullptr,
                      N, C, OC);
  ref::matmul_backward(dx_abs.data(), dw_abs.data(), db_abs.data(), abs_of(doutd).data(),
                       abs_of(xd).data(), abs_of(wd).data(), N, C, OC, false, false);
  for (bool accumulate : {true, false}) {
    ExecContext ex = cuda_ctx(/*tf32=*/true);  // bf16 must win over TF32
    ex.dtype = Dtype::kBf16;
    GpuBuffer<float> gx(x), gw(w), gb(b), gout(nans(N * OC)), gdout(dout), gdw(dw0), gdb(db0);
    GpuBuffer<float> gdx(accumulate ? dx0 : nans(N * C));
    kernels::matmul_forward(ex, gout.get(), gx.get(), gw.get(), gb.get(), N, C, OC);
    kernels::matmul_backward(ex, gdx.get(), gdw.get(), gdb.get(), gdout.get(), gx.get(), gw.get(),
                             N, C, OC, accumulate, accumulate);
    // The twin writes; accumulating adds the old contents.
    std::vector<double> out(N * OC), dx(N * C), dw(OC * C), db(OC);
    ref::matmul_forward_bf16(out.data(), x.data(), w.data(), b.data(), N, C, OC);
    ref::matmul_backward_bf16(dx.data(), dw.data(), db.data(), dout.data(), x.data(), w.data(), N,
                              C, OC);
    // The exact product of the unrounded inputs.
    std::vector<double> ex_out(N * OC), ex_dx(N * C, 0.0), ex_dw(OC * C, 0.0), ex_db(OC, 0.0);
    ref::matmul_forward(ex_out.data(), xd.data(), wd.data(), bd.data(), N, C, OC);
    ref::matmul_backward(ex_dx.data(), ex_dw.data(), ex_db.data(), doutd.data(), xd.data(),
                         wd.data(), N, C, OC, false, false);
    if (accumulate) {
      for (int i = 0; i < N * C; ++i) dx[i] += dx0[i], ex_dx[i] += dx0[i];
      for (int i = 0; i < OC * C; ++i) dw[i] += dw0[i], ex_dw[i] += dw0[i];
      for (int i = 0; i < OC; ++i) db[i] += db0[i];
    }
    const std::string tag = accumulate ? " accumulate" : " write";
    const auto got_out = gout.read(), got_dx = gdx.read(), got_dw = gdw.read();
    expect_rel(got_out, out, 1e-5, "out against the twin" + tag);
    expect_rel(got_dx, dx, 1e-5, "dinp against the twin" + tag);
    expect_rel(got_dw, dw, 1e-5, "dweight against the twin" + tag);
    expect_rel(gdb.read(), db, 1e-6, "dbias (unrounded dout)" + tag);
    for (const auto& [got, exact, scale, K, name] :
         {std::tuple{&got_out, &ex_out, &out_abs, C, "out"},
          std::tuple{&got_dx, &ex_dx, &dx_abs, OC, "dinp"},
          std::tuple{&got_dw, &ex_dw, &dw_abs, N, "dweight"}}) {
      const double rate = std::ldexp(1.0, -8) + std::ldexp(1.0, -18) + K * std::ldexp(1.0, -23);
      int64_t over = 0;
      double num = 0, den = 0;
      for (size_t i = 0; i < got->size(); ++i) {
        const double err = std::abs((*got)[i] - (*exact)[i]);
        over += err > rate * (*scale)[i] + 1e-6 * std::abs((*exact)[i]);
        num += err * err;
        den += (*exact)[i] * (*exact)[i];
      }
      EXPECT_EQ(over, 0) << name << tag << ": elements past the rounding error bound";
      EXPECT_GE(std::sqrt(num / den), 2e-4) << name << tag << ": looks unrounded";
    }
  }
}

// The stored attention in bf16 against ref::attention_* with bf16 = true (the six products'
// inputs rounded, the softmax in fp32): a weight computed in fp32 here and in double there can
// round to the neighbouring bf16 value, rarely, hence 1e-4, not 1e-6; the unrounded reference
// is an order of magnitude further off.
TEST(CudaKernels, CausalAttentionInBf16MatchesItsTwin) {
  SKIP_WITHOUT_GPU();
  for (const auto& [B, T, C, NH] :
       std::vector<std::array<int, 4>>{{2, 37, 48, 4}, {1, 130, 64, 2}, {3, 64, 96, 3}}) {
    const auto qkv = random_vector<float>(int64_t{B} * T * 3 * C, 130 + T, -2, 2);
    const auto dout = random_vector<float>(int64_t{B} * T * C, 131 + T);
    GpuBuffer<float> gqkv(qkv), gout(nans(size_t(B) * T * C)), gatt(nans(size_t(B) * NH * T * T)),
        gdout(dout), gdqkv(nans(size_t(B) * T * 3 * C));
    ExecContext ex = cuda_ctx(/*tf32=*/true);
    ex.dtype = Dtype::kBf16;
    kernels::attention_forward(ex, gout.get(), nullptr, gatt.get(), gqkv.get(), nullptr, B, T, C,
                               NH);
    kernels::attention_backward(ex, gdqkv.get(), nullptr, nullptr, gdout.get(), gqkv.get(),
                                gatt.get(), nullptr, B, T, C, NH);
    const auto qkvd = widen(qkv), doutd = widen(dout);
    const auto got_out = gout.read(), got_att = gatt.read(), got_dqkv = gdqkv.read();
    const std::string tag = " T=" + std::to_string(T);
    double off[2][2] = {};  // [twin, unrounded][out, dqkv]
    for (bool bf16 : {true, false}) {
      std::vector<double> out(size_t(B) * T * C), pre(size_t(B) * NH * T * T), att(pre.size()),
          datt(pre.size()), dpre(pre.size()), dqkv(qkv.size());
      ref::attention_forward(out.data(), pre.data(), att.data(), qkvd.data(),
                             (const double*)nullptr, B, T, C, NH, bf16);
      ref::attention_backward(dqkv.data(), dpre.data(), datt.data(), doutd.data(), qkvd.data(),
                              att.data(), (const double*)nullptr, B, T, C, NH, bf16);
      if (bf16) expect_rel(got_att, att, 1e-5, "att" + tag);
      for (int i = 0; i < 2; ++i) {
        const auto& got = i == 0 ? got_out : got_dqkv;
        const auto& want = i == 0 ? out : dqkv;
        double num = 0, den = 0;
        for (size_t e = 0; e < got.size(); ++e) {
          ASSERT_FALSE(std::isnan(got[e])) << "element " << e << " is NaN" << tag;
          num += (got[e] - want[e]) * (got[e] - want[e]);
          den += want[e] * want[e];
        }
        off[bf16 ? 0 : 1][i] = std::sqrt(num / den);
      }
    }
    for (int i = 0; i < 2; ++i) {
      const char* name = i == 0 ? "out" : "dqkv";
      EXPECT_LE(off[0][i], 1e-4) << name << tag << " against the twin";
      EXPECT_GE(off[1][i], 10 * off[0][i]) << name << tag << " looks unrounded";
      EXPECT_LE(off[1][i], 2e-2) << name << tag << " too far from the unrounded reference";
    }
  }
}

// --dtype bf16 with the copies a layer keeps (kernels::Bf16Keep): the forward writes exactly
// ref::bf16_from_float of its inputs there, and a backward that reads them (and a dout rounded
// by its producer, here the cross-entropy's bf16 gradient) gives the same bits as one that rounds
// everything again itself.
TEST(CudaKernels, KeptBf16CopiesGiveTheSameBits) {
  SKIP_WITHOUT_GPU();
  ExecContext ex = cuda_ctx(/*tf32=*/true);
  ex.dtype = Dtype::kBf16;
  auto rounded = [](const std::vector<float>& v) {
    std::vector<uint16_t> r(v.size());
    for (size_t i = 0; i < v.size(); ++i) r[i] = ref::bf16_from_float(v[i]);
    return r;
  };
  auto poison16 = [](size_t n) { return std::vector<uint16_t>(n, 0xffff); };  // a bf16 NaN
  {  // matmul, with a bias, then without dout (no bias) from a kept dout
    const int N = 133, C = 70, OC = 91;
    const auto x = random_vector<float>(N * C, 140), w = random_vector<float>(OC * C, 141);
    const auto b = random_vector<float>(OC, 142), dout = random_vector<float>(N * OC, 143);
    std::vector<std::vector<float>> runs;
    // 0: rounds itself; 1: kept copies; 2: kept dout too; 3: inp's copy written by its producer
    for (int run = 0; run < 4; ++run) {
      GpuBuffer<float> gx(x), gw(w), gb(b), gdout(dout), gout(nans(N * OC)), gdx(nans(N * C)),
          gdw(nans(OC * C)), gdb(nans(OC));
      GpuBuffer<uint16_t> gx16(run == 3 ? rounded(x) : poison16(N * C)), gw16(poison16(OC * C)),
          gd16(rounded(dout));
      const kernels::Bf16Keep keep =
          run == 0 ? kernels::Bf16Keep{} : kernels::Bf16Keep{gx16.get(), gw16.get()};
      kernels::matmul_forward(ex, gout.get(), run == 3 ? nullptr : gx.get(), gw.get(), gb.get(), N,
                              C, OC, keep);
      if (run > 0) {
        EXPECT_EQ(gx16.read(), rounded(x)) << "the kept inp";
        EXPECT_EQ(gw16.read(), rounded(w)) << "the kept weight";
      }
      kernels::Bf16Keep kept = keep;
      if (run == 2) kept.dout = gd16.get();
      kernels::matmul_backward(ex, gdx.get(), gdw.get(), run == 2 ? nullptr : gdb.get(),
                               run == 2 ? nullptr : gdout.get(), gx.get(), gw.get(), N, C, OC,
                               false, false, kept);
      auto all = gout.read();
      for (const auto* g : {&gdx, &gdw}) {
        const auto v = g->read();
        all.insert(all.end(), v.begin(), v.end());
      }
      runs.push_back(all);
    }
    EXPECT_EQ(runs[1], runs[0]) << "matmul with kept copies";
    EXPECT_EQ(runs[2], runs[0]) << "matmul with a kept dout";
    EXPECT_EQ(runs[3], runs[0]) << "matmul from its producer's bf16 copy";
  }
  {  // layernorm's bf16-only output: its fp32 output rounded, the same mean and rstd
    const int N = 37, C = 70;
    const auto x = random_vector<float>(N * C, 149, -3, 3), w = random_vector<float>(C, 150);
    const auto b = random_vector<float>(C, 151);
    GpuBuffer<float> gx(x), gw(w), gb(b), gout(nans(N * C)), gm(nans(N)), gr(nans(N)), gm2(nans(N)),
        gr2(nans(N));
    GpuBuffer<uint16_t> gout16(poison16(N * C));
    kernels::layernorm_forward(ex, gout.get(), gm.get(), gr.get(), gx.get(), gw.get(), gb.get(), N,
                               C);
    kernels::layernorm_forward(ex, nullptr, gm2.get(), gr2.get(), gx.get(), gw.get(), gb.get(), N,
                               C, 1e-5f, gout16.get());
    EXPECT_EQ(gout16.read(), rounded(gout.read())) << "layernorm in bf16";
    EXPECT_EQ(gm2.read(), gm.read());
    EXPECT_EQ(gr2.read(), gr.read());
  }
  {  // the activations' bf16 results: the fp32 ones rounded (an odd n: the one-at-a-time tail)
    const int64_t n = 4099;
    const auto x = random_vector<float>(n, 147, -4, 4), dy = random_vector<float>(n, 148);
    using Fwd = void (*)(const ExecContext&, float*, const float*, int64_t, uint16_t*);
    using Bwd =
        void (*)(const ExecContext&, float*, const float*, const float*, int64_t, uint16_t*);
    for (const auto& [fwd, bwd, name] :
         {std::tuple<Fwd, Bwd, const char*>{kernels::gelu_forward, kernels::gelu_backward, "gelu"},
          std::tuple<Fwd, Bwd, const char*>{kernels::gelu_exact_forward,
                                            kernels::gelu_exact_backward, "gelu_exact"},
          std::tuple<Fwd, Bwd, const char*>{kernels::relu_forward, kernels::relu_backward,
                                            "relu"}}) {
      GpuBuffer<float> gx(x), gdy(dy), gout(nans(n)), gdx(nans(n)), gdx2(nans(n));
      GpuBuffer<uint16_t> gout16(poison16(n)), gdx16(poison16(n));
      fwd(ex, gout.get(), gx.get(), n, nullptr);
      fwd(ex, nullptr, gx.get(), n, gout16.get());
      bwd(ex, gdx.get(), gx.get(), gdy.get(), n, nullptr);
      bwd(ex, gdx2.get(), gx.get(), gdy.get(), n, gdx16.get());
      EXPECT_EQ(gout16.read(), rounded(gout.read())) << name << " forward in bf16";
      EXPECT_EQ(gdx2.read(), gdx.read()) << name << " backward's fp32 beside its bf16";
      EXPECT_EQ(gdx16.read(), rounded(gdx.read())) << name << " backward in bf16";
    }
  }
  // the stored attention: rounding itself; keeping qkv and the weights; keeping only the bf16
  // weights and each row's statistics (att then holds the scores). T = 300: two of the kernel's
  // blocks of 256 rows, past which the bf16-only weights are not written (the products read no
  // further).
  for (const auto& [B, T, C, NH] :
       std::vector<std::array<int, 4>>{{2, 37, 48, 4}, {1, 300, 32, 2}}) {
    const auto qkv = random_vector<float>(int64_t{B} * T * 3 * C, 144, -2, 2);
    const auto dout = random_vector<float>(int64_t{B} * T * C, 145);
    std::vector<std::vector<float>> runs;
    std::vector<float> weights;  // the fp32 weights of run 0
    for (int run = 0; run < 3; ++run) {
      GpuBuffer<float> gqkv(qkv), gout(nans(size_t(B) * T * C)), gatt(nans(size_t(B) * NH * T * T)),
          gdout(dout), gdqkv(nans(size_t(B) * T * 3 * C)), gstats(nans(size_t(B) * NH * T * 2));
      GpuBuffer<uint16_t> gq16(poison16(qkv.size())), ga16(poison16(size_t(B) * NH * T * T));
      kernels::Bf16Keep keep;
      if (run > 0) keep = {gq16.get(), ga16.get()};
      if (run == 2) keep.stats = gstats.get();
      kernels::attention_forward(ex, gout.get(), nullptr, gatt.get(), gqkv.get(), nullptr, B, T, C,
                                 NH, keep);
      if (run == 0) weights = gatt.read();
      if (run > 0) {
        EXPECT_EQ(gq16.read(), rounded(qkv)) << "the kept qkv, run " << run;
        auto want = rounded(weights);
        if (run == 2)  // written up to the end of the row's block of 256
          for (int r = 0; r < B * NH * T; ++r)
            for (int j = std::min(T, (r % T / 256 + 1) * 256); j < T; ++j)
              want[size_t(r) * T + j] = 0xffff;
        EXPECT_EQ(ga16.read(), want) << "the kept weights, run " << run << " T=" << T;
      }
      if (run == 2) {  // the scores: row t's maximum over s <= t is its statistic
        const auto sc = gatt.read(), st = gstats.read();
        for (int r = 0; r < B * NH * T; ++r) {
          const int t = r % T;
          float mx = -INFINITY;
          for (int j = 0; j <= t; ++j) mx = std::max(mx, sc[size_t(r) * T + j]);
          ASSERT_EQ(st[2 * size_t(r)], mx) << "row " << r;
          ASSERT_GT(st[2 * size_t(r) + 1], 0.0f) << "row " << r;
        }
      }
      kernels::attention_backward(ex, gdqkv.get(), nullptr, nullptr, gdout.get(), gqkv.get(),
                                  gatt.get(), nullptr, B, T, C, NH, keep);
      auto all = gout.read();
      const auto v = gdqkv.read();
      all.insert(all.end(), v.begin(), v.end());
      runs.push_back(all);
    }
    EXPECT_EQ(runs[1], runs[0]) << "attention with kept copies, T=" << T;
    EXPECT_EQ(runs[2], runs[0]) << "attention with the kept statistics, T=" << T;
  }
  // The cross-entropy: its gradient straight in bf16; and each row's statistics kept instead of
  // the probabilities, which the backward recomputes from the logits (the same losses; the same
  // gradient but at the targets: a GPU run of this test found those off in their last bits).
  const int N = 29;
  for (const int V : {1003, 4096}) {
    const auto logits = random_vector<float>(N * V, 146, -8, 8);
    std::vector<int32_t> targets(N);
    for (int n = 0; n < N; ++n) targets[n] = (n * 131) % V;
    GpuBuffer<float> glog(logits), glosses(nans(N)), gprobs(nans(N * V)),
        gdl(std::vector<float>(N, 1.0f / N)), gdlog(nans(N * V)), glosses2(nans(N)),
        gstats(nans(2 * N)), gdlog2(nans(N * V));
    GpuBuffer<uint16_t> gd16(poison16(size_t(N) * V)), gd16b(poison16(size_t(N) * V));
    GpuBuffer<int32_t> gt(targets);
    kernels::crossentropy_forward(ex, glosses.get(), gprobs.get(), glog.get(), gt.get(), N, V);
    kernels::crossentropy_backward(ex, gdlog.get(), gprobs.get(), gt.get(), gdl.get(), N, V);
    kernels::crossentropy_backward(ex, nullptr, gprobs.get(), gt.get(), gdl.get(), N, V,
                                   gd16.get());
    EXPECT_EQ(gd16.read(), rounded(gdlog.read())) << "the bf16 dlogits, V=" << V;
    kernels::crossentropy_forward(ex, glosses2.get(), nullptr, glog.get(), gt.get(), N, V,
                                  gstats.get());
    kernels::crossentropy_backward(ex, gdlog2.get(), nullptr, gt.get(), gdl.get(), N, V, nullptr,
                                   glog.get(), gstats.get());
    kernels::crossentropy_backward(ex, nullptr, nullptr, gt.get(), gdl.get(), N, V, gd16b.get(),
                                   glog.get(), gstats.get());
    EXPECT_EQ(glosses2.read(), glosses.read()) << "losses with the row statistics, V=" << V;
    // Bit for bit but at each row's target, where the recomputed path's p - 1 is one fused
    // multiply-add (p unrounded): there within fp32's, or bf16's, rounding of the value.
    const auto got = gdlog2.read(), want = gdlog.read();
    const auto got16 = gd16b.read(), want16 = gd16.read();
    int64_t off = 0, off16 = 0;
    for (int n = 0; n < N; ++n)
      for (int v = 0; v < V; ++v) {
        const size_t i = size_t(n) * V + v;
        if (v != targets[n]) {
          off += got[i] != want[i];
          off16 += got16[i] != want16[i];
          continue;
        }
        const float a = ref::float_from_bf16(got16[i]), b = ref::float_from_bf16(want16[i]);
        // p's own rounding (half an ulp of p <= 1, times dl = 1/N), then the result's
        const float bound = std::ldexp(1.0f, -24) / N + std::ldexp(std::abs(want[i]), -22);
        EXPECT_LE(std::abs(got[i] - want[i]), bound) << "row " << n;
        EXPECT_LE(std::abs(a - b), std::ldexp(std::abs(b), -7)) << "row " << n << " bf16";
      }
    EXPECT_EQ(off, 0) << "dlogits from the row statistics off the stored path's, V=" << V;
    EXPECT_EQ(off16, 0) << "bf16 dlogits from the row statistics off the stored path's, V=" << V;
  }
}

TEST(CudaKernels, TheSameCallGivesTheSameBits) {
  SKIP_WITHOUT_GPU();
  const int N = 4096, C = 96, OC = 288;
  const auto x = random_vector<float>(N * C, 70), w = random_vector<float>(OC * C, 71);
  const auto dout = random_vector<float>(N * OC, 72);
  std::vector<std::vector<float>> runs;
  for (int run = 0; run < 4; ++run) {  // fp32 (TF32) twice, then bf16 twice
    GpuBuffer<float> gx(x), gw(w), gdout(dout), gdx(nans(N * C)), gdw(nans(OC * C)), gdb(nans(OC)),
        gout(nans(N * C)), gm(nans(N)), gr(nans(N)), gdw2(std::vector<float>(OC * C, 0.0f));
    ExecContext ex = cuda_ctx(true);
    if (run >= 2) ex.dtype = Dtype::kBf16;
    kernels::matmul_backward(ex, gdx.get(), gdw.get(), gdb.get(), gdout.get(), gx.get(), gw.get(),
                             N, C, OC, false, false);
    kernels::layernorm_forward(ex, gout.get(), gm.get(), gr.get(), gx.get(), gw.get(), nullptr, N,
                               C);
    auto a = gdw.read(), b = gdb.read(), c = gdx.read();
    a.insert(a.end(), b.begin(), b.end());
    a.insert(a.end(), c.begin(), c.end());
    runs.push_back(a);
  }
  EXPECT_EQ(runs[0], runs[1]);
  EXPECT_EQ(runs[2], runs[3]) << "bf16";
  EXPECT_NE(runs[0], runs[2]) << "bf16 ran as fp32";
}

}  // namespace
}  // namespace scratchgpt

#ifdef SCRATCHGPT_HAS_CUDA
// cuBLAS is loaded on first use (kernels/cuda/cublas_loader.cu), not linked: linked, it cost
// every start of the program, CPU-only commands too, 120 ms of libcublasLt's initialisation.
TEST(CublasLoader, TheProgramStartsWithoutCublas) {
  // The dynamic loader names each library it loads (LD_DEBUG=libs).
  const std::string cmd = std::string("LD_DEBUG=libs '") + SCRATCHGPT_BINARY + "' --help 2>&1";
  FILE* p = popen(cmd.c_str(), "r");
  ASSERT_NE(p, nullptr);
  std::string out;
  char buf[4096];
  for (size_t n; (n = fread(buf, 1, sizeof buf, p)) > 0;) out.append(buf, n);
  EXPECT_EQ(pclose(p), 0) << out;
  EXPECT_NE(out.find("libc.so"), std::string::npos) << "LD_DEBUG named no library:\n" << out;
  EXPECT_EQ(out.find("libcublas"), std::string::npos) << "cuBLAS loaded at start";
}

// The first call finds the library, GPU or not (without one its status says so; no error).
TEST(CublasLoader, TheFirstCallLoadsIt) {
  auto mapped = [] {
    std::ifstream maps("/proc/self/maps");
    std::stringstream ss;
    ss << maps.rdbuf();
    return ss.str().find("libcublasLt.so") != std::string::npos;
  };
  cublasLtHandle_t h = nullptr;
  cublasStatus_t status = CUBLAS_STATUS_NOT_INITIALIZED;
  EXPECT_NO_THROW(status = cublasLtCreate(&h));
  EXPECT_TRUE(mapped());
  if (scratchgpt::test::no_gpu_reason().empty()) {
    EXPECT_EQ(status, CUBLAS_STATUS_SUCCESS);
  }
}
#endif
