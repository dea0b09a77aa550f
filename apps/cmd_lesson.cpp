// cmd_lesson.cpp: the 'lesson' subcommand: `scratchgpt lesson --list` names the lessons,
// `scratchgpt lesson NAME` runs one (apps/lessons/), printing PyTorch-formatted tensors.
#include <iostream>
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

}  // namespace

void register_lesson(CLI::App& app) {
  auto* cmd = app.add_subcommand(
      "lesson",
      "Run a stepping stone of \"Let's build GPT\" or \"Build an LLM from Scratch\" ch. 3, "
      "printing tensors as PyTorch does");
  struct Opts {
    std::string name;
    bool list = false;
    lessons::LessonOptions lesson;
  };
  auto opts = std::make_shared<Opts>();
  cmd->add_option("name", opts->name, "the lesson to run (see --list)");
  cmd->add_flag("--list", opts->list, "list the lessons with a one-line description each");
  cmd->add_option("--data", opts->lesson.data_path,
                  "Tiny Shakespeare text for the bigram lesson (default: data/tinyshakespeare.txt "
                  "of the working directory or of the source tree)");
  cmd->footer("Lessons:\n" + lesson_list());
  cmd->callback([opts] {
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
        l.run(opts->lesson, std::cout);
        std::cout.flush();
        return;
      }
    }
    fail("unknown lesson '", opts->name, "'; the lessons are:\n", lesson_list());
  });
}

}  // namespace scratchgpt::cli
