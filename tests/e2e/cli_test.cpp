// cli_test.cpp: the scratchgpt binary's top-level behaviour, run as a user would: --help lists the
// subcommands, --version prints the version, and every mistake gives exactly one line on stderr,
// "error: ...", naming what was wrong, with a non-zero exit status.
// Leaves out: the subcommands' own options (each has its own test).
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace fs = std::filesystem;

namespace {

struct CliRun {
  int status = -1;  // exit status, or -1 if the process did not exit normally
  std::string out, err;
};

std::string slurp(const fs::path& p) {
  std::ifstream f(p, std::ios::binary);
  std::ostringstream s;
  s << f.rdbuf();
  return s.str();
}

// Runs SCRATCHGPT_BINARY with args (already shell-safe) and captures stdout and stderr apart.
CliRun run_cli(const std::string& args) {
  static int counter = 0;
  const fs::path dir = fs::temp_directory_path() / ("sg_cli_test_" + std::to_string(::getpid()) +
                                                    "_" + std::to_string(counter++));
  fs::create_directories(dir);
  const std::string cmd = std::string("'") + SCRATCHGPT_BINARY + "' " + args + " >'" +
                          (dir / "out").string() + "' 2>'" + (dir / "err").string() + "'";
  const int raw = std::system(cmd.c_str());
  CliRun r;
  if (raw != -1 && WIFEXITED(raw)) r.status = WEXITSTATUS(raw);
  r.out = slurp(dir / "out");
  r.err = slurp(dir / "err");
  fs::remove_all(dir);
  return r;
}

std::vector<std::string> lines(const std::string& s) {
  std::vector<std::string> v;
  std::istringstream is(s);
  for (std::string line; std::getline(is, line);) v.push_back(line);
  return v;
}

// Exactly one line on stderr, starting "error:", mentioning `names` if given; non-zero exit.
void expect_one_line_error(const CliRun& r, const std::string& names, const std::string& what) {
  EXPECT_NE(r.status, 0) << what;
  EXPECT_GT(r.status, 0) << what << ": the process should exit, not crash";
  const auto errs = lines(r.err);
  ASSERT_EQ(errs.size(), 1u) << what << ": stderr was:\n" << r.err;
  EXPECT_EQ(errs[0].rfind("error:", 0), 0u) << what << ": " << errs[0];
  if (!names.empty()) {
    EXPECT_NE(errs[0].find(names), std::string::npos)
        << what << ": the message should name '" << names << "': " << errs[0];
  }
  EXPECT_EQ(r.err.back(), '\n') << what;
}

}  // namespace

TEST(Cli, HelpExitsZeroAndListsTheSubcommands) {
  for (const char* flag : {"--help", "-h"}) {
    CliRun r = run_cli(flag);
    EXPECT_EQ(r.status, 0) << flag;
    EXPECT_TRUE(r.err.empty()) << flag << ": " << r.err;
    EXPECT_NE(r.out.find("Usage: scratchgpt"), std::string::npos) << r.out;
    for (const char* sub : {"prepare", "train", "sample", "lesson", "bench"})
      EXPECT_NE(r.out.find(std::string("  ") + sub + " "), std::string::npos)
          << flag << " does not list '" << sub << "':\n"
          << r.out;
  }
}

TEST(Cli, VersionPrintsNameAndVersion) {
  CliRun r = run_cli("--version");
  EXPECT_EQ(r.status, 0);
  EXPECT_TRUE(r.err.empty()) << r.err;
  const auto out = lines(r.out);
  ASSERT_EQ(out.size(), 1u) << r.out;
  EXPECT_EQ(out[0].rfind("scratchgpt ", 0), 0u) << out[0];
  const std::string ver = out[0].substr(11);
  ASSERT_FALSE(ver.empty());
  EXPECT_TRUE(std::isdigit(static_cast<unsigned char>(ver[0]))) << ver;
  EXPECT_NE(ver.find('.'), std::string::npos) << ver;
}

TEST(Cli, UnknownFlagIsOneLineError) {
  CliRun r = run_cli("--no-such-flag");
  expect_one_line_error(r, "--no-such-flag", "unknown flag");
  EXPECT_TRUE(r.out.empty()) << r.out;
}

TEST(Cli, UnknownSubcommandIsOneLineError) {
  CliRun r = run_cli("frobnicate");
  expect_one_line_error(r, "frobnicate", "unknown subcommand");
  EXPECT_TRUE(r.out.empty()) << r.out;
}

TEST(Cli, NoSubcommandIsOneLineError) {
  CliRun r = run_cli("");
  expect_one_line_error(r, "", "no subcommand");
}
