// gpt2_fixture_quant_test.cpp: GPT::convert_weights (--weights bf16 and int8) on the GPT-2
// fixture (tests/fixtures/gpt2/hub, tools/make_gpt2_fixtures.py: GPT-2's layout, tied head,
// biases, tanh GELU, LayerNorm; V=500, C=16, L=2, random weights) against bounds derived from each
// format's rounding, with an oracle in double written here:
//   - the head: the fixture's wte, wpe and ln_f with every block's output projections zeroed
//     (each block then adds exactly 0 at every precision), so the last hidden state is
//     h = ln_f(wte[idx] + wpe[t]) in every model, and each logit h . w_o differs from the double
//     oracle's only by the format's rounding of w_o (and, for Q8, of h):
//       bf16: |w - bf16(w)| <= 2^-8 |w|           so |err| <= 2^-8 sum_k |h_k w_k|
//       Q8:   per block of 32, d = max|x| / 127 and |x - d q| <= d/2, for w and for h, so
//             |h.w - h^.w^| <= sum_b (dw_b/2 sum_k |h_k| + dh_b/2 sum_k (|w_k| + dw_b/2));
//   - the whole model on the fixture's batch (logits.safetensors): the loss within issue 43's bars
//     (bf16 0.2%, int8 1%). Random weights make this loss say little about quality (it is not near
//     ln V = 6.2: the fixture's weights are large), so it is a check, not the quality figure
//     (that is quant_eval_test's and bench/quant_quality.sh's trained models).
// Leaves out: a bound through the blocks (layer norms and attention amplify the rounding by
// factors this test would have to derive per position).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <vector>

#include "io/gpt2_read.h"
#include "kernels/kernels.h"
#include "nn/gpt.h"
#include "test_util.h"

namespace scratchgpt {
namespace {

using kernels::WeightFormat;
const char* name(WeightFormat f) { return enum_name<WeightFormat>(kernels::kWeightFormatNames, f); }

// The fixture's GPT-2 in a GPT (fp32 weights as PyTorch wrote them).
struct Fixture {
  Gpt2Weights w = read_hf(test::fixture_path("gpt2/hub"));
  GPT gpt{w.gpt};
  Fixture() {
    for (Param& p : gpt.params()) w.weights.copy_f32(p.name, p.value.data, p.value.numel());
  }
  std::vector<float> f32(const std::string& name) const { return w.weights.f32(name); }
};

struct Batch {
  std::vector<int32_t> idx, targets;
  int B = 0, T = 0;
};
Batch fixture_batch() {
  const SafeTensors st = test::load_fixture("gpt2/logits.safetensors");
  Batch b{st.i32("idx"), st.i32("targets")};
  b.B = static_cast<int>(st.shape("idx")[0]), b.T = static_cast<int>(st.shape("idx")[1]);
  return b;
}

// h = ln_f(wte[token] + wpe[t]) in double (eps 1e-5, as GPT-2).
std::vector<double> head_input(const Fixture& f, int token, int t) {
  const int C = f.w.gpt.n_embd;
  const std::vector<float> wte = f.f32("wte"), wpe = f.f32("wpe");
  const std::vector<float> g = f.f32("ln_f.weight"), b = f.f32("ln_f.bias");
  std::vector<double> x(C);
  double mean = 0, var = 0;
  for (int k = 0; k < C; ++k)
    mean += x[k] = double{wte[size_t(token) * C + k]} + wpe[size_t(t) * C + k];
  mean /= C;
  for (int k = 0; k < C; ++k) var += (x[k] - mean) * (x[k] - mean);
  const double rstd = 1 / std::sqrt(var / C + 1e-5);
  for (int k = 0; k < C; ++k) x[k] = (x[k] - mean) * rstd * g[k] + b[k];
  return x;
}

// The largest |x| of each block of 32 over k in [b*32, b*32+32), divided by 127: Q8's scale.
double q8_scale(const double* x, int C, int b) {
  double amax = 0;
  for (int k = b * 32; k < std::min(C, b * 32 + 32); ++k) amax = std::max(amax, std::fabs(x[k]));
  return amax / 127;
}

// The bound on |h . w - quantised(h . w)| for one logit (see the file's opening).
double rounding_bound(WeightFormat format, const std::vector<double>& h, const double* w) {
  const int C = static_cast<int>(h.size());
  double abs_dot = 0, bound = 0;
  for (int k = 0; k < C; ++k) abs_dot += std::fabs(h[k] * w[k]);
  if (format == WeightFormat::kBf16) bound = std::ldexp(abs_dot, -8);
  for (int b = 0; format == WeightFormat::kInt8 && b * 32 < C; ++b) {
    const double dw = q8_scale(w, C, b), dh = q8_scale(h.data(), C, b);
    for (int k = b * 32; k < std::min(C, b * 32 + 32); ++k)
      bound += dw / 2 * std::fabs(h[k]) + dh / 2 * (std::fabs(w[k]) + dw / 2);
  }
  return bound + 1e-5 * abs_dot + 1e-6;  // float32's own rounding of h and of the sums
}

TEST(Gpt2FixtureQuant, HeadLogitsStayWithinTheFormatsRoundingBound) {
  Fixture f;
  for (int l = 0; l < f.w.gpt.n_layer; ++l)
    for (const char* part : {"attn.c_proj", "mlp.c_proj"})
      for (const char* what : {".weight", ".bias"}) {
        Param& p = f.gpt.param("blocks." + std::to_string(l) + "." + part + what);
        std::memset(p.value.data, 0, sizeof(float) * static_cast<size_t>(p.value.numel()));
      }
  const Batch batch = fixture_batch();
  const int V = f.w.gpt.vocab_size, C = f.w.gpt.n_embd, BT = batch.B * batch.T;
  const std::vector<float> wte = f.f32("wte");
  std::vector<double> w_o(C);
  for (WeightFormat format : {WeightFormat::kFp32, WeightFormat::kBf16, WeightFormat::kInt8}) {
    f.gpt.convert_weights(format);
    f.gpt.forward(batch.idx.data(), nullptr, batch.B, batch.T, nullptr);
    const Tensor logits = f.gpt.logits();  // (B, T, V)
    double worst_share = 0, worst_err = 0;
    for (int i = 0; i < BT; ++i) {
      const std::vector<double> h = head_input(f, batch.idx[i], i % batch.T);
      for (int o = 0; o < V; ++o) {
        double exact = 0;
        for (int k = 0; k < C; ++k) exact += h[k] * (w_o[k] = wte[size_t(o) * C + k]);
        const double err = std::fabs(logits.data[int64_t{i} * V + o] - exact);
        const double bound = rounding_bound(format, h, w_o.data());
        ASSERT_LE(err, bound) << name(format) << " position " << i << " logit " << o;
        worst_share = std::max(worst_share, err / bound), worst_err = std::max(worst_err, err);
      }
    }
    std::printf("%s: largest logit error %.3g, %.0f%% of its bound\n", name(format), worst_err,
                100 * worst_share);
    if (format == WeightFormat::kInt8) {
      EXPECT_GT(worst_err, 1e-4) << "int8 should round visibly";
    }
  }
}

TEST(Gpt2FixtureQuant, WholeModelLossStaysWithinTheIssuesBars) {
  Fixture f;
  const Batch batch = fixture_batch();
  double loss[3];
  int i = 0;
  for (WeightFormat format : {WeightFormat::kFp32, WeightFormat::kBf16, WeightFormat::kInt8}) {
    f.gpt.convert_weights(format);
    loss[i++] = f.gpt.forward(batch.idx.data(), batch.targets.data(), batch.B, batch.T, nullptr);
  }
  std::printf("fixture batch loss fp32 %.5f  bf16 %.5f (%+.3f%%)  int8 %.5f (%+.3f%%)\n", loss[0],
              loss[1], 100 * (loss[1] / loss[0] - 1), loss[2], 100 * (loss[2] / loss[0] - 1));
  EXPECT_NEAR(loss[0], test::load_fixture("gpt2/logits.safetensors").f64("loss")[0], 1e-5);
  EXPECT_LE(std::fabs(loss[1] / loss[0] - 1), 0.002);
  EXPECT_LE(std::fabs(loss[2] / loss[0] - 1), 0.01);
}

}  // namespace
}  // namespace scratchgpt
