// cmd_lesson.cpp: the 'lesson' subcommand: `scratchgpt lesson --list` names the lessons,
// `scratchgpt lesson NAME` runs one (apps/lessons/), printing PyTorch-formatted tensors, at the
// texts' sizes and seeds or at those of --B --T --C ... --seed (each lesson lists the flags it
// takes, `lesson NAME --help` with their defaults; any other is an error; the texts' own spellings
// --num-heads, --n_embd, --context-length ... are aliases), with --trace / --html FILE on the
// attention lessons, and --json for the lesson as data (lessons/lesson_out.h).
#include <iostream>
#include <map>
#include <sstream>

#include "commands.h"
#include "core/check.h"
#include "lessons/lesson.h"

namespace scratchgpt::cli {

namespace {

// A lesson flag: its name (as in Lesson::flags), the texts' spellings that mean the same, the
// value it takes ("" = a switch) and what it is.
struct FlagDoc {
  const char* name;
  const char* aliases;  // comma-separated CLI11 names, "" = none
  const char* value;
  const char* what;
};

const FlagDoc kFlagDocs[] = {
    {"B", "--batch-size,--batch_size", "N", "batch size"},
    {"T", "", "N", "time steps: the sequence length (the book's num_tokens)"},
    {"C", "--n-embd,--n_embd", "N", "channels, the lecture's n_embd"},
    {"head-size", "--head_size", "N", "head_size of the attention head(s)"},
    {"n-head", "--num-heads,--num_heads,--n_head", "N",
     "number of heads (the lecture's n_head, the book's num_heads)"},
    {"block-size", "--block_size", "N",
     "block_size, the longest T (also --context-length, --context_length)"},
    {"context-length", "", "N",
     "the book's context_length, which is T in its lessons (also --context_length)"},
    {"d-in", "--d_in", "N", "the book's d_in (embedding size of the inputs)"},
    {"d-out", "--d_out", "N", "the book's d_out"},
    {"seed", "", "N", "torch.manual_seed of the lesson"},
    {"random-inputs", "", "",
     "the book's lessons on torch.manual_seed(seed); torch.rand(T, d_in) instead of the "
     "journey's embeddings (also whenever --T, --d-in or --seed differs from 6, 3, 123)"},
    {"order", "", "LIST",
     "the order key, query and value are created in (seed 001's snippet: query,key,value)"},
    {"trace", "", "", "print every intermediate of one head for batch element 0, in order"},
    {"html", "", "FILE", "write the trace as a self-contained page to FILE"},
};

// The lesson's flags as (name, default) pairs from "B=4 T=8 trace" (default "" = none).
std::vector<std::pair<std::string, std::string>> lesson_flags(const lessons::Lesson& l) {
  std::istringstream in(l.flags);
  std::vector<std::pair<std::string, std::string>> out;
  for (std::string f; in >> f;) {
    const size_t eq = f.find('=');
    out.emplace_back(f.substr(0, eq), eq == std::string::npos ? "" : f.substr(eq + 1));
  }
  return out;
}

bool takes(const lessons::Lesson& l, const std::string& flag) {
  for (const auto& [name, value] : lesson_flags(l))
    if (name == flag) return true;
  return false;
}

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

// "--B, --T, --C and --seed" for the lesson's flags.
std::string flag_list(const lessons::Lesson& l) {
  const auto flags = lesson_flags(l);
  std::string s;
  for (size_t i = 0; i < flags.size(); ++i)
    s += (i == 0 ? "" : i + 1 == flags.size() ? " and " : ", ") + ("--" + flags[i].first);
  return s;
}

// `scratchgpt lesson NAME --help`: the lesson's own flags, their aliases and defaults.
std::string lesson_help(const lessons::Lesson& l) {
  std::ostringstream os;
  os << "scratchgpt lesson " << l.name << ": " << l.description << " (" << l.source << ")\n"
     << "Flags (left out, each is the text's own value, the default shown):\n";
  auto line = [&](std::string head, const std::string& what) {
    head.resize(std::max<size_t>(head.size() + 1, 26), ' ');
    os << "  " << head << what << "\n";
  };
  for (const auto& [name, def] : lesson_flags(l))
    for (const FlagDoc& d : kFlagDocs) {
      if (name != d.name) continue;
      std::string aliases = d.aliases;
      for (size_t p = 0; (p = aliases.find(',', p)) != std::string::npos; p += 2)
        aliases.replace(p, 1, ", ");
      line("--" + name + (*d.value ? std::string(" ") + d.value : ""),
           d.what + (aliases.empty() ? "" : " (also " + aliases + ")") +
               (def.empty() ? "" : "; default " + def));
    }
  if (std::string(l.name) == "bigram")
    line("--data FILE", "Tiny Shakespeare (default: data/tinyshakespeare.txt here or in the tree)");
  line("--json", "print the lesson as JSON (steps, sentences, tensors) instead of text");
  return os.str();
}

// What the command line gave.
struct LessonCli {
  std::string name;
  bool list = false;
  bool json = false;
  bool help = false;
  lessons::LessonOptions lesson;
  std::map<std::string, int64_t> sizes;  // flag name -> value, for the flags given
  uint64_t seed = 0;
};

// The options of the sizes given, checked against the lesson's flags; --context-length is the
// lecture's block_size (positional, block) or the book's T (causal-attention, multi-head).
lessons::LessonOptions lesson_options(const lessons::Lesson& l, CLI::App& cmd, const LessonCli& o) {
  lessons::LessonOptions lo = o.lesson;
  auto given = [&](const std::string& flag) {
    if (cmd.get_option("--" + flag)->count() == 0) return false;
    const bool context = flag == "context-length" && takes(l, "block-size");
    if (!takes(l, flag) && !context)
      fail("lesson ", l.name, " does not take --", flag,
           std::string(l.flags).empty()
               ? std::string("; it takes no sizes")
               : "; it takes " + flag_list(l) + " (see 'scratchgpt lesson " + l.name + " --help')");
    return true;
  };
  for (const auto& [flag, value] : o.sizes) {
    if (!given(flag)) continue;
    if (value <= 0 || value > (1 << 20))
      fail("--", flag, " must be between 1 and 1048576, got ", value);
    const std::string to = flag != "context-length" ? flag
                           : takes(l, "block-size") ? "block-size"
                                                    : "T";
    std::optional<int>& dst = to == "B"           ? lo.B
                              : to == "T"         ? lo.T
                              : to == "C"         ? lo.C
                              : to == "head-size" ? lo.head_size
                              : to == "n-head"    ? lo.n_head
                              : to == "d-in"      ? lo.d_in
                              : to == "d-out"     ? lo.d_out
                                                  : lo.block_size;
    if (dst && *dst != value)
      fail("--context-length ", value, " and --", to, " ", *dst, " name the same size in lesson ",
           l.name, ": give one of them");
    dst = static_cast<int>(value);
  }
  if (given("seed")) lo.seed = o.seed;
  if (lo.random_inputs) given("random-inputs");
  if (given("order") && lo.order.empty()) fail("--order needs a list, e.g. query,key,value");
  if (lo.trace) given("trace");
  if (given("html") && lo.html.empty()) fail("--html needs a file name");
  if (lo.overwrite && lo.html.empty())
    fail("--overwrite replaces an existing --html FILE: give --html too, or leave it out");
  return lo;
}

void run_lesson(const lessons::Lesson& l, CLI::App& cmd, const LessonCli& o) {
  const lessons::LessonOptions lo = lesson_options(l, cmd, o);
  lessons::LessonOut out(o.json ? nullptr : &std::cout, o.json);
  l.run(lo, out);
  if (o.json) std::cout << out.record_json() << "\n";
  std::cout.flush();
}

}  // namespace

void register_lesson(CLI::App& app) {
  auto* cmd = app.add_subcommand(
      "lesson",
      "Run a stepping stone of \"Let's build GPT\" or \"Build an LLM from Scratch\" ch. 3, "
      "printing tensors as PyTorch does");
  auto opts = std::make_shared<LessonCli>();
  // Our own --help: with a lesson's name it shows that lesson's flags only.
  cmd->set_help_flag();
  cmd->add_flag("-h,--help", opts->help,
                "this help; 'scratchgpt lesson NAME --help': that lesson's flags and defaults");
  cmd->add_option("name", opts->name, "the lesson to run (see --list)");
  cmd->add_flag("--list", opts->list, "list the lessons with a one-line description each");
  cmd->add_option("--data", opts->lesson.data_path,
                  "Tiny Shakespeare text for the bigram lesson (default: data/tinyshakespeare.txt "
                  "of the working directory or of the source tree)");
  // Sizes: each lesson takes some of them (`lesson NAME --help`, docs/lessons.md); left out, a
  // lesson uses the text's own values. The texts' spellings are aliases.
  for (const FlagDoc& d : kFlagDocs) {
    const std::string name = d.name;
    if (name == "seed" || name == "order" || name == "random-inputs" || name == "trace" ||
        name == "html")
      continue;
    const std::string names = "--" + name + (*d.aliases ? std::string(",") + d.aliases : "") +
                              (name == "context-length" ? ",--context_length" : "");
    cmd->add_option(names, opts->sizes[name],
                    std::string(d.what) + "; default: the text's value (see 'lesson NAME --help')");
  }
  cmd->add_option("--seed", opts->seed,
                  "torch.manual_seed of the lesson (default: the text's, 1337 in the lecture, 123 "
                  "in the book)");
  cmd->add_flag("--random-inputs", opts->lesson.random_inputs,
                "the book's lessons: a sentence of torch.rand(T, d_in) drawn with --seed instead "
                "of the book's six embeddings (also when --T, --d-in or --seed differs from the "
                "book's 6, 3, 123)");
  cmd->add_option("--order", opts->lesson.order,
                  "head: the creation order of the key, query and value layers (default "
                  "key,query,value as the lecture's Head; seed 001's snippet: query,key,value)");
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
              "\nExample:\n  scratchgpt lesson head --B 1 --T 4 --C 4 --head-size 4 --trace"
              "\n  scratchgpt lesson head --help      # the head lesson's flags and defaults");
  cmd->callback([opts, cmd] {
    if (opts->list) {
      std::cout << lesson_list() << "\n";
      return;
    }
    const lessons::Lesson* lesson = nullptr;
    for (const auto& l : lessons::all_lessons())
      if (opts->name == l.name) lesson = &l;
    if (opts->help) {
      std::cout << (lesson ? lesson_help(*lesson) : cmd->help("scratchgpt"));
      return;
    }
    if (opts->name.empty()) {
      // One line naming the fix, then the list (main prints "error: " before it).
      fail("name a lesson, e.g. 'scratchgpt lesson averaging'; the lessons are:\n", lesson_list());
    }
    if (!lesson) fail("unknown lesson '", opts->name, "'; the lessons are:\n", lesson_list());
    run_lesson(*lesson, *cmd, *opts);
  });
}

}  // namespace scratchgpt::cli
