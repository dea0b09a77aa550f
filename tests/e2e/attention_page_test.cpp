// attention_page_test.cpp: 'scratchgpt attention' writes a page whose numbers are the model's
// attention: read back from the page's data (float32 in base64), every layer's weights are causal
// softmax rows; layer 0's weights, q, k and v equal those computed here in double from
// the checkpoint's tensors (x = wte + wpe, LayerNorm, c_attn, q.k / sqrt(hs), masked softmax, the
// weighted sum of v); and in every layer the data agrees with itself: softmax(q.k * scale) from its
// q and k is its weights, and sum_j w_j v_j its head outputs. A real browser (Debian's chromium,
// headless) renders the page: one chosen head, a legend, masked cells never in the weights' colour,
// each row's largest weight fully shaded, a thumbnail per layer x head, and the trace's numbers for
// a query picked by the URL. The test skips the browser part, saying so, where chromium is missing
// (CI installs it). Character and BPE models; a 52-character prompt's page stays under 1 MB; bad
// input is a one-line error; a checkpoint path made to break the page's scripts is only data.
#include <gtest/gtest.h>

#include <cctype>
#include <climits>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "core/safetensors.h"
#include "test_util.h"
#include "io/checkpoint.h"
#include "nn/gpt.h"
#include "run/attention.h"
#include "attention_dom_util.h"
#include "train_cli_util.h"

using namespace scratchgpt;
using namespace scratchgpt::test;
namespace fs = std::filesystem;

namespace {

nlohmann::json page_data(const std::string& html_path) {
  const std::string page = slurp(html_path);
  const std::string open = "<script id=\"attention-data\" type=\"application/json\">";
  const size_t a = page.find(open);
  EXPECT_NE(a, std::string::npos);
  const size_t b = page.find("</script>", a);
  return nlohmann::json::parse(page.substr(a + open.size(), b - a - open.size()));
}

// The trace's numbers from the page's own q, k, v: softmax(q.k * scale) over keys 0..i is each
// weights row, in every layer, head and query; and sum_j w_j v_j, the page's head output, is the
// engine's (heads[l]: GPT::attention_heads, (T, C)) where the caller has it.
void expect_trace_agrees(const Numbers& n, const std::vector<std::vector<float>>& heads = {}) {
  for (int l = 0; l < n.L; ++l)
    for (int h = 0; h < n.NH; ++h)
      for (int i = 0; i < n.T; ++i) {
        std::vector<double> s(i + 1);
        double m = -1e300, z = 0;
        for (int j = 0; j <= i; ++j) {
          double d = 0;
          for (int e = 0; e < n.HS; ++e)
            d += n.at(l, i, h * n.HS + e) * n.at(l, j, n.C + h * n.HS + e);
          s[j] = d * n.scale;
          m = std::max(m, s[j]);
        }
        for (int j = 0; j <= i; ++j) z += std::exp(s[j] - m);
        for (int j = 0; j <= i; ++j)
          ASSERT_NEAR(n.w(l, h, i, j), std::exp(s[j] - m) / z, 1e-5)
              << l << " " << h << " " << i << " " << j;
        for (int e = 0; e < n.HS && !heads.empty(); ++e) {
          double y = 0;
          for (int j = 0; j <= i; ++j) y += n.w(l, h, i, j) * n.at(l, j, 2 * n.C + h * n.HS + e);
          ASSERT_NEAR(heads[l][static_cast<size_t>(i) * n.C + h * n.HS + e], y, 1e-5)
              << l << " " << h << " " << i;
        }
      }
}

// Layer 0 in double from the checkpoint: qkv (T, 3C) and the attention (NH, T, T).
struct Layer0 {
  std::vector<double> qkv, att;
};

Layer0 layer0_attention(const Checkpoint& ck, const std::vector<int>& ids) {
  const int C = ck.cfg.gpt.n_embd, NH = ck.cfg.gpt.n_head, HS = C / NH;
  const int T = static_cast<int>(ids.size());
  const std::vector<float> wte = ck.st.f32("wte"), wpe = ck.st.f32("wpe");
  const std::vector<float> lw = ck.st.f32("blocks.0.ln_1.weight");
  const std::vector<float> W = ck.st.f32("blocks.0.attn.c_attn.weight");  // (3C, C)
  const bool bias = ck.cfg.gpt.bias;
  const std::vector<float> lb = bias ? ck.st.f32("blocks.0.ln_1.bias") : std::vector<float>(C, 0);
  const std::vector<float> Wb =
      bias ? ck.st.f32("blocks.0.attn.c_attn.bias") : std::vector<float>(3 * C, 0);
  std::vector<double> qkv(static_cast<size_t>(T) * 3 * C);
  for (int t = 0; t < T; ++t) {
    std::vector<double> x(C), h(C);
    for (int c = 0; c < C; ++c) x[c] = double{wte[ids[t] * C + c]} + wpe[t * C + c];
    double mean = 0, var = 0;
    for (double v : x) mean += v / C;
    for (double v : x) var += (v - mean) * (v - mean) / C;
    for (int c = 0; c < C; ++c) h[c] = (x[c] - mean) / std::sqrt(var + 1e-5) * lw[c] + lb[c];
    for (int o = 0; o < 3 * C; ++o) {
      double s = Wb[o];
      for (int c = 0; c < C; ++c) s += double{W[o * C + c]} * h[c];
      qkv[static_cast<size_t>(t) * 3 * C + o] = s;
    }
  }
  std::vector<double> att(static_cast<size_t>(NH) * T * T, 0.0);
  for (int hd = 0; hd < NH; ++hd)
    for (int i = 0; i < T; ++i) {
      std::vector<double> s(i + 1);
      double m = -1e300, z = 0;
      for (int j = 0; j <= i; ++j) {
        double d = 0;
        for (int e = 0; e < HS; ++e)
          d += qkv[static_cast<size_t>(i) * 3 * C + hd * HS + e] *
               qkv[static_cast<size_t>(j) * 3 * C + C + hd * HS + e];
        s[j] = d / std::sqrt(double(HS));
        m = std::max(m, s[j]);
      }
      for (int j = 0; j <= i; ++j) z += std::exp(s[j] - m);
      for (int j = 0; j <= i; ++j)
        att[(static_cast<size_t>(hd) * T + i) * T + j] = std::exp(s[j] - m) / z;
    }
  return {qkv, att};
}

// The page's layer 0 against the double oracle: weights (the attention) and q, k, v.
void expect_layer0(const Numbers& n, const Layer0& want) {
  const int T = n.T;
  for (int h = 0; h < n.NH; ++h)
    for (int i = 0; i < T; ++i)
      for (int j = 0; j < T; ++j)
        ASSERT_NEAR(n.w(0, h, i, j), want.att[(static_cast<size_t>(h) * T + i) * T + j], 1e-5)
            << h << " " << i;
  for (size_t k = 0; k < want.qkv.size(); ++k) ASSERT_NEAR(n.qkv[0][k], want.qkv[k], 1e-4) << k;
}

void expect_causal_softmax_rows(const Numbers& n) {
  for (int l = 0; l < n.L; ++l)
    for (int h = 0; h < n.NH; ++h)
      for (int i = 0; i < n.T; ++i) {
        double sum = 0;
        for (int j = 0; j <= i; ++j) {
          EXPECT_GE(n.w(l, h, i, j), 0.0);
          sum += n.w(l, h, i, j);
        }
        EXPECT_NEAR(sum, 1.0, 1e-5);
      }
}

bool have_chromium() { return std::system("command -v chromium >/dev/null 2>&1") == 0; }

// The DOM chromium (headless) builds for html with the given #fragment.
std::string browser_dom(const std::string& html, const std::string& fragment) {
  const std::string dom = html + ".dom";
  const std::string cmd =
      "timeout 120 chromium --headless --no-sandbox --disable-gpu --dump-dom 'file://" + html +
      "#" + fragment + "' >'" + dom + "' 2>/dev/null";
  EXPECT_EQ(std::system(cmd.c_str()), 0);
  return slurp(dom);
}

// The page in a real browser, at layer l, head h, query q: one chosen head and a thumbnail per
// layer x head; the legend; the masked future hatched, never in the weights' colour, and no CSS
// rule styling every <line> (one recoloured the hatch); shading per row; the trace's numbers.
void expect_browser_page(const std::string& html, const Numbers& n, int l, int h, int q) {
  if (!have_chromium())
    GTEST_SKIP() << "chromium is not installed (apt-get install chromium): the page was not "
                    "rendered in a browser";
  const std::string frag =
      "layer=" + std::to_string(l) + "&head=" + std::to_string(h) + "&query=" + std::to_string(q);
  const std::string dom = browser_dom(html, frag);
  EXPECT_EQ(count(dom, "<section class=\"panel\""), 1) << "one head at a time";
  EXPECT_EQ(count(dom, "<section class=\"panel\" data-layer=\"" + std::to_string(l) +
                           "\" data-head=\"" + std::to_string(h) + "\""),
            1);
  EXPECT_EQ(count(dom, "<canvas class=\"thumb"), n.L * n.NH) << "the overview's thumbnails";
  EXPECT_EQ(count(dom, "<div class=\"legend\">"), 1);
  EXPECT_NE(dom.find("Per-row shading"), std::string::npos);
  int masked = 0;
  for (size_t at = dom.find("<rect class=\"masked\""); at != std::string::npos;
       at = dom.find("<rect class=\"masked\"", at + 1), ++masked) {
    const std::string tag = dom.substr(at, dom.find('>', at) - at);
    EXPECT_NE(tag.find("fill=\"url(#attention-hatch-"), std::string::npos) << tag;
    EXPECT_EQ(tag.find("1f5fbf"), std::string::npos) << tag;
  }
  EXPECT_EQ(masked, n.T * (n.T - 1) / 2 + 1) << "the future's cells and the legend's swatch";
  const std::string page = slurp(html),
                    css = page.substr(page.find("<style>"),
                                      page.find("</style>") - page.find("<style>"));
  for (size_t at = css.find("line"); at != std::string::npos; at = css.find("line", at + 1))
    if (std::string(" ,}>\n").find(css[at - 1]) != std::string::npos &&
        std::string(" {,:[>\n").find(css[at + 4]) !=
            std::string::npos)  // the bare element selector
      ADD_FAILURE() << "a CSS rule styles every <line>, the hatch's too: "
                    << css.substr(at - 20, 40);
  expect_shading(dom, n, l, h, /*per_row=*/true);
  expect_trace_shown(dom, n, l, h, q);
  expect_shading(browser_dom(html, frag + "&scale=abs"), n, l, h, /*per_row=*/false);
}

// attention_page_data called here on a model built as run_attention builds it: its JSON is the
// page's, and its GPT's head outputs (GPT::attention_heads) are the sums the page computes.
std::vector<std::vector<float>> engine_heads(const Checkpoint& ck, const std::vector<int32_t>& ids,
                                             const nlohmann::json& page) {
  ExecContext ctx;
  ctx.fused_attention_min_T = INT_MAX;
  GPT gpt(ck.cfg.gpt, ctx);
  restore_params(ck, gpt, /*with_optimizer=*/false);
  nlohmann::json d = attention_page_data(ck, gpt, ids);
  d["checkpoint"] = page["checkpoint"];  // the page names the path as given on the command line
  EXPECT_EQ(d, page) << "the page's data is attention_page_data's";
  std::vector<std::vector<float>> heads;
  const size_t n = ids.size() * static_cast<size_t>(ck.cfg.gpt.n_embd);
  for (int l = 0; l < ck.cfg.gpt.n_layer; ++l)
    heads.emplace_back(gpt.attention_heads(l), gpt.attention_heads(l) + n);
  return heads;
}

}  // namespace

TEST(AttentionPage, CharacterModelPageHoldsItsAttention) {
  const std::string dir = scratch_dir("attention_char");
  const std::string data = prepared(dir, shakespeare(20000));
  CliResult r = run_cli("train --preset shakespeare-char-small --n-layer 2 --n-head 2 --n-embd 16 "
                        "--block-size 16 --batch-size 2 --max-iters 3 --eval-interval 3 "
                        "--eval-iters 1 --threads 1 --data-dir '" + data + "' --out-dir '" + dir +
                        "/run'");
  ASSERT_EQ(r.rc, 0) << r.err;
  const std::string ck_path = dir + "/run/last.safetensors";
  r = run_cli("attention --checkpoint '" + ck_path + "' --prompt 'ROMEO: hi' --out '" + dir +
              "/page.html'");
  ASSERT_EQ(r.rc, 0) << r.err;
  const nlohmann::json d = page_data(dir + "/page.html");
  const Checkpoint ck = load_checkpoint(ck_path);
  const std::vector<int32_t> ids32 = ck.tokenizer.encode("ROMEO: hi");
  const std::vector<int> ids(ids32.begin(), ids32.end());
  ASSERT_EQ(d["ids"].get<std::vector<int>>(), ids);
  EXPECT_EQ(d["tokens"][0], "R");
  EXPECT_EQ(d["tokens"][6], "\xC2\xB7");  // the space, shown as a middle dot
  const Numbers n = numbers(d);
  ASSERT_EQ(n.L, 2);
  ASSERT_EQ(n.NH, 2);
  expect_causal_softmax_rows(n);
  expect_layer0(n, layer0_attention(ck, ids));
  expect_trace_agrees(n, engine_heads(ck, ids32, d));
  expect_browser_page(dir + "/page.html", n, 1, 1, 5);
}

TEST(AttentionPage, BpeModelLongPromptsAndBadInput) {
  const std::string dir = scratch_dir("attention_bpe");
  CliResult r = run_cli("import --format hf --input '" + fixture_path("gpt2/hub") + "' --out '" +
                        dir + "/gpt2.safetensors' --tokenizer '" + fixture_path("gpt2/tok500") + "'");
  ASSERT_EQ(r.rc, 0) << r.err;
  const std::string ck = dir + "/gpt2.safetensors";
  // 16 is the context: a longer prompt keeps its last 16 tokens, with a note.
  r = run_cli("attention --checkpoint '" + ck + "' --prompt 'First Citizen: Before we proceed any "
              "further, hear me speak. All: Speak, speak.' --out '" + dir + "/page.html'");
  ASSERT_EQ(r.rc, 0) << r.err;
  EXPECT_NE(r.err.find("note:"), std::string::npos) << r.err;
  const nlohmann::json d = page_data(dir + "/page.html");
  ASSERT_EQ(d["ids"].size(), 16u);
  const Numbers n = numbers(d);
  expect_causal_softmax_rows(n);
  const Checkpoint c = load_checkpoint(ck);
  expect_layer0(n, layer0_attention(c, d["ids"].get<std::vector<int>>()));
  expect_trace_agrees(n, engine_heads(c, d["ids"].get<std::vector<int32_t>>(), d));
  // --weights int8: the same prompt through Q8 weights moves the attention a little, not much.
  r = run_cli("attention --checkpoint '" + ck + "' --prompt 'First Citizen: Before we proceed any "
              "further, hear me speak. All: Speak, speak.' --weights int8 --out '" + dir +
              "/int8.html'");
  ASSERT_EQ(r.rc, 0) << r.err;
  const Numbers q = numbers(page_data(dir + "/int8.html"));
  expect_causal_softmax_rows(q);
  double moved = 0;
  for (int l = 0; l < n.L; ++l)
    for (int h = 0; h < n.NH; ++h)
      for (int i = 0; i < n.T; ++i)
        for (int j = 0; j <= i; ++j) moved = std::max(moved, std::fabs(q.w(l, h, i, j) - n.w(l, h, i, j)));
  EXPECT_GT(moved, 0.0) << "int8 weights should change the attention a little";
  EXPECT_LT(moved, 0.05);
  expect_error(run_cli("attention --checkpoint '" + ck + "' --prompt hi --weights int4 --out '" +
                       dir + "/x.html'"),
               "--weights");
  expect_error(run_cli("attention --checkpoint '" + ck + "' --prompt '' --out '" + dir + "/x.html'"),
               "--prompt is empty");
  expect_error(run_cli("attention --checkpoint '" + dir + "/none.safetensors' --prompt hi --out '" +
                       dir + "/x.html'"),
               "not found");
  const std::string data = prepared(dir, shakespeare(20000));
  r = run_cli("train --preset bigram --max-iters 1 --eval-interval 1 --eval-iters 1 --data-dir '" +
              data + "' --out-dir '" + dir + "/bigram'");
  ASSERT_EQ(r.rc, 0) << r.err;
  expect_error(run_cli("attention --checkpoint '" + dir + "/bigram/last.safetensors' --prompt hi "
                       "--out '" + dir + "/x.html'"),
               "bigram");
  EXPECT_FALSE(fs::exists(dir + "/x.html"));
}

// A checkpoint's path is data, never markup or script: one holding "</script>" and "<!--<script>"
// (raw in the page's data island, the first would end it and the second swallow the page's own
// script) reaches every <script> with each < escaped (core/html.h's script_json), reads back
// intact from the page's data, and the page still renders its panels in a browser.
TEST(AttentionPage, AHostilePathCannotBreakThePagesScripts) {
  const std::string dir = scratch_dir("attention_hostile");
  const std::string hostile = dir + "/a</script><!--<script>b";
  fs::create_directories(hostile);
  const std::string ck = hostile + "/gpt2.safetensors";
  CliResult r = run_cli("import --format hf --input '" + fixture_path("gpt2/hub") + "' --out '" +
                        ck + "' --tokenizer '" + fixture_path("gpt2/tok500") + "'");
  ASSERT_EQ(r.rc, 0) << r.err;
  r = run_cli("attention --checkpoint '" + ck + "' --prompt 'First Citizen:' --out '" + dir +
              "/page.html'");
  ASSERT_EQ(r.rc, 0) << r.err;
  const std::string page = slurp(dir + "/page.html");
  std::string lower = page;  // the HTML parser matches tag names in any case
  for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  // Each script's data runs from its open tag to the first "</script", where a browser ends it.
  int scripts = 0;
  for (size_t at = lower.find("<script"); at != std::string::npos;
       at = lower.find("<script", at + 1)) {
    const size_t body = lower.find('>', at) + 1, end = lower.find("</script", body);
    ASSERT_NE(end, std::string::npos);
    const std::string data = lower.substr(body, end - body);
    EXPECT_EQ(data.find("<!--"), std::string::npos) << data.substr(0, 200);
    EXPECT_EQ(data.find("<script"), std::string::npos) << data.substr(0, 200);
    ++scripts;
    at = end;
  }
  // The data island and the page's own script; no "<!--" anywhere else either (the title is
  // escaped).
  EXPECT_EQ(scripts, 2);
  EXPECT_EQ(page.find("<!--"), std::string::npos);
  const nlohmann::json d = page_data(dir + "/page.html");
  EXPECT_EQ(d["checkpoint"], ck);
  const Numbers n = numbers(d);
  expect_causal_softmax_rows(n);
  expect_browser_page(dir + "/page.html", n, 0, 0, n.T - 1);
}

// The issue's case: a 52-character prompt through shakespeare-char-small's shape (4 layers x 4
// heads, C = 128, context 64) made a 6.2 MB page of 16 panels; with the numbers as float32 in
// base64 and one head drawn at a time it stays under 1 MB, and the browser draws it whole.
TEST(AttentionPage, A52CharacterPromptStaysSmall) {
  const std::string dir = scratch_dir("attention_size");
  const std::string data = prepared(dir, shakespeare(20000));
  CliResult r = run_cli("train --preset shakespeare-char-small --batch-size 2 --max-iters 1 "
                        "--eval-interval 1 --eval-iters 1 --threads 1 --data-dir '" + data +
                        "' --out-dir '" + dir + "/run'");
  ASSERT_EQ(r.rc, 0) << r.err;
  const std::string prompt = "ROMEO: O, she doth teach the torches to burn bright!";
  ASSERT_EQ(prompt.size(), 52u);
  r = run_cli("attention --checkpoint '" + dir + "/run/last.safetensors' --prompt '" + prompt +
              "' --out '" + dir + "/page.html'");
  ASSERT_EQ(r.rc, 0) << r.err;
  const size_t bytes = fs::file_size(dir + "/page.html");
  std::printf("a 52-character prompt, 4 layers x 4 heads, C = 128: %zu bytes\n", bytes);
  EXPECT_LT(bytes, 1000000u);
  const Numbers n = numbers(page_data(dir + "/page.html"));
  ASSERT_EQ(n.T, 52);
  expect_trace_agrees(n);
  expect_browser_page(dir + "/page.html", n, 3, 2, 51);
}
