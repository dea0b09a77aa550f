// page_test.cpp: the page helper (core/page.h). Every file of assets/ is embedded byte for byte
// and nothing else is; no script or style asset can end its element early; a page is the frame,
// its escaped title, its body, one JSON island that no data can break out of (script_json) and one
// script; an asset nobody wrote is an Error naming it. The pages themselves are checked end to end
// (attention_page_test, report_test, lesson_test, outputs_test).
#include "core/page.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "core/check.h"

using namespace scratchgpt;
namespace fs = std::filesystem;

namespace {

const fs::path kAssets = fs::path(SCRATCHGPT_SOURCE_DIR) / "assets";

std::string slurp(const fs::path& p) {
  std::ifstream f(p, std::ios::binary);
  std::ostringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

std::string lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

size_t count(const std::string& s, const std::string& what) {
  size_t n = 0;
  for (size_t at = s.find(what); at != std::string::npos; at = s.find(what, at + 1)) ++n;
  return n;
}

}  // namespace

TEST(Page, EveryAssetIsEmbeddedAsItIsOnDisk) {
  std::set<std::string> on_disk, embedded;
  for (const auto& e : fs::directory_iterator(kAssets)) {
    const std::string ext = e.path().extension().string();
    if (ext == ".html" || ext == ".css" || ext == ".js")
      on_disk.insert(e.path().filename().string());
  }
  for (const EmbeddedAsset* a = kEmbeddedAssets; a->name != nullptr; ++a) {
    embedded.insert(a->name);
    EXPECT_EQ(a->bytes[a->size], 0) << a->name;
  }
  EXPECT_EQ(embedded, on_disk) << "rebuild after adding or removing a file of assets/";
  for (const std::string& name : on_disk)
    EXPECT_EQ(std::string(page_asset(name)), slurp(kAssets / name)) << name;
}

// A script's text ends at the first "</script" (any case) and "<!--" can start an escape that
// swallows the rest of the page; a style's at "</style".
TEST(Page, NoAssetCanEndItsElement) {
  for (const EmbeddedAsset* a = kEmbeddedAssets; a->name != nullptr; ++a) {
    const std::string name = a->name, text = lower(std::string(page_asset(name)));
    if (name.ends_with(".js")) {
      EXPECT_EQ(text.find("</script"), std::string::npos) << name;
      EXPECT_EQ(text.find("<!--"), std::string::npos) << name;
      EXPECT_EQ(text.find("<script"), std::string::npos) << name;
    }
    if (name.ends_with(".css")) {
      EXPECT_EQ(text.find("</style"), std::string::npos) << name;
    }
  }
}

TEST(Page, AnAssetNobodyWroteIsAnError) {
  try {
    page_asset("nothing.js");
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("assets/nothing.js"), std::string::npos) << e.what();
  }
}

TEST(Page, ThePageIsTheFrameTheBodyOneIslandAndOneScript) {
  const Page page{.title = "a <b> & \"c\"",
                  .style = "report.css",
                  .body = "<h1>body</h1>\n",
                  .data_id = "the-data",
                  .scripts = {"page.js", "report.js"},
                  .refresh_s = 30};
  const nlohmann::json data = {
      {"path", "x</script><!--<script>y\xE2\x80\xA8z"}, {"bad", std::string("\xFF")}, {"n", 0.1}};
  const std::string html = render_page(page, data);
  EXPECT_EQ(html.rfind("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">", 0), 0u);
  EXPECT_NE(html.find("<title>a &lt;b&gt; &amp; &quot;c&quot;</title>"), std::string::npos);
  EXPECT_NE(html.find("<meta http-equiv=\"refresh\" content=\"30\">"), std::string::npos);
  EXPECT_NE(html.find("<style>\n" + std::string(page_asset("report.css")) + "</style>"),
            std::string::npos);
  EXPECT_NE(html.find("<body>\n<h1>body</h1>\n"), std::string::npos);
  EXPECT_NE(html.find(std::string(page_asset("page.js")) + std::string(page_asset("report.js"))),
            std::string::npos);
  const std::string low = lower(html);
  EXPECT_EQ(count(low, "<script"), 2u);
  EXPECT_EQ(count(low, "</script"), 2u);
  EXPECT_EQ(low.find("<!--"), std::string::npos);
  // The island reads back as the data, an invalid byte as U+FFFD.
  const std::string open = "<script id=\"the-data\" type=\"application/json\">";
  const size_t a = html.find(open), b = html.find("</script>", a);
  ASSERT_NE(a, std::string::npos);
  const nlohmann::json back =
      nlohmann::json::parse(html.substr(a + open.size(), b - a - open.size()));
  EXPECT_EQ(back["path"], data["path"]);
  EXPECT_EQ(back["bad"], "\xEF\xBF\xBD");
  EXPECT_EQ(back["n"].get<double>(), 0.1);
  EXPECT_EQ(html.substr(html.size() - 15), "</body></html>\n");
}

TEST(Page, APageWithoutDataHasNoScriptAtAll) {
  const std::string html =
      render_page(Page{.title = "t", .style = "trace.css", .body = "<p>x</p>\n"});
  EXPECT_EQ(lower(html).find("<script"), std::string::npos);
  EXPECT_EQ(html.find("http-equiv"), std::string::npos);
  EXPECT_NE(html.find("<title>t</title><style>\n"), std::string::npos);
}
