// attention_page_test.cpp: 'scratchgpt attention' writes a page whose numbers are the model's
// attention: read back from the page's data, every layer's weights are causal softmax rows, and
// layer 0's equal the weights computed here in double from the checkpoint's tensors (x = wte + wpe,
// LayerNorm, c_attn, q.k / sqrt(hs), masked softmax). A real browser (Debian's chromium, headless)
// renders the page to one panel per layer and head; the test skips that part, saying so, where
// chromium is missing (CI installs it). Character and BPE models; bad input is a one-line error; a
// checkpoint path made to break the page's scripts is only data.
#include <gtest/gtest.h>

#include <cctype>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <set>

#include "core/safetensors.h"
#include "test_util.h"
#include "io/checkpoint.h"
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

// Layer 0's attention in double from the checkpoint: (NH, T, T).
std::vector<double> layer0_attention(const Checkpoint& ck, const std::vector<int>& ids) {
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
  return att;
}

void expect_causal_softmax_rows(const nlohmann::json& d, int T) {
  for (const auto& layer : d["weights"])
    for (const auto& head : layer) {
      ASSERT_EQ(head.size(), static_cast<size_t>(T * T));
      for (int i = 0; i < T; ++i) {
        double sum = 0;
        for (int j = 0; j < T; ++j) {
          const double w = head[i * T + j];
          if (j > i) {
            EXPECT_EQ(w, 0.0) << "the future is masked";
          }
          sum += w;
        }
        EXPECT_NEAR(sum, 1.0, 1e-5);
      }
    }
}

// The page in a real browser: one panel per layer and head, each pair once.
void expect_browser_panels(const std::string& html, int L, int NH) {
  if (std::system("command -v chromium >/dev/null 2>&1") != 0)
    GTEST_SKIP() << "chromium is not installed (apt-get install chromium): the page was not "
                    "rendered in a browser";
  const std::string dom = html + ".dom";
  const std::string cmd = "timeout 120 chromium --headless --no-sandbox --disable-gpu --dump-dom 'file://" +
                          html + "' >'" + dom + "' 2>/dev/null";
  ASSERT_EQ(std::system(cmd.c_str()), 0);
  const std::string text = slurp(dom);
  const std::string open = "<section class=\"panel\" data-layer=\"";
  std::set<std::pair<int, int>> seen;
  for (size_t at = text.find(open); at != std::string::npos; at = text.find(open, at + 1)) {
    int l = -1, h = -1;
    ASSERT_EQ(std::sscanf(text.c_str() + at + open.size(), "%d\" data-head=\"%d", &l, &h), 2);
    seen.insert({l, h});
  }
  EXPECT_EQ(seen.size(), static_cast<size_t>(L * NH));
  for (int l = 0; l < L; ++l)
    for (int h = 0; h < NH; ++h) EXPECT_TRUE(seen.count({l, h})) << l << "," << h;
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
  const int T = static_cast<int>(ids.size());
  ASSERT_EQ(d["weights"].size(), 2u);
  ASSERT_EQ(d["weights"][0].size(), 2u);
  expect_causal_softmax_rows(d, T);
  const std::vector<double> want = layer0_attention(ck, ids);
  for (int h = 0; h < 2; ++h)
    for (int i = 0; i < T * T; ++i)
      EXPECT_NEAR(d["weights"][0][h][i].get<double>(), want[static_cast<size_t>(h * T * T + i)], 1e-5);
  expect_browser_panels(dir + "/page.html", 2, 2);
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
  expect_causal_softmax_rows(d, 16);
  const Checkpoint c = load_checkpoint(ck);
  const std::vector<int> ids = d["ids"].get<std::vector<int>>();
  const std::vector<double> want = layer0_attention(c, ids);
  for (int i = 0; i < 16 * 16; ++i)
    EXPECT_NEAR(d["weights"][0][1][i].get<double>(), want[static_cast<size_t>(256 + i)], 1e-5);
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
  expect_causal_softmax_rows(d, static_cast<int>(d["ids"].size()));
  expect_browser_panels(dir + "/page.html", d["n_layer"].get<int>(), d["n_head"].get<int>());
}
