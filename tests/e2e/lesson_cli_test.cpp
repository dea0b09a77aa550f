// lesson_cli_test.cpp: the lesson command line of issue 42: the texts' flag names as aliases,
// `lesson NAME --help` (that lesson's flags and defaults only), the defaults given explicitly
// print what leaving them out prints, --json is valid JSON whose tensors are the text's, every
// label count fits its shape, and the trace's worked dot product and softmax row agree with the
// matrices printed around them (recomputed here from the printed digits).
#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "lesson_util.h"

namespace {

using scratchgpt::test::CliRun;
using scratchgpt::test::numbers;
using scratchgpt::test::run_cli;
using scratchgpt::test::tensor_blocks;

const char* const kLessons[] = {
    "averaging",         "positional",       "head",      "block", "simplified-attention",
    "trainable-weights", "causal-attention", "multi-head"};

CliRun lesson(const std::string& args) { return run_cli("lesson " + args + " 2>&1"); }

// The texts' spellings print exactly what the canonical flags print.
TEST(LessonCli, AliasesPrintWhatTheCanonicalFlagPrints) {
  const std::pair<const char*, const char*> cases[] = {
      {"block --C 8 --n-head 4", "block --n-embd 8 --num-heads 4"},
      {"block --C 8 --n-head 4", "block --n_embd 8 --n_head 4"},
      {"block --C 8 --n-head 4", "block --C 8 --num_heads 4"},
      {"block --T 6 --block-size 12", "block --T 6 --block_size 12"},
      {"block --T 6 --block-size 12", "block --T 6 --context-length 12"},
      {"positional --T 6 --block-size 12", "positional --T 6 --context_length 12"},
      {"head --B 2 --head-size 8", "head --batch-size 2 --head_size 8"},
      {"head --B 2 --head-size 8", "head --batch_size 2 --head-size 8"},
      {"averaging --B 2 --C 3", "averaging --batch-size 2 --n-embd 3"},
      {"multi-head --d-in 4 --d-out 4 --n-head 2", "multi-head --d_in 4 --d_out 4 --num-heads 2"},
      {"causal-attention --T 4", "causal-attention --context-length 4"},
      {"causal-attention --T 4 --trace", "causal-attention --context_length 4 --trace"},
  };
  for (const auto& [canonical, alias] : cases) {
    const CliRun a = lesson(canonical), b = lesson(alias);
    EXPECT_EQ(a.rc, 0) << canonical << "\n" << a.out;
    EXPECT_EQ(b.rc, 0) << alias << "\n" << b.out;
    EXPECT_EQ(a.out, b.out) << canonical << " vs " << alias;
  }
  // Two spellings of one size that disagree: one line naming both.
  const CliRun r = lesson("causal-attention --T 4 --context-length 5");
  EXPECT_NE(r.rc, 0);
  EXPECT_EQ(r.out.rfind("error: --context-length 5 and --T 4", 0), 0u) << r.out;
  const CliRun h = lesson("trainable-weights --context-length 4");  // no context_length there
  EXPECT_NE(h.rc, 0);
  EXPECT_NE(h.out.find("does not take --context-length"), std::string::npos) << h.out;
}

// The flags a lesson's --help must list (with "default X" where the text has one), and the flags
// it must not.
struct HelpCase {
  const char* lesson;
  std::map<std::string, std::string> flags;  // flag -> default ("" = none)
};

const std::set<std::string> kAllFlags = {"--B",
                                         "--T",
                                         "--C",
                                         "--head-size",
                                         "--n-head",
                                         "--block-size",
                                         "--d-in",
                                         "--d-out",
                                         "--seed",
                                         "--order",
                                         "--trace",
                                         "--html",
                                         "--random-inputs",
                                         "--context-length"};

TEST(LessonCli, HelpOfALessonListsItsFlagsWithDefaultsOnly) {
  const HelpCase cases[] = {
      {"averaging", {{"--B", "4"}, {"--T", "8"}, {"--C", "2"}, {"--seed", "1337"}}},
      {"head",
       {{"--B", "4"},
        {"--T", "8"},
        {"--C", "32"},
        {"--head-size", "16"},
        {"--seed", "1337"},
        {"--order", "key,query,value"},
        {"--trace", ""},
        {"--html", ""}}},
      {"block",
       {{"--B", "2"},
        {"--T", "4"},
        {"--C", "8"},
        {"--n-head", "2"},
        {"--head-size", "C/n-head"},
        {"--block-size", "8"},
        {"--seed", "1337"},
        {"--trace", ""},
        {"--html", ""}}},
      {"simplified-attention",
       {{"--T", "6"}, {"--d-in", "3"}, {"--seed", "123"}, {"--random-inputs", ""}}},
      {"multi-head",
       {{"--T", "6"},
        {"--context-length", ""},
        {"--d-in", "3"},
        {"--d-out", "2"},
        {"--n-head", "2"},
        {"--seed", "123"},
        {"--random-inputs", ""},
        {"--trace", ""},
        {"--html", ""}}},
      {"bigram", {}},
  };
  for (const auto& [name, flags] : cases) {
    const CliRun r = lesson(std::string(name) + " --help");
    ASSERT_EQ(r.rc, 0) << name << "\n" << r.out;
    EXPECT_EQ(r.out.find("tensor("), std::string::npos) << name;
    std::map<std::string, std::string> lines;  // "--flag" -> its line
    std::istringstream in(r.out);
    for (std::string line; std::getline(in, line);)
      if (line.rfind("  --", 0) == 0) lines[line.substr(2, line.find(' ', 2) - 2)] = line;
    for (const std::string& f : kAllFlags) {
      const auto want = flags.find(f);
      if (want == flags.end()) {
        EXPECT_EQ(lines.count(f), 0u) << name << " lists " << f << "\n" << r.out;
        continue;
      }
      ASSERT_EQ(lines.count(f), 1u) << name << " misses " << f << "\n" << r.out;
      if (!want->second.empty()) {
        EXPECT_NE(lines[f].find("; default " + want->second), std::string::npos) << lines[f];
      }
    }
    EXPECT_EQ(lines.count("--json"), 1u) << name;
  }
  // Without a name: the whole command's help, every lesson listed.
  const CliRun all = lesson("--help");
  EXPECT_EQ(all.rc, 0);
  for (const char* name : kLessons) EXPECT_NE(all.out.find(name), std::string::npos) << name;
}

// Every default a lesson's --help shows, given explicitly, prints byte for byte what leaving it
// out prints (the book's 6, 3, 123 included: the journey's embeddings, not random ones).
TEST(LessonCli, EveryDefaultGivenExplicitlyPrintsWhatLeavingItOutPrints) {
  for (const char* name : kLessons) {
    const CliRun help = lesson(std::string(name) + " --help");
    std::string flags;
    std::istringstream in(help.out);
    for (std::string line; std::getline(in, line);) {
      const size_t d = line.find("; default ");
      if (line.rfind("  --", 0) != 0 || d == std::string::npos) continue;
      const std::string value = line.substr(d + 10);
      if (value.find('/') != std::string::npos) continue;  // block's head-size = C / n-head
      flags += " " + line.substr(2, line.find(' ', 2) - 2) + " " + value;
    }
    ASSERT_FALSE(flags.empty()) << name;
    const CliRun plain = lesson(name), given = lesson(name + flags);
    EXPECT_EQ(given.rc, 0) << name << flags << "\n" << given.out;
    EXPECT_EQ(given.out, plain.out) << name << flags;
  }
  for (const char* args : {"simplified-attention --seed 123", "causal-attention --T 6 --d-in 3",
                           "multi-head --seed 123 --trace", "head --order key,query,value"}) {
    const std::string name = std::string(args).substr(0, std::string(args).find(' '));
    const std::string rest =
        std::string(args).find("--trace") != std::string::npos ? " --trace" : "";
    EXPECT_EQ(lesson(args).out, lesson(name + rest).out) << args;
  }
  // --random-inputs draws torch.rand(6, 3) with seed 123: printed, and not the journey.
  const CliRun r = lesson("simplified-attention --random-inputs");
  EXPECT_EQ(r.rc, 0);
  EXPECT_NE(r.out.find("torch.manual_seed(123); inputs = torch.rand(6, 3)"), std::string::npos)
      << r.out;
  EXPECT_EQ(r.out, lesson("simplified-attention --random-inputs --T 6 --seed 123").out);
  EXPECT_NE(lesson("simplified-attention --seed 124").out.find("torch.rand(6, 3)"),
            std::string::npos);
}

// The record of `lesson ARGS --json` (stdout only).
nlohmann::json record(const std::string& args) {
  const CliRun r = run_cli("lesson " + args + " --json 2>/dev/null");
  EXPECT_EQ(r.rc, 0) << args;
  return nlohmann::json::parse(r.out);  // throws (fails the test) on invalid JSON
}

std::vector<nlohmann::json> items_of(const nlohmann::json& rec) {
  std::vector<nlohmann::json> items;
  for (const auto& step : rec)
    for (const auto& item : step.at("items")) items.push_back(item);
  return items;
}

const char* const kTraces[] = {"head --B 2 --T 5 --C 6 --head-size 4 --seed 44 --trace",
                               "block --trace", "causal-attention --trace",
                               "multi-head --T 4 --d-in 3 --d-out 6 --n-head 3 --seed 7 --trace"};

// --json is valid JSON, and its tensors and sizes, in order, are the text output's: each cell
// the element PyTorch's format prints, each value that cell's number (to its printed digits).
TEST(LessonJson, TensorsAreTheTextOutputsCellForCell) {
  std::vector<std::string> runs(std::begin(kLessons), std::end(kLessons));
  runs.insert(runs.end(), std::begin(kTraces), std::end(kTraces));
  for (const std::string& args : runs) {
    SCOPED_TRACE(args);
    const std::vector<std::string> blocks = tensor_blocks(lesson(args).out);
    std::vector<nlohmann::json> shown;
    for (const auto& item : items_of(record(args)))
      if (item.at("kind") == "tensor" || item.at("kind") == "size") shown.push_back(item);
    ASSERT_EQ(shown.size(), blocks.size());
    for (size_t b = 0; b < blocks.size(); ++b) {
      const auto& item = shown[b];
      const std::vector<int64_t> shape = item.at("shape");
      if (item.at("kind") == "size") {
        std::string s = "torch.Size([";
        for (size_t d = 0; d < shape.size(); ++d) s += (d ? ", " : "") + std::to_string(shape[d]);
        EXPECT_EQ(blocks[b], s + "])");
        continue;
      }
      const std::vector<double> printed = numbers(blocks[b]);
      const auto& cells = item.at("cells");
      const auto& values = item.at("values");
      ASSERT_EQ(printed.size(), cells.size()) << item.at("text") << " " << blocks[b];
      ASSERT_EQ(values.size(), cells.size());
      for (size_t i = 0; i < cells.size(); ++i) {
        const std::vector<double> cell = numbers(cells[i].get<std::string>());
        ASSERT_EQ(cell.size(), 1u) << cells[i];
        EXPECT_EQ(cell[0], printed[i]) << item.at("text") << " cell " << i;
        if (values[i].is_null()) {
          EXPECT_FALSE(std::isfinite(cell[0]));
        } else {
          const double v = values[i];
          EXPECT_NEAR(v, cell[0], 5.1e-5 * std::max(1.0, std::fabs(v))) << item.at("text");
        }
      }
    }
  }
}

// Every labelled axis has one label per row or column, and in the traces every matrix is
// labelled, the (T, T) ones with the query t on the rows and the key s on the columns.
TEST(LessonJson, TraceLabelsFitTheShapes) {
  for (const char* args : kTraces) {
    SCOPED_TRACE(args);
    int matrices = 0, square = 0;
    for (const auto& item : items_of(record(args))) {
      if (item.at("kind") != "tensor" || !item.contains("op")) continue;
      const std::vector<int64_t> shape = item.at("shape");
      if (shape.empty()) continue;  // the scale
      ++matrices;
      ASSERT_TRUE(item.contains("cols")) << item.at("text");
      EXPECT_EQ(item.at("cols").size(), static_cast<size_t>(shape.back())) << item.at("text");
      EXPECT_FALSE(item.at("col_axis").get<std::string>().empty());
      if (shape.size() == 2) {
        ASSERT_TRUE(item.contains("rows")) << item.at("text");
        EXPECT_EQ(item.at("rows").size(), static_cast<size_t>(shape[0])) << item.at("text");
      }
      if (item.value("row_axis", "") == "t (query)") {
        ++square;
        EXPECT_EQ(item.at("col_axis"), "s (key)");
        EXPECT_EQ(shape[0], shape[1]);
        EXPECT_EQ(item.at("rows"), item.at("cols"));
      }
    }
    EXPECT_GE(matrices, 10);
    EXPECT_GE(square, 5);
  }
  // Outside the traces too: every labelled tensor has one label per row and per column.
  int labelled = 0;
  for (const char* name : kLessons)
    for (const auto& item : items_of(record(name))) {
      if (item.at("kind") != "tensor" || !item.contains("cols")) continue;
      ++labelled;
      const std::vector<int64_t> shape = item.at("shape");
      EXPECT_EQ(item.at("cols").size(), static_cast<size_t>(shape.back())) << item.at("text");
      if (item.contains("rows")) {
        ASSERT_EQ(shape.size(), 2u) << item.at("text");
        EXPECT_EQ(item.at("rows").size(), static_cast<size_t>(shape[0])) << item.at("text");
      }
    }
  EXPECT_GE(labelled, 15);
  // The book's sentence labels its tokens with its words.
  for (const auto& item : items_of(record("causal-attention --trace")))
    if (item.value("text", "") == "x[0]:") {
      EXPECT_EQ(item.at("rows"),
                nlohmann::json({"Your", "journey", "starts", "with", "one", "step"}));
    }
}

// A traced matrix's printed numbers, by its label, and the text lines that follow it.
struct Traced {
  std::vector<double> cells;  // as printed (PyTorch's digits)
  std::vector<int64_t> shape;
  std::vector<std::string> notes;
};

std::map<std::string, Traced> traced(const std::string& args) {
  std::map<std::string, Traced> out;
  std::string last;
  for (const auto& item : items_of(record(args))) {
    if (item.at("kind") == "tensor") {
      last = item.at("text");
      Traced& t = out[last];
      for (const auto& c : item.at("cells")) t.cells.push_back(numbers(c.get<std::string>())[0]);
      t.shape = item.at("shape").get<std::vector<int64_t>>();
    } else if (item.at("kind") == "text" && !last.empty()) {
      out[last].notes.push_back(item.at("text"));
    }
  }
  return out;
}

// The numbers after each "=" of a note line ("  q[4, 0] * k[0, 0] = 0.1 * -0.2 = -0.0200").
std::vector<double> note_numbers(const std::string& line) {
  const size_t colon = line.find(':');
  return numbers(line.substr(line.find('=', colon == std::string::npos ? 0 : colon)));
}

// The worked dot product under the scores: its factors are q[t] and k[0] as printed, each
// product theirs, and its sum the printed score [t, 0]; the worked softmax row under the
// weights: exp of each printed (scaled, masked) score, their sum, each quotient the printed
// weight. t = T - 1.
void check_worked(const std::string& args, const std::string& q, const std::string& k,
                  const std::string& scores, const std::string& z, const std::string& w) {
  SCOPED_TRACE(args);
  std::map<std::string, Traced> m = traced(args);
  for (const std::string& name : {q, k, scores, z, w}) ASSERT_EQ(m.count(name), 1u) << name;
  const int T = static_cast<int>(m[scores].shape[0]), HS = static_cast<int>(m[q].shape[1]);
  const int t = T - 1;
  const std::vector<std::string>& dot = m[scores].notes;
  ASSERT_EQ(dot.size(), static_cast<size_t>(HS + 2));
  EXPECT_EQ(dot[0].rfind("worked dot product: ", 0), 0u) << dot[0];
  double sum = 0;
  for (int i = 0; i < HS; ++i) {
    const std::vector<double> f = note_numbers(dot[1 + i]);  // q, k, q * k
    ASSERT_EQ(f.size(), 3u) << dot[1 + i];
    EXPECT_NEAR(f[0], m[q].cells[t * HS + i], 1e-4) << dot[1 + i];
    EXPECT_NEAR(f[1], m[k].cells[i], 1e-4) << dot[1 + i];
    EXPECT_NEAR(f[2], f[0] * f[1], 2e-4) << dot[1 + i];
    sum += f[2];
  }
  const double printed_sum = note_numbers(dot.back())[0];
  EXPECT_NEAR(printed_sum, sum, 5e-4 * HS) << dot.back();
  EXPECT_NEAR(printed_sum, m[scores].cells[t * T], 1e-4) << dot.back();
  const std::vector<std::string>& soft = m[w].notes;
  ASSERT_EQ(soft.size(), static_cast<size_t>(2 * T + 2));
  double exps = 0;
  std::vector<double> e(T);
  for (int s = 0; s < T; ++s) {
    const std::vector<double> f = note_numbers(soft[1 + s]);  // exp(z), z, e
    ASSERT_EQ(f.size(), 2u) << soft[1 + s];
    EXPECT_NEAR(f[0], m[z].cells[t * T + s], 1e-4) << soft[1 + s];
    EXPECT_NEAR(f[1], std::exp(f[0]), 1e-3 * std::max(1.0, f[1])) << soft[1 + s];
    e[s] = f[1];
    exps += f[1];
  }
  const double printed_exps = note_numbers(soft[1 + T])[0];
  EXPECT_NEAR(printed_exps, exps, 1e-3 * std::max(1.0, exps));
  double total = 0;
  for (int s = 0; s < T; ++s) {
    const std::vector<double> f = numbers(soft[2 + T + s].substr(soft[2 + T + s].find(':') + 1));
    ASSERT_EQ(f.size(), 3u) << soft[2 + T + s];  // e / sum = weight
    EXPECT_NEAR(f[0], e[s], 1e-4);
    EXPECT_NEAR(f[2], f[0] / f[1], 1e-4);
    EXPECT_NEAR(f[2], m[w].cells[t * T + s], 1e-4) << soft[2 + T + s];
    total += f[2];
  }
  EXPECT_NEAR(total, 1.0, 1e-3);
}

TEST(LessonTrace, WorkedDotProductAndSoftmaxRowMatchThePrintedMatrices) {
  const char* head[] = {
      "q[0]:", "k[0]:", "wei = q @ k.transpose(-2, -1) [0]:",
      "wei.masked_fill(tril == 0, float('-inf')) [0]:", "F.softmax(wei, dim=-1) [0]:"};
  for (const char* args :
       {"head --B 1 --T 2 --C 3 --head-size 3 --trace",
        "head --B 2 --T 5 --C 6 --head-size 4 --seed 44 --trace",
        "head --B 4 --T 3 --C 5 --head-size 6 --order query,key,value --trace", "block --trace"})
    check_worked(args, head[0], head[1], head[2], head[3], head[4]);
  check_worked(
      "causal-attention --trace",
      "queries[0]:", "keys[0]:", "attn_scores = queries @ keys.transpose(1, 2) [0]:",
      "attn_scores / keys.shape[-1]**0.5 [0]:", "attn_weights = torch.softmax(..., dim=-1) [0]:");
  check_worked("multi-head --T 4 --d-in 3 --d-out 6 --n-head 3 --seed 7 --trace", "queries[0, 0]:",
               "keys[0, 0]:", "attn_scores = queries @ keys.transpose(2, 3) [0, 0]:",
               "attn_scores / keys.shape[-1]**0.5 [0, 0]:",
               "attn_weights = torch.softmax(..., dim=-1) [0, 0]:");
}

// Multi-head: every head's slice after the split is its columns of keys/queries/values, and the
// concatenation puts each head's context back side by side.
TEST(LessonTrace, MultiHeadShowsEveryHeadAfterTheSplitAndTheConcatenation) {
  std::map<std::string, Traced> m =
      traced("multi-head --T 4 --d-in 3 --d-out 6 --n-head 3 --seed 7 --trace");
  const int T = 4, OC = 6, HS = 2;
  for (const char* what : {"keys", "queries", "values"})
    for (int h = 0; h < 3; ++h) {
      const std::string name = std::string(what) + "[0, " + std::to_string(h) + "]:";
      ASSERT_EQ(m.count(name), 1u) << name;
      for (int t = 0; t < T; ++t)
        for (int i = 0; i < HS; ++i)
          EXPECT_EQ(m[name].cells[t * HS + i],
                    m[std::string(what) + "[0]:"].cells[t * OC + h * HS + i])
              << name;
    }
  const Traced& cat = m["context_vec (heads concatenated) [0]:"];
  ASSERT_EQ(cat.cells.size(), static_cast<size_t>(T * OC));
  for (int h = 0; h < 3; ++h) {
    const Traced& c = m["(attn_weights @ values) [0, " + std::to_string(h) + "]:"];
    ASSERT_EQ(c.cells.size(), static_cast<size_t>(T * HS)) << h;
    for (int t = 0; t < T; ++t)
      for (int i = 0; i < HS; ++i) EXPECT_EQ(c.cells[t * HS + i], cat.cells[t * OC + h * HS + i]);
  }
}

}  // namespace
