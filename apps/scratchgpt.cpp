// scratchgpt.cpp: the command-line front end. Each subcommand lives in its own apps/cmd_*.cpp and
// registers itself here; errors from anywhere below surface as one line "error: ..." and exit 1.
#include <CLI/CLI.hpp>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <exception>
#include <new>
#include <string>

#include "commands.h"
#include "core/check.h"
#include "core/text.h"

int main(int argc, char** argv) {
  CLI::App app{
      "scratchgpt: a GPT built from scratch in C++.\n"
      "Train a character-level GPT on Tiny Shakespeare, sample from it, and run the lessons of\n"
      "\"Let's build GPT\" and \"Build a Large Language Model from Scratch\" step by step.",
      "scratchgpt"};
  // At most one subcommand; "none" is checked after parsing so that a mistyped subcommand or an
  // unknown flag is reported by name instead of as a missing subcommand.
  app.require_subcommand(0, 1);
  app.set_version_flag("--version", "scratchgpt 0.1.0");
  scratchgpt::cli::register_commands(app);
  // Set after the subcommands exist so that they do not inherit it.
  app.footer(
      "Examples:\n"
      "  scratchgpt prepare                     # tokenize the bundled Tiny Shakespeare\n"
      "  scratchgpt train --preset shakespeare-char-small \\\n"
      "      --data-dir out/data/tinyshakespeare --out-dir out/shakespeare-char-small\n"
      "  scratchgpt sample --checkpoint out/shakespeare-char-small/best.safetensors\n"
      "  scratchgpt eval --checkpoint out/shakespeare-char-small/best.safetensors \\\n"
      "      --data-dir out/data/tinyshakespeare  # the loss over the whole val split\n"
      "  scratchgpt lesson --list               # the stepping stones of the lecture and the book\n"
      "  scratchgpt bench --preset shakespeare-char-small\n"
      "Run 'scratchgpt COMMAND --help' for the options of a command.");
  try {
    app.parse(argc, argv);
    if (app.get_subcommands().empty()) {
      std::string names;
      for (const CLI::App* sub : app.get_subcommands([](CLI::App*) { return true; }))
        names += (names.empty() ? "" : ", ") + sub->get_name();
      std::fprintf(stderr,
                   "error: a subcommand is required, one of: %s (see 'scratchgpt --help')\n",
                   names.c_str());
      return 2;
    }
    // A full disk or a closed pipe on standard output is a failure, not a silent success.
    if (std::fflush(stdout) != 0 || std::ferror(stdout)) {
      std::fprintf(stderr, "error: cannot write to standard output (%s): check where it goes\n",
                   std::strerror(errno));
      return 1;
    }
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    // One line naming the problem and the fix.
    std::fprintf(stderr, "error: %s (see 'scratchgpt --help')\n",
                 scratchgpt::printable(e.what(), true).c_str());
    return 2;
  } catch (const scratchgpt::Error& e) {
    // Messages carry names and paths read from files: printed, never obeyed by the terminal.
    std::fprintf(stderr, "error: %s\n", scratchgpt::printable(e.what(), true).c_str());
    return 1;
  } catch (const std::bad_alloc&) {
    std::fprintf(stderr,
                 "error: out of memory: lower the sizes this command was given "
                 "(--batch-size, --block-size, --n-embd, --n-layer)\n");
    return 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "error: %s\n", scratchgpt::printable(e.what(), true).c_str());
    return 1;
  }
  return 0;
}
