// sample_bpe_test.cpp: 'scratchgpt sample' on a GPT-2-tokenizer model: the streamed text is
// exactly decode() of the tokens generate() draws in process with the same seed, ill-formed
// UTF-8 replaced by U+FFFD as Python's decoder does; a sample ends at
// <|endoftext|> (unless --no-stop-at-eot); an empty prompt starts from <|endoftext|>; a prompt
// longer than the context is cropped with a note on stderr; a checkpoint whose config and
// tokenizer disagree on the vocabulary is an error.
#include <gtest/gtest.h>

#include <cmath>

#include "core/utf8.h"
#include "io/checkpoint.h"
#include "nn/gpt.h"
#include "run/exec.h"
#include "sample/generate.h"
#include "train_cli_util.h"

using namespace scratchgpt;
using namespace scratchgpt::test;

namespace {

TrainConfig tiny_config() {
  TrainConfig cfg = preset_config("shakespeare-bpe");
  GPTConfig& g = cfg.gpt;
  g.vocab_size = 50257, g.block_size = 8, g.n_layer = 1, g.n_head = 2, g.n_embd = 16;
  g.bias = true, g.tied = true, g.dropout = 0.0f;
  return cfg;
}

const Tokenizer& gpt2() {
  static const Tokenizer tok = Tokenizer::bpe("gpt2");
  return tok;
}

// A random tiny GPT on GPT-2's tokens; with eot_logit > 0, one whose logits are eot_logit for
// <|endoftext|> and 0 for every other token whatever the context: ln_f outputs the constant e_0
// and only wte[eot] has a component along it. 50 draws <|endoftext|> always, log(50256) half the
// time.
std::string checkpoint(float eot_logit = 0) {
  const bool eot_only = eot_logit > 0;
  const std::string path =
      scratch_dir("sample_bpe_eot" + std::to_string(static_cast<int>(eot_logit))) +
      "/model.safetensors";
  const TrainConfig cfg = tiny_config();
  GPT m(cfg.gpt);
  Rng rng(1);
  m.init(rng);
  if (eot_only) {
    const int C = cfg.gpt.n_embd;
    Param& w = m.param("ln_f.weight");
    Param& b = m.param("ln_f.bias");
    Param& wte = m.param("wte");
    std::fill(w.value.begin(), w.value.end(), 0.0f);
    std::fill(b.value.begin(), b.value.end(), 0.0f);
    b.value.data[0] = 1.0f;
    for (int v = 0; v < cfg.gpt.vocab_size; ++v) wte.value.data[int64_t{v} * C] = 0.0f;
    wte.value.data[int64_t{gpt2().bpe().eot_id()} * C] = eot_logit;
  }
  save_checkpoint(path, m, cfg, gpt2(), TrainState());
  return path;
}

}  // namespace

TEST(SampleBpe, StreamedTextIsTheDecodedTokens) {
  const std::string ck = checkpoint();
  const std::string prompt = "Le café est très bon";
  const CliResult r = run_cli("sample --checkpoint '" + ck + "' --prompt '" + prompt +
                              "' --max-new-tokens 60 --seed 5 --threads 1 --no-stop-at-eot");
  ASSERT_EQ(r.rc, 0) << r.err;
  // The same draws in process.
  const Exec exec = make_exec(1, MatmulBackend::kAuto);
  const Checkpoint c = load_checkpoint(ck);
  GPT m(c.cfg.gpt, exec.ctx);
  restore_params(c, m, false);
  Rng rng(5);
  const std::vector<int32_t> ids =
      generate(m, 8, gpt2().bpe().encode(prompt, true), 60, SamplingOptions(), rng, nullptr);
  ASSERT_EQ(ids.size(), 60u);
  // Bytes that never complete a character (this draw ends with two: 0x82 0xAC) are printed as
  // U+FFFD each, as Python's decode(errors="replace") in nanoGPT's sample.py prints them.
  const std::string raw = prompt + gpt2().decode(ids);
  EXPECT_NE(utf8_invalid_offset(raw), std::string::npos) << "the draw should hold broken UTF-8";
  EXPECT_EQ(r.out, utf8_replace_invalid(raw) + "\n");
  // --num-tokens is --max-new-tokens's alias.
  const CliResult a = run_cli("sample --checkpoint '" + ck + "' --prompt '" + prompt +
                              "' --num-tokens 60 --seed 5 --threads 1 --no-stop-at-eot");
  EXPECT_EQ(a.out, r.out);
}

TEST(SampleBpe, EndOfTextEndsTheSample) {
  // Half the draws are <|endoftext|>: the sample stops at the first, which --no-stop-at-eot
  // writes as text and goes on.
  const std::string half = "sample --checkpoint '" + checkpoint(std::log(50256.0f)) +
                           "' --max-new-tokens 20 --threads 1 --prompt 'Hi' ";
  int tried = 0;  // three seeds that draw text before <|endoftext|>, among the first ten
  for (int seed = 1; seed <= 10 && tried < 3; ++seed) {
    const std::string args = half + "--seed " + std::to_string(seed);
    const CliResult n = run_cli(args + " --no-stop-at-eot");
    ASSERT_EQ(n.rc, 0) << n.err;
    const size_t first = n.out.find("<|endoftext|>");
    if (first == std::string::npos || first == 2) continue;
    ++tried;
    ASSERT_GT(n.out.size(), first + 14) << "some text after it too";
    const CliResult s = run_cli(args);
    ASSERT_EQ(s.rc, 0) << s.err;
    EXPECT_EQ(s.out, n.out.substr(0, first) + "\n") << "seed " << seed;
  }
  EXPECT_GE(tried, 2);
  // Only <|endoftext|>.
  const std::string base = "sample --checkpoint '" + checkpoint(50) + "' --max-new-tokens 3 ";
  const CliResult a = run_cli(base + "--prompt 'Hello'");
  ASSERT_EQ(a.rc, 0) << a.err;
  EXPECT_EQ(a.out, "Hello\n");  // the first token drawn is <|endoftext|>: the sample ends there
  const CliResult b = run_cli(base + "--prompt 'Hello' --no-stop-at-eot");
  ASSERT_EQ(b.rc, 0) << b.err;
  EXPECT_EQ(b.out, "Hello<|endoftext|><|endoftext|><|endoftext|>\n");
  // An empty prompt starts from <|endoftext|> (written as nothing: it is not the user's text).
  const CliResult c = run_cli(base + "--prompt '' --no-stop-at-eot");
  ASSERT_EQ(c.rc, 0) << c.err;
  EXPECT_EQ(c.out, "<|endoftext|><|endoftext|><|endoftext|>\n");
  const CliResult d = run_cli(base + "--prompt '' --num-samples 2");
  ASSERT_EQ(d.rc, 0) << d.err;
  EXPECT_EQ(d.out, "\n---------------\n\n");
}

TEST(SampleBpe, LongPromptIsCroppedWithANote) {
  const std::string prompt = "one two three four five six seven eight nine ten eleven";
  const CliResult r = run_cli("sample --checkpoint '" + checkpoint() + "' --prompt '" + prompt +
                              "' --max-new-tokens 4");
  ASSERT_EQ(r.rc, 0) << r.err;
  EXPECT_EQ(r.out.rfind(prompt, 0), 0u);
  EXPECT_NE(r.err.find("note: the prompt is 11 tokens, longer than the context (8)"),
            std::string::npos)
      << r.err;
}

TEST(SampleBpe, VocabularyMismatchIsAnError) {
  const std::string path = scratch_dir("sample_bpe_mismatch") + "/model.safetensors";
  const TrainConfig cfg = tiny_config();  // 50257 tokens
  GPT m(cfg.gpt);
  Rng rng(1);
  m.init(rng);
  save_checkpoint(path, m, cfg, Tokenizer(CharTokenizer::from_text("abc\n")), TrainState());
  expect_error(run_cli("sample --checkpoint '" + path + "'"), "differs from its vocabulary");
}
