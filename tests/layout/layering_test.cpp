// layering_test.cpp: the layers of docs/architecture.md, checked on the source tree itself: every
// #include "..." of a file under src/<layer>/ (and apps/) points at a layer it may use, so arrows
// only go downward; SIMD intrinsics appear only in kernels/ and core/. A new include that breaks
// the picture fails here with the file, the line and the rule. The kernels take their pool from
// the ExecContext they are called with, never the process's default one.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <string>
#include <vector>

namespace fs = std::filesystem;

namespace {

const fs::path kRoot = SCRATCHGPT_SOURCE_DIR;

// What each layer may include (besides itself and the standard library).
const std::map<std::string, std::set<std::string>> kAllowed = {
    {"core", {}},
    {"kernels", {"core"}},
    {"dist", {"core"}},
    {"nn", {"kernels/kernels.h", "core"}},  // the entry layer only
    {"stones", {"kernels", "core", "nn/init.h"}},  // PyTorch's initialisers, shared with nn/
    {"data", {"tokenizer", "core"}},
    {"tokenizer", {"core"}},
    {"sample", {"nn", "kernels/kernels.h", "core"}},  // kernels: the sampler's host softmax
    {"train", {"data", "tokenizer", "nn", "kernels/kernels.h", "dist", "core"}},  // kernels: the entry layer only
    // Model files in and out. A checkpoint carries a training run's config and state, so io/ may
    // use those two plain descriptions of train/ and nothing else of it; train/ never includes
    // io/ (the trainer's saving is run/train.cpp's). Tokenizers travel in checkpoints (tokenizer/),
    // and data/file_io.h reads config files.
    {"io", {"train/train_config.h", "train/train_state.h", "tokenizer", "data", "nn", "core"}},
    {"run",
     {"io", "train", "sample", "data", "tokenizer", "nn", "kernels/kernels.h", "core", "dist"}},
    {"apps", {"run", "train/train_config.h", "data", "core", "lessons"}},  // options only
    {"lessons", {"stones", "nn", "kernels/ref", "data", "tokenizer", "core"}},
};

// The layer a project include path belongs to ("nn/gpt.h" -> "nn"; "commands.h" -> "apps").
std::string layer_of(const std::string& include) {
  const auto slash = include.find('/');
  return slash == std::string::npos ? "apps" : include.substr(0, slash);
}

bool allowed(const std::string& from, const std::string& include) {
  if (layer_of(include) == from) return true;
  for (const std::string& rule : kAllowed.at(from))
    if (include == rule || include.rfind(rule + "/", 0) == 0) return true;
  return false;
}

struct Source {
  fs::path path;
  std::string layer;
};

std::vector<Source> sources() {
  std::vector<Source> out;
  for (const auto& e : fs::recursive_directory_iterator(kRoot / "src")) {
    if (!e.is_regular_file()) continue;
    const fs::path rel = fs::relative(e.path(), kRoot / "src");
    out.push_back({e.path(), rel.begin()->string()});
  }
  for (const auto& e : fs::recursive_directory_iterator(kRoot / "apps")) {
    if (!e.is_regular_file()) continue;
    const fs::path rel = fs::relative(e.path(), kRoot / "apps");
    out.push_back({e.path(), rel.begin()->string() == "lessons" ? "lessons" : "apps"});
  }
  return out;
}

}  // namespace

// The path of a line `#include "path"`, or "" (no <regex>: GCC 12 warns inside it at -O1).
std::string quoted_include(const std::string& line) {
  const size_t hash = line.find_first_not_of(" \t");
  if (hash == std::string::npos || line[hash] != '#') return "";
  const size_t word = line.find_first_not_of(" \t", hash + 1);
  if (word == std::string::npos || line.compare(word, 7, "include") != 0) return "";
  const size_t open = line.find_first_not_of(" \t", word + 7);
  if (open == std::string::npos || line[open] != '"') return "";
  const size_t close = line.find('"', open + 1);
  return close == std::string::npos ? "" : line.substr(open + 1, close - open - 1);
}

TEST(Layering, IncludesPointOnlyDownward) {
  int files = 0;
  for (const Source& s : sources()) {
    ASSERT_TRUE(kAllowed.count(s.layer)) << s.path << ": a folder the layer picture does not know";
    std::ifstream in(s.path);
    std::string line;
    for (int n = 1; std::getline(in, line); ++n) {
      const std::string inc = quoted_include(line);
      if (inc.empty()) continue;
      EXPECT_TRUE(allowed(s.layer, inc))
          << s.path.string() << ":" << n << ": " << s.layer << "/ may not include \"" << inc
          << "\" (docs/architecture.md: arrows only downward)";
    }
    ++files;
  }
  EXPECT_GT(files, 50);
}

TEST(Layering, IntrinsicsOnlyInKernelsAndCore) {
  const char* intrinsics[] = {"immintrin.h", "__m256", "__m512", "_mm256_", "_mm512_"};
  for (const Source& s : sources()) {
    if (s.layer == "kernels" || s.layer == "core") continue;
    std::ifstream in(s.path);
    std::string line;
    for (int n = 1; std::getline(in, line); ++n)
      for (const char* word : intrinsics)
        EXPECT_EQ(line.find(word), std::string::npos)
            << s.path.string() << ":" << n << ": SIMD intrinsics belong in src/kernels/ or src/core/";
  }
}

// Every kernel runs on the pool of the ExecContext it is called with (ex.workers()): a kernel
// that reached for the process's default pool would ignore --threads and the tests' thread counts.
TEST(Layering, KernelsNeverUseTheDefaultPool) {
  int kernels = 0;
  for (const Source& s : sources()) {
    if (s.layer != "kernels") continue;
    ++kernels;
    std::ifstream in(s.path);
    std::string line;
    for (int n = 1; std::getline(in, line); ++n)
      EXPECT_EQ(line.find("ThreadPool::global"), std::string::npos)
          << s.path.string() << ":" << n << ": a kernel takes its pool from its ExecContext";
  }
  EXPECT_GT(kernels, 20);
}
