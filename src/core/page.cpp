// page.cpp: see page.h.
#include "core/page.h"

#include <nlohmann/json.hpp>

#include "core/check.h"
#include "core/html.h"

namespace scratchgpt {

std::string_view page_asset(std::string_view name) {
  for (const EmbeddedAsset* a = kEmbeddedAssets; a->name != nullptr; ++a)
    if (name == a->name) return {reinterpret_cast<const char*>(a->bytes), a->size};
  fail("no page asset ", std::string(name), " was embedded: add assets/", std::string(name),
       " and rebuild");
}

namespace {

std::string render(const Page& page, const nlohmann::json* data) {
  std::string h = "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>" +
                  html_escape(page.title) + "</title>";
  if (page.refresh_s > 0)
    h += "<meta http-equiv=\"refresh\" content=\"" + std::to_string(page.refresh_s) + "\">";
  if (!page.style.empty()) h += "<style>\n" + std::string(page_asset(page.style)) + "</style>";
  h += "</head>\n<body>\n" + page.body;
  if (data != nullptr) {
    SG_CHECK(!page.data_id.empty(), "a page's data island needs an id");
    // Invalid UTF-8 (a path's bytes) becomes U+FFFD instead of failing the page.
    const std::string json = data->dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
    h += "<script id=\"" + html_escape(page.data_id) + "\" type=\"application/json\">" +
         script_json(json) + "</script>\n";
  }
  if (!page.scripts.empty()) {
    h += "<script>\n";
    for (const std::string& s : page.scripts) h += page_asset(s);
    h += "</script>\n";
  }
  return h + "</body></html>\n";
}

}  // namespace

std::string render_page(const Page& page, const nlohmann::json& data) {
  return render(page, &data);
}

std::string render_page(const Page& page) { return render(page, nullptr); }

void write_page(const std::string& path, const UserOutput& rule, const Page& page,
                const nlohmann::json& data) {
  write_file_atomic(path, render(page, &data), &rule);
}

void write_page(const std::string& path, const UserOutput& rule, const Page& page) {
  write_file_atomic(path, render(page, nullptr), &rule);
}

}  // namespace scratchgpt
