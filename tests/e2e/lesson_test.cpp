// lesson_test.cpp: `scratchgpt lesson NAME` against PyTorch. tools/make_lesson_fixtures.py runs the
// Python of every lesson and records each tensor PyTorch printed (str(tensor), str(torch.Size))
// and chosen whole lines; here every lesson's output must contain the same tensor blocks, in the
// same order, string for string, and those lines. Also: --list, unknown names, a missing --data;
// the lecture's lessons at other sizes and seeds, head's --trace, impossible shapes (issue 15).
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "lesson_util.h"
#include "test_util.h"

namespace {

using scratchgpt::test::CliRun;
using scratchgpt::test::numbers;
using scratchgpt::test::run_cli;
using scratchgpt::test::tensor_blocks;

nlohmann::json fixtures() {
  std::ifstream in(scratchgpt::test::fixture_path("lessons/lessons.json"));
  EXPECT_TRUE(in.good());
  return nlohmann::json::parse(in);
}

// `scratchgpt lesson NAME FLAGS` must print the tensors of `want` (fixture items), string for
// string and in order, and its text lines. Returns the output.
std::string check_items(const std::string& name, const std::string& flags,
                        const nlohmann::json& want) {
  const std::string what = name + (flags.empty() ? "" : " " + flags);
  CliRun r = run_cli("lesson " + what + " 2>&1");
  EXPECT_EQ(r.rc, 0) << what << "\n" << r.out;
  if (r.rc != 0) return r.out;
  const std::vector<std::string> got = tensor_blocks(r.out);
  std::vector<std::string> expected;
  std::vector<bool> by_value;  // "tensor_ulp": a sum of softmax weights, equal within 1e-6
  for (const auto& item : want)
    if (item.at("kind") == "tensor" || item.at("kind") == "tensor_ulp") {
      expected.push_back(item.at("text").get<std::string>());
      by_value.push_back(item.at("kind") == "tensor_ulp");
    }
  EXPECT_EQ(got.size(), expected.size()) << what << ": number of printed tensors\n" << r.out;
  if (got.size() != expected.size()) return r.out;
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
    if (by_value[k] && worst <= 1e-6) {
      ++exact;
      continue;
    }
    ADD_FAILURE() << what << ": tensor #" << k << " differs from PyTorch (max |diff| " << worst
                  << ")\n--- scratchgpt\n"
                  << got[k] << "\n--- PyTorch\n"
                  << expected[k];
  }
  EXPECT_EQ(exact, static_cast<int>(expected.size())) << what;
  for (const auto& item : want)
    if (item.at("kind") == "text") {
      const std::string line = item.at("text").get<std::string>() + "\n";
      EXPECT_NE(r.out.find(line), std::string::npos) << what << ": missing line: " << line;
    }
  return r.out;
}

void check_lesson(const std::string& name) { check_items(name, "", fixtures().at(name)); }

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

// ---- issue 15: the lecture's lessons at any shape and seed, and head's --trace

nlohmann::json shape_fixtures() {
  std::ifstream in(scratchgpt::test::fixture_path("lessons/lessons_shapes.json"));
  EXPECT_TRUE(in.good());
  return nlohmann::json::parse(in);
}

// Every run of SHAPES in tools/lesson_fixtures/cases.py (other B, T, C, head_size, n_head,
// block_size, seed; head --trace) prints PyTorch's tensors string for string.
TEST(LessonShapes, EveryShapeAndSeedPrintsWhatPyTorchPrints) {
  const nlohmann::json all = shape_fixtures();
  ASSERT_GE(all.size(), 10u);
  std::set<std::string> lessons;
  for (const auto& run : all) {
    const std::string name = run.at("lesson"), flags = run.at("flags");
    SCOPED_TRACE("lesson " + name + " " + flags);
    check_items(name, flags, run.at("items"));
    lessons.insert(name);
  }
  EXPECT_EQ(lessons, (std::set<std::string>{"averaging", "positional", "head", "block",
                                            "simplified-attention", "trainable-weights",
                                            "causal-attention", "multi-head"}));
}

// The lecture's values given as flags print exactly what the lesson prints without them.
TEST(LessonShapes, TheLecturesValuesAsFlagsChangeNothing) {
  const std::pair<const char*, const char*> cases[] = {
      {"averaging", "--B 4 --T 8 --C 2 --seed 1337"},
      {"positional", "--B 2 --T 4 --C 4 --block-size 8 --seed 1337"},
      {"head", "--B 4 --T 8 --C 32 --head-size 16 --seed 1337"},
      {"block", "--B 2 --T 4 --C 8 --n-head 2 --block-size 8 --seed 1337"},
      {"block", "--head-size 4"},
      {"trainable-weights", "--d-out 2"},
      {"causal-attention", "--d-out 2"},
      {"multi-head", "--d-out 2 --n-head 2"},
  };
  for (const auto& [name, flags] : cases) {
    const CliRun plain = run_cli(std::string("lesson ") + name + " 2>&1");
    const CliRun given = run_cli(std::string("lesson ") + name + " " + flags + " 2>&1");
    EXPECT_EQ(plain.rc, 0);
    EXPECT_EQ(given.rc, 0);
    EXPECT_EQ(given.out, plain.out) << name << " " << flags;
  }
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

// Without flags every lesson still prints every line it printed before the flags existed
// (default_output.json: scratchgpt's own output then, sentences included), in the same order;
// sentences added since (the explanations of issue 42) come between them. Not bigram: it prints
// the data file's path, which depends on the working directory (Lesson.Bigram checks the rest).
TEST(LessonShapes, WithoutFlagsEveryLessonPrintsWhatItPrintedBefore) {
  std::ifstream in(scratchgpt::test::fixture_path("lessons/default_output.json"));
  ASSERT_TRUE(in.good());
  const nlohmann::json before = nlohmann::json::parse(in);
  EXPECT_EQ(before.size(), 8u);
  for (const auto& [name, text] : before.items()) {
    const CliRun r = run_cli("lesson " + name + " 2>&1");
    EXPECT_EQ(r.rc, 0) << name;
    const std::vector<std::string> now = lines_of(r.out);
    size_t at = 0;
    for (const std::string& line : lines_of(text.get<std::string>())) {
      while (at < now.size() && now[at] != line) ++at;
      ASSERT_LT(at, now.size()) << name << ": missing or out of order: " << line << "\n" << r.out;
      ++at;
    }
  }
}

// The run of one fixture, by lesson and flags.
nlohmann::json shape_items(const std::string& name, const std::string& flags) {
  for (const auto& run : shape_fixtures())
    if (run.at("lesson") == name && run.at("flags") == flags) return run.at("items");
  ADD_FAILURE() << "no fixture for lesson " << name << " " << flags;
  return nlohmann::json::array();
}

// The hand-traced case: one head at B=1, T=2, C=3, head_size=3. Every intermediate is printed, in
// the order of the code, under its name, with PyTorch's numbers; and the numbers hang together
// (read back from the output): wei = q k^T, the scaled scores, -inf above the diagonal,
// softmax rows that sum to 1, out = softmax @ v.
TEST(LessonTrace, HeadAtT2C3IsTheHandTracedCase) {
  const std::string flags = "--B 1 --T 2 --C 3 --head-size 3 --trace";
  const std::string out = check_items("head", flags, shape_items("head", flags));
  const char* names[] = {"x[0]:",
                         "key.weight:",
                         "query.weight:",
                         "value.weight:",
                         "k[0]:",
                         "q[0]:",
                         "v[0]:",
                         "wei = q @ k.transpose(-2, -1) [0]:",
                         "scale = head_size**-0.5:",
                         "wei * scale [0]:",
                         "tril = torch.tril(torch.ones(T, T)):",
                         "wei.masked_fill(tril == 0, float('-inf')) [0]:",
                         "F.softmax(wei, dim=-1) [0]:",
                         "out = wei @ v [0]:"};
  size_t at = 0;
  for (const char* n : names) {
    const size_t p = out.find(std::string("\n") + n + " tensor(", at);
    ASSERT_NE(p, std::string::npos) << "missing or out of order: " << n << "\n" << out;
    at = p + 1;
  }
  const std::vector<std::string> blocks = tensor_blocks(out);
  ASSERT_EQ(blocks.size(), 14u) << out;
  std::vector<std::vector<double>> m;
  for (const auto& b : blocks) m.push_back(numbers(b));
  const auto &x = m[0], &wk = m[1], &wq = m[2], &wv = m[3];
  const auto &k = m[4], &q = m[5], &v = m[6], &wei = m[7], &scale = m[8], &scaled = m[9],
             &tril = m[10], &masked = m[11], &soft = m[12], &o = m[13];
  ASSERT_EQ(x.size(), 6u);
  for (int t = 0; t < 2; ++t)  // k = x @ key.weight.T (and q, v likewise), from printed digits
    for (int i = 0; i < 3; ++i) {
      double dk = 0, dq = 0, dv = 0;
      for (int c = 0; c < 3; ++c) {
        dk += x[t * 3 + c] * wk[i * 3 + c];
        dq += x[t * 3 + c] * wq[i * 3 + c];
        dv += x[t * 3 + c] * wv[i * 3 + c];
      }
      EXPECT_NEAR(k[t * 3 + i], dk, 1e-3);
      EXPECT_NEAR(q[t * 3 + i], dq, 1e-3);
      EXPECT_NEAR(v[t * 3 + i], dv, 1e-3);
    }
  ASSERT_EQ(k.size(), 6u);
  ASSERT_EQ(wei.size(), 4u);
  ASSERT_EQ(scale.size(), 1u);
  EXPECT_NEAR(scale[0], 1 / std::sqrt(3.0), 1e-4);
  for (int t = 0; t < 2; ++t)
    for (int s = 0; s < 2; ++s) {
      double dot = 0;
      for (int i = 0; i < 3; ++i) dot += q[t * 3 + i] * k[s * 3 + i];
      EXPECT_NEAR(wei[t * 2 + s], dot, 1e-3) << t << "," << s;
      EXPECT_NEAR(scaled[t * 2 + s], wei[t * 2 + s] * scale[0], 1e-3);
      EXPECT_EQ(tril[t * 2 + s], s <= t ? 1.0 : 0.0);
      if (s > t)
        EXPECT_TRUE(std::isinf(masked[t * 2 + s]) && masked[t * 2 + s] < 0);
      else
        EXPECT_EQ(masked[t * 2 + s], scaled[t * 2 + s]);
    }
  EXPECT_EQ(soft[0], 1.0);  // the first token sees only itself
  EXPECT_EQ(soft[1], 0.0);
  EXPECT_NEAR(soft[2] + soft[3], 1.0, 2e-4);
  EXPECT_NEAR(soft[2] / soft[3], std::exp(scaled[2] - scaled[3]), 2e-3);
  for (int t = 0; t < 2; ++t)
    for (int i = 0; i < 3; ++i)
      EXPECT_NEAR(o[t * 3 + i], soft[t * 2] * v[i] + soft[t * 2 + 1] * v[3 + i], 2e-4);
}

// Seed 001's snippet (query, key, value created in that order at B, T, C = 4, 3, 5, head_size
// 6, seed 1337) prints PyTorch's numbers with --order, and other numbers than the lecture's order.
TEST(LessonShapes, CreationOrderOfSeed001sSnippetIsPyTorchs) {
  const std::string shape = "--B 4 --T 3 --C 5 --head-size 6";
  for (const std::string extra : {"", " --trace"}) {
    const std::string flags = shape + " --order query,key,value" + extra;
    const std::string out = check_items("head", flags, shape_items("head", flags));
    EXPECT_NE(out.find("query, key, value = nn.Linear(5, 6, bias=False), created in that order."),
              std::string::npos)
        << out;
    const CliRun lecture = run_cli("lesson head " + shape + extra + " 2>&1");
    EXPECT_NE(tensor_blocks(lecture.out), tensor_blocks(out)) << flags;
  }
}

// An impossible shape, or a flag the lesson does not take, is one line naming the flag.
TEST(LessonShapes, ImpossibleShapesAreOneLineErrorsNamingTheFlag) {
  const std::pair<const char*, const char*> cases[] = {
      {"block --C 8 --n-head 3", "--n-head"},
      {"block --C 8 --head-size 3", "--head-size"},
      {"block --C 8 --n-head 2 --head-size 2", "--head-size"},
      {"block --T 9", "--T"},
      {"positional --T 9", "--T"},
      {"positional --T 16 --block-size 8", "--block-size"},
      {"head --T 0", "--T"},
      {"averaging --B 0", "--B"},
      {"head --C -3", "--C"},
      {"head --head-size 0", "--head-size"},
      {"averaging --head-size 4", "--head-size"},
      {"averaging --trace", "--trace"},
      {"trainable-weights --trace", "--trace"},
      {"positional --html /tmp/x.html", "--html"},
      {"positional --n-head 2", "--n-head"},
      {"bigram --seed 3", "--seed"},
      {"multi-head --d-out 4 --n-head 3", "--n-head"},
      {"causal-attention --n-head 2", "--n-head"},
      {"simplified-attention --T 1", "--T"},
      {"trainable-weights --d-in 0", "--d-in"},
      {"simplified-attention --d-out 2", "--d-out"},
      {"head --B 100000 --T 100000", "--T"},
      {"head --order key,key,value", "--order"},
      {"head --order query,key", "--order"},
      {"averaging --order query,key,value", "--order"},
      {"head --random-inputs", "--random-inputs"},
      {"trainable-weights --context-length 4", "--context-length"},
  };
  for (const auto& [args, flag] : cases) {
    CliRun r = run_cli(std::string("lesson ") + args + " 2>&1");
    EXPECT_NE(r.rc, 0) << args;
    EXPECT_EQ(r.out.rfind("error: ", 0), 0u) << args << "\n" << r.out;
    EXPECT_NE(r.out.find(flag), std::string::npos) << args << "\n" << r.out;
    EXPECT_LE(std::count(r.out.begin(), r.out.end(), '\n'), 1) << args << "\n" << r.out;
    EXPECT_EQ(r.out.find("tensor("), std::string::npos) << args << "\n" << r.out;
  }
}

// ---- --html: the trace as a page

// A folder of its own under the system's temporary directory.
std::string temp_dir() {
  static int n = 0;
  return scratchgpt::test::scratch_dir("lesson_html_" + std::to_string(n++));
}

std::string read_all(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// One grid of the page: its data-name, data-rows, data-cols, its cells' texts and which are masked.
struct Grid {
  std::string name;
  int rows = 0, cols = 0;
  std::vector<std::string> cells;
  std::vector<bool> masked;
};

std::string unescape(std::string s) {
  const std::pair<const char*, const char*> ents[] = {
      {"&lt;", "<"}, {"&gt;", ">"}, {"&quot;", "\""}, {"&#39;", "'"}, {"&amp;", "&"}};
  for (const auto& [e, c] : ents)
    for (size_t p; (p = s.find(e)) != std::string::npos;) s.replace(p, std::strlen(e), c);
  return s;
}

std::string attr(const std::string& tag, const std::string& name) {
  const size_t p = tag.find(name + "=\"");
  if (p == std::string::npos) return "";
  const size_t a = p + name.size() + 2, b = tag.find('"', a);
  return unescape(tag.substr(a, b - a));
}

std::vector<Grid> grids(const std::string& page) {
  std::vector<Grid> out;
  for (size_t p = 0; (p = page.find("<table class=\"grid\"", p)) != std::string::npos;) {
    const size_t tag_end = page.find('>', p), end = page.find("</table>", p);
    const std::string tag = page.substr(p, tag_end - p);
    Grid g;
    g.name = attr(tag, "data-name");
    g.rows = std::atoi(attr(tag, "data-rows").c_str());
    g.cols = std::atoi(attr(tag, "data-cols").c_str());
    for (size_t c = tag_end; (c = page.find("<td", c)) != std::string::npos && c < end;) {
      const size_t open_end = page.find('>', c), close = page.find("</td>", c);
      g.masked.push_back(page.substr(c, open_end - c).find("masked") != std::string::npos);
      g.cells.push_back(unescape(page.substr(open_end + 1, close - open_end - 1)));
      c = close;
    }
    out.push_back(g);
    p = end;
  }
  return out;
}

// The page holds every matrix of the trace, named as in the code and in order, each cell the
// number PyTorch prints (read back from the page and compared with the fixture's tensors), the
// future positions of tril, the masked scores and softmax drawn as masked; nothing is fetched.
TEST(LessonHtml, PageHoldsEveryMatrixOfTheTraceWithPyTorchsNumbers) {
  const std::string dir = temp_dir();
  const std::vector<std::string> head_names = {"x[0]:",
                                               "key.weight:",
                                               "query.weight:",
                                               "value.weight:",
                                               "k[0]:",
                                               "q[0]:",
                                               "v[0]:",
                                               "wei = q @ k.transpose(-2, -1) [0]:",
                                               "scale = head_size**-0.5:",
                                               "wei * scale [0]:",
                                               "tril = torch.tril(torch.ones(T, T)):",
                                               "wei.masked_fill(tril == 0, float('-inf')) [0]:",
                                               "F.softmax(wei, dim=-1) [0]:",
                                               "out = wei @ v [0]:"};
  const std::vector<std::string> book_names = {
      "x[0]:",
      "W_query.weight:",
      "W_key.weight:",
      "W_value.weight:",
      "keys[0]:",
      "queries[0]:",
      "values[0]:",
      "attn_scores = queries @ keys.transpose(1, 2) [0]:",
      "mask = torch.triu(torch.ones(T, T), diagonal=1):",
      "attn_scores.masked_fill_(mask.bool(), -torch.inf) [0]:",
      "scale = keys.shape[-1]**0.5:",
      "attn_scores / keys.shape[-1]**0.5 [0]:",
      "attn_weights = torch.softmax(..., dim=-1) [0]:",
      "context_vec = attn_weights @ values [0]:"};
  const std::vector<std::string> mha_names = {
      "x[0]:",
      "W_query.weight:",
      "W_key.weight:",
      "W_value.weight:",
      "out_proj.weight:",
      "out_proj.bias:",
      "keys[0]:",
      "queries[0]:",
      "values[0]:",
      "keys[0, 0]:",
      "queries[0, 0]:",
      "values[0, 0]:",
      "keys[0, 1]:",
      "queries[0, 1]:",
      "values[0, 1]:",
      "attn_scores = queries @ keys.transpose(2, 3) [0, 0]:",
      "mask = torch.triu(torch.ones(T, T), diagonal=1):",
      "attn_scores.masked_fill_(mask_bool, -torch.inf) [0, 0]:",
      "scale = keys.shape[-1]**0.5:",
      "attn_scores / keys.shape[-1]**0.5 [0, 0]:",
      "attn_weights = torch.softmax(..., dim=-1) [0, 0]:",
      "attn_weights = torch.softmax(..., dim=-1) [0, 1]:",
      "(attn_weights @ values) [0, 0]:",
      "(attn_weights @ values) [0, 1]:",
      "context_vec (heads concatenated) [0]:",
      "context_vec = self.out_proj(context_vec) [0]:"};
  struct Run {
    std::string lesson, flags;
    const std::vector<std::string>* names;
    std::set<size_t> with_mask;  // the matrices whose future cells are drawn masked
  };
  const Run runs[] = {
      {"head", "--B 1 --T 2 --C 3 --head-size 3 --trace", &head_names, {10, 11, 12}},
      {"head", "--B 2 --T 5 --C 6 --head-size 4 --seed 44 --trace", &head_names, {10, 11, 12}},
      {"block", "--B 1 --T 3 --C 6 --n-head 2 --seed 7 --trace", &head_names, {10, 11, 12}},
      {"causal-attention", "--trace", &book_names, {8, 9, 11, 12}},
      {"causal-attention",
       "--T 3 --d-in 2 --d-out 2 --seed 7 --trace",
       &book_names,
       {8, 9, 11, 12}},
      {"multi-head",
       "--T 4 --d-in 3 --d-out 4 --n-head 2 --seed 7 --trace",
       &mha_names,
       {16, 17, 19, 20, 21}}};
  for (const auto& [lesson, flags, names_of, with_mask] : runs) {
    SCOPED_TRACE(lesson + " " + flags);
    const std::vector<std::string>& names = *names_of;
    const std::string page_path = dir + "/trace.html";
    CliRun r =
        run_cli("lesson " + lesson + " " + flags + " --html '" + page_path + "' --overwrite 2>&1");
    ASSERT_EQ(r.rc, 0) << r.out;
    EXPECT_NE(r.out.find("wrote " + page_path), std::string::npos) << r.out;
    const std::string page = read_all(page_path);
    for (const char* net : {"http://", "https://", "<script", "<link", "src=", "url("})
      EXPECT_EQ(page.find(net), std::string::npos) << net;
    const nlohmann::json want = shape_items(lesson, flags);
    std::vector<std::string> tensors;
    for (const auto& item : want)
      if (item.at("kind") == "tensor") tensors.push_back(item.at("text"));
    if (tensors.size() == names.size() + 1) tensors.erase(tensors.begin());  // "inputs:"
    const std::vector<Grid> g = grids(page);
    ASSERT_EQ(g.size(), names.size());
    ASSERT_EQ(tensors.size(), names.size());
    for (size_t m = 0; m < g.size(); ++m) {
      EXPECT_EQ(g[m].name, names[m]);
      const std::vector<double> expect = numbers(tensors[m]);
      ASSERT_EQ(g[m].cells.size(), expect.size()) << names[m];
      EXPECT_EQ(static_cast<size_t>(g[m].rows) * g[m].cols, expect.size()) << names[m];
      int masked = 0;
      for (size_t i = 0; i < expect.size(); ++i) {
        EXPECT_NE(tensors[m].find(g[m].cells[i]), std::string::npos)
            << names[m] << " cell " << i << " '" << g[m].cells[i] << "' not in PyTorch's text";
        const std::vector<double> got = numbers(g[m].cells[i]);
        ASSERT_EQ(got.size(), 1u) << g[m].cells[i];
        EXPECT_EQ(got[0], expect[i]) << names[m] << " cell " << i;
        masked += g[m].masked[i];
        if (g[m].masked[i]) {
          EXPECT_GT(i % g[m].cols, i / g[m].cols) << names[m] << " cell " << i;
        }
      }
      const bool has_mask = with_mask.count(m) > 0;
      EXPECT_EQ(masked, has_mask ? g[m].rows * (g[m].rows - 1) / 2 : 0) << names[m];
    }
  }
}

TEST(LessonHtml, UnwritablePageIsOneLineErrorNamingTheFlag) {
  CliRun r = run_cli("lesson head --T 2 --html /nonexistent/dir/page.html 2>&1");
  EXPECT_NE(r.rc, 0);
  EXPECT_EQ(r.out.rfind("error: --html: cannot write /nonexistent/dir/page.html", 0), 0u) << r.out;
  EXPECT_LE(std::count(r.out.begin(), r.out.end(), '\n'), 1) << r.out;
  r = run_cli("lesson averaging --html /tmp/x.html 2>&1");
  EXPECT_NE(r.rc, 0);
  EXPECT_NE(r.out.find("does not take --html"), std::string::npos) << r.out;
}

// In a real browser: headless Chromium's DOM of the page has one grid per intermediate.
TEST(LessonHtml, ChromiumShowsOneGridPerIntermediate) {
  if (std::system("command -v chromium >/dev/null 2>&1") != 0)
    GTEST_SKIP()
        << "chromium is not installed (Debian: apt-get install -y chromium); the page's "
           "contents are still checked by PageHoldsEveryMatrixOfTheTraceWithPyTorchsNumbers";
  const std::string dir = temp_dir(), page_path = dir + "/trace.html";
  CliRun r = run_cli("lesson head --B 1 --T 2 --C 3 --head-size 3 --html '" + page_path +
                     "' >/dev/null 2>&1");
  ASSERT_EQ(r.rc, 0);
  const std::string cmd =
      "timeout 120 chromium --headless --no-sandbox --disable-gpu "
      "--user-data-dir='" +
      dir + "/profile' --dump-dom 'file://" + page_path + "' 2>/dev/null";
  std::string dom;
  FILE* p = popen(cmd.c_str(), "r");
  ASSERT_NE(p, nullptr);
  std::array<char, 4096> buf;
  for (size_t n; (n = fread(buf.data(), 1, buf.size(), p)) > 0;) dom.append(buf.data(), n);
  ASSERT_EQ(pclose(p), 0) << cmd;
  const std::vector<Grid> g = grids(dom);
  ASSERT_EQ(g.size(), 14u) << dom.substr(0, 2000);
  EXPECT_EQ(g[0].name, "x[0]:");
  EXPECT_EQ(g[8].name, "scale = head_size**-0.5:");
  EXPECT_EQ(g[13].name, "out = wei @ v [0]:");
  for (const auto& grid : g)
    EXPECT_EQ(grid.cells.size(), static_cast<size_t>(grid.rows * grid.cols));
}

TEST(LessonBlocks, ExtractorFindsNestedBlocksAndSkipsTorchTensorCalls) {
  const auto b = tensor_blocks("a torch.tensor(1) x: tensor([[1., 2.]])\ny torch.Size([2, 3])");
  ASSERT_EQ(b.size(), 2u);
  EXPECT_EQ(b[0], "tensor([[1., 2.]])");
  EXPECT_EQ(b[1], "torch.Size([2, 3])");
}

}  // namespace
