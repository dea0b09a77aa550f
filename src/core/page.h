// page.h: the one way scratchgpt writes an HTML page (the attention page, the training report, a
// lesson's trace): one self-contained file, nothing fetched. Its static markup, CSS and JavaScript
// are the files of assets/, embedded in the binary at build time (cmake/embed_assets.cmake); its
// data is one JSON island written with nlohmann-json through script_json (core/html.h), which the
// page's script reads and draws; text in markup goes through html_escape (core/html.h). Written
// under the rule for user outputs (core/atomic_file.h). Leaves out: templating (a page's script
// fills its markup from the island), external files, a server.
#pragma once

#include <cstddef>
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "core/atomic_file.h"

namespace scratchgpt {

// A file of assets/ by its name ("attention.js"), as embedded at build time; an Error names one
// that is not there (a page asking for an asset nobody wrote).
std::string_view page_asset(std::string_view name);

// Every field has a default, so a page names only what it has: Page{.title = ..., .body = ...}.
struct Page {
  std::string title{};                 // plain text (escaped here)
  std::string style{};                 // the asset holding its CSS ("": none)
  std::string body{};                  // markup: an asset, or built with html_escape
  std::string data_id{};               // the id of its JSON island ("": no island)
  std::vector<std::string> scripts{};  // assets of its JavaScript, in order, as one <script>
  int refresh_s = 0;                   // > 0: the page reloads itself this often
};

// The page's text: <head> (title, refresh, style), the body, then the island (data_id), then
// its script.
std::string render_page(const Page& page, const nlohmann::json& data);
std::string render_page(const Page& page);  // a page without data

// render_page written through an AtomicFile under the rule for user outputs.
void write_page(const std::string& path, const UserOutput& rule, const Page& page,
                const nlohmann::json& data);
void write_page(const std::string& path, const UserOutput& rule, const Page& page);

// One embedded file, as the generated embedded_assets.cpp lists them (the list ends with a null
// name): bytes[size] is a 0.
struct EmbeddedAsset {
  const char* name;
  const unsigned char* bytes;
  size_t size;
};
extern const EmbeddedAsset kEmbeddedAssets[];

}  // namespace scratchgpt
