// cli_test.cpp: the scratchgpt binary's top-level behaviour, run as a user would: --help lists the
// subcommands, --version prints the version, and every mistake gives exactly one line on stderr,
// "error: ...", naming what was wrong, with a non-zero exit status.
// Every command's --help shows its defaults and an example. Leaves out: what the subcommands'
// options do (each command has its own test).
#include <gtest/gtest.h>

#include <cctype>
#include <cstdlib>
#include <sstream>
#include <string>
#include <vector>

#include "train_cli_util.h"

namespace {

using scratchgpt::test::CliResult;
using scratchgpt::test::run_cli;

std::vector<std::string> lines(const std::string& s) {
  std::vector<std::string> v;
  std::istringstream is(s);
  for (std::string line; std::getline(is, line);) v.push_back(line);
  return v;
}

// Exactly one line on stderr, starting "error:", mentioning `names` if given; non-zero exit.
void expect_one_line_error(const CliResult& r, const std::string& names, const std::string& what) {
  EXPECT_NE(r.rc, 0) << what;
  EXPECT_GT(r.rc, 0) << what;
  EXPECT_LT(r.rc, 128) << what << ": the process should exit, not crash (the shell's 128 + signal)";
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
    CliResult r = run_cli(flag);
    EXPECT_EQ(r.rc, 0) << flag;
    EXPECT_TRUE(r.err.empty()) << flag << ": " << r.err;
    EXPECT_NE(r.out.find("Usage: scratchgpt"), std::string::npos) << r.out;
    for (const char* sub : {"prepare", "train", "sample", "lesson", "bench"})
      EXPECT_NE(r.out.find(std::string("  ") + sub + " "), std::string::npos)
          << flag << " does not list '" << sub << "':\n"
          << r.out;
  }
}

// The subcommands --help lists, by name ("  train   Train a model ...").
std::vector<std::string> subcommands() {
  std::vector<std::string> names;
  bool in_list = false;
  for (const std::string& line : lines(run_cli("--help").out)) {
    if (line == "Subcommands:") {
      in_list = true;
    } else if (in_list && line.rfind("  ", 0) == 0 && line.size() > 2 && line[2] != ' ') {
      names.push_back(line.substr(2, line.find(' ', 2) - 2));
    } else if (in_list && line.empty()) {
      break;
    }
  }
  return names;
}

// Every command's --help gives an example, and every option that takes a value shows its default
// ("=VALUE" after the type, or "default" in its text) unless it is required.
TEST(Cli, EveryCommandsHelpShowsTheDefaultsAndAnExample) {
  std::vector<std::string> commands = subcommands();
  ASSERT_GE(commands.size(), 11u) << run_cli("--help").out;
  commands.push_back("tokenizer train");
  commands.push_back("");  // the top level
  for (const std::string& command : commands) {
    const CliResult r = run_cli(command + " --help");
    ASSERT_EQ(r.rc, 0) << command << ": " << r.err;
    EXPECT_NE(r.out.find("Example"), std::string::npos) << command << " --help:\n" << r.out;
    const std::vector<std::string> out = lines(r.out);
    for (size_t i = 0; i < out.size(); ++i) {
      const std::string& line = out[i];
      if (line.rfind("  --", 0) != 0) continue;
      // "  --flag TYPE[=DEFAULT] [REQUIRED]   help", the help maybe on the next line.
      const std::string head = line.substr(0, line.find("  ", 2));
      const bool takes_value = head.find(' ', 2) != std::string::npos;
      std::string text = line;
      if (i + 1 < out.size() && out[i + 1].rfind("      ", 0) == 0) text += out[i + 1];
      if (!takes_value || head.find("REQUIRED") != std::string::npos) continue;
      EXPECT_TRUE(head.find('=') != std::string::npos ||
                  text.find("default") != std::string::npos)
          << "scratchgpt " << command << " --help: no default shown for\n" << text;
    }
  }
}

TEST(Cli, TrainHelpShowsEveryPresetsShape) {
  const CliResult r = run_cli("train --help");
  ASSERT_EQ(r.rc, 0) << r.err;
  // shakespeare-char-small is nanoGPT's CPU recipe: 4 layers of 128, 4 heads, T=64, B=12, 2000.
  EXPECT_NE(r.out.find("shakespeare-char-small   L=4 C=128 NH=4 T=64 B=12 x 1, 2000 steps"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("--n-layer INT=4"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("gpt2-xl"), std::string::npos) << r.out;
}

TEST(Cli, VersionPrintsNameAndVersion) {
  CliResult r = run_cli("--version");
  EXPECT_EQ(r.rc, 0);
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
  CliResult r = run_cli("--no-such-flag");
  expect_one_line_error(r, "--no-such-flag", "unknown flag");
  EXPECT_TRUE(r.out.empty()) << r.out;
}

TEST(Cli, UnknownSubcommandIsOneLineError) {
  CliResult r = run_cli("frobnicate");
  expect_one_line_error(r, "frobnicate", "unknown subcommand");
  EXPECT_TRUE(r.out.empty()) << r.out;
}

TEST(Cli, NoSubcommandIsOneLineError) {
  CliResult r = run_cli("");
  expect_one_line_error(r, "", "no subcommand");
}
