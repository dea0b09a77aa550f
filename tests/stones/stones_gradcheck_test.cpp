// stones_gradcheck_test.cpp: every stepping-stone backward (averaging, simplified attention,
// SelfAttention v1/v2, CausalAttention with both masks and with dropout, Head, the three
// multi-head forms, FeedForward) against 5-point central differences in double; rel err <= 1e-6.
#include <gtest/gtest.h>

#include "stones/bow_average.h"
#include "stones_test_util.h"

namespace scratchgpt::stones {
namespace {

using test::gradcheck;
using test::params_of;
using V = std::vector<double>;

V random_input(int64_t n, uint32_t seed) {
  return scratchgpt::test::random_vector<double>(n, seed);
}

TEST(StonesGradcheck, BowAverage) {
  const int B = 2, T = 5, C = 3;
  V wei(T * T);
  bow_weights_tril(wei.data(), T);
  gradcheck(
      "bow_average", random_input(B * T * C, 1), {},
      [&](const V& x) {
        V out(x.size());
        bow_apply(out.data(), wei.data(), x.data(), B, T, C);
        return out;
      },
      [&](double* dx, const double* g) { bow_apply_backward(dx, wei.data(), g, B, T, C); }, [] {});
}

TEST(StonesGradcheck, SimplifiedAttention) {
  const int T = 6, C = 3;
  SimplifiedAttention<double> m;
  gradcheck(
      "simplified_attention", random_input(T * C, 2), {},
      [&](const V& x) {
        V out(x.size());
        m.forward(out.data(), x.data(), T, C);
        return out;
      },
      [&](double* dx, const double* g) { m.backward(dx, g); }, [] {});
}

TEST(StonesGradcheck, SelfAttentionV1) {
  const int T = 6, C = 3, OC = 2;
  SelfAttentionV1<double> m(C, OC);
  test::randomise(params_of(m), 3);
  gradcheck(
      "self_attention_v1", random_input(T * C, 4), params_of(m),
      [&](const V& x) {
        V out(T * OC);
        m.forward(out.data(), x.data(), T);
        return out;
      },
      [&](double* dx, const double* g) { m.backward(dx, g); }, [&] { m.zero_grad(); });
}

TEST(StonesGradcheck, SelfAttentionV2WithBias) {
  const int T = 5, C = 3, OC = 4;
  SelfAttentionV2<double> m(C, OC, /*qkv_bias=*/true);
  test::randomise(params_of(m), 5);
  gradcheck(
      "self_attention_v2", random_input(T * C, 6), params_of(m),
      [&](const V& x) {
        V out(T * OC);
        m.forward(out.data(), x.data(), T);
        return out;
      },
      [&](double* dx, const double* g) { m.backward(dx, g); }, [&] { m.zero_grad(); });
}

void check_causal(CausalMask mask, float dropout, const std::string& what) {
  const int B = 2, T = 5, C = 3, OC = 2;
  CausalAttention<double> m(C, OC, 6, dropout, /*qkv_bias=*/true);
  m.mask = mask;
  test::randomise(params_of(m), 7);
  gradcheck(
      what, random_input(B * T * C, 8), params_of(m),
      [&](const V& x) {
        V out(B * T * OC);
        Rng rng(123);  // the same dropout mask on every forward
        m.forward(out.data(), x.data(), B, T, dropout > 0 ? &rng : nullptr);
        return out;
      },
      [&](double* dx, const double* g) { m.backward(dx, g); }, [&] { m.zero_grad(); });
}

TEST(StonesGradcheck, CausalAttentionNegInfMask) {
  check_causal(CausalMask::kNegInf, 0.0f, "causal_neg_inf");
}
TEST(StonesGradcheck, CausalAttentionRenormaliseMask) {
  check_causal(CausalMask::kRenormalise, 0.0f, "causal_renormalise");
}
TEST(StonesGradcheck, CausalAttentionWithDropout) {
  check_causal(CausalMask::kNegInf, 0.5f, "causal_dropout");
}

TEST(StonesGradcheck, HeadScaledUnscaledAndDropout) {
  const int B = 2, T = 4, C = 6, HS = 3;
  for (int variant = 0; variant < 3; ++variant) {
    Head<double> m(C, HS, 8, variant == 2 ? 0.3f : 0.0f);
    m.scaled = variant != 1;
    test::randomise(params_of(m), 9);
    gradcheck(
        "head" + std::to_string(variant), random_input(B * T * C, 10), params_of(m),
        [&](const V& x) {
          V out(B * T * HS);
          Rng rng(5);
          m.forward(out.data(), x.data(), B, T, variant == 2 ? &rng : nullptr);
          return out;
        },
        [&](double* dx, const double* g) { m.backward(dx, g); }, [&] { m.zero_grad(); });
  }
}

TEST(StonesGradcheck, MultiHeadAttentionWrapper) {
  const int B = 2, T = 4, C = 3, OC = 2, NH = 3;
  MultiHeadAttentionWrapper<double> m(C, OC, 6, 0.2f, NH);
  test::randomise(params_of(m), 11);
  gradcheck(
      "mha_wrapper", random_input(B * T * C, 12), params_of(m),
      [&](const V& x) {
        V out(B * T * NH * OC);
        Rng rng(6);
        m.forward(out.data(), x.data(), B, T, &rng);
        return out;
      },
      [&](double* dx, const double* g) { m.backward(dx, g); }, [&] { m.zero_grad(); });
}

TEST(StonesGradcheck, LectureMultiHeadAttention) {
  const int B = 2, T = 4, C = 6, NH = 2, HS = 3;
  LectureMultiHeadAttention<double> m(C, NH, HS, 8, 0.2f);
  test::randomise(params_of(m), 13);
  gradcheck(
      "lecture_mha", random_input(B * T * C, 14), params_of(m),
      [&](const V& x) {
        V out(B * T * C);
        Rng rng(7);
        m.forward(out.data(), x.data(), B, T, &rng);
        return out;
      },
      [&](double* dx, const double* g) { m.backward(dx, g); }, [&] { m.zero_grad(); });
}

TEST(StonesGradcheck, MultiHeadAttention) {
  const int B = 2, T = 4, C = 3, OC = 4, NH = 2;
  MultiHeadAttention<double> m(C, OC, 6, 0.2f, NH, /*qkv_bias=*/true);
  test::randomise(params_of(m), 15);
  gradcheck(
      "mha", random_input(B * T * C, 16), params_of(m),
      [&](const V& x) {
        V out(B * T * OC);
        Rng rng(8);
        m.forward(out.data(), x.data(), B, T, &rng);
        return out;
      },
      [&](double* dx, const double* g) { m.backward(dx, g); }, [&] { m.zero_grad(); });
}

TEST(StonesGradcheck, FeedForward) {
  const int N = 5, C = 4;
  FeedForward<double> m(C, 0.2f);
  test::randomise(params_of(m), 17);
  gradcheck(
      "feed_forward", random_input(N * C, 18), params_of(m),
      [&](const V& x) {
        V out(N * C);
        Rng rng(9);
        m.forward(out.data(), x.data(), N, &rng);
        return out;
      },
      [&](double* dx, const double* g) { m.backward(dx, g); }, [&] { m.zero_grad(); });
}

}  // namespace
}  // namespace scratchgpt::stones
