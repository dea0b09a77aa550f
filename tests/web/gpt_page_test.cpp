// gpt_page_test.cpp: the book's trained-GPT page (web/gpt/, built by scripts/web.sh into
// build/web/gpt/) loaded from file:// by headless Chromium shows what the CLI computes for the shipped
// checkpoint: its attention data (weights and q, k, v) equals 'scratchgpt attention's to 1e-5; it
// is drawn by the CLI page's renderer (assets/attention.js) at the layer, head and query of the URL
// query: one head with the legend, per-row shading and the masked future hatched, a thumbnail per
// layer x head, and the query's trace (q, q.k_j, the softmax row, the weighted sum of v) as the
// data makes it; its generated text equals 'scratchgpt sample's for the same seed and settings; no
// request leaves the page (Chromium's net log, whose check is first shown to catch a page that
// fetches); its files stay under 3 MB. Skipped, saying why, where emscripten or chromium is
// missing. Leaves out: clicking (the URL query sets the view; attention_page_test clicks nothing
// either).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <regex>
#include <string>
#include <vector>

#include "e2e/attention_dom_util.h"
#include "e2e/train_cli_util.h"

using namespace scratchgpt;
using namespace scratchgpt::test;
namespace fs = std::filesystem;

namespace {

const std::string kRoot = SCRATCHGPT_SOURCE_DIR;
const std::string kModel = kRoot + "/web/gpt/model/model.safetensors";

bool have(const char* tool) {
  return std::system((std::string("command -v ") + tool + " >/dev/null 2>&1").c_str()) == 0;
}

// A JSON island <script ... id="ID" ...>...</script> of a page or a dumped DOM.
nlohmann::json island(const std::string& html, const std::string& id) {
  const std::regex open("<script[^>]*id=\"" + id + "\"[^>]*>");
  std::smatch m;
  EXPECT_TRUE(std::regex_search(html, m, open)) << "no island " << id;
  if (m.empty()) return {};
  const size_t a = m.position(0) + m.length(0), b = html.find("</script>", a);
  return nlohmann::json::parse(html.substr(a, b - a));
}

std::string url_encode(const std::string& s) {
  std::string out;
  for (unsigned char c : s) {
    char buf[4];
    std::snprintf(buf, sizeof buf, "%%%02X", c);
    out += std::isalnum(c) ? std::string(1, static_cast<char>(c)) : std::string(buf);
  }
  return out;
}

// The page scripts/web.sh built (test.sh builds it first under SCRATCHGPT_WITH_WEB=1); "" if none.
std::string built_page() {
  const std::string page = kRoot + "/build/web/gpt/gpt.html";
  return fs::exists(kRoot + "/build/web/gpt/gpt.js") ? page : std::string();
}

struct Loaded {
  std::string dom, netlog;
};

// Chromium's DOM of the page at `query` after its scripts ran, and its net log. Virtual time may
// run out before the wasm is compiled on a busy machine (compiling is not work Chromium waits
// for), which leaves the page unfinished: up to three tries then.
Loaded load(const std::string& page, const std::string& query, const std::string& dir) {
  const std::string netlog = dir + "/netlog.json", dom = dir + "/dom.html";
  const std::string cmd = "timeout 300 chromium --headless --no-sandbox --disable-gpu "
                          "--virtual-time-budget=120000 --log-net-log='" + netlog +
                          "' --dump-dom 'file://" + page + (query.empty() ? "" : "?") + query +
                          "' >'" + dom + "' 2>/dev/null";
  Loaded got;
  for (int attempt = 0; attempt < 3; ++attempt) {
    EXPECT_EQ(std::system(cmd.c_str()), 0) << cmd;
    got = {slurp(dom), slurp(netlog)};
    if (query.empty() || got.dom.find("data-ready=\"1\"") != std::string::npos) break;
  }
  return got;
}

// The network requests a file:// page made, as Chromium's net log has them (the browser's own,
// such as update checks, carry no page's isolation key and are not counted).
std::vector<std::string> page_requests(const std::string& netlog) {
  std::vector<std::string> urls;
  // {"initiator":"null",...,"network_isolation_key":"file:// ...",...,"url":"http://..."}
  const std::regex req("\"network_isolation_key\":\"file://[^\"]*\"(,\"[a-z_]+\":\"[^\"]*\")*?,\"url\":\"([^\"]*)\"");
  for (auto it = std::sregex_iterator(netlog.begin(), netlog.end(), req);
       it != std::sregex_iterator(); ++it)
    urls.push_back((*it)[2]);
  return urls;
}

// The page's weights and q, k, v against the CLI's: the wasm's scalar kernels and the CLI's SIMD
// ones add in other orders.
void expect_same_numbers(const Numbers& shown, const Numbers& want) {
  double worst_w = 0, worst_qkv = 0;
  for (int l = 0; l < want.L; ++l) {
    for (int h = 0; h < want.NH; ++h)
      for (size_t i = 0; i < want.weights[l][h].size(); ++i)
        worst_w = std::max(worst_w, std::abs(shown.weights[l][h][i] - want.weights[l][h][i]));
    for (size_t i = 0; i < want.qkv[l].size(); ++i)
      worst_qkv = std::max(worst_qkv, double(std::abs(shown.qkv[l][i] - want.qkv[l][i])));
  }
  EXPECT_LE(worst_w, 1e-5) << "page vs scratchgpt attention: weights";
  EXPECT_LE(worst_qkv, 1e-5) << "page vs scratchgpt attention: q, k, v";
}

// assets/attention.js's drawing at layer l, head h, query q: one head, the legend, per-row
// shading, the future hatched (never in the weights' blue), a thumbnail per layer x head, and the
// query's trace, each to the decimals shown of the page's own data.
void expect_drawn(const std::string& dom, const Numbers& n, int l, int h, int q) {
  EXPECT_EQ(count(dom, "<section class=\"panel\" data-layer=\"" + std::to_string(l) +
                           "\" data-head=\"" + std::to_string(h) + "\""), 1) << "one head";
  EXPECT_EQ(count(dom, "<canvas class=\"thumb"), n.L * n.NH) << "the overview's thumbnails";
  EXPECT_EQ(count(dom, "<div class=\"legend\">"), 1) << "the colour legend";
  EXPECT_NE(dom.find("Per-row shading"), std::string::npos) << "the legend's per-row note";
  int masked = 0;
  for (size_t at = dom.find("<rect class=\"masked\""); at != std::string::npos;
       at = dom.find("<rect class=\"masked\"", at + 1), ++masked) {
    const std::string tag = dom.substr(at, dom.find('>', at) - at);
    EXPECT_NE(tag.find("fill=\"url(#attention-hatch-"), std::string::npos) << tag;
  }
  EXPECT_EQ(masked, n.T * (n.T - 1) / 2 + 1) << "the future's cells and the legend's swatch";
  expect_shading(dom, n, l, h, /*per_row=*/true);
  expect_trace_shown(dom, n, l, h, q);
}

TEST(GptPage, ShowsTheClisNumbersOffline) {
  if (built_page().empty())
    GTEST_SKIP() << "build/web/gpt/gpt.js not built: run scripts/web.sh (needs emscripten: "
                    "apt-get install emscripten node-acorn)";
  if (!have("chromium")) GTEST_SKIP() << "chromium is not installed (apt-get install chromium): the page was not loaded";
  const std::string page = built_page();
  ASSERT_FALSE(page.empty());
  const std::string dir = scratch_dir("gpt_page");
  uintmax_t bytes = 0;
  for (const char* f : {"gpt.html", "gpt.js", "gpt_page.js", "gpt.css"})
    bytes += fs::file_size(kRoot + "/build/web/gpt/" + f);
  EXPECT_LT(bytes, 3u << 20) << "the page's files with the engine, its wasm and the model";

  // The detector sees a page's requests: a page that fetches is caught.
  const std::string leak = dir + "/leak.html";
  spit(leak, "<img src=\"http://example.invalid/x.png\"><script>fetch('https://example.invalid/y')</script>");
  EXPECT_EQ(page_requests(load(leak, "", dir).netlog).size(), 2u) << "the net log check is blind";

  struct Case { std::string prompt; int seed, n, layer, head, pos; };
  for (const Case& c : {Case{"ROMEO:\nBut soft, what light", 1337, 120, 2, 1, 9},
                        Case{"First Citizen:\nWe are accounted poor", 7, 60, 0, 3, 20}}) {
    SCOPED_TRACE(c.prompt);
    const std::string query = "prompt=" + url_encode(c.prompt) + "&seed=" + std::to_string(c.seed) +
                              "&n=" + std::to_string(c.n) + "&layer=" + std::to_string(c.layer) +
                              "&head=" + std::to_string(c.head) + "&query=" + std::to_string(c.pos);
    const Loaded got = load(page, query, dir);
    ASSERT_NE(got.dom.find("data-ready=\"1\""), std::string::npos) << "the page did not finish:\n"
                                                                   << got.dom.substr(0, 3000);
    // Nothing but the page's own files, which are read from disk, not requested.
    for (const std::string& u : page_requests(got.netlog)) ADD_FAILURE() << "a request left the page: " << u;

    // Attention: the CLI's data for the same checkpoint and prompt.
    const std::string cli_page = dir + "/cli.html";
    CliResult r = run_cli("attention --checkpoint '" + kModel + "' --prompt '" + c.prompt +
                          "' --out '" + cli_page + "' --overwrite");
    ASSERT_EQ(r.rc, 0) << r.err;
    const nlohmann::json cli = island(slurp(cli_page), "attention-data");
    const nlohmann::json page_data = island(got.dom, "gpt-attention-data");
    EXPECT_EQ(page_data["ids"], cli["ids"]);
    EXPECT_EQ(page_data["tokens"], cli["tokens"]);
    const Numbers want = numbers(cli), shown = numbers(page_data);
    ASSERT_EQ(shown.T, want.T);
    expect_same_numbers(shown, want);
    // Drawn by the renderer at the URL's view: the numbers above, shaded per row, traced.
    expect_drawn(got.dom, shown, c.layer, c.head, c.pos);

    // Generation: the CLI's sample for the same seed and settings.
    r = run_cli("sample --checkpoint '" + kModel + "' --prompt '" + c.prompt + "' --seed " +
                std::to_string(c.seed) + " --max-new-tokens " + std::to_string(c.n) +
                " --temperature 1 --top-k 0");
    ASSERT_EQ(r.rc, 0) << r.err;
    const nlohmann::json gen = island(got.dom, "gpt-generated-data");
    EXPECT_EQ(gen["text"].get<std::string>(), r.out);
  }
}

}  // namespace
