// lesson_util.h: what the lesson tests share: running `scratchgpt lesson ...` through the shell,
// the "tensor(...)" / "torch.Size(...)" blocks of its output, and the numbers in a block.
// Leaves out: the fixtures (each test reads its own).
#pragma once

#include <sys/wait.h>

#include <array>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

namespace scratchgpt::test {

struct CliRun {
  int rc = -1;
  std::string out;
};

// Runs the CLI through the shell; `args` are appended as given.
inline CliRun run_cli(const std::string& args) {
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
inline std::vector<std::string> tensor_blocks(const std::string& s) {
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
inline std::vector<double> numbers(const std::string& s) {
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

}  // namespace scratchgpt::test
