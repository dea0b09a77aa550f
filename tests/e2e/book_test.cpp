// book_test.cpp: the lesson book in the browser (scripts/web.sh builds it into build/web/).
// Headless Chromium loads each lesson page from file:// at three settings or more (the text's own
// among them), with every host name unresolvable, and the numbers in its DOM must equal those of
// `scratchgpt lesson NAME <the same flags> --json` (the oracle) to the 4 decimals shown; a netlog
// shows that no page sends a request; the book's JavaScript and wasm stay under 3 MB.
// Skipped, saying why, where build/web/ or Chromium is missing. Leaves out: clicking the controls
// (a page reads its settings from the URL query the controls write).
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "scratch_dir.h"

namespace {

namespace fs = std::filesystem;
using Settings = std::vector<std::pair<std::string, std::string>>;  // texts' name -> value

fs::path book_dir() {
  const char* env = std::getenv("SCRATCHGPT_WEB_DIR");
  return env ? fs::path(env) : fs::path(SCRATCHGPT_SOURCE_DIR) / "build" / "web";
}

std::string chromium() {
  const char* env = std::getenv("SCRATCHGPT_CHROMIUM");
  return env ? env : "/usr/bin/chromium";
}

// Skips the test unless the book is built and Chromium is there.
#define SKIP_WITHOUT_BOOK()                                                             \
  do {                                                                                  \
    if (!fs::exists(book_dir() / "lessons.js"))                                         \
      GTEST_SKIP() << book_dir() << "/lessons.js not built: run scripts/web.sh (needs " \
                   << "emscripten: apt-get install emscripten node-acorn)";             \
    if (!fs::exists(chromium()))                                                        \
      GTEST_SKIP() << chromium() << " not found: apt-get install chromium (or set "     \
                   << "SCRATCHGPT_CHROMIUM)";                                           \
  } while (0)

std::string read_file(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

std::string run(const std::string& cmd) {
  std::string out;
  FILE* p = popen(cmd.c_str(), "r");
  if (!p) return out;
  char buf[65536];
  for (size_t n; (n = fread(buf, 1, sizeof buf, p)) > 0;) out.append(buf, n);
  pclose(p);
  return out;
}

// Chromium's DOM of `url` after its scripts ran, every host unresolvable; `netlog` (if not
// empty) records what the network stack was asked for. `profile` keeps parallel runs apart.
std::string dump_dom(const std::string& url, const fs::path& profile, const fs::path& netlog = {}) {
  std::string cmd = "timeout 90 '" + chromium() +
                    "' --headless --disable-gpu --no-sandbox --no-first-run "
                    "--disable-background-networking --host-resolver-rules='MAP * ~NOTFOUND' "
                    "--virtual-time-budget=5000 --user-data-dir='" +
                    profile.string() + "'";
  if (!netlog.empty()) cmd += " --log-net-log='" + netlog.string() + "'";
  return run(cmd + " --dump-dom '" + url + "' 2>/dev/null");
}

struct Case {
  std::string lesson;
  Settings settings;
};

std::string query(const Settings& s, bool dashed = false) {
  std::string q;
  for (const auto& [k, v] : s) {
    std::string key = k;
    if (dashed) std::replace(key.begin(), key.end(), '_', '-');
    q += (q.empty() ? "?" : "&") + key + "=" + v;
  }
  return q;
}

// The lessons with --trace: their pages show the trace unless the query says trace=0.
bool traced(const std::string& lesson) {
  return lesson == "head" || lesson == "block" || lesson == "causal-attention" ||
         lesson == "multi-head";
}

// The command line's flags for a page's settings.
std::string cli_flags(const std::string& lesson, const Settings& s) {
  std::string f;
  bool trace = traced(lesson);
  for (const auto& [k, v] : s) {
    std::string flag = k;
    std::replace(flag.begin(), flag.end(), '_', '-');
    if (flag == "trace")
      trace = v != "0";
    else
      f += " --" + flag + " " + v;
  }
  return f + (trace ? " --trace" : "");
}

// What a page shows, in document order: step titles, numbers (cell texts) and sizes.
struct Shown {
  std::vector<std::string> titles, numbers, sizes;
  std::string error;
  bool ready = false;
};

std::string unescape(std::string s) {
  for (auto [from, to] : {std::pair{"&lt;", "<"}, {"&gt;", ">"}, {"&quot;", "\""}, {"&amp;", "&"}})
    for (size_t at; (at = s.find(from)) != std::string::npos;) s.replace(at, strlen(from), to);
  return s;
}

// The text of each element whose opening tag contains `marker`, in order.
std::vector<std::string> texts_after(const std::string& dom, const std::string& marker) {
  std::vector<std::string> out;
  for (size_t at = 0; (at = dom.find(marker, at)) != std::string::npos; ++at) {
    const size_t open = dom.find('>', at), close = dom.find('<', open);
    out.push_back(unescape(dom.substr(open + 1, close - open - 1)));
  }
  return out;
}

Shown parse_dom(const std::string& dom) {
  Shown s;
  s.ready = dom.find("data-ready=\"1\"") != std::string::npos;
  s.titles = texts_after(dom, "<h2 class=\"title\"");
  // cells and scalars: class "v", "v masked" or "v scalar", in document order
  for (size_t at = 0; (at = dom.find("class=\"v", at)) != std::string::npos; ++at) {
    const char next = dom[at + 8];
    if (next != '"' && next != ' ') continue;
    const size_t open = dom.find('>', at), close = dom.find('<', open);
    s.numbers.push_back(dom.substr(open + 1, close - open - 1));
  }
  for (size_t at = 0; (at = dom.find("data-shape=\"", at)) != std::string::npos; ++at)
    s.sizes.push_back(dom.substr(at + 12, dom.find('"', at + 12) - at - 12));
  const size_t e = dom.find("id=\"error\"");
  if (e != std::string::npos &&
      dom.substr(e, dom.find('>', e) - e).find("hidden") == std::string::npos)
    s.error = texts_after(dom.substr(e), "id=\"error\"")[0];
  return s;
}

// The same from the CLI's record: numbers as the page writes them, sizes "4,8,16".
struct Expected {
  std::vector<std::string> titles, sizes;
  std::vector<std::pair<double, std::string>> numbers;  // value, or NaN and the exact text
};

Expected parse_record(const nlohmann::json& steps) {
  Expected e;
  for (const auto& st : steps) {
    if (!st["title"].get<std::string>().empty()) e.titles.push_back(st["title"]);
    for (const auto& it : st["items"]) {
      if (it["kind"] == "size") {
        std::string s;
        for (const auto& d : it["shape"])
          s += (s.empty() ? "" : ",") + std::to_string(d.get<int64_t>());
        e.sizes.push_back(s);
      }
      if (it["kind"] != "tensor") continue;
      const bool integer = it.value("integer", false);
      for (size_t i = 0; i < it["values"].size(); ++i) {
        const auto& v = it["values"][i];
        std::string cell = it["cells"][i];
        cell.erase(0, cell.find_first_not_of(' '));
        if (v.is_null())
          e.numbers.push_back({NAN, cell});
        else if (integer)
          e.numbers.push_back({NAN, std::to_string(v.get<int64_t>())});
        else
          e.numbers.push_back({v.get<double>(), ""});
      }
    }
  }
  return e;
}

// "" when the page shows the record's numbers, else what differs (the first few).
std::string compare(const Shown& got, const Expected& want) {
  std::ostringstream why;
  if (got.titles != want.titles) why << "step titles differ; ";
  if (got.sizes != want.sizes) why << "sizes differ; ";
  if (got.numbers.size() != want.numbers.size())
    why << "the page shows " << got.numbers.size() << " numbers, the CLI " << want.numbers.size()
        << "; ";
  int bad = 0;
  for (size_t i = 0; i < std::min(got.numbers.size(), want.numbers.size()) && bad < 5; ++i) {
    const auto& [value, text] = want.numbers[i];
    const std::string& shown = got.numbers[i];
    bool ok;
    if (std::isnan(value)) {
      ok = shown == text;
    } else {
      const size_t dot = shown.find('.');
      ok = dot != std::string::npos && shown.size() - dot - 1 == 4 &&
           std::fabs(std::strtod(shown.c_str(), nullptr) - value) <= 0.5e-4 + 1e-7;
    }
    if (!ok)
      why << "number " << i << ": page " << shown << ", CLI "
          << (text.empty() ? std::to_string(value) : text) << "; ",
          ++bad;
  }
  return why.str();
}

// Runs fn(i) for i in [0, n) on a few threads (one Chromium each).
template <typename Fn>
void parallel(size_t n, Fn fn) {
  std::atomic<size_t> next{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&] {
      for (size_t i; (i = next++) < n;) fn(i);
    });
  for (auto& th : threads) th.join();
}

const std::vector<Case>& cases() {
  static const std::vector<Case> kCases = {
      {"averaging", {}},
      {"averaging", {{"B", "1"}, {"T", "3"}, {"C", "2"}, {"seed", "7"}}},
      {"averaging", {{"B", "2"}, {"T", "5"}, {"C", "3"}, {"seed", "42"}}},
      {"positional", {}},
      {"positional", {{"B", "1"}, {"T", "3"}, {"C", "4"}, {"block_size", "5"}, {"seed", "3"}}},
      {"positional", {{"T", "2"}, {"C", "3"}, {"seed", "9"}}},
      {"head", {}},
      {"head", {{"B", "1"}, {"T", "2"}, {"C", "3"}, {"head_size", "3"}, {"seed", "7"}}},
      {"head",
       {{"B", "2"}, {"T", "5"}, {"C", "6"}, {"head_size", "4"}, {"seed", "11"}, {"trace", "0"}}},
      {"head", {{"trace", "0"}}},
      {"block", {}},
      {"block", {{"trace", "0"}}},
      {"block",
       {{"B", "1"},
        {"T", "3"},
        {"C", "6"},
        {"n_head", "3"},
        {"block_size", "4"},
        {"seed", "5"},
        {"trace", "1"}}},
      {"simplified-attention", {}},
      {"simplified-attention", {{"T", "4"}, {"d_in", "5"}, {"seed", "1"}}},
      {"simplified-attention", {{"T", "3"}, {"d_in", "2"}}},
      {"trainable-weights", {}},
      {"trainable-weights", {{"T", "4"}, {"d_in", "3"}, {"d_out", "5"}, {"seed", "2"}}},
      {"trainable-weights", {{"T", "5"}, {"d_in", "4"}, {"d_out", "2"}, {"seed", "3"}}},
      {"causal-attention", {}},
      {"causal-attention", {{"trace", "0"}}},
      {"causal-attention",
       {{"T", "4"}, {"d_in", "3"}, {"d_out", "2"}, {"seed", "8"}, {"trace", "1"}}},
      {"multi-head", {}},
      {"multi-head", {{"trace", "0"}}},
      {"multi-head",
       {{"T", "5"}, {"d_in", "4"}, {"d_out", "6"}, {"n_head", "3"}, {"seed", "4"}, {"trace", "1"}}},
  };
  return kCases;
}

std::string page_url(const std::string& lesson, const std::string& q) {
  return "file://" + fs::absolute(book_dir() / (lesson + ".html")).string() + q;
}

TEST(Book, EveryLessonPageShowsTheCliNumbersAtThreeSettings) {
  SKIP_WITHOUT_BOOK();
  const fs::path tmp = scratchgpt::test::scratch_dir("book");
  std::vector<std::string> doms(cases().size());
  parallel(cases().size(), [&](size_t i) {
    doms[i] = dump_dom(page_url(cases()[i].lesson, query(cases()[i].settings)),
                       tmp / ("profile" + std::to_string(i)));
  });
  for (size_t i = 0; i < cases().size(); ++i) {
    const Case& c = cases()[i];
    const std::string args = "lesson " + c.lesson + cli_flags(c.lesson, c.settings) + " --json";
    const std::string json = run(std::string("'") + SCRATCHGPT_BINARY + "' " + args);
    const Shown got = parse_dom(doms[i]);
    SCOPED_TRACE(c.lesson + ".html" + query(c.settings) + " vs scratchgpt " + args);
    ASSERT_TRUE(got.ready) << "the page did not finish drawing";
    EXPECT_EQ(got.error, "");
    const Expected want = parse_record(nlohmann::json::parse(json));
    EXPECT_GT(want.numbers.size(), 4u);
    EXPECT_EQ(compare(got, want), "");
  }
}

TEST(Book, DashedNamesAndBadSettingsAsTheCli) {
  SKIP_WITHOUT_BOOK();
  const fs::path tmp = scratchgpt::test::scratch_dir("book");
  // head-size as the CLI spells it reads as head_size.
  const Settings s = {{"B", "1"}, {"T", "2"}, {"C", "3"}, {"head_size", "3"}, {"trace", "1"}};
  const Shown got = parse_dom(dump_dom(page_url("head", query(s, true)), tmp / "a"));
  const std::string json = run(std::string("'") + SCRATCHGPT_BINARY + "' lesson head" +
                               cli_flags("head", s) + " --json");
  EXPECT_EQ(compare(got, parse_record(nlohmann::json::parse(json))), "");
  // A bad setting: the CLI's one-line error on the page, nothing drawn.
  const Shown bad = parse_dom(dump_dom(page_url("multi-head", "?d_out=5&n_head=2"), tmp / "b"));
  const std::string cli_error =
      run(std::string("'") + SCRATCHGPT_BINARY + "' lesson multi-head --d-out 5 --n-head 2 2>&1");
  ASSERT_EQ(cli_error.rfind("error: ", 0), 0u) << cli_error;
  const std::string message = cli_error.substr(7, cli_error.find('\n') - 7);
  EXPECT_EQ(bad.error.substr(0, message.size()), message);
  EXPECT_TRUE(bad.numbers.empty());
}

// A page inside a harness page (same origin with --allow-file-access-from-files) that sets B to 1
// and unticks trace as a learner would, then copies the redrawn steps and the page's new query.
std::string harness(const std::string& page_url) {
  return "<pre id=\"query\"></pre><div id=\"copy\"></div><iframe id=\"f\" src=\"" + page_url +
         "\"></iframe><script>\n"
         "const f = document.getElementById('f');\n"
         "f.addEventListener('load', () => setTimeout(() => {\n"
         "  const d = f.contentDocument, inputs = [...d.querySelectorAll('#controls input')];\n"
         "  const b = inputs.find(i => i.previousSibling.textContent === 'B');\n"
         "  b.value = '1'; b.dispatchEvent(new Event('input'));\n"
         "  const t = inputs.find(i => i.type === 'checkbox');\n"
         "  t.checked = false; t.dispatchEvent(new Event('change'));\n"
         "  setTimeout(() => {\n"
         "    document.getElementById('query').textContent = f.contentWindow.location.search;\n"
         "    document.getElementById('copy').innerHTML = d.getElementById('steps').outerHTML;\n"
         "    document.body.dataset.ready = d.body.dataset.ready;\n"
         "  }, 1000);\n"
         "}, 500));\n</script>";
}

TEST(Book, ControlsRecomputeTheStepsAndWriteTheQuery) {
  SKIP_WITHOUT_BOOK();
  const fs::path tmp = scratchgpt::test::scratch_dir("book");
  std::ofstream(tmp / "harness.html") << harness(page_url("head", "?T=3"));
  const std::string dom =
      run("timeout 90 '" + chromium() +
          "' --headless --disable-gpu --no-sandbox --no-first-run "
          "--allow-file-access-from-files --host-resolver-rules='MAP * ~NOTFOUND' "
          "--virtual-time-budget=8000 --user-data-dir='" +
          (tmp / "h").string() + "' --dump-dom 'file://" + (tmp / "harness.html").string() +
          "' 2>/dev/null");
  const size_t q = dom.find("<pre id=\"query\">");
  ASSERT_NE(q, std::string::npos);
  EXPECT_EQ(unescape(dom.substr(q + 16, dom.find('<', q + 16) - q - 16)), "?B=1&T=3&trace=0");
  const std::string json =
      run(std::string("'") + SCRATCHGPT_BINARY + "' lesson head --B 1 --T 3 --json");
  const Shown got = parse_dom(dom);
  ASSERT_TRUE(got.ready);
  EXPECT_EQ(compare(got, parse_record(nlohmann::json::parse(json))), "");
}

// Requests the page made itself (Chromium's own background requests have no origin).
std::vector<std::string> page_requests(const fs::path& netlog) {
  const nlohmann::json log = nlohmann::json::parse(read_file(netlog));
  const int start = log["constants"]["logEventTypes"]["URL_REQUEST_START_JOB"];
  std::vector<std::string> urls;
  for (const auto& ev : log["events"])
    if (ev["type"] == start && ev.contains("params") && ev["params"].contains("url") &&
        ev["params"].value("initiator", "") != "not an origin")
      urls.push_back(ev["params"]["url"]);
  return urls;
}

TEST(Book, NoRequestLeavesThePagesAndTheScriptsStayUnder3MB) {
  SKIP_WITHOUT_BOOK();
  const fs::path tmp = scratchgpt::test::scratch_dir("book");
  // The check can fail: a page that loads an image and fetches is caught.
  std::ofstream(tmp / "probe.html")
      << "<img src=\"http://example.com/x.png\"><script>fetch('https://example.org/y')</script>";
  dump_dom("file://" + (tmp / "probe.html").string(), tmp / "p0", tmp / "probe.json");
  EXPECT_GE(page_requests(tmp / "probe.json").size(), 2u);
  for (const char* page : {"index", "head", "multi-head"}) {
    const fs::path log = tmp / (std::string(page) + ".json");
    const std::string dom =
        dump_dom(page_url(page, std::string(page) == "index" ? "" : "?trace=1"), tmp / page, log);
    EXPECT_NE(dom.find("</html>"), std::string::npos) << page;
    EXPECT_EQ(page_requests(log), std::vector<std::string>{}) << page;
  }
  // Every file of the book (the GPT page's in gpt/ too) loads nothing from the network; the
  // lessons' .js and .wasm (the top folder) stay under 3 MB (gpt/ holds the model: gpt_page_test).
  uintmax_t scripts = 0;
  for (const auto& f : fs::recursive_directory_iterator(book_dir())) {
    if (!f.is_regular_file()) continue;
    const std::string text = read_file(f.path());
    EXPECT_EQ(text.find("http://"), std::string::npos) << f.path();
    EXPECT_EQ(text.find("https://"), std::string::npos) << f.path();
    const bool code = f.path().extension() == ".js" || f.path().extension() == ".wasm";
    if (code && f.path().parent_path() == book_dir()) scripts += f.file_size();
  }
  EXPECT_LT(scripts, 3u * 1000 * 1000) << "the book's .js and .wasm, bytes";
}

}  // namespace
