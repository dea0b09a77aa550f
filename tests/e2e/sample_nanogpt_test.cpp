// sample_nanogpt_test.cpp: a seeded sample with --context-rule slide is nanoGPT's, token for
// token: the same weights, prompt, seed, temperature and top-k through generate() give the tokens
// nanoGPT's GPT.generate() drew in PyTorch (tools/make_sample_fixtures.py), 35 of them past the
// context window; with the model's init drawn first (sample.py's order, --nanogpt-rng), sample.py's
// tokens, through generate() and through 'scratchgpt sample'. The default rule (half) is the same
// until the context first fills.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "core/rng.h"
#include "io/checkpoint.h"
#include "nn/gpt.h"
#include "sample/generate.h"
#include "test_util.h"
#include "train_cli_util.h"

using namespace scratchgpt;

namespace {


const SafeTensors& fixture() {
  static const SafeTensors st = test::load_fixture("sample/nanogpt_generate.safetensors");
  return st;
}

}  // namespace

class NanoGptSample : public ::testing::TestWithParam<std::string> {};

TEST_P(NanoGptSample, SlideDrawsNanoGptsTokens) {
  const SafeTensors& st = fixture();
  const GPTConfig c = test::gpt_config_of_fixture(st);
  GPT model(c);
  for (Param& p : model.params()) st.copy_f32("param." + p.name, p.value.data, p.value.numel());
  const std::string name = GetParam();
  SamplingOptions opt;
  opt.temperature = std::stof(st.meta(name + ".temperature"));
  opt.top_k = std::stoi(st.meta(name + ".top_k"));
  const uint64_t seed = std::stoull(st.meta(name + ".seed"));
  const bool construct_first = st.meta(name + ".construct_first") == "1";
  const std::vector<int32_t> prompt = st.i32("prompt");
  const std::vector<int32_t> want = st.i32("ids." + name);
  ASSERT_GT(prompt.size() + want.size(), static_cast<size_t>(c.block_size) + 30);

  auto seeded = [&] {
    Rng rng(seed);  // torch.manual_seed(seed)
    if (construct_first) {
      GPT drawn(c);  // sample.py: model = GPT(gptconf)
      drawn.init(rng);
    }
    return rng;
  };
  Rng rng = seeded();
  const std::vector<int32_t> slide =
      generate(model, c.block_size, prompt, static_cast<int>(want.size()), opt, rng, nullptr,
               ContextRule::kSlide);
  EXPECT_EQ(slide, want);

  Rng rng2 = seeded();
  const std::vector<int32_t> half =
      generate(model, c.block_size, prompt, static_cast<int>(want.size()), opt, rng2, nullptr);
  // Until the window is full both rules see the same tokens.
  const size_t same = static_cast<size_t>(c.block_size) - prompt.size() + 1;
  EXPECT_TRUE(std::equal(half.begin(), half.begin() + same, want.begin()));
  size_t agree = 0;
  while (agree < half.size() && half[agree] == want[agree]) ++agree;
  std::printf("  %s: the half rule agrees with nanoGPT for %zu of %zu tokens\n", name.c_str(),
              agree, want.size());
}

INSTANTIATE_TEST_SUITE_P(Cases, NanoGptSample, ::testing::Values("plain", "t08_k5", "sample_py"));

// The same through the CLI: a character checkpoint of the fixture's weights ("a".."k" are ids
// 0..10), sampled as nanoGPT's sample.py would (its defaults temperature 0.8, top_k 200).
TEST(NanoGptSampleCli, SlideWithNanoGptRngIsSamplePys) {
  const SafeTensors& st = fixture();
  TrainConfig cfg = preset_config("shakespeare-char-small");
  cfg.gpt = test::gpt_config_of_fixture(st);
  GPT model(cfg.gpt);
  for (Param& p : model.params()) st.copy_f32("param." + p.name, p.value.data, p.value.numel());
  const CharTokenizer chars = CharTokenizer::from_text("abcdefghijk");
  ASSERT_EQ(chars.vocab_size(), cfg.gpt.vocab_size);
  const std::string path = test::scratch_dir("sample_nanogpt") + "/model.safetensors";
  save_checkpoint(path, model, cfg, Tokenizer(chars), TrainState());
  std::string want = "bcd";  // the prompt, ids 1 2 3
  for (int32_t id : st.i32("ids.sample_py")) want += static_cast<char>('a' + id);
  want += "\n";
  const std::string base = "sample --checkpoint '" + path +
                           "' --prompt bcd --max-new-tokens 40 --seed 1337 --temperature 0.8 "
                           "--top-k 200 ";
  const test::CliResult r = test::run_cli(base + "--context-rule slide --nanogpt-rng");
  ASSERT_EQ(r.rc, 0) << r.err;
  EXPECT_EQ(r.out, want);
  const test::CliResult h = test::run_cli(base + "--nanogpt-rng");  // the half rule differs
  ASSERT_EQ(h.rc, 0) << h.err;
  EXPECT_NE(h.out, want);
  EXPECT_EQ(h.out.substr(0, 9), want.substr(0, 9));  // 3 + 6 tokens before the window fills
}
