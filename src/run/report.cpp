// report.cpp: see report.h.
#include "run/report.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <sstream>

#include "core/atomic_file.h"
#include "core/check.h"
#include "core/page.h"
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

// What the page draws (assets/report.js): per run its name, steps logged, best val loss (null:
// none), config (null: none) and each series as [step, value] pairs.
nlohmann::json page_data(const std::vector<Run>& runs) {
  nlohmann::json d = {{"runs", nlohmann::json::array()}};
  auto points = [](const std::vector<Point>& pts) {
    nlohmann::json a = nlohmann::json::array();
    for (const Point& p : pts) a.push_back({p.x, p.y});
    return a;
  };
  for (const Run& r : runs)
    d["runs"].push_back({{"dir", r.dir},
                         {"steps", r.train.size()},
                         {"best_val", r.best_val},  // NaN is written as null
                         {"config", r.config},
                         {"series",
                          {{"train_loss", points(series(r.train, "loss"))},
                           {"val_loss", points(series(r.eval, "val_loss"))},
                           {"lr", points(series(r.train, "lr"))},
                           {"grad_norm", points(series(r.train, "grad_norm"))},
                           {"tokens_per_s", points(series(r.train, "tokens_per_s"))}}}});
  return d;
}

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
    const Page page{.title = "scratchgpt report",
                    .style = "report.css",
                    .body = std::string(page_asset("report.html")),
                    .data_id = "report-data",
                    .scripts = {"page.js", "report.js"},
                    .refresh_s = req.refresh_s};
    write_page(req.out, out_rule, page, page_data(runs));
  }
  size_t lines = 0;
  for (const Run& r : runs) lines += r.train.size() + r.eval.size();
  if (out != nullptr)
    std::fprintf(out, "%zu runs, %zu metrics lines -> %s%s%s\n", runs.size(), lines, req.out.c_str(),
               !req.out.empty() && !req.csv.empty() ? ", " : "", req.csv.c_str());
}

}  // namespace scratchgpt
