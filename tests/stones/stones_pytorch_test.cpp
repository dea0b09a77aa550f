// stones_pytorch_test.cpp: each stepping-stone module against the same PyTorch module
// (tools/make_lesson_fixtures.py -> tests/fixtures/lessons/modules/*.safetensors): with PyTorch's
// weights loaded, the output, dx and every parameter gradient of L = sum(out * dout) agree.
// The "seeded" fixtures also check construction and training: after torch.manual_seed(seed) the
// module's init draws give PyTorch's weights bit for bit, and a training-mode forward (dropout
// masks drawn by Rng) gives PyTorch's output.
#include <gtest/gtest.h>

#include "stones_test_util.h"

namespace scratchgpt::stones {
namespace {

using scratchgpt::test::expect_close;

struct Fixture {
  SafeTensors st;
  explicit Fixture(const std::string& name)
      : st(scratchgpt::test::load_fixture("lessons/modules/" + name + ".safetensors")) {}
  std::vector<int64_t> shape(const std::string& n) const { return st.shape(n); }
  std::vector<float> f(const std::string& n) const { return st.f32(n); }
};

// Loads PyTorch's weights, runs fwd(out, x) and bwd(dx, dout), compares everything.
template <typename M, typename Fwd, typename Bwd>
void check(const std::string& name, M& m, Fwd fwd, Bwd bwd) {
  Fixture fx(name);
  auto params = test::params_of(m);
  for (auto& p : params) {
    std::vector<float> w = fx.f("param." + p.name);
    ASSERT_EQ(w.size(), p.value->size()) << name << ": " << p.name;
    *p.value = w;
  }
  std::vector<float> x = fx.f("x"), want = fx.f("out"), dout = fx.f("dout");
  std::vector<float> out(want.size());
  fwd(out.data(), x.data(), fx.shape("x"));
  expect_close(out, want, 1e-5, 1e-5, name + ": out");
  std::vector<float> dx(x.size(), 0.0f);
  bwd(dx.data(), dout.data());
  expect_close(dx, fx.f("dx"), 1e-5, 1e-5, name + ": dx");
  for (auto& p : params)
    expect_close(*p.grad, fx.f("grad." + p.name), 1e-5, 1e-5, name + ": d" + p.name);
}

TEST(StonesPyTorch, SelfAttentionV1) {
  SelfAttentionV1<float> m(3, 2);
  check(
      "self_attention_v1", m,
      [&](float* y, const float* x, const std::vector<int64_t>& s) { m.forward(y, x, int(s[0])); },
      [&](float* dx, const float* g) { m.backward(dx, g); });
}

TEST(StonesPyTorch, SelfAttentionV2WithBias) {
  SelfAttentionV2<float> m(3, 2, true);
  check(
      "self_attention_v2", m,
      [&](float* y, const float* x, const std::vector<int64_t>& s) { m.forward(y, x, int(s[0])); },
      [&](float* dx, const float* g) { m.backward(dx, g); });
}

TEST(StonesPyTorch, CausalAttention) {
  CausalAttention<float> m(3, 2, 6, 0.0f, true);
  check(
      "causal_attention", m,
      [&](float* y, const float* x, const std::vector<int64_t>& s) {
        m.forward(y, x, int(s[0]), int(s[1]));
      },
      [&](float* dx, const float* g) { m.backward(dx, g); });
}

TEST(StonesPyTorch, MultiHeadAttentionWrapper) {
  MultiHeadAttentionWrapper<float> m(3, 2, 6, 0.0f, 3);
  check(
      "mha_wrapper", m,
      [&](float* y, const float* x, const std::vector<int64_t>& s) {
        m.forward(y, x, int(s[0]), int(s[1]));
      },
      [&](float* dx, const float* g) { m.backward(dx, g); });
}

TEST(StonesPyTorch, MultiHeadAttention) {
  MultiHeadAttention<float> m(3, 4, 6, 0.0f, 2);
  check(
      "multi_head_attention", m,
      [&](float* y, const float* x, const std::vector<int64_t>& s) {
        m.forward(y, x, int(s[0]), int(s[1]));
      },
      [&](float* dx, const float* g) { m.backward(dx, g); });
}

TEST(StonesPyTorch, Head) {
  Head<float> m(8, 4, 8, 0.0f);
  check(
      "head", m,
      [&](float* y, const float* x, const std::vector<int64_t>& s) {
        m.forward(y, x, int(s[0]), int(s[1]));
      },
      [&](float* dx, const float* g) { m.backward(dx, g); });
}

TEST(StonesPyTorch, LectureMultiHeadAttention) {
  LectureMultiHeadAttention<float> m(8, 2, 4, 8, 0.0f);
  check(
      "lecture_mha", m,
      [&](float* y, const float* x, const std::vector<int64_t>& s) {
        m.forward(y, x, int(s[0]), int(s[1]));
      },
      [&](float* dx, const float* g) { m.backward(dx, g); });
}

TEST(StonesPyTorch, FeedForward) {
  FeedForward<float> m(8, 0.0f);
  check(
      "feed_forward", m,
      [&](float* y, const float* x, const std::vector<int64_t>& s) {
        m.forward(y, x, int(s[0] * s[1]));
      },
      [&](float* dx, const float* g) { m.backward(dx, g); });
}

// Rng(seed); m.init(rng); m.forward(..., &rng) must give the fixture's weights and output.
template <typename M, typename Fwd>
void check_seeded(const std::string& name, M& m, uint64_t seed, Fwd fwd) {
  Fixture fx(name);
  Rng rng(seed);
  m.init(rng);
  for (auto& p : test::params_of(m))
    expect_close(*p.value, fx.f("param." + p.name), 0, 0, name + ": init of " + p.name);
  std::vector<float> x = fx.f("x"), want = fx.f("out");
  std::vector<float> out(want.size());
  fwd(out.data(), x.data(), fx.shape("x"), &rng);
  expect_close(out, want, 1e-6, 1e-5, name + ": training-mode output (dropout)");
}

TEST(StonesPyTorchSeeded, CausalAttention) {
  CausalAttention<float> m(3, 2, 6, 0.5f);
  check_seeded("seeded_causal_attention", m, 123,
               [&](float* y, const float* x, const std::vector<int64_t>& s, Rng* r) {
                 m.forward(y, x, int(s[0]), int(s[1]), r);
               });
}

TEST(StonesPyTorchSeeded, MultiHeadAttentionWrapper) {
  MultiHeadAttentionWrapper<float> m(3, 2, 6, 0.5f, 2);
  check_seeded("seeded_mha_wrapper", m, 123,
               [&](float* y, const float* x, const std::vector<int64_t>& s, Rng* r) {
                 m.forward(y, x, int(s[0]), int(s[1]), r);
               });
}

TEST(StonesPyTorchSeeded, MultiHeadAttention) {
  MultiHeadAttention<float> m(3, 4, 6, 0.5f, 2);
  check_seeded("seeded_multi_head_attention", m, 123,
               [&](float* y, const float* x, const std::vector<int64_t>& s, Rng* r) {
                 m.forward(y, x, int(s[0]), int(s[1]), r);
               });
}

TEST(StonesPyTorchSeeded, Head) {
  Head<float> m(8, 4, 8, 0.3f);
  check_seeded("seeded_head", m, 1337,
               [&](float* y, const float* x, const std::vector<int64_t>& s, Rng* r) {
                 m.forward(y, x, int(s[0]), int(s[1]), r);
               });
}

TEST(StonesPyTorchSeeded, LectureMultiHeadAttention) {
  LectureMultiHeadAttention<float> m(8, 2, 4, 8, 0.3f);
  check_seeded("seeded_lecture_mha", m, 1337,
               [&](float* y, const float* x, const std::vector<int64_t>& s, Rng* r) {
                 m.forward(y, x, int(s[0]), int(s[1]), r);
               });
}

TEST(StonesPyTorchSeeded, FeedForward) {
  FeedForward<float> m(8, 0.3f);
  check_seeded("seeded_feed_forward", m, 1337,
               [&](float* y, const float* x, const std::vector<int64_t>& s, Rng* r) {
                 m.forward(y, x, int(s[0] * s[1]), r);
               });
}

}  // namespace
}  // namespace scratchgpt::stones
