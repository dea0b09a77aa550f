// metrics.cpp: see metrics.h.
#include "train/metrics.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cmath>
#include <cstring>
#include <sstream>

#include "core/check.h"
#include "data/file_io.h"

namespace scratchgpt {

MetricsLog::MetricsLog(const std::string& path, bool append) {
  // O_NOFOLLOW: a symlink planted as metrics.jsonl is refused, never written through.
  const int fd = ::open(path.c_str(),
                        O_WRONLY | O_CREAT | O_NOFOLLOW | O_CLOEXEC | (append ? O_APPEND : O_TRUNC),
                        0644);
  SG_CHECK(fd >= 0, "cannot write ", path, ": ", std::strerror(errno),
           errno == ELOOP ? ": it is a symlink; remove it" : ": choose a writable --out-dir");
  f_ = ::fdopen(fd, append ? "a" : "w");
  if (f_ == nullptr) ::close(fd);
  SG_CHECK(f_ != nullptr, "cannot write ", path, ": ", std::strerror(errno));
}

MetricsLog::~MetricsLog() {
  if (f_) std::fclose(f_);
}

void MetricsLog::log_step(int64_t iter, float loss, double lr, double grad_norm,
                          double tokens_per_s, double elapsed_s) {
  std::fprintf(f_,
               "{\"type\": \"train\", \"iter\": %lld, \"loss\": %.9g, \"lr\": %.9g, "
               "\"grad_norm\": %.9g, \"tokens_per_s\": %.1f, \"time_s\": %.3f}\n",
               static_cast<long long>(iter), loss, lr, grad_norm, tokens_per_s, elapsed_s);
  std::fflush(f_);
}

void MetricsLog::log_eval(int64_t iter, float train_loss, float val_loss, double elapsed_s) {
  std::fprintf(f_,
               "{\"type\": \"eval\", \"iter\": %lld, \"train_loss\": %.9g, \"val_loss\": %.9g, "
               "\"time_s\": %.3f}\n",
               static_cast<long long>(iter), train_loss, val_loss, elapsed_s);
  std::fflush(f_);
}

void MetricsLog::log_config(const std::string& config_json) {
  std::fprintf(f_, "{\"type\": \"config\", \"config\": %s}\n", config_json.c_str());
  std::fflush(f_);
}

std::vector<MetricsLine> read_metrics(const std::string& path) {
  std::vector<MetricsLine> lines;
  std::istringstream in(read_file(path));
  std::string line;
  while (std::getline(in, line)) {
    nlohmann::json j = nlohmann::json::parse(line, nullptr, false);
    if (!j.is_object() || !j.contains("type")) continue;
    lines.push_back({line, std::move(j)});
  }
  return lines;
}

std::string format_duration(double s) {
  if (!(s >= 0) || std::isinf(s)) return "?";
  const auto t = static_cast<long long>(s + 0.5);
  char buf[32];
  if (t < 60)
    std::snprintf(buf, sizeof(buf), "%llds", t);
  else if (t < 3600)
    std::snprintf(buf, sizeof(buf), "%lldm%02llds", t / 60, t % 60);
  else
    std::snprintf(buf, sizeof(buf), "%lldh%02lldm", t / 3600, (t % 3600) / 60);
  return buf;
}

std::string format_rate(double r) {
  char buf[32];
  if (r < 1e3)
    std::snprintf(buf, sizeof(buf), "%.0f", r);
  else if (r < 1e6)
    std::snprintf(buf, sizeof(buf), "%.1fk", r / 1e3);
  else
    std::snprintf(buf, sizeof(buf), "%.1fM", r / 1e6);
  return buf;
}

}  // namespace scratchgpt
