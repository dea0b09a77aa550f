// report_test.cpp: 'scratchgpt report' draws runs' metrics.jsonl: the loss chart's path of each run
// has one point per logged training step (read in a real browser: Debian's chromium, headless;
// where it is missing, saying so, the points the page's script would draw are read from its data
// island), val loss has a marker at each evaluation, the ticks sit at round values (1, 2 or 5 x
// 10^k apart) and the learning rate's never go below 0, two runs overlay, the CSV holds every
// line's numbers as metrics.jsonl has them (RFC 4180: run names quoted, formula-like ones led by
// '), and a directory without metrics is a one-line error.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "train_cli_util.h"

using namespace scratchgpt::test;
namespace fs = std::filesystem;

namespace {

int count_of(const std::string& text, const std::string& what) {
  int n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

// A page as the test reads it: headless chromium's DOM, drawn by the page's script, where chromium
// is installed; otherwise the page's source, whose data island holds what the script draws.
struct Drawn {
  std::string text;
  bool by_browser = false;
};

Drawn drawn(const std::string& html) {
  if (std::system("command -v chromium >/dev/null 2>&1") != 0) {
    std::printf("chromium is not installed (apt-get install chromium): checking the page's data "
                "instead of the browser's DOM\n");
    return {slurp(html), false};
  }
  const std::string cmd = "timeout 120 chromium --headless --no-sandbox --disable-gpu --dump-dom "
                          "'file://" + html + "' >'" + html + ".dom' 2>/dev/null";
  EXPECT_EQ(std::system(cmd.c_str()), 0);
  return {slurp(html + ".dom"), true};
}

// The number of points of <path data-run="run" data-series="series"> in the first chart that has
// it (each point is one "M" or "L"); in a page's source, of runs[run].series[series] in its data.
int points(const Drawn& page, int run, const std::string& series) {
  const std::string& dom = page.text;
  if (!page.by_browser) {
    const std::string open = "<script id=\"report-data\" type=\"application/json\">";
    const size_t a = dom.find(open), b = dom.find("</script>", a);
    if (a == std::string::npos) return -1;
    const nlohmann::json d = nlohmann::json::parse(dom.substr(a + open.size(), b - a - open.size()));
    const nlohmann::json& s = d["runs"][run]["series"];
    return s.contains(series) ? static_cast<int>(s[series].size()) : -1;
  }
  const std::string tag = "<path data-run=\"" + std::to_string(run) + "\" data-series=\"" + series + "\"";
  const size_t at = dom.find(tag);
  if (at == std::string::npos) return -1;
  const size_t d = dom.find(" d=\"", at), end = dom.find('"', d + 4);
  const std::string path = dom.substr(d + 4, end - d - 4);
  int n = 0;
  for (char c : path) n += c == 'M' || c == 'L';
  return n;
}

// The SVG of <svg ... data-chart="chart"> in the browser's DOM.
std::string chart(const std::string& dom, const std::string& name) {
  const size_t a = dom.find("data-chart=\"" + name + "\"");
  if (a == std::string::npos) return "";
  return dom.substr(a, dom.find("</svg>", a) - a);
}

// The values of a chart's tick labels of one axis (class "tick x" or "tick y").
std::vector<double> ticks(const std::string& svg, const std::string& axis) {
  std::vector<double> v;
  const std::string open = "<text class=\"tick " + axis + "\"";
  for (size_t at = svg.find(open); at != std::string::npos; at = svg.find(open, at + 1))
    v.push_back(std::stod(svg.substr(svg.find('>', at) + 1)));
  return v;
}

// Ticks at round values: evenly spaced by 1, 2 or 5 x 10^k, each a multiple of that step.
void expect_round_ticks(const std::vector<double>& t, const std::string& what) {
  ASSERT_GE(t.size(), 2u) << what;
  const double step = t[1] - t[0], unit = std::pow(10.0, std::floor(std::log10(step) + 1e-9));
  const double f = step / unit;
  EXPECT_TRUE(std::fabs(f - 1) < 1e-6 || std::fabs(f - 2) < 1e-6 || std::fabs(f - 5) < 1e-6)
      << what << ": step " << step;
  for (size_t i = 0; i < t.size(); ++i) {
    EXPECT_NEAR(t[i] / step, std::round(t[i] / step), 1e-3) << what << ": " << t[i];
    if (i > 0) {
      EXPECT_NEAR(t[i] - t[i - 1], step, step * 1e-3) << what;
    }
  }
}

}  // namespace

TEST(Report, ChartsHoldEveryLoggedStep) {
  const std::string dir = scratch_dir("report");
  const std::string data = prepared(dir, shakespeare(20000));
  const std::string common =
      "train --preset shakespeare-char-small --n-layer 1 --n-head 2 "
      "--n-embd 16 --block-size 16 --batch-size 2 --eval-interval 5 "
      "--eval-iters 1 --threads 1 --data-dir '" +
      data + "'";
  CliResult r = run_cli(common + " --max-iters 12 --out-dir '" + dir + "/a'");
  ASSERT_EQ(r.rc, 0) << r.err;
  r = run_cli(common + " --max-iters 7 --seed 7 --out-dir '" + dir + "/b'");
  ASSERT_EQ(r.rc, 0) << r.err;
  r = run_cli("report --run '" + dir + "/a' --run '" + dir + "/b' --out '" + dir +
              "/report.html' --csv '" + dir + "/report.csv'");
  ASSERT_EQ(r.rc, 0) << r.err;
  const auto a = metrics(dir + "/a/metrics.jsonl", "train");
  const auto b = metrics(dir + "/b/metrics.jsonl", "train");
  ASSERT_EQ(a.size(), 12u);
  ASSERT_EQ(b.size(), 7u);

  // The CSV: a line per metrics line, the numbers as logged.
  std::istringstream csv(slurp(dir + "/report.csv"));
  std::string line;
  std::getline(csv, line);
  EXPECT_EQ(line, "run,type,iter,loss,val_loss,lr,grad_norm,tokens_per_s,time_s");
  int train_lines = 0;
  while (std::getline(csv, line))
    if (line.find(",train,") != std::string::npos) {
      if (line.find("/a\",train,0,") != std::string::npos) {
        char buf[32];
        std::snprintf(buf, sizeof buf, "%.9g", a[0]["loss"].get<double>());
        EXPECT_NE(line.find(std::string(",") + buf + ","), std::string::npos) << line;
      }
      ++train_lines;
    }
  EXPECT_EQ(train_lines, 19);

  const Drawn page = drawn(dir + "/report.html");
  EXPECT_EQ(points(page, 0, "train_loss"), 12);
  EXPECT_EQ(points(page, 1, "train_loss"), 7);
  EXPECT_EQ(points(page, 0, "val_loss"), static_cast<int>(metrics(dir + "/a/metrics.jsonl", "eval").size()));
  EXPECT_EQ(points(page, 1, "lr"), 7);
  EXPECT_NE(page.text.find("data-chart=\"grad_norm\""), std::string::npos);
  EXPECT_NE(page.text.find("data-chart=\"tokens_per_s\""), std::string::npos);
  if (page.by_browser) {
    const int evals = static_cast<int>(metrics(dir + "/a/metrics.jsonl", "eval").size());
    ASSERT_GE(evals, 2);
    const std::string loss = chart(page.text, "loss"), lr = chart(page.text, "lr");
    EXPECT_EQ(count_of(loss, "<circle class=\"marker\" data-run=\"0\" data-series=\"val_loss\""),
              evals);
    EXPECT_EQ(count_of(loss, "<circle class=\"marker\" data-run=\"0\" data-series=\"train_loss\""),
              0);
    for (const char* name : {"loss", "lr", "grad_norm", "tokens_per_s"}) {
      expect_round_ticks(ticks(chart(page.text, name), "y"), std::string(name) + " y");
      expect_round_ticks(ticks(chart(page.text, name), "x"), std::string(name) + " x");
    }
    for (double t : ticks(lr, "y")) EXPECT_GE(t, 0.0) << "a learning rate below 0";
  }

  fs::create_directories(dir + "/empty");
  expect_error(run_cli("report --run '" + dir + "/empty' --out '" + dir + "/x.html'"),
               "no metrics.jsonl");
  expect_error(run_cli("report --run '" + dir + "/a'"), "nothing to write");
  EXPECT_FALSE(fs::exists(dir + "/x.html"));
}

// metrics.jsonl opens with the run's config; its clock goes on across --resume; train --report
// leaves the page of the finished run (no more reloading) with every step in it.
TEST(Report, ConfigLineResumedClockAndTrainReport) {
  const std::string dir = scratch_dir("report_live");
  const std::string data = prepared(dir, shakespeare(20000));
  const std::string out = dir + "/run";
  CliResult r = run_cli("train --preset shakespeare-char-small --n-layer 1 --n-head 2 --n-embd 16 "
                        "--block-size 16 --batch-size 2 --eval-interval 3 --eval-iters 1 "
                        "--threads 1 --max-iters 6 --data-dir '" + data + "' --out-dir '" + out +
                        "' --report '" + dir + "/live.html'");
  ASSERT_EQ(r.rc, 0) << r.err;
  std::string first;
  {
    std::istringstream in(slurp(out + "/metrics.jsonl"));
    std::getline(in, first);
  }
  const nlohmann::json cfg = nlohmann::json::parse(first);
  EXPECT_EQ(cfg["type"], "config");
  EXPECT_EQ(cfg["config"]["n_layer"], 1);
  EXPECT_EQ(cfg["config"]["max_iters"], 6);
  const Drawn page = drawn(dir + "/live.html");
  EXPECT_EQ(points(page, 0, "train_loss"), 6);
  EXPECT_EQ(page.text.find("http-equiv=\"refresh\""), std::string::npos);  // the run has ended

  r = run_cli("train --resume --max-iters 9 --data-dir '" + data + "' --out-dir '" + out + "'");
  ASSERT_EQ(r.rc, 0) << r.err;
  const auto steps = metrics(out + "/metrics.jsonl", "train");
  ASSERT_EQ(steps.size(), 9u);
  for (size_t i = 1; i < steps.size(); ++i)
    EXPECT_GE(steps[i]["time_s"].get<double>(), steps[i - 1]["time_s"].get<double>()) << i;
  EXPECT_EQ(metrics(out + "/metrics.jsonl", "config").size(), 1u);
}

namespace {

// An RFC 4180 reader, independent of the writer: records of fields split by commas, a field in
// "..." may hold commas, newlines and "" (one quote); records end at LF or CRLF.
std::vector<std::vector<std::string>> parse_csv(const std::string& text) {
  std::vector<std::vector<std::string>> rows;
  std::vector<std::string> row;
  std::string field;
  bool quoted = false, any = false;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (quoted) {
      if (c == '"' && i + 1 < text.size() && text[i + 1] == '"') {
        field += '"';
        ++i;
      } else if (c == '"') {
        quoted = false;
      } else {
        field += c;
      }
    } else if (c == '"') {
      EXPECT_TRUE(field.empty()) << "a quote inside an unquoted field at byte " << i;
      quoted = true;
      any = true;
    } else if (c == ',') {
      row.push_back(field);
      field.clear();
      any = true;
    } else if (c == '\r' && i + 1 < text.size() && text[i + 1] == '\n') {
      continue;
    } else if (c == '\n') {
      row.push_back(field);
      rows.push_back(row);
      row.clear();
      field.clear();
      any = false;
    } else {
      field += c;
      any = true;
    }
  }
  EXPECT_FALSE(quoted) << "the CSV ends inside a quoted field";
  if (any) {
    row.push_back(field);
    rows.push_back(row);
  }
  return rows;
}

}  // namespace

// A run's name is the CSV's text column: quoted as RFC 4180 says, so a name holding a quote, a
// comma or a newline stays one cell, and one that starts like a formula (= + - @) is led by a ' so
// a spreadsheet shows it instead of running it; the numbers stay bare numbers, -0.5 too. Read
// back with an independent RFC 4180 parser: 9 columns on every line, each name as it was.
TEST(Report, CsvQuotesRunNamesAndDisarmsFormulas) {
  const std::string dir = scratch_dir("report_csv");
  const std::vector<std::string> names = {
      "a\"b,=1+1", "=HYPERLINK(\"x\",\"y\")", "+1+2", "-3+4", "@SUM(A1)", "line\nbreak", "plain"};
  const std::string lines =
      "{\"type\":\"train\",\"iter\":0,\"loss\":-0.5,\"lr\":0.001,\"grad_norm\":1.5,"
      "\"tokens_per_s\":100,\"time_s\":0.25}\n"
      "{\"type\":\"eval\",\"iter\":0,\"train_loss\":2.5,\"val_loss\":2.75,\"time_s\":0.5}\n";
  std::string runs;
  for (const std::string& n : names) {
    fs::create_directories(dir + "/" + n);
    spit(dir + "/" + n + "/metrics.jsonl", lines);
    runs += " '--run=" + n + "'";  // relative to dir; --run=-3+4 is not taken for a flag
  }
  const CliResult r = run_cli("report" + runs + " --csv out.csv", "cd '" + dir + "' && ");
  ASSERT_EQ(r.rc, 0) << r.err;
  const auto rows = parse_csv(slurp(dir + "/out.csv"));
  ASSERT_EQ(rows.size(), 1 + 2 * names.size());
  for (const auto& row : rows) EXPECT_EQ(row.size(), 9u) << row[0];
  EXPECT_EQ(rows[0][0], "run");
  for (size_t i = 0; i < names.size(); ++i) {
    const std::string& n = names[i];
    const std::string shown = std::string("=+-@").find(n[0]) != std::string::npos ? "'" + n : n;
    for (size_t k = 1 + 2 * i; k < 3 + 2 * i; ++k) EXPECT_EQ(rows[k][0], shown) << k;
    EXPECT_EQ(rows[1 + 2 * i][1], "train");
    EXPECT_EQ(rows[1 + 2 * i][3], "-0.5");  // a number, not text: no quote, no '
    EXPECT_EQ(rows[2 + 2 * i][1], "eval");
    EXPECT_EQ(rows[2 + 2 * i][4], "2.75");
  }
  // In the file itself: the numbers are bare, every name is quoted.
  const std::string text = slurp(dir + "/out.csv");
  EXPECT_NE(text.find(",train,0,-0.5,,0.001,1.5,100,0.25\n"), std::string::npos) << text;
  EXPECT_NE(text.find("\"'=HYPERLINK(\"\"x\"\",\"\"y\"\")\",train,"), std::string::npos);
}
