// report.cpp: see report.h.
#include "run/report.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <sstream>

#include "core/atomic_file.h"
#include "core/check.h"
#include "core/html.h"
#include "core/safetensors.h"
#include "train/metrics.h"

namespace scratchgpt {

namespace fs = std::filesystem;

namespace {

struct Point {
  double x, y;
};

struct Run {
  std::string dir;
  std::vector<nlohmann::json> train, eval;  // metrics.jsonl's lines of each type
  nlohmann::json config;                    // from its checkpoint (null if it has none)
  double best_val = NAN;
};

Run read_run(const std::string& dir) {
  Run r;
  r.dir = dir;
  std::error_code ec;
  SG_CHECK(fs::is_directory(dir, ec), "--run ", dir, " is not a directory: give the --out-dir of a "
           "'scratchgpt train' run");
  const std::string path = (fs::path(dir) / "metrics.jsonl").string();
  SG_CHECK(fs::exists(path, ec), "--run ", dir, " has no metrics.jsonl: give the --out-dir of a "
           "'scratchgpt train' run");
  for (const MetricsLine& line : read_metrics(path)) {  // lines cut short are left out
    const nlohmann::json& j = line.json;
    if (j["type"] == "config" && j.contains("config")) r.config = j["config"];
    if (!j.contains("iter")) continue;
    if (j["type"] == "train" && j.contains("loss")) r.train.push_back(j);
    if (j["type"] == "eval" && j.contains("val_loss")) r.eval.push_back(j);
  }
  SG_CHECK(!r.train.empty() || !r.eval.empty(), path, " holds no training or evaluation lines: "
           "the run logged nothing yet");
  for (const auto& e : r.eval)
    if (e["val_loss"].is_number())
      r.best_val = std::isnan(r.best_val) ? e["val_loss"].get<double>()
                                          : std::min(r.best_val, e["val_loss"].get<double>());
  for (const char* ck : {"last.safetensors", "best.safetensors"}) {  // runs from before config lines
    if (r.config.is_object()) break;
    const fs::path p = fs::path(dir) / ck;
    if (!fs::exists(p, ec)) continue;
    try {
      const MappedSafeTensors st(p.string());  // the header only: the weights stay on disk
      const auto it = st.metadata.find("config");
      if (it != st.metadata.end()) r.config = nlohmann::json::parse(it->second, nullptr, false);
    } catch (const Error&) {
    }
    break;
  }
  return r;
}

std::vector<Point> series(const std::vector<nlohmann::json>& lines, const char* key) {
  std::vector<Point> pts;
  for (const auto& j : lines)
    if (j.contains(key) && j[key].is_number() && j["iter"].is_number())
      pts.push_back({j["iter"].get<double>(), j[key].get<double>()});
  return pts;
}

std::string num(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.4g", v);
  return buf;
}

// A text cell of the CSV (the run's name): quoted as RFC 4180 says (inside "...", a " doubled;
// commas and newlines kept), and one that a spreadsheet would take for a formula (starting with
// = + - @, or a tab or carriage return before one) led by a ' so it stays text. The numeric
// columns are written by %.9g and are never text: -0.5 there stays a number.
std::string csv_text(const std::string& s) {
  std::string out = "\"";
  if (!s.empty() && std::string("=+-@\t\r").find(s[0]) != std::string::npos) out += '\'';
  for (char c : s) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

const char* kColours[] = {"#1f5fbf", "#d9480f", "#2b8a3e", "#862e9c", "#c92a2a", "#0b7285"};

struct Line {
  int run;
  std::string name;  // "train_loss", "val_loss", ...
  bool dashed;
  std::vector<Point> pts;
};

// One chart: the lines over a shared x (step) and y axis; log_y draws log10(y) (y > 0 only).
std::string chart(const std::string& id, const std::string& title, const std::vector<Line>& lines,
                  bool log_y) {
  constexpr double W = 540, H = 260, left = 78, right = 12, top = 28, bottom = 36;
  double x0 = INFINITY, x1 = -INFINITY, y0 = INFINITY, y1 = -INFINITY;
  auto fy = [&](double y) { return log_y ? std::log10(y) : y; };
  for (const Line& l : lines)
    for (const Point& p : l.pts) {
      if (log_y && !(p.y > 0)) continue;
      x0 = std::min(x0, p.x), x1 = std::max(x1, p.x);
      y0 = std::min(y0, fy(p.y)), y1 = std::max(y1, fy(p.y));
    }
  std::string s = "<svg data-chart=\"" + id + "\" width=\"" + num(W) + "\" height=\"" + num(H) +
                  "\" role=\"img\"><text class=\"title\" x=\"" + num(left) + "\" y=\"16\">" +
                  html_escape(title) + "</text>";
  if (!(x0 <= x1)) return s + "<text x=\"60\" y=\"120\">no data</text></svg>";
  if (x1 == x0) x1 = x0 + 1;
  if (y1 == y0) y0 -= 0.5, y1 += 0.5;
  const double pad = (y1 - y0) * 0.05;
  y0 -= pad, y1 += pad;
  auto px = [&](double x) { return left + (x - x0) / (x1 - x0) * (W - left - right); };
  auto py = [&](double y) { return top + (y1 - fy(y)) / (y1 - y0) * (H - top - bottom); };
  s += "<rect class=\"frame\" x=\"" + num(left) + "\" y=\"" + num(top) + "\" width=\"" +
       num(W - left - right) + "\" height=\"" + num(H - top - bottom) + "\"/>";
  for (int k = 0; k <= 4; ++k) {  // five ticks on each axis
    const double xv = x0 + (x1 - x0) * k / 4, yv = y0 + (y1 - y0) * k / 4;
    const double X = px(xv), Y = top + (y1 - yv) / (y1 - y0) * (H - top - bottom);
    s += "<text class=\"tick\" x=\"" + num(X) + "\" y=\"" + num(H - bottom + 14) +
         "\" text-anchor=\"middle\">" + num(std::round(xv)) + "</text>";
    s += "<text class=\"tick\" x=\"" + num(left - 4) + "\" y=\"" + num(Y + 4) +
         "\" text-anchor=\"end\">" + num(log_y ? std::pow(10.0, yv) : yv) + "</text>";
    s += "<line class=\"grid\" x1=\"" + num(left) + "\" x2=\"" + num(W - right) + "\" y1=\"" +
         num(Y) + "\" y2=\"" + num(Y) + "\"/>";
  }
  s += "<text class=\"tick\" x=\"" + num(W - right) + "\" y=\"" + num(H - 4) +
       "\" text-anchor=\"end\">step</text>";
  for (const Line& l : lines) {
    std::string d;
    for (const Point& p : l.pts) {
      if (log_y && !(p.y > 0)) continue;
      d += (d.empty() ? "M" : " L") + num(px(p.x)) + " " + num(py(p.y));
    }
    s += "<path data-run=\"" + std::to_string(l.run) + "\" data-series=\"" + l.name +
         "\" fill=\"none\" stroke=\"" + kColours[l.run % 6] + "\"" +
         (l.dashed ? " stroke-width=\"2.2\"" : " stroke-width=\"1\" stroke-opacity=\"0.7\"") +
         " d=\"" + d + "\"><title>" + html_escape(l.name) + "</title></path>";
  }
  return s + "</svg>";
}

const char* kStyle = R"(
body { font: 14px system-ui, sans-serif; margin: 1.5em; color: #222; }
h1 { font-size: 1.3em; } .charts { display: flex; flex-wrap: wrap; gap: 12px; }
svg text { font: 11px system-ui, sans-serif; fill: #444; } svg text.title { font-weight: bold; }
rect.frame { fill: none; stroke: #bbb; } line.grid { stroke: #eee; }
table { border-collapse: collapse; margin: 1em 0; } td, th { border: 1px solid #ddd; padding: 2px 8px; }
.swatch { display: inline-block; width: 12px; height: 12px; margin-right: 4px; vertical-align: middle; }
body.log svg.linear, body:not(.log) svg.log { display: none; }
)";

}  // namespace

void run_report(const ReportRequest& req, std::FILE* out) {
  SG_CHECK(!req.runs.empty(), "--run is required: the --out-dir of a train run (repeat it to "
           "compare runs)");
  SG_CHECK(!req.out.empty() || !req.csv.empty(), "nothing to write: give --out FILE.html, "
           "--csv FILE.csv or both");
  // The output rule (core/atomic_file.h) for both files before anything is read or written.
  const UserOutput out_rule{"--out", req.overwrite}, csv_rule{"--csv", req.overwrite};
  SG_CHECK(req.out.empty() || req.out != req.csv, "--out and --csv name the same file ", req.out,
           ": give each its own");
  for (const std::string& dir : req.runs) {
    const std::string metrics = (std::filesystem::path(dir) / "metrics.jsonl").string();
    if (!req.out.empty()) check_not_input(req.out, out_rule, metrics, "--run's");
    if (!req.csv.empty()) check_not_input(req.csv, csv_rule, metrics, "--run's");
  }
  if (!req.out.empty()) check_output(req.out, out_rule);
  if (!req.csv.empty()) check_output(req.csv, csv_rule);
  std::vector<Run> runs;
  for (const std::string& dir : req.runs) runs.push_back(read_run(dir));

  if (!req.csv.empty()) {
    std::string csv = "run,type,iter,loss,val_loss,lr,grad_norm,tokens_per_s,time_s\n";
    auto field = [](const nlohmann::json& j, const char* key) {
      if (!j.contains(key) || !j[key].is_number()) return std::string();
      char buf[32];
      std::snprintf(buf, sizeof buf, "%.9g", j[key].get<double>());
      return std::string(buf);
    };
    for (const Run& r : runs) {
      const std::string name = csv_text(r.dir);
      for (const auto& j : r.train)
        csv += name + ",train," + field(j, "iter") + "," + field(j, "loss") + ",," +
               field(j, "lr") + "," + field(j, "grad_norm") + "," + field(j, "tokens_per_s") + "," +
               field(j, "time_s") + "\n";
      for (const auto& j : r.eval)
        csv += name + ",eval," + field(j, "iter") + "," + field(j, "train_loss") + "," +
               field(j, "val_loss") + ",,,," + field(j, "time_s") + "\n";
    }
    write_file_atomic(req.csv, csv, &csv_rule);
  }
  if (!req.out.empty()) {
    std::vector<Line> loss, lr, norm, speed;
    for (size_t i = 0; i < runs.size(); ++i) {
      const int k = static_cast<int>(i);
      loss.push_back({k, "train_loss", false, series(runs[i].train, "loss")});
      loss.push_back({k, "val_loss", true, series(runs[i].eval, "val_loss")});
      lr.push_back({k, "lr", false, series(runs[i].train, "lr")});
      norm.push_back({k, "grad_norm", false, series(runs[i].train, "grad_norm")});
      speed.push_back({k, "tokens_per_s", false, series(runs[i].train, "tokens_per_s")});
    }
    std::string page = "<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
                       "<title>scratchgpt report</title>" +
                       (req.refresh_s > 0 ? "<meta http-equiv=\"refresh\" content=\"" +
                                                std::to_string(req.refresh_s) + "\">"
                                          : std::string()) +
                       "<style>" +
                       std::string(kStyle) + "</style></head>\n<body>\n<h1>Training report</h1>\n";
    page += "<p><label><input type=\"checkbox\" id=\"log\"> log scale for the losses</label> "
            "(thin: train loss of each step; thick: val loss at each evaluation)</p>\n<table>"
            "<tr><th>run</th><th>steps logged</th><th>best val loss</th><th>config</th></tr>\n";
    for (size_t i = 0; i < runs.size(); ++i) {
      const Run& r = runs[i];
      std::string cfg = "(no checkpoint)";
      if (r.config.is_object()) {
        cfg.clear();
        for (const char* key : {"preset", "n_layer", "n_head", "n_embd", "block_size", "batch_size",
                                "grad_accum", "lr", "dropout", "max_iters", "seed"})
          if (r.config.contains(key))
            cfg += std::string(cfg.empty() ? "" : ", ") + key + " " +
                   (r.config[key].is_number() ? num(r.config[key].get<double>())
                                              : r.config[key].dump());
      }
      page += "<tr data-run=\"" + std::to_string(i) + "\"><td><span class=\"swatch\" "
              "style=\"background:" + kColours[i % 6] + "\"></span>" + html_escape(r.dir) +
              "</td><td>" + std::to_string(r.train.size()) + "</td><td>" +
              (std::isnan(r.best_val) ? std::string("-") : num(r.best_val)) + "</td><td>" +
              html_escape(cfg) + "</td></tr>\n";
    }
    page += "</table>\n<div class=\"charts\">\n";
    std::string linear = chart("loss", "loss", loss, false), logged = chart("loss-log", "loss (log scale)", loss, true);
    linear.insert(4, " class=\"linear\"");
    logged.insert(4, " class=\"log\"");
    page += linear + logged + chart("lr", "learning rate", lr, false) +
            chart("grad_norm", "gradient norm (before clipping)", norm, false) +
            chart("tokens_per_s", "tokens/s", speed, false) + "\n</div>\n";
    page += "<script>document.getElementById('log').addEventListener('change', e => "
            "document.body.classList.toggle('log', e.target.checked));</script>\n</body></html>\n";
    write_file_atomic(req.out, page, &out_rule);
  }
  size_t lines = 0;
  for (const Run& r : runs) lines += r.train.size() + r.eval.size();
  if (out != nullptr)
    std::fprintf(out, "%zu runs, %zu metrics lines -> %s%s%s\n", runs.size(), lines, req.out.c_str(),
               !req.out.empty() && !req.csv.empty() ? ", " : "", req.csv.c_str());
}

}  // namespace scratchgpt
