// metrics.h: the metrics log (JSON lines in out-dir/metrics.jsonl, flushed as written: first the
// run's config, then one per training step and one per evaluation; README gives the schema; time_s
// goes on across --resume), its one reader (read_metrics: report draws it, a resumed run trims
// it), and the small formatters of the progress line.
// Losses are written with 9 significant digits, enough to round-trip a float exactly.
// Leaves out: TensorBoard / wandb integration.
#pragma once

#include <cstdint>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace scratchgpt {

class MetricsLog {
 public:
  // append: keep existing lines (resume); otherwise start a new file.
  MetricsLog(const std::string& path, bool append);
  ~MetricsLog();
  MetricsLog(const MetricsLog&) = delete;
  MetricsLog& operator=(const MetricsLog&) = delete;

  void log_step(int64_t iter, float loss, double lr, double grad_norm, double tokens_per_s,
                double elapsed_s);
  void log_eval(int64_t iter, float train_loss, float val_loss, double elapsed_s);
  // The run's first line: {"type": "config", "config": <the TrainConfig as JSON>}.
  void log_config(const std::string& config_json);

 private:
  std::FILE* f_ = nullptr;
};

// One line of metrics.jsonl as read back.
struct MetricsLine {
  std::string text;     // the line as written (no newline)
  nlohmann::json json;  // its object, holding "type" ("config", "train" or "eval")
};
// The lines of a metrics log in order; a line that is not a JSON object with a "type" (cut short
// by a crash, or not written by this program) is left out. A file that cannot be read is an Error.
std::vector<MetricsLine> read_metrics(const std::string& path);

std::string format_duration(double seconds);  // "45s", "1m20s", "2h03m"
std::string format_rate(double per_s);        // "950", "12.3k", "1.2M"

}  // namespace scratchgpt
