// cpu_elementwise_test.cpp: cpu:: zero, copy, relu, residual, dropout, adamw, encoder and gelu
// (both forms) against ref:: (in double, or bit for bit in float where the header promises it), at
// every SIMD level, on sizes that are not multiples of the vector width (tails below, at and past 8 and 16
// lanes) and span several parallel chunks; 1 vs 2 vs 3 threads bitwise identical.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <functional>
#include <limits>

#include "cpu_test_util.h"
#include "kernels/cpu/adamw.h"
#include "kernels/cpu/dropout.h"
#include "kernels/cpu/encoder.h"
#include "kernels/cpu/fill.h"
#include "kernels/cpu/gelu.h"
#include "kernels/cpu/relu.h"
#include "kernels/cpu/residual.h"
#include "kernels/ref/adamw.h"
#include "kernels/ref/dropout.h"
#include "kernels/ref/encoder.h"
#include "kernels/ref/fill.h"
#include "kernels/ref/gelu.h"
#include "kernels/ref/relu.h"
#include "kernels/ref/residual.h"

namespace scratchgpt {
namespace {

using test::all_close;
using test::bitwise_equal;
using test::random_floats;
using test::to_double;

const int64_t kSizes[] = {1, 7, 23, 40, 100003};

// Runs `body` at every SIMD level and with 1, 2 and 3 threads; body(n) returns the cpu outputs
// (concatenated) and checks them against the reference itself.
void for_levels_and_threads(const std::function<std::vector<float>(int64_t)>& body) {
  test::KernelEnv env;
  for (SimdLevel level : test::simd_levels()) {
    test::set_level(level);
    for (int64_t n : kSizes) {
      SCOPED_TRACE(std::string(simd_level_name(level)) + " n=" + std::to_string(n));
      test::set_threads(1);
      const auto one = body(n);
      for (int threads : {2, 3}) {
        test::set_threads(threads);
        EXPECT_TRUE(bitwise_equal(one, body(n))) << "1 vs " << threads << " threads";
      }
    }
  }
}

std::vector<float> concat(std::initializer_list<const std::vector<float>*> parts) {
  std::vector<float> out;
  for (auto* p : parts) out.insert(out.end(), p->begin(), p->end());
  return out;
}

TEST(CpuElementwise, ZeroAndCopy) {
  for_levels_and_threads([](int64_t n) {
    // Buffers one element longer than n, so a chunk that ran past the end would show.
    auto src = random_floats(n + 1, 1);
    std::vector<float> z = random_floats(n + 1, 2), rz = z, c = random_floats(n + 1, 3), rc = c;
    cpu::zero(test::ctx(), z.data(), n);
    ref::zero(rz.data(), n);
    cpu::copy(test::ctx(), c.data(), src.data(), n);
    ref::copy(rc.data(), src.data(), n);
    EXPECT_TRUE(bitwise_equal(z, rz));
    EXPECT_TRUE(bitwise_equal(c, rc));
    EXPECT_EQ(z[0], 0.0f);
    EXPECT_EQ(c[n - 1], src[n - 1]);
    return concat({&z, &c});
  });
}

TEST(CpuElementwise, Relu) {
  for_levels_and_threads([](int64_t n) {
    auto x = random_floats(n, 1), dy = random_floats(n, 2);
    std::vector<float> y(n), dx = random_floats(n, 3), ry(n), rdx = dx;
    cpu::relu_forward(test::ctx(), y.data(), x.data(), n);
    cpu::relu_backward(test::ctx(), dx.data(), x.data(), dy.data(), n);
    ref::relu_forward(ry.data(), x.data(), n);
    ref::relu_backward(rdx.data(), x.data(), dy.data(), n);
    EXPECT_TRUE(bitwise_equal(y, ry));
    EXPECT_TRUE(bitwise_equal(dx, rdx));
    return concat({&y, &dx});
  });
}

TEST(CpuElementwise, ResidualIncludingInPlace) {
  for_levels_and_threads([](int64_t n) {
    auto a = random_floats(n, 1), b = random_floats(n, 2);
    std::vector<float> y(n), ry(n);
    cpu::residual_forward(test::ctx(), y.data(), a.data(), b.data(), n);
    ref::residual_forward(ry.data(), a.data(), b.data(), n);
    EXPECT_TRUE(bitwise_equal(y, ry));
    std::vector<float> inplace = a;  // out aliases a, as the model's x = x + f(x)
    cpu::residual_forward(test::ctx(), inplace.data(), inplace.data(), b.data(), n);
    EXPECT_TRUE(bitwise_equal(inplace, ry));
    return concat({&y, &inplace});
  });
}

TEST(CpuElementwise, Dropout) {
  for_levels_and_threads([](int64_t n) {
    auto x = random_floats(n, 1), dy = random_floats(n, 2), u = random_floats(n, 3, 0.0f, 1.0f);
    std::vector<float> keep(n);
    for (int64_t i = 0; i < n; ++i) keep[i] = u[i] < 0.3f ? 0.0f : 1.0f;
    std::vector<float> y(n), ry(n), mask = keep, rmask = keep, dx = random_floats(n, 4),
                                    rdx = dx;
    cpu::dropout_forward(test::ctx(), y.data(), mask.data(), x.data(), n, 0.3f);
    ref::dropout_forward(ry.data(), rmask.data(), x.data(), n, 0.3f);
    cpu::dropout_backward(test::ctx(), dx.data(), dy.data(), mask.data(), n);
    ref::dropout_backward(rdx.data(), dy.data(), rmask.data(), n);
    EXPECT_TRUE(bitwise_equal(y, ry));
    EXPECT_TRUE(bitwise_equal(mask, rmask));
    EXPECT_TRUE(bitwise_equal(dx, rdx));
    // Not accumulating: dx, filled with NaN, is written without being read, with the bits of
    // accumulating into zeros.
    std::vector<float> wdx(n, std::numeric_limits<float>::quiet_NaN()), zdx(n, 0.0f);
    cpu::dropout_backward(test::ctx(), wdx.data(), dy.data(), mask.data(), n, false);
    ref::dropout_backward(zdx.data(), dy.data(), rmask.data(), n);
    EXPECT_TRUE(bitwise_equal(wdx, zdx));
    return concat({&y, &mask, &dx, &wdx});
  });
}

TEST(CpuElementwise, AdamWEqualsReferenceBitForBit) {
  for_levels_and_threads([](int64_t n) {
    auto p = random_floats(n, 1), g = random_floats(n, 2), m = random_floats(n, 3, -0.1f, 0.1f),
         v = random_floats(n, 4, 0.0f, 0.01f);
    auto rp = p, rm = m, rv = v;
    for (int t = 1; t <= 3; ++t) {
      cpu::adamw_update(test::ctx(), p.data(), g.data(), m.data(), v.data(), n, 1e-3f, 0.9f, 0.95f,
                        1e-8f, 0.1f, t);
      ref::adamw_update(rp.data(), g.data(), rm.data(), rv.data(), n, 1e-3f, 0.9f, 0.95f, 1e-8f,
                        0.1f, t);
    }
    EXPECT_TRUE(bitwise_equal(p, rp));
    EXPECT_TRUE(bitwise_equal(m, rm));
    EXPECT_TRUE(bitwise_equal(v, rv));
    return concat({&p, &m, &v});
  });
}

// Many arrays in one pass (sizes around the chunk of 16384, different weight decays, a clip
// coefficient) equal the reference array by array, bit for bit, with 1, 2 and 3 threads.
TEST(CpuElementwise, AdamWOverManyArraysEqualsReferenceArrayByArray) {
  test::KernelEnv env;
  const int64_t sizes[] = {1, 100, 16384, 16385, 50000, 7};
  const float decays[] = {0.1f, 0.0f, 0.1f, 0.0f, 0.1f, 0.1f};
  const int count = 6;
  for (SimdLevel level : test::simd_levels())
    for (int threads : {1, 2, 3}) {
      test::set_level(level);
      test::set_threads(threads);
      SCOPED_TRACE(std::string(simd_level_name(level)) + " threads=" + std::to_string(threads));
      std::vector<std::vector<float>> p, g, m, v, rp, rm, rv;
      std::vector<cpu::AdamWArray> arrays;
      for (int a = 0; a < count; ++a) {
        const int64_t n = sizes[a];
        p.push_back(random_floats(n, 10 + a));
        g.push_back(random_floats(n, 20 + a));
        m.push_back(random_floats(n, 30 + a, -0.1f, 0.1f));
        v.push_back(random_floats(n, 40 + a, 0.0f, 0.01f));
      }
      rp = p, rm = m, rv = v;
      for (int a = 0; a < count; ++a)
        arrays.push_back({p[a].data(), g[a].data(), m[a].data(), v[a].data(), sizes[a], decays[a]});
      for (int t = 1; t <= 2; ++t) {
        cpu::adamw_update_all(test::ctx(), count, arrays.data(), 1e-3f, 0.9f, 0.95f, 1e-8f, t,
                              0.75f);
        for (int a = 0; a < count; ++a)
          ref::adamw_update(rp[a].data(), g[a].data(), rm[a].data(), rv[a].data(), sizes[a], 1e-3f,
                            0.9f, 0.95f, 1e-8f, decays[a], t, 0.75f);
      }
      for (int a = 0; a < count; ++a) {
        EXPECT_TRUE(bitwise_equal(p[a], rp[a])) << "param of array " << a;
        EXPECT_TRUE(bitwise_equal(m[a], rm[a])) << "m of array " << a;
        EXPECT_TRUE(bitwise_equal(v[a], rv[a])) << "v of array " << a;
      }
    }
}

// A clip coefficient folded into the update equals clipping the gradient first (g *= coef).
TEST(CpuElementwise, AdamWWithGradScaleEqualsScalingTheGradientFirst) {
  for_levels_and_threads([](int64_t n) {
    auto p = random_floats(n, 5), g = random_floats(n, 6, -3.0f, 3.0f),
         m = random_floats(n, 7, -0.1f, 0.1f), v = random_floats(n, 8, 0.0f, 0.01f);
    const float coef = 0.3183f;
    auto rp = p, rm = m, rv = v, clipped = g;
    for (float& x : clipped) x *= coef;
    for (int t = 1; t <= 2; ++t) {
      cpu::adamw_update(test::ctx(), p.data(), g.data(), m.data(), v.data(), n, 1e-3f, 0.9f, 0.99f,
                        1e-8f, 0.1f, t, coef);
      ref::adamw_update(rp.data(), clipped.data(), rm.data(), rv.data(), n, 1e-3f, 0.9f, 0.99f,
                        1e-8f, 0.1f, t);
    }
    EXPECT_TRUE(bitwise_equal(p, rp));
    EXPECT_TRUE(bitwise_equal(m, rm));
    EXPECT_TRUE(bitwise_equal(v, rv));
    return concat({&p, &m, &v});
  });
}

// With more than one thread the parameters are written with non-temporal stores where they are
// aligned to the vector (adamw.cpp): arrays at a 64-byte boundary and one float past it (plain
// stores), on 1 and 2 threads, all equal to the reference bit for bit, and the streamed values
// are there for the caller to read once the call returns.
TEST(CpuElementwise, AdamWStreamedOrPlainStoresWriteTheReferenceBits) {
  test::KernelEnv env;
  const int64_t n = 3 * 16384 + 21;  // three chunks and a tail
  struct Aligned {
    float* p;
    explicit Aligned(int64_t floats)
        : p(static_cast<float*>(std::aligned_alloc(64, ((floats * 4 + 63) / 64) * 64))) {}
    ~Aligned() { std::free(p); }
  };
  for (SimdLevel level : test::simd_levels())
    for (int threads : {1, 2})
      for (int offset : {0, 1}) {
        test::set_level(level);
        test::set_threads(threads);
        SCOPED_TRACE(std::string(simd_level_name(level)) + " threads=" + std::to_string(threads) +
                     " offset=" + std::to_string(offset));
        Aligned pb(n + 16), mb(n + 16), vb(n + 16);
        float *p = pb.p + offset, *m = mb.p + offset, *v = vb.p + offset;
        const auto p0 = random_floats(n, 51), g = random_floats(n, 52),
                   m0 = random_floats(n, 53, -0.1f, 0.1f), v0 = random_floats(n, 54, 0.0f, 0.01f);
        std::copy(p0.begin(), p0.end(), p);
        std::copy(m0.begin(), m0.end(), m);
        std::copy(v0.begin(), v0.end(), v);
        auto rp = p0, rm = m0, rv = v0;
        const cpu::AdamWArray array{p, g.data(), m, v, n, 0.1f};
        for (int t = 1; t <= 2; ++t) {
          cpu::adamw_update_all(test::ctx(), 1, &array, 1e-3f, 0.9f, 0.95f, 1e-8f, t, 0.5f);
          ref::adamw_update(rp.data(), g.data(), rm.data(), rv.data(), n, 1e-3f, 0.9f, 0.95f,
                            1e-8f, 0.1f, t, 0.5f);
        }
        EXPECT_TRUE(bitwise_equal(std::vector<float>(p, p + n), rp));
        EXPECT_TRUE(bitwise_equal(std::vector<float>(m, m + n), rm));
        EXPECT_TRUE(bitwise_equal(std::vector<float>(v, v + n), rv));
      }
}

TEST(CpuElementwise, GeluMatchesReferenceInDouble) {
  for_levels_and_threads([](int64_t n) {
    auto x = random_floats(n, 1, -6.0f, 6.0f), dy = random_floats(n, 2);
    if (n > 10) x[3] = 0.0f, x[4] = 1e-7f, x[5] = -20.0f, x[6] = 20.0f;
    std::vector<float> y(n), dx = random_floats(n, 3);
    std::vector<double> ry(n), rdx = to_double(dx);
    cpu::gelu_forward(test::ctx(), y.data(), x.data(), n);
    cpu::gelu_backward(test::ctx(), dx.data(), x.data(), dy.data(), n);
    const auto xd = to_double(x), dyd = to_double(dy);
    ref::gelu_forward(ry.data(), xd.data(), n);
    ref::gelu_backward(rdx.data(), xd.data(), dyd.data(), n);
    EXPECT_TRUE(all_close(y, ry, 1e-6, 1e-5)) << "forward";
    // gelu' has sg (1 - sg), which cancels in float near x ~ 3: ~1e-6 absolute is inherent.
    EXPECT_TRUE(all_close(dx, rdx, 1e-5, 1e-5)) << "backward";
    // At AVX2 and AVX-512 the negative tail keeps its relative accuracy (x / (1 + e^{-2u}), not
    // 0.5 x (1 + tanh u), which loses it as tanh u nears -1; the portable path is the latter,
    // the reference's loop in float).
    for (int64_t i = 0; i < n && test::ctx().isa != SimdLevel::kScalar; ++i) {
      if (x[i] > -5.0f && x[i] < -3.0f) {
        EXPECT_NEAR(y[i] / ry[i], 1.0, 1e-5) << "x = " << x[i];
        EXPECT_NEAR(dx[i] / rdx[i], 1.0, 1e-5) << "x = " << x[i];
      }
    }
    return concat({&y, &dx});
  });
}

TEST(CpuElementwise, GeluExactMatchesReferenceInDouble) {
  for_levels_and_threads([](int64_t n) {
    auto x = random_floats(n, 4, -7.0f, 7.0f), dy = random_floats(n, 5);
    // Zero, tiny, the far tails (underflow to exact 0 and x), and both sides of the sign switch.
    if (n > 10) x[3] = 0.0f, x[4] = 1e-7f, x[5] = -20.0f, x[6] = 20.0f, x[7] = -1e-7f;
    if (n > 12) x[8] = -12.0f, x[9] = -1e30f, x[10] = 1e30f;
    std::vector<float> y(n), dx = random_floats(n, 6);
    std::vector<double> ry(n), rdx = to_double(dx);
    cpu::gelu_exact_forward(test::ctx(), y.data(), x.data(), n);
    cpu::gelu_exact_backward(test::ctx(), dx.data(), x.data(), dy.data(), n);
    const auto xd = to_double(x), dyd = to_double(dy);
    ref::gelu_exact_forward(ry.data(), xd.data(), n);
    ref::gelu_exact_backward(rdx.data(), xd.data(), dyd.data(), n);
    EXPECT_TRUE(all_close(y, ry, 1e-6, 2e-6)) << "forward";
    EXPECT_TRUE(all_close(dx, rdx, 1e-6, 2e-6)) << "backward";
    // The negative tail keeps its relative accuracy (erfc, not 1 - erf).
    for (int64_t i = 0; i < n; ++i) {
      if (x[i] > -5.0f && x[i] < -3.0f) {
        EXPECT_NEAR(y[i] / ry[i], 1.0, 1e-5) << "x = " << x[i];
      }
    }
    return concat({&y, &dx});
  });
}

// The second shape is large enough (over 1 Mi elements) for the backward to go threaded.
TEST(CpuElementwise, EncoderEqualsReferenceBitForBit) {
  test::KernelEnv env;
  struct Shape {
    int B, T, C;
  };
  for (const Shape& s : {Shape{4, 37, 300}, Shape{8, 300, 450}}) {
    const int B = s.B, T = s.T, C = s.C, V = 11, maxT = T + 3;
    std::vector<int32_t> idx(B * T);
    for (int i = 0; i < B * T; ++i) idx[i] = (i * 7 + i / 5) % V;  // repeated tokens
    auto wte = random_floats(size_t(V) * C, 1), wpe = random_floats(size_t(maxT) * C, 2);
    auto dout = random_floats(size_t(B) * T * C, 3);
    for (bool with_wpe : {true, false})
      for (int threads : {1, 2}) {
        test::set_threads(threads);
        SCOPED_TRACE("B*T*C=" + std::to_string(B * T * C) + " threads=" + std::to_string(threads) +
                     (with_wpe ? " wpe" : " no wpe"));
        const float* p = with_wpe ? wpe.data() : nullptr;
        std::vector<float> out(size_t(B) * T * C), rout(out.size());
        cpu::encoder_forward(test::ctx(), out.data(), idx.data(), wte.data(), p, B, T, C);
        ref::encoder_forward(rout.data(), idx.data(), wte.data(), p, B, T, C);
        EXPECT_TRUE(bitwise_equal(out, rout));
        auto dwte = random_floats(wte.size(), 4), dwpe = random_floats(wpe.size(), 5);
        auto rdwte = dwte, rdwpe = dwpe;
        cpu::encoder_backward(test::ctx(), dwte.data(), with_wpe ? dwpe.data() : nullptr,
                              dout.data(), idx.data(), B, T, C);
        ref::encoder_backward(rdwte.data(), with_wpe ? rdwpe.data() : nullptr, dout.data(),
                              idx.data(), B, T, C);
        EXPECT_TRUE(bitwise_equal(dwte, rdwte));
        EXPECT_TRUE(bitwise_equal(dwpe, rdwpe));
      }
  }
}

}  // namespace
}  // namespace scratchgpt
