// lesson_test.cpp: `scratchgpt lesson NAME` against PyTorch. tools/make_lesson_fixtures.py runs the
// Python of every lesson and records each tensor PyTorch printed (str(tensor), str(torch.Size))
// and chosen whole lines; here every lesson's output must contain the same tensor blocks, in the
// same order, string for string, and those lines. Also: --list, unknown names, a missing --data.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <array>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "test_util.h"

namespace {

struct CliRun {
  int rc = -1;
  std::string out;
};

// Runs the CLI through the shell; `args` are appended as given.
CliRun run_cli(const std::string& args) {
  const std::string cmd = std::string("'") + SCRATCHGPT_BINARY + "' " + args;
  CliRun r;
  FILE* p = popen(cmd.c_str(), "r");
  if (!p) return r;
  std::array<char, 4096> buf;
  size_t n;
  while ((n = fread(buf.data(), 1, buf.size(), p)) > 0) r.out.append(buf.data(), n);
  const int status = pclose(p);
  r.rc = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return r;
}

// Every "tensor(...)" and "torch.Size(...)" block, in order (parentheses matched).
std::vector<std::string> tensor_blocks(const std::string& s) {
  std::vector<std::string> blocks;
  size_t i = 0;
  while (i < s.size()) {
    size_t a = s.find("tensor(", i), b = s.find("torch.Size(", i);
    size_t start = std::min(a, b);
    if (start == std::string::npos) break;
    const bool word_start =
        start == 0 || !(std::isalnum(static_cast<unsigned char>(s[start - 1])) ||
                        s[start - 1] == '.' || s[start - 1] == '_');
    if (!word_start) {
      i = start + 1;
      continue;
    }
    int depth = 0;
    size_t j = s.find('(', start);
    for (; j < s.size(); ++j) {
      if (s[j] == '(') ++depth;
      if (s[j] == ')' && --depth == 0) break;
    }
    blocks.push_back(s.substr(start, j + 1 - start));
    i = j + 1;
  }
  return blocks;
}

// The numbers in a block ("inf", "nan" included), to say how far apart two blocks are.
std::vector<double> numbers(const std::string& s) {
  std::vector<double> v;
  const char* p = s.c_str();
  while (*p) {
    if (std::isdigit(static_cast<unsigned char>(*p)) || *p == '-' || *p == 'i' || *p == 'n') {
      char* end = nullptr;
      const double x = std::strtod(p, &end);
      if (end != p) {
        v.push_back(x);
        p = end;
        continue;
      }
    }
    ++p;
  }
  return v;
}

nlohmann::json fixtures() {
  std::ifstream in(scratchgpt::test::fixture_path("lessons/lessons.json"));
  EXPECT_TRUE(in.good());
  return nlohmann::json::parse(in);
}

void check_lesson(const std::string& name) {
  const nlohmann::json want = fixtures().at(name);
  CliRun r = run_cli("lesson " + name + " 2>&1");
  ASSERT_EQ(r.rc, 0) << r.out;
  const std::vector<std::string> got = tensor_blocks(r.out);
  std::vector<std::string> expected;
  for (const auto& item : want)
    if (item.at("kind") == "tensor") expected.push_back(item.at("text").get<std::string>());
  ASSERT_EQ(got.size(), expected.size()) << name << ": number of printed tensors\n" << r.out;
  int exact = 0;
  for (size_t k = 0; k < got.size(); ++k) {
    if (got[k] == expected[k]) {
      ++exact;
      continue;
    }
    // Not the same text: say how far apart the numbers are.
    const std::vector<double> a = numbers(got[k]), b = numbers(expected[k]);
    double worst = a.size() == b.size() ? 0.0 : INFINITY;
    for (size_t i = 0; i < a.size() && i < b.size(); ++i)
      if (!(std::isinf(a[i]) && a[i] == b[i])) worst = std::max(worst, std::fabs(a[i] - b[i]));
    ADD_FAILURE() << name << ": tensor #" << k << " differs from PyTorch (max |diff| " << worst
                  << ")\n--- scratchgpt\n"
                  << got[k] << "\n--- PyTorch\n"
                  << expected[k];
  }
  EXPECT_EQ(exact, static_cast<int>(expected.size()));
  for (const auto& item : want)
    if (item.at("kind") == "text") {
      const std::string line = item.at("text").get<std::string>() + "\n";
      EXPECT_NE(r.out.find(line), std::string::npos) << name << ": missing line: " << line;
    }
}

TEST(Lesson, Averaging) { check_lesson("averaging"); }
TEST(Lesson, Positional) { check_lesson("positional"); }
TEST(Lesson, Head) { check_lesson("head"); }
TEST(Lesson, Block) { check_lesson("block"); }
TEST(Lesson, SimplifiedAttention) { check_lesson("simplified-attention"); }
TEST(Lesson, TrainableWeights) { check_lesson("trainable-weights"); }
TEST(Lesson, CausalAttention) { check_lesson("causal-attention"); }
TEST(Lesson, MultiHead) { check_lesson("multi-head"); }
TEST(Lesson, Bigram) { check_lesson("bigram"); }

TEST(Lesson, EveryFixtureLessonIsListed) {
  CliRun r = run_cli("lesson --list 2>&1");
  ASSERT_EQ(r.rc, 0) << r.out;
  const nlohmann::json all = fixtures();
  for (const auto& [name, items] : all.items())
    EXPECT_NE(r.out.find("  " + name + " "), std::string::npos) << name << " not in\n" << r.out;
}

TEST(Lesson, UnknownNameIsOneLineErrorPlusTheList) {
  CliRun r = run_cli("lesson no-such-lesson 2>&1");
  EXPECT_NE(r.rc, 0);
  EXPECT_EQ(r.out.rfind("error: unknown lesson 'no-such-lesson'", 0), 0u) << r.out;
  EXPECT_NE(r.out.find("  multi-head "), std::string::npos) << r.out;
  EXPECT_EQ(tensor_blocks(r.out).size(), 0u);
}

TEST(Lesson, NoNameIsAnError) {
  CliRun r = run_cli("lesson 2>&1");
  EXPECT_NE(r.rc, 0);
  EXPECT_EQ(r.out.rfind("error: name a lesson", 0), 0u) << r.out;
}

TEST(Lesson, MissingDataFileNamesTheFlag) {
  CliRun r = run_cli("lesson bigram --data /nonexistent/input.txt 2>&1");
  EXPECT_NE(r.rc, 0);
  EXPECT_NE(r.out.find("--data"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("tensor("), std::string::npos) << r.out;
}

TEST(LessonBlocks, ExtractorFindsNestedBlocksAndSkipsTorchTensorCalls) {
  const auto b = tensor_blocks("a torch.tensor(1) x: tensor([[1., 2.]])\ny torch.Size([2, 3])");
  ASSERT_EQ(b.size(), 2u);
  EXPECT_EQ(b[0], "tensor([[1., 2.]])");
  EXPECT_EQ(b[1], "torch.Size([2, 3])");
}

}  // namespace
