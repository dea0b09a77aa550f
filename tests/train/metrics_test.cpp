// metrics_test.cpp: the metrics log reads back as it was written (read_metrics, the one reader
// that report and a resumed run use): every line of a type, in order and verbatim; a line cut
// short or foreign is left out.
#include "train/metrics.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>

#include "core/atomic_file.h"
#include "scratch_dir.h"

using namespace scratchgpt;
namespace fs = std::filesystem;

TEST(Metrics, ReadsBackWhatTheLogWrote) {
  const fs::path dir = test::scratch_dir("metrics");
  const std::string path = (dir / "metrics.jsonl").string();
  {
    MetricsLog log(path, /*append=*/false);
    log.log_config("{\"seed\": 1}");
    log.log_step(0, 2.5f, 1e-3, 0.75, 1000.0, 0.5);
    log.log_eval(1, 2.25f, 2.375f, 1.5);
  }
  std::string text;
  for (const MetricsLine& line : read_metrics(path)) text += line.text + "\n";
  // A crash's half line, a line without a type, an empty line, then more.
  write_file_atomic(path, text + "{\"type\": \"train\", \"iter\n[1, 2]\n{\"iter\": 3}\n\n" +
                              "{\"type\": \"eval\", \"iter\": 4}\n");
  const std::vector<MetricsLine> lines = read_metrics(path);
  ASSERT_EQ(lines.size(), 4u);
  EXPECT_EQ(lines[0].json["type"], "config");
  EXPECT_EQ(lines[0].json["config"]["seed"], 1);
  EXPECT_EQ(lines[1].json["type"], "train");
  EXPECT_EQ(lines[1].json["loss"], 2.5);
  EXPECT_EQ(lines[1].json["time_s"], 0.5);
  EXPECT_EQ(lines[2].json["val_loss"], 2.375);
  EXPECT_EQ(lines[3].text, "{\"type\": \"eval\", \"iter\": 4}");
  fs::remove_all(dir);
}
