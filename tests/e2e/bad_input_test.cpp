// bad_input_test.cpp: the careless or hostile inputs a review of the CLI found handled badly, each
// now a non-zero exit with one "error:" line that names the problem (and the flag or file), and
// no file lost or changed: out-of-range and non-integer numbers, flags that do not apply or
// contradict each other, sizes that cannot fit in memory, damaged checkpoints (no checksum, NaN
// weights, impossible shapes and counters, a damaged config inside), misleading paths, devices as
// input, a full standard output, names in files that carry terminal escapes. docs/bad_input.md
// lists every case and its test.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <cmath>
#include <limits>
#include <string>

#include "core/cpu_features.h"
#include "core/safetensors.h"
#include "test_util.h"
#include "train_cli_util.h"

using namespace scratchgpt::test;
namespace fs = std::filesystem;

namespace {

// Sanitizers reserve terabytes of address space, so a process limit (ulimit -v) stops them first
// (test::kSanitized).

std::string data_dir() {
  static const std::string d = prepared(scratch_dir("bad_input_data"), shakespeare(20000));
  return d;
}

// A small trained GPT checkpoint to damage in various ways (trained once).
std::string good_checkpoint() {
  static const std::string path = [] {
    const std::string out = scratch_dir("bad_input_ckpt");
    const CliResult r = run_cli("train --preset shakespeare-char-small --n-layer 1 --n-embd 16 "
                                "--n-head 2 --block-size 16 --max-iters 2 --eval-iters 1 "
                                "--data-dir '" + data_dir() + "' --out-dir '" + out + "'");
    if (r.rc != 0) ADD_FAILURE() << r.err;
    return out + "/last.safetensors";
  }();
  return path;
}

// Loads the good checkpoint, lets f change it, writes it to dir/name (with a fresh checksum
// unless told otherwise) and returns the path.
template <typename F>
std::string damaged(const std::string& name, F f, bool checksum = true) {
  scratchgpt::SafeTensors st = scratchgpt::load_safetensors(good_checkpoint());
  st.metadata.erase("checksum");
  f(st);
  const std::string path = scratch_dir("bad_input_damaged") + "/" + name;
  scratchgpt::save_safetensors(path, st, checksum);
  return path;
}

std::string sample_of(const std::string& ckpt) {
  return "sample --num-tokens 200 --checkpoint '" + ckpt + "'";
}

}  // namespace

TEST(BadInput, NumbersOutOfRangeOrNotWhole) {
  const std::string out = scratch_dir("bad_numbers");
  const std::string base =
      "train --preset shakespeare-char-small --data-dir '" + data_dir() + "' --out-dir '" + out + "' ";
  expect_error(run_cli(base + "--seed -1"), "--seed");
  expect_error(run_cli(base + "--threads 10000"), "--threads");
  expect_error(run_cli(base + "--lr inf"), "finite");
  spit(out + "/frac.json", "{\"n_layer\": 1.7}");
  expect_error(run_cli(base + "--config '" + out + "/frac.json'"), "whole number");
  spit(out + "/huge.json", "{\"n_layer\": 1e12}");
  expect_error(run_cli(base + "--config '" + out + "/huge.json'"), "whole number");
  spit(out + "/big.json", "{\"n_layer\": 4294967296}");
  expect_error(run_cli(base + "--config '" + out + "/big.json'"), "out of range");
  spit(out + "/neg.json", "{\"seed\": -1}");
  expect_error(run_cli(base + "--config '" + out + "/neg.json'"), "out of range");
  // A vocabulary size says what it must be, not the range of an int (-1 is an int).
  for (const char* v : {"-1", "0"}) {
    const CliResult r = run_cli(base + "--max-iters 1 --eval-iters 1 --vocab-size " + v);
    expect_error(r, "--vocab-size");
    EXPECT_NE(r.err.find("positive"), std::string::npos) << r.err;
    EXPECT_EQ(r.err.find("2147483648"), std::string::npos) << r.err;
  }
  EXPECT_FALSE(fs::exists(out + "/metrics.jsonl"));
  expect_error(run_cli(sample_of(good_checkpoint()) + " --block-size 0"), "--block-size");
  expect_error(run_cli(sample_of(good_checkpoint()) + " --seed -1"), "--seed");
  expect_error(run_cli("eval --checkpoint '" + good_checkpoint() + "' --data-dir '" + data_dir() +
                       "' --batches 1 --seed -1"),
               "--seed");
  expect_error(run_cli("eval --checkpoint '" + good_checkpoint() + "' --data-dir '" + data_dir() +
                       "' --batch-size 0"),
               "--batch-size");
  expect_error(run_cli("eval --checkpoint '" + good_checkpoint() + "' --data-dir '" + data_dir() +
                       "' --block-size 0"),
               "--block-size");
}

// A config that cannot fit is refused at once, with the figure and the flags to lower, instead of
// spinning while it fills memory.
TEST(BadInput, SizesThatCannotFitAreRefusedBeforeAllocating) {
  const std::string out = scratch_dir("bad_sizes");
  const std::string base =
      "train --preset shakespeare-char-small --data-dir '" + data_dir() + "' --out-dir '" + out + "' ";
  CliResult r = run_cli(base + "--n-embd 2147483647 --n-head 1");
  expect_error(r, "--n-embd");
  EXPECT_NE(r.err.find("of memory"), std::string::npos) << r.err;
  r = run_cli(base + "--batch-size 1000000 --block-size 64");
  expect_error(r, "--batch-size");
  // A tiny model whose weights fit but whose activations at this batch do not (the check counts
  // every activation the model plans: 4x what it once counted, which let this through to a bare
  // "out of memory allocating ..."). The batch is sized to this machine's memory.
  const std::string tiny = base + "--n-layer 1 --n-head 2 --n-embd 16 --block-size 8 --threads 1 ";
  const auto batch = static_cast<long long>(
      static_cast<double>(scratchgpt::physical_memory_bytes()) / (8 * 1500.0));
  r = run_cli(tiny + "--batch-size " + std::to_string(batch));
  expect_error(r, "--batch-size");
  EXPECT_NE(r.err.find("of memory"), std::string::npos) << r.err;
  // An allocation that fails after the check passed (here under a 4 GiB process limit, which the
  // check does not see) gives the same advice.
  if (!kSanitized) {
    r = run_cli(tiny + "--batch-size 250000 --max-iters 1 --eval-iters 1", "ulimit -v 4194304; ");
    expect_error(r, "--batch-size");
    EXPECT_NE(r.err.find("memory"), std::string::npos) << r.err;
  }
  // bench's training steps: the same check and advice.
  r = run_cli("bench --preset gpt2 --batch-size 100000 --steps 1 --warmup 0");
  expect_error(r, "--batch-size");
  EXPECT_NE(r.err.find("of memory"), std::string::npos) << r.err;
  // The same from a checkpoint whose config claims a huge model.
  const std::string big = damaged("big_config.safetensors", [](scratchgpt::SafeTensors& st) {
    nlohmann::json c = nlohmann::json::parse(st.metadata["config"]);
    c["n_embd"] = 2147483646;
    c["n_head"] = 2;
    st.metadata["config"] = c.dump();
  });
  expect_error(run_cli(sample_of(big)), "memory");
}

TEST(BadInput, FlagsThatDoNotApplyOrContradict) {
  const std::string out = scratch_dir("bad_flags");
  const std::string base = "train --data-dir '" + data_dir() + "' --out-dir '" + out + "' ";
  expect_error(run_cli(base + "--preset bigram --n-layer 3"), "--n-layer");
  ASSERT_EQ(run_cli(base + "--preset bigram --max-iters 2 --eval-iters 1").rc, 0);
  const std::string last = slurp(out + "/last.safetensors");
  expect_error(run_cli(base + "--resume --preset shakespeare-char"), "--preset");
  expect_error(run_cli(base + "--resume --overwrite"), "--overwrite");
  EXPECT_EQ(run_cli(base + "--resume --preset bigram --max-iters 3").rc, 0);  // the same: fine
  EXPECT_NE(slurp(out + "/last.safetensors"), last);
}

TEST(BadInput, DamagedCheckpoints) {
  // No checksum: refused, never read unchecked.
  expect_error(run_cli(sample_of(damaged("nosum.safetensors", [](auto&) {}, false))), "checksum");
  // NaN in a weight (with a valid checksum over the NaN).
  expect_error(run_cli(sample_of(damaged("nan.safetensors", [](scratchgpt::SafeTensors& st) {
                 float nan = std::numeric_limits<float>::quiet_NaN();
                 std::memcpy(st.tensors.at("wte").bytes.data() + 8, &nan, 4);
               }))),
               "wte");
  // A tensor of the wrong dtype: named, with the file.
  expect_error(run_cli(sample_of(damaged("dtype.safetensors", [](scratchgpt::SafeTensors& st) {
                 st.tensors.at("wte").dtype = "I32";
               }))),
               "dtype");
  // A missing tensor.
  expect_error(run_cli(sample_of(damaged("missing.safetensors", [](scratchgpt::SafeTensors& st) {
                 st.tensors.erase("wpe");
               }))),
               "wpe");
  // Negative counters.
  expect_error(run_cli(sample_of(damaged("iter.safetensors", [](scratchgpt::SafeTensors& st) {
                 st.metadata["iter"] = "-5";
               }))),
               "counters");
  // A damaged config inside the checkpoint is reported as the checkpoint's, not as a flag typed.
  CliResult r = run_cli(sample_of(damaged("cfg.safetensors", [](scratchgpt::SafeTensors& st) {
    nlohmann::json c = nlohmann::json::parse(st.metadata["config"]);
    c["n_head"] = 0;
    st.metadata["config"] = c.dump();
  })));
  expect_error(r, "damaged config");
  // A shape whose element count overflows 64 bits: a clean error (UBSan watches in CI).
  const std::string shape = damaged("shape.safetensors", [](auto&) {});
  std::string bytes = slurp(shape);
  const std::string from = "\"shape\":[";
  const size_t at = bytes.find(from, bytes.find("\"wte\":{"));
  ASSERT_NE(at, std::string::npos);
  const size_t end = bytes.find(']', at);
  const std::string huge = "4294967296,4294967296";
  const std::string old = bytes.substr(at + from.size(), end - at - from.size());
  ASSERT_LE(old.size(), huge.size() + 40);
  bytes.replace(at + from.size(), old.size(), huge);
  // Keep the header length right: the header grew; rewrite its 8-byte length.
  uint64_t hl = 0;
  for (int i = 7; i >= 0; --i) hl = (hl << 8) | static_cast<uint8_t>(bytes[static_cast<size_t>(i)]);
  hl += huge.size() - old.size();
  for (int i = 0; i < 8; ++i) bytes[static_cast<size_t>(i)] = static_cast<char>(hl >> (8 * i));
  spit(shape, bytes);
  expect_error(run_cli(sample_of(shape)), "shape");
  // The checksum advice is given once.
  std::string flipped = slurp(good_checkpoint());
  flipped[flipped.size() - 2] ^= 1;
  const std::string fp = scratch_dir("bad_input_flip") + "/f.safetensors";
  spit(fp, flipped);
  r = run_cli(sample_of(fp));
  expect_error(r, "checksum");
  EXPECT_EQ(r.err.find("another checkpoint"), r.err.rfind("another checkpoint")) << r.err;
}

TEST(BadInput, PathsOfTheWrongKind) {
  const std::string dir = scratch_dir("bad_paths");
  expect_error(run_cli(sample_of(dir)), "is a directory");
  spit(dir + "/afile", "x");
  expect_error(run_cli("train --preset bigram --data-dir '" + dir + "/afile' --out-dir '" + dir +
                       "/o'"),
               "is a file");
  // A device as input is refused at once instead of read forever.
  expect_error(run_cli("prepare --input /dev/zero --out-dir '" + dir + "/p'"), "regular file");
  // A vocab.json whose "type" is a number: one line, naming the file.
  const std::string d = scratch_dir("bad_vocab");
  const std::string data = prepared(d, shakespeare(5000));
  spit(data + "/vocab.json", "{\"type\": 5, \"chars\": [\"a\"]}");
  expect_error(run_cli("train --preset bigram --data-dir '" + data + "' --out-dir '" + d + "/o'"),
               "vocab.json");
}

TEST(BadInput, AFullStandardOutputIsAnError) {
  const std::string err = scratch_dir("bad_stdout") + "/err.txt";
  const std::string cmd = std::string("'") + SCRATCHGPT_BINARY + "' " + sample_of(good_checkpoint()) +
                          " >/dev/full 2>'" + err + "'";
  const int status = std::system(cmd.c_str());
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) != 0) << status;
  EXPECT_NE(slurp(err).find("standard output"), std::string::npos) << slurp(err);
}

TEST(BadInput, RewritingKeepsAFilesPermissions) {
  const std::string out = scratch_dir("bad_modes");
  const std::string base = "train --data-dir '" + data_dir() + "' --out-dir '" + out + "' ";
  ASSERT_EQ(run_cli(base + "--preset bigram --max-iters 2 --eval-iters 1").rc, 0);
  for (const char* f : {"/last.safetensors", "/metrics.jsonl"})
    fs::permissions(out + f, fs::perms::owner_read | fs::perms::owner_write);
  ASSERT_EQ(run_cli(base + "--resume --max-iters 4").rc, 0);
  for (const char* f : {"/last.safetensors", "/metrics.jsonl"}) {
    struct stat st {};
    ASSERT_EQ(::stat((out + f).c_str(), &st), 0);
    EXPECT_EQ(st.st_mode & 0777, 0600u) << f;
  }
}

// A name read from a file reaches the terminal as text, never as commands to it: a tokenizer named
// "\u001b[31m..." in meta.json (and so in the checkpoints trained on that data) is shown with its
// control characters escaped (core/text.h's printable) in the one error line.
TEST(BadInput, NamesFromFilesReachTheTerminalEscaped) {
  const std::string dir = scratch_dir("bad_terminal");
  spit(dir + "/input.txt", shakespeare(5000));
  CliResult r = run_cli("prepare --input '" + dir + "/input.txt' --out-dir '" + dir +
                        "/bpe' --tokenizer '" + fixture_path("gpt2/tok500") + "'");
  ASSERT_EQ(r.rc, 0) << r.err;
  nlohmann::json meta = nlohmann::json::parse(slurp(dir + "/bpe/meta.json"));
  // Escape sequences: ESC [ (red, then reset) and U+009B, the one-character CSI.
  meta["tokenizer"] = std::string("\x1b[31mred\x1b[0m \xc2\x9b") + "2J";
  spit(dir + "/bpe/meta.json", meta.dump());
  auto obeys_nothing = [](const CliResult& c) {
    const std::string all = c.out + c.err;
    EXPECT_EQ(all.find('\x1b'), std::string::npos) << all;
    EXPECT_EQ(all.find("\xc2\x9b"), std::string::npos) << all;
  };
  // The data's tokenizer, named in an error.
  r = run_cli("train --preset bigram --vocab-size 7 --data-dir '" + dir + "/bpe' --out-dir '" +
              dir + "/o'");
  expect_error(r, "\\x1b[31mred\\x1b[0m \\u009b2J");
  obeys_nothing(r);
  // A checkpoint's, trained on that data, named by eval on other data.
  r = run_cli("train --preset bigram --max-iters 1 --eval-iters 1 --data-dir '" + dir +
              "/bpe' --out-dir '" + dir + "/o'");
  ASSERT_EQ(r.rc, 0) << r.err;
  obeys_nothing(r);
  r = run_cli("eval --checkpoint '" + dir + "/o/last.safetensors' --data-dir '" + data_dir() + "'");
  expect_error(r, "\\x1b[31mred");
  obeys_nothing(r);
}
