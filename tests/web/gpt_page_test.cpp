// gpt_page_test.cpp: the book's trained-GPT page (web/gpt/, built by scripts/web.sh into
// build/web/gpt/) loaded from file:// by headless Chromium shows what the CLI computes for the shipped
// checkpoint: its attention data equals 'scratchgpt attention's to 1e-5; its traced query's
// softmax column is the CLI's row, and so is the softmax of its shown q.k_j / sqrt(HS); its shown
// output is the CLI's weights times its shown values; its generated text equals 'scratchgpt
// sample's for the same seed and settings; no request leaves the page (Chromium's net log, whose
// check is first shown to catch a page that fetches); its files stay under 3 MB. Skipped, saying
// why, where emscripten or chromium is missing. Leaves out: clicking (the URL query sets the view).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <regex>
#include <string>
#include <vector>

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

// The numbers of the DOM's elements matching `re`'s first group, in order.
std::vector<double> numbers(const std::string& html, const std::string& re) {
  std::vector<double> v;
  const std::regex r(re);
  for (auto it = std::sregex_iterator(html.begin(), html.end(), r); it != std::sregex_iterator(); ++it)
    v.push_back(std::stod((*it)[1]));
  return v;
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
  EXPECT_LT(bytes, 3200u * 1024) << "the page's files with the engine, its wasm and the model";

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
                              "&head=" + std::to_string(c.head) + "&pos=" + std::to_string(c.pos);
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
    const nlohmann::json want = island(slurp(cli_page), "attention-data");
    const nlohmann::json shown = island(got.dom, "gpt-attention-data");
    EXPECT_EQ(shown["ids"], want["ids"]);
    EXPECT_EQ(shown["tokens"], want["tokens"]);
    double worst = 0;
    for (size_t l = 0; l < want["weights"].size(); ++l)
      for (size_t h = 0; h < want["weights"][l].size(); ++h)
        for (size_t i = 0; i < want["weights"][l][h].size(); ++i)
          worst = std::max(worst, std::abs(shown["weights"][l][h][i].get<double>() -
                                           want["weights"][l][h][i].get<double>()));
    EXPECT_LE(worst, 1e-5) << "page vs scratchgpt attention";

    // The trace: its softmax column is the CLI's row (printed to 6 places).
    const std::vector<double> row = numbers(got.dom, "<td class=\"w\">([-0-9.]+)</td>");
    const int T = static_cast<int>(want["ids"].size());
    ASSERT_EQ(static_cast<int>(row.size()), T);
    for (int j = 0; j < T; ++j)
      EXPECT_NEAR(row[j], want["weights"][c.layer][c.head][c.pos * T + j].get<double>(), 6e-7) << j;
    // The traced q and keys make the CLI's row (softmax of q.k_j / sqrt(HS), j <= pos), and the
    // traced values with it make the shown output (sum of weight_j v_j).
    const nlohmann::json tr = island(got.dom, "gpt-trace-data");
    std::vector<double> e;
    double mx = -1e300, sum = 0;
    for (int j = 0; j <= c.pos; ++j) mx = std::max(mx, tr["dots"][j].get<double>() * tr["scale"].get<double>());
    for (int j = 0; j <= c.pos; ++j) {
      double dot = 0;  // q.k_j again, in double, from the shown vectors
      for (size_t i = 0; i < tr["q"].size(); ++i)
        dot += tr["q"][i].get<double>() * tr["keys"][j][i].get<double>();
      EXPECT_NEAR(dot, tr["dots"][j].get<double>(), 1e-4) << j;
      e.push_back(std::exp(tr["dots"][j].get<double>() * tr["scale"].get<double>() - mx));
      sum += e.back();
    }
    for (int j = 0; j <= c.pos; ++j)
      EXPECT_NEAR(e[j] / sum, want["weights"][c.layer][c.head][c.pos * T + j].get<double>(), 1e-5) << j;
    for (size_t i = 0; i < tr["out"].size(); ++i) {
      double y = 0;
      for (int j = 0; j <= c.pos; ++j)
        y += want["weights"][c.layer][c.head][c.pos * T + j].get<double>() * tr["values"][j][i].get<double>();
      EXPECT_NEAR(tr["out"][i].get<double>(), y, 1e-5) << i;
    }

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
