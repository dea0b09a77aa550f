// train_cli_util.h: helpers for the end-to-end tests that drive the scratchgpt binary: run a
// command line capturing exit code, stdout and stderr; scratch directories; a slice of the
// bundled Tiny Shakespeare; metrics.jsonl parsing.
#pragma once

#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "scratch_dir.h"

namespace scratchgpt::test {

struct CliResult {
  int rc = -1;
  std::string out, err;
};

inline std::string slurp(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  std::ostringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

inline void spit(const std::string& path, const std::string& bytes) {
  std::ofstream f(path, std::ios::binary);
  f << bytes;
}

// Runs "<launcher>SCRATCHGPT_BINARY <args>" through the shell (args are shell syntax; launcher
// is empty or, say, "mpirun -np 2 ").
inline CliResult run_cli(const std::string& args, const std::string& launcher = "") {
  static int counter = 0;
  static const std::string io = scratch_dir("cli_io");
  const std::string base = io + "/" + std::to_string(counter++);
  const std::string cmd = launcher + "'" + SCRATCHGPT_BINARY + "' " + args + " >'" + base +
                          ".out' 2>'" + base + ".err'";
  const int status = std::system(cmd.c_str());
  CliResult r;
  r.rc = WIFEXITED(status) ? WEXITSTATUS(status) : 128;
  r.out = slurp(base + ".out");
  r.err = slurp(base + ".err");
  std::filesystem::remove(base + ".out");
  std::filesystem::remove(base + ".err");
  return r;
}

// True when stderr is exactly one line starting with "error:".
inline bool one_error_line(const CliResult& r) {
  return r.err.rfind("error: ", 0) == 0 && r.err.find('\n') == r.err.size() - 1;
}

// A failed command: non-zero exit, one "error:" line, and that line names `needle`.
inline void expect_error(const CliResult& r, const std::string& needle) {
  EXPECT_NE(r.rc, 0);
  EXPECT_TRUE(one_error_line(r)) << "stderr was: [" << r.err << "]";
  EXPECT_NE(r.err.find(needle), std::string::npos) << "stderr was: [" << r.err << "]";
}

// The first n characters (bytes; the file is ASCII) of the bundled Tiny Shakespeare.
inline std::string shakespeare(size_t n) {
  const std::string all =
      slurp(std::string(SCRATCHGPT_FIXTURES) + "/../../data/tinyshakespeare.txt");
  return all.substr(0, n);
}

// Writes a text and prepares it into dir/data (flags: e.g. " --overwrite" over another
// prepare's files); returns the data dir.
inline std::string prepared(const std::string& dir, const std::string& text,
                            const std::string& flags = "") {
  spit(dir + "/input.txt", text);
  const CliResult r =
      run_cli("prepare --input '" + dir + "/input.txt' --out-dir '" + dir + "/data'" + flags);
  if (r.rc != 0) ADD_FAILURE() << "prepare failed: " << r.err;
  return dir + "/data";
}

// The lines of a metrics.jsonl of one type ("train" or "eval").
inline std::vector<nlohmann::json> metrics(const std::string& path, const std::string& type) {
  std::vector<nlohmann::json> out;
  std::istringstream in(slurp(path));
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty()) continue;
    nlohmann::json j = nlohmann::json::parse(line);
    if (j["type"] == type) out.push_back(j);
  }
  return out;
}

}  // namespace scratchgpt::test
