// attention.cpp: see attention.h.
#include "run/attention.h"

#include <algorithm>
#include <climits>
#include <cstdio>
#include <string>
#include <vector>

#include "core/atomic_file.h"
#include "core/check.h"
#include "core/html.h"
#include "core/utf8.h"
#include "io/checkpoint.h"
#include "nn/gpt.h"
#include "run/exec.h"

namespace scratchgpt {

namespace {

// A token's bytes as the page shows them: valid UTF-8 kept, a byte of a character split across
// tokens as U+FFFD, a space as a middle dot, a newline as "\n", a tab as "\t".
std::string visible(const std::string& bytes) {
  std::string out;
  for (size_t pos = 0; pos < bytes.size();) {
    uint32_t cp = 0;
    if (!utf8_next(bytes, pos, &cp)) {
      out += "\xEF\xBF\xBD";
      ++pos;
      continue;
    }
    if (cp == ' ') out += "\xC2\xB7";
    else if (cp == '\n') out += "\\n";
    else if (cp == '\t') out += "\\t";
    else if (cp < 0x20) out += "\xEF\xBF\xBD";
    else out += utf8_encode(cp);
  }
  return out.empty() ? "\xE2\x88\x85" : out;  // an empty token shows as the empty-set sign
}

// A JSON string literal (s is valid UTF-8); script_json (core/html.h) makes the whole JSON safe
// inside the page's <script>.
std::string json_string(const std::string& s) {
  std::string out = "\"";
  for (const char c : s) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (static_cast<unsigned char>(c) < 0x20) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\u%04x", c);
      out += buf;
    } else {
      out += c;
    }
  }
  return out + "\"";
}

std::string fmt(const char* f, double a, double b = 0, double c = 0, double d = 0) {
  char buf[128];
  std::snprintf(buf, sizeof buf, f, a, b, c, d);
  return buf;
}

constexpr int kCell = 22;   // heatmap cell, px
constexpr int kLabel = 70;  // room for the token labels, px

// One panel's heatmap: rows are queries, columns keys; the future is masked.
std::string heatmap_svg(const float* w, int T, const std::vector<std::string>& labels) {
  const int size = kLabel + T * kCell;
  std::string s = fmt("<svg class=\"heatmap\" width=\"%.0f\" height=\"%.0f\" role=\"img\">", size, size);
  for (int j = 0; j < T; ++j)  // key labels along the top, rotated
    s += fmt("<text class=\"key\" data-pos=\"%.0f\" x=\"%.0f\" y=\"%.0f\" transform=\"rotate(-60 %.0f ",
             j, kLabel + j * kCell + kCell / 2, kLabel - 4, kLabel + j * kCell + kCell / 2) +
         fmt("%.0f)\">", kLabel - 4) + html_escape(labels[static_cast<size_t>(j)]) + "</text>";
  for (int i = 0; i < T; ++i) {
    s += fmt("<g class=\"row\" data-row=\"%.0f\">", i);
    s += fmt("<text class=\"query\" data-pos=\"%.0f\" x=\"%.0f\" y=\"%.0f\" text-anchor=\"end\">", i,
             kLabel - 4, kLabel + i * kCell + kCell * 0.7) +
         html_escape(labels[static_cast<size_t>(i)]) + "</text>";
    for (int j = 0; j < T; ++j) {
      const double x = kLabel + j * kCell, y = kLabel + i * kCell;
      if (j > i) {
        s += fmt("<rect class=\"masked\" x=\"%.0f\" y=\"%.0f\" width=\"%.0f\" height=\"%.0f\"/>", x,
                 y, kCell - 1, kCell - 1);
      } else {
        const double v = w[i * T + j];
        s += fmt("<rect class=\"cell\" x=\"%.0f\" y=\"%.0f\" width=\"%.0f\" height=\"%.0f\" ", x, y,
                 kCell - 1, kCell - 1) +
             fmt("fill-opacity=\"%.4f\"><title>", std::max(0.03, v)) +
             html_escape(labels[static_cast<size_t>(i)]) + " \xE2\x86\x92 " +
             html_escape(labels[static_cast<size_t>(j)]) + fmt(": %.4f</title></rect>", v);
      }
    }
    s += "</g>";
  }
  return s + "</svg>";
}

// The same weights as lines from each query (left) to the keys it attends to (right).
std::string lines_svg(const float* w, int T, const std::vector<std::string>& labels) {
  const int row = 18, width = 2 * kLabel + 160, height = T * row + 8;
  std::string s = fmt("<svg class=\"lines\" width=\"%.0f\" height=\"%.0f\" role=\"img\">", width, height);
  for (int i = 0; i < T; ++i) {
    const double y = 4 + i * row + row / 2.0;
    s += fmt("<text class=\"query\" data-pos=\"%.0f\" x=\"%.0f\" y=\"%.1f\" text-anchor=\"end\">", i,
             kLabel - 4, y + 4) +
         html_escape(labels[static_cast<size_t>(i)]) + "</text>";
    s += fmt("<text class=\"key\" data-pos=\"%.0f\" x=\"%.0f\" y=\"%.1f\">", i, width - kLabel + 4,
             y + 4) +
         html_escape(labels[static_cast<size_t>(i)]) + "</text>";
  }
  for (int i = 0; i < T; ++i)
    for (int j = 0; j <= i; ++j) {
      const double v = w[i * T + j];
      if (v < 0.01) continue;
      s += fmt("<line data-row=\"%.0f\" x1=\"%.0f\" y1=\"%.1f\" ", i, kLabel, 4 + i * row + row / 2.0) +
           fmt("x2=\"%.0f\" y2=\"%.1f\" stroke-width=\"%.2f\" stroke-opacity=\"%.3f\"/>",
               width - kLabel, 4 + j * row + row / 2.0, 0.5 + 4.0 * v, 0.15 + 0.85 * v);
    }
  return s + "</svg>";
}

const char* kStyle = R"(
body { font: 14px system-ui, sans-serif; margin: 1.5em; color: #222; }
h1 { font-size: 1.3em; } .config { color: #555; }
.tokens span { display: inline-block; border: 1px solid #bbb; border-radius: 3px; margin: 2px;
  padding: 1px 4px; font-family: monospace; cursor: pointer; }
.tokens span.selected, text.selected { background: #ffd54f; fill: #b35c00; font-weight: bold; }
.grid { display: flex; flex-wrap: wrap; gap: 16px; }
.panel { border: 1px solid #ddd; padding: 6px; }
.panel h3 { margin: 0 0 4px; font-size: 1em; }
rect.cell { fill: #1f5fbf; stroke: none; } rect.masked { fill: url(#hatch); }
g.row.dim rect.cell { fill: #9aa7b8; } g.row.hi rect.cell { fill: #d9480f; }
text { font: 11px monospace; fill: #333; cursor: pointer; }
line { stroke: #1f5fbf; } line.dim { stroke: #ccc; } line.hi { stroke: #d9480f; }
body.view-heatmap svg.lines, body.view-lines svg.heatmap { display: none; }
)";

const char* kScript = R"(
function select(pos) {
  document.querySelectorAll('.selected').forEach(e => e.classList.remove('selected'));
  document.querySelectorAll('g.row, line').forEach(e => {
    e.classList.remove('hi', 'dim');
    if (pos === null) return;
    e.classList.add(e.dataset.row == pos ? 'hi' : 'dim');
  });
  if (pos === null) return;
  document.querySelectorAll('[data-pos="' + pos + '"]').forEach(e => e.classList.add('selected'));
}
let pinned = null;
document.querySelectorAll('[data-pos]').forEach(e => {
  e.addEventListener('mouseenter', () => { if (pinned === null) select(e.dataset.pos); });
  e.addEventListener('mouseleave', () => { if (pinned === null) select(null); });
  e.addEventListener('click', () => { pinned = pinned === e.dataset.pos ? null : e.dataset.pos; select(pinned); });
});
document.querySelectorAll('input[name=view]').forEach(r => r.addEventListener('change', () => {
  document.body.className = 'view-' + r.value;
}));
)";

}  // namespace

void run_attention(const AttentionRequest& req, std::FILE* out) {
  SG_CHECK(!req.checkpoint.empty(), "--checkpoint is required: a GPT checkpoint");
  SG_CHECK(!req.out.empty(), "--out is required: the .html file to write");
  SG_CHECK(!req.prompt.empty(), "--prompt is empty: give the text whose attention to draw");
  const UserOutput rule{"--out", req.overwrite};  // the output rule (core/atomic_file.h)
  check_not_input(req.out, rule, req.checkpoint, "--checkpoint");
  check_output(req.out, rule);
  const Checkpoint ck = load_checkpoint(req.checkpoint);
  SG_CHECK(ck.cfg.model == ModelKind::kGpt, ck.path,
           " holds a bigram model, which has no attention: give a GPT checkpoint");
  std::vector<int32_t> ids = ck.tokenizer.encode(req.prompt);
  const GPTConfig& g = ck.cfg.gpt;
  if (static_cast<int>(ids.size()) > g.block_size) {
    std::fprintf(stderr, "note: the prompt is %zu tokens, longer than the model's context of %d: "
                 "drawing its last %d\n", ids.size(), g.block_size, g.block_size);
    ids.erase(ids.begin(), ids.end() - g.block_size);
  }
  const int T = static_cast<int>(ids.size());
  Exec exec = make_exec(1, MatmulBackend::kAuto);
  exec.ctx.fused_attention_min_T = INT_MAX;  // the stored kernel: it keeps the weights to draw
  GPT gpt(g, exec.ctx);
  restore_params(ck, gpt, /*with_optimizer=*/false);
  gpt.forward(ids.data(), nullptr, 1, T, nullptr);

  std::vector<std::string> labels;
  for (int32_t id : ids) labels.push_back(visible(ck.tokenizer.decode_one(id)));
  const int L = g.n_layer, NH = g.n_head;

  std::string page = "<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
                     "<title>scratchgpt attention</title><style>" +
                     std::string(kStyle) + "</style></head>\n<body class=\"view-both\">\n";
  page += "<svg width=\"0\" height=\"0\" style=\"position:absolute\"><defs><pattern id=\"hatch\" "
          "width=\"6\" height=\"6\" patternUnits=\"userSpaceOnUse\" patternTransform=\"rotate(45)\">"
          "<rect width=\"6\" height=\"6\" fill=\"#eee\"/><line x1=\"0\" y1=\"0\" x2=\"0\" y2=\"6\" "
          "stroke=\"#bbb\" stroke-width=\"2\"/></pattern></defs></svg>\n";
  page += "<h1>Attention of " + html_escape(req.checkpoint) + "</h1>\n";
  page += "<p class=\"config\">" + std::to_string(L) + " layers, " + std::to_string(NH) +
          " heads, " + std::to_string(g.n_embd) + " wide, context " +
          std::to_string(g.block_size) + ", tokenizer " + html_escape(ck.tokenizer.describe()) +
          ". Rows: the query position; columns: the key position; hatched: the future, masked. "
          "Hover or click a token to follow its row.</p>\n";
  page += "<p class=\"controls\">View: <label><input type=\"radio\" name=\"view\" value=\"both\" "
          "checked> both</label> <label><input type=\"radio\" name=\"view\" value=\"heatmap\"> "
          "heatmaps</label> <label><input type=\"radio\" name=\"view\" value=\"lines\"> "
          "lines</label></p>\n";
  page += "<div class=\"tokens\">";
  for (int t = 0; t < T; ++t)
    page += "<span data-pos=\"" + std::to_string(t) + "\" title=\"id " +
            std::to_string(ids[static_cast<size_t>(t)]) + "\">" +
            html_escape(labels[static_cast<size_t>(t)]) + "</span>";
  page += "</div>\n<div class=\"grid\">\n";
  std::string json = "{\"checkpoint\":" + json_string(req.checkpoint) +
                     ",\"n_layer\":" + std::to_string(L) + ",\"n_head\":" + std::to_string(NH) +
                     ",\"ids\":[";
  for (int t = 0; t < T; ++t) {
    if (t) json += ',';
    json += std::to_string(ids[static_cast<size_t>(t)]);
  }
  json += "],\"tokens\":[";
  for (int t = 0; t < T; ++t) {
    if (t) json += ',';
    json += json_string(labels[static_cast<size_t>(t)]);
  }
  json += "],\"weights\":[";
  for (int l = 0; l < L; ++l) {
    const float* att = gpt.attention_weights(l);
    SG_CHECK(att != nullptr, "layer ", l, " kept no attention weights");  // the stored kernel ran
    json += l ? ",[" : "[";
    for (int h = 0; h < NH; ++h) {
      const float* w = att + static_cast<size_t>(h) * T * T;  // (B = 1, NH, T, T)
      page += "<section class=\"panel\" data-layer=\"" + std::to_string(l) + "\" data-head=\"" +
              std::to_string(h) + "\"><h3>layer " + std::to_string(l) + ", head " +
              std::to_string(h) + "</h3>" + heatmap_svg(w, T, labels) + lines_svg(w, T, labels) +
              "</section>\n";
      json += h ? ",[" : "[";
      for (int i = 0; i < T * T; ++i) {
        char buf[32];
        std::snprintf(buf, sizeof buf, "%s%.9g", i ? "," : "", static_cast<double>(w[i]));
        json += buf;
      }
      json += "]";
    }
    json += "]";
  }
  json += "]}";
  page += "</div>\n<script id=\"attention-data\" type=\"application/json\">" + script_json(json) +
          "</script>\n<script>" + kScript + "</script>\n</body></html>\n";
  write_file_atomic(req.out, page, &rule);
  std::fprintf(out, "%d tokens, %d layers x %d heads -> %s\n", T, L, NH, req.out.c_str());
}

}  // namespace scratchgpt
