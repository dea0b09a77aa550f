// cmd_lesson.cpp: the 'lesson' subcommand: `scratchgpt lesson --list` names the lessons,
// `scratchgpt lesson NAME` runs one (apps/lessons/), printing PyTorch-formatted tensors, at the
// texts' sizes and seeds or at those of --B --T --C ... --seed (each lesson lists the flags it
// takes; any other is an error), with --trace / --html FILE on the attention lessons, and --json
// for the lesson as data (lessons/lesson_out.h).
#include <iostream>
#include <map>
#include <sstream>

#include "commands.h"
#include "core/check.h"
#include "lessons/lesson.h"

namespace scratchgpt::cli {

namespace {

// One line per lesson: "  name  description (source)", newline-separated, no final newline.
std::string lesson_list() {
  std::ostringstream os;
  for (const auto& l : lessons::all_lessons()) {
    std::string name = l.name;
    name.resize(22, ' ');
    os << (os.tellp() > 0 ? "\n" : "") << "  " << name << l.description << " (" << l.source << ")";
  }
  return os.str();
}

// "--B, --T, --C and --seed" from "B T C seed".
std::string flag_list(const std::string& flags) {
  std::istringstream in(flags);
  std::vector<std::string> names;
  for (std::string f; in >> f;) names.push_back("--" + f);
  std::string s;
  for (size_t i = 0; i < names.size(); ++i)
    s += (i == 0 ? "" : i + 1 == names.size() ? " and " : ", ") + names[i];
  return s;
}

bool takes(const lessons::Lesson& l, const std::string& flag) {
  std::istringstream in(l.flags);
  for (std::string f; in >> f;)
    if (f == flag) return true;
  return false;
}

}  // namespace

void register_lesson(CLI::App& app) {
  auto* cmd = app.add_subcommand(
      "lesson",
      "Run a stepping stone of \"Let's build GPT\" or \"Build an LLM from Scratch\" ch. 3, "
      "printing tensors as PyTorch does");
  struct Opts {
    std::string name;
    bool list = false;
    bool json = false;
    lessons::LessonOptions lesson;
    std::map<std::string, int64_t> sizes;  // flag name -> value, for the flags given
    uint64_t seed = 0;
  };
  auto opts = std::make_shared<Opts>();
  cmd->add_option("name", opts->name, "the lesson to run (see --list)");
  cmd->add_flag("--list", opts->list, "list the lessons with a one-line description each");
  cmd->add_option("--data", opts->lesson.data_path,
                  "Tiny Shakespeare text for the bigram lesson (default: data/tinyshakespeare.txt "
                  "of the working directory or of the source tree)");
  // Sizes and seed: each lesson takes some of them (see --list's descriptions and docs/lessons.md);
  // left out, a lesson uses the text's own values.
  for (const char* f : {"B", "T", "C", "head-size", "n-head", "block-size", "d-in", "d-out"}) {
    const std::string what = std::string(f) == "B"           ? "batch size"
                             : std::string(f) == "T"         ? "time steps (sequence length)"
                             : std::string(f) == "C"         ? "channels (n_embd)"
                             : std::string(f) == "head-size" ? "head_size of the attention head(s)"
                             : std::string(f) == "n-head"    ? "number of heads (block, multi-head)"
                             : std::string(f) == "d-in"      ? "the book's d_in (embedding size)"
                             : std::string(f) == "d-out"     ? "the book's d_out"
                                                             : "block_size (longest T)";
    cmd->add_option(std::string("--") + f, opts->sizes[f],
                    what + "; default: the text's value (see docs/lessons.md for each lesson's)");
  }
  cmd->add_option("--seed", opts->seed,
                  "torch.manual_seed of the lesson (default: the text's, 1337 in the lecture; in "
                  "the book's lessons it draws a sentence of random inputs)");
  cmd->add_flag("--trace", opts->lesson.trace,
                "head, block, causal-attention, multi-head: print every intermediate of one head "
                "for batch element 0, in order");
  cmd->add_option("--html", opts->lesson.html,
                  "the same lessons: write the trace as a self-contained page (inline CSS/SVG) "
                  "to FILE (default: none)");
  cmd->add_flag("--overwrite", opts->lesson.overwrite, "replace an existing --html FILE");
  cmd->add_flag("--json", opts->json,
                "print the lesson as JSON instead of text: its steps, sentences and tensors (each "
                "with its shape, values and printed cells), as the lesson book's pages draw them");
  cmd->footer("Lessons:\n" + lesson_list() +
              "\nExample:\n  scratchgpt lesson head --B 1 --T 4 --C 4 --head-size 4 --trace");
  cmd->callback([opts, cmd] {
    if (opts->list) {
      std::cout << lesson_list() << "\n";
      return;
    }
    if (opts->name.empty()) {
      // One line naming the fix, then the list (main prints "error: " before it).
      fail("name a lesson, e.g. 'scratchgpt lesson averaging'; the lessons are:\n", lesson_list());
    }
    for (const auto& l : lessons::all_lessons()) {
      if (opts->name == l.name) {
        lessons::LessonOptions lo = opts->lesson;
        auto given = [&](const std::string& flag) {
          if (cmd->get_option("--" + flag)->count() == 0) return false;
          if (!takes(l, flag))
            fail("lesson ", l.name, " does not take --", flag,
                 std::string(l.flags).empty() ? std::string("; it takes no sizes")
                                              : "; it takes " + flag_list(l.flags));
          return true;
        };
        for (const auto& [flag, value] : opts->sizes)
          if (given(flag)) {
            if (value <= 0 || value > (1 << 20))
              fail("--", flag, " must be between 1 and 1048576, got ", value);
            std::optional<int>& dst = flag == "B"           ? lo.B
                                      : flag == "T"         ? lo.T
                                      : flag == "C"         ? lo.C
                                      : flag == "head-size" ? lo.head_size
                                      : flag == "n-head"    ? lo.n_head
                                      : flag == "d-in"      ? lo.d_in
                                      : flag == "d-out"     ? lo.d_out
                                                            : lo.block_size;
            dst = static_cast<int>(value);
          }
        if (given("seed")) lo.seed = opts->seed;
        if (lo.trace) given("trace");
        if (given("html") && lo.html.empty()) fail("--html needs a file name");
        if (lo.overwrite && lo.html.empty())
          fail("--overwrite replaces an existing --html FILE: give --html too, or leave it out");
        lessons::LessonOut out(opts->json ? nullptr : &std::cout, opts->json);
        l.run(lo, out);
        if (opts->json) std::cout << out.record_json() << "\n";
        std::cout.flush();
        return;
      }
    }
    fail("unknown lesson '", opts->name, "'; the lessons are:\n", lesson_list());
  });
}

}  // namespace scratchgpt::cli
