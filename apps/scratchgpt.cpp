// scratchgpt.cpp: the command-line front end. Each subcommand lives in its own apps/cmd_*.cpp and
// registers itself here; errors from anywhere below surface as one line "error: ..." and exit 1.
#include <CLI/CLI.hpp>
#include <cstdio>
#include <exception>

#include "commands.h"
#include "core/check.h"

int main(int argc, char** argv) {
  CLI::App app{
      "scratchgpt: a GPT built from scratch in C++.\n"
      "Train a character-level GPT on Tiny Shakespeare, sample from it, and run the lessons of\n"
      "\"Let's build GPT\" and \"Build a Large Language Model from Scratch\" step by step.",
      "scratchgpt"};
  app.require_subcommand(1);
  app.set_version_flag("--version", "scratchgpt 0.1.0");
  app.footer(
      "Examples:\n"
      "  scratchgpt prepare                          # tokenize the bundled Tiny Shakespeare\n"
      "  scratchgpt train --preset shakespeare-char-small\n"
      "  scratchgpt sample --checkpoint out/shakespeare-char-small/best.safetensors\n"
      "  scratchgpt lesson --list\n"
      "Run 'scratchgpt COMMAND --help' for the options of a command.");
  scratchgpt::cli::register_commands(app);
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    // One line naming the problem and the fix.
    std::fprintf(stderr, "error: %s (see 'scratchgpt --help')\n", e.what());
    return 2;
  } catch (const scratchgpt::Error& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 1;
  }
  return 0;
}
