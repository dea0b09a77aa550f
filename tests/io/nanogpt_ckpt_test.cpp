// nanogpt_ckpt_test.cpp: nanoGPT's own files in and out (issue 39), against what nanoGPT and
// Debian's torch 1.13 wrote and computed (tests/fixtures/nanogpt_ckpt/, made by
// tools/make_nanogpt_ckpt_fixtures.py from nanoGPT's model.py, train.py's save and
// data/shakespeare_char/prepare.py): ckpt.pt imported (float32, bfloat16, compile=True keys) gives
// nanoGPT's logits and loss; --init-from's loader reads it; meta.pkl beside raw bins is a
// character dataset; prepare --format nanogpt writes prepare.py's bins and meta.pkl; the nanoGPT
// export carries PyTorch 1.x's attn.bias masks; other tools' files are named.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "core/mapped_file.h"
#include "core/pickle.h"
#include "data/dataset.h"
#include "data/file_io.h"
#include "data/prepare.h"
#include "io/checkpoint.h"
#include "io/gpt2_read.h"
#include "nn/gpt.h"
#include "sample/generate.h"
#include "run/export.h"
#include "test_util.h"

using namespace scratchgpt;
using namespace scratchgpt::test;
namespace fs = std::filesystem;

namespace {

const nlohmann::json& expected() {
  static const nlohmann::json j =
      nlohmann::json::parse(read_file(fixture_path("nanogpt_ckpt/expected.json")));
  return j;
}

std::string tmp_dir(const std::string& name) { return test::scratch_dir(name); }

// Our forward pass over the imported weights against nanoGPT's logits and loss.
void expect_nanogpt_numbers(const Gpt2Weights& m, const nlohmann::json& want, double tol) {
  GPT gpt(m.gpt);
  for (Param& p : gpt.params()) m.weights.copy_f32(p.name, p.value.data, p.value.numel());
  const std::vector<int32_t> idx = want["input"].get<std::vector<int32_t>>(),
                             tgt = want["targets"].get<std::vector<int32_t>>();
  const int T = static_cast<int>(idx.size());
  const float loss = gpt.forward(idx.data(), tgt.data(), 1, T, nullptr);
  EXPECT_NEAR(loss, want["loss"].get<double>(), tol);
  const Tensor logits = gpt.logits();
  const std::vector<double> theirs = want["logits"].get<std::vector<double>>();
  ASSERT_EQ(static_cast<size_t>(logits.numel()), theirs.size());
  double worst = 0;
  for (size_t i = 0; i < theirs.size(); ++i)
    worst = std::max(worst, std::abs(logits.data[i] - theirs[i]));
  EXPECT_LT(worst, tol);
}

}  // namespace

TEST(NanoGptCkpt, ImportsTrainPysCheckpointWithNanoGptsNumbers) {
  const Gpt2Weights m = read_nanogpt(fixture_path("nanogpt_ckpt/char.pt"), 0);
  EXPECT_EQ(m.gpt.vocab_size, expected()["meta_vocab_size"].get<int>());
  EXPECT_EQ(m.gpt.block_size, 16);
  EXPECT_EQ(m.gpt.n_layer, 2);
  EXPECT_EQ(m.gpt.n_head, 2);
  EXPECT_EQ(m.gpt.n_embd, 16);
  EXPECT_TRUE(m.gpt.bias);
  EXPECT_EQ(m.dataset, "shakespeare_char");
  expect_nanogpt_numbers(m, expected()["char"], 2e-5);
}

TEST(NanoGptCkpt, StripsCompiledPrefixAndReadsBf16) {
  const Gpt2Weights c = read_nanogpt(fixture_path("nanogpt_ckpt/compiled.pt"), 0);
  EXPECT_FALSE(c.gpt.bias);
  expect_nanogpt_numbers(c, expected()["compiled"], 2e-5);
  const Gpt2Weights b = read_nanogpt(fixture_path("nanogpt_ckpt/bf16.pt"), 0);
  expect_nanogpt_numbers(b, expected()["bf16"], 2e-5);
}

// nanoGPT's GPT-2-token default, vocab 50304 (50257 padded to a multiple of 64): read with every
// row, so the loss over all 50304 logits is nanoGPT's own, and the last position's logits equal
// nanoGPT's for the first 64 ids and the 47 padded ones. Its checkpoint loads with GPT-2's
// tokenizer; sampling with the tokenizer's limit never draws a padded id, even where the padded
// rows are made to dominate (without the limit they would be drawn).
TEST(NanoGptCkpt, PaddedVocabularyKeepsItsRowsAndIsNeverSampled) {
  const Gpt2Weights m = read_nanogpt(fixture_path("nanogpt_ckpt/padded.pt"), 0);
  EXPECT_EQ(m.gpt.vocab_size, 50304);
  EXPECT_EQ(m.weights.shape("wte"), (std::vector<int64_t>{50304, 4}));
  const nlohmann::json& want = expected()["padded"];
  GPT gpt(m.gpt);
  for (Param& p : gpt.params()) m.weights.copy_f32(p.name, p.value.data, p.value.numel());
  const std::vector<int32_t> idx = want["input"].get<std::vector<int32_t>>(),
                             tgt = want["targets"].get<std::vector<int32_t>>();
  const int T = static_cast<int>(idx.size());
  EXPECT_NEAR(gpt.forward(idx.data(), tgt.data(), 1, T, nullptr), want["loss"].get<double>(), 2e-5);
  const float* last = gpt.logits().data + static_cast<int64_t>(T - 1) * 50304;
  const std::vector<double> head = want["last_logits_head"].get<std::vector<double>>(),
                            pad = want["last_logits_padded"].get<std::vector<double>>();
  ASSERT_EQ(pad.size(), 47u);
  for (size_t i = 0; i < head.size(); ++i) EXPECT_NEAR(last[i], head[i], 2e-5) << i;
  for (size_t i = 0; i < pad.size(); ++i) EXPECT_NEAR(last[50257 + i], pad[i], 2e-5) << i;

  const Checkpoint ck = load_checkpoint(fixture_path("nanogpt_ckpt/padded.pt"));
  EXPECT_EQ(ck.cfg.gpt.vocab_size, 50304);
  EXPECT_EQ(ck.tokenizer.vocab_size(), 50257);
  // The padded rows made to dominate: the tied head then favours them by far.
  GPT big(m.gpt);
  for (Param& p : big.params()) m.weights.copy_f32(p.name, p.value.data, p.value.numel());
  Param* wte = nullptr;
  for (Param& p : big.params())
    if (p.name == "wte") wte = &p;
  ASSERT_NE(wte, nullptr);
  const std::vector<int32_t> prompt = {464, 3290};
  for (int64_t r = 50257; r < 50304; ++r)
    for (int c = 0; c < 4; ++c) wte->value.data[r * 4 + c] *= 1000.0f;
  SamplingOptions opt;
  Rng rng(3);
  int padded_drawn = 0;
  for (int32_t id : generate(big, 8, prompt, 20, opt, rng, nullptr)) padded_drawn += id >= 50257;
  EXPECT_GT(padded_drawn, 0) << "the test should make the padded rows likely";
  opt.vocab_limit = 50257;
  Rng rng2(3);
  for (int32_t id : generate(big, 8, prompt, 20, opt, rng2, nullptr)) EXPECT_LT(id, 50257);
}

TEST(NanoGptCkpt, InitFromsLoaderReadsCkptPtWithMetaPklBesideIt) {
  const std::string dir = tmp_dir("init");
  fs::copy_file(fixture_path("nanogpt_ckpt/char.pt"), dir + "/ckpt.pt");
  const std::string no_meta = error_of([&] { load_checkpoint(dir + "/ckpt.pt"); });
  EXPECT_NE(no_meta.find("meta.pkl"), std::string::npos) << no_meta;
  fs::copy_file(fixture_path("nanogpt_ckpt/meta.pkl"), dir + "/meta.pkl");
  const Checkpoint ck = load_checkpoint(dir + "/ckpt.pt");
  EXPECT_TRUE(ck.weights_only);
  EXPECT_EQ(ck.tokenizer.vocab_size(), ck.cfg.gpt.vocab_size);
  EXPECT_EQ(ck.tokenizer.decode({0, 1}), "\n ");
  GPT gpt(ck.cfg.gpt);
  restore_params(ck, gpt, /*with_optimizer=*/false);
}

TEST(NanoGptCkpt, MetaPklBesideRawBinsIsACharacterDataset) {
  const std::string dir = tmp_dir("data");
  for (const char* f : {"train.bin", "val.bin", "meta.pkl"})
    fs::copy_file(fixture_path(std::string("nanogpt_ckpt/") + f), dir + "/" + f);
  const Dataset d = Dataset::load(dir);
  EXPECT_EQ(d.tokenizer.vocab_size(), expected()["meta_vocab_size"].get<int>());
  ASSERT_EQ(d.train.size(), 18000u);  // prepare.py's 90% of 20,000 characters
  const std::vector<int32_t> input = expected()["char"]["input"].get<std::vector<int32_t>>();
  for (size_t i = 0; i < input.size(); ++i) EXPECT_EQ(static_cast<int32_t>(d.train[i]), input[i]);
  EXPECT_EQ(d.tokenizer.decode(input).substr(0, 5), "First");
}

TEST(NanoGptCkpt, PrepareWritesPrepareDotPysFiles) {
  const std::string dir = tmp_dir("prep");
  const std::string text =
      read_file(std::string(SCRATCHGPT_SOURCE_DIR) + "/data/tinyshakespeare.txt");
  {
    std::ofstream(dir + "/input.txt", std::ios::binary) << text.substr(0, 20000);  // ASCII
  }
  prepare_dataset(dir + "/input.txt", dir + "/out", "char", TokenFormat::kNanoGpt);
  for (const char* f : {"train.bin", "val.bin"})
    EXPECT_EQ(read_file(dir + "/out/" + f),
              read_file(fixture_path(std::string("nanogpt_ckpt/") + f)))
        << f;
  const std::string ours = read_file(dir + "/out/meta.pkl"),
                    theirs = read_file(fixture_path("nanogpt_ckpt/meta.pkl"));
  const Pickle a(reinterpret_cast<const uint8_t*>(ours.data()), ours.size(), "ours");
  const Pickle b(reinterpret_cast<const uint8_t*>(theirs.data()), theirs.size(), "theirs");
  EXPECT_EQ(a.root().get("vocab_size")->i, b.root().get("vocab_size")->i);
  for (const char* key : {"itos", "stoi"}) {
    const auto &x = a.root().get(key)->items, &y = b.root().get(key)->items;
    ASSERT_EQ(x.size(), y.size());
    for (size_t k = 0; k < x.size(); ++k) {
      EXPECT_EQ(x[k]->kind, y[k]->kind);
      EXPECT_EQ(x[k]->i, y[k]->i);
      EXPECT_EQ(x[k]->s, y[k]->s);
    }
  }
}

TEST(NanoGptCkpt, ExportCarriesTorch1sCausalMasks) {
  const std::string dir = tmp_dir("export");
  fs::copy_file(fixture_path("nanogpt_ckpt/char.pt"), dir + "/ckpt.pt");
  fs::copy_file(fixture_path("nanogpt_ckpt/meta.pkl"), dir + "/meta.pkl");
  std::FILE* sink = std::fopen("/dev/null", "w");
  run_export({"nanogpt", dir + "/ckpt.pt", dir + "/n.safetensors", false}, sink);
  run_export({"hf", dir + "/ckpt.pt", dir + "/hf", false}, sink);
  std::fclose(sink);
  const SafeTensors st = load_safetensors(dir + "/n.safetensors");
  for (int l = 0; l < 2; ++l) {
    const std::string key = "transformer.h." + std::to_string(l) + ".attn.bias";
    ASSERT_TRUE(st.has(key)) << key;
    EXPECT_EQ(st.shape(key), (std::vector<int64_t>{1, 1, 16, 16}));
    const std::vector<float> m = st.f32(key);
    for (int i = 0; i < 16; ++i)
      for (int j = 0; j < 16; ++j) EXPECT_EQ(m[i * 16 + j], j <= i ? 1.0f : 0.0f);
  }
  // A character model names no GPT-2 <|endoftext|> (50256) as bos/eos.
  const nlohmann::json c = nlohmann::json::parse(read_file(dir + "/hf/config.json"));
  EXPECT_TRUE(c["bos_token_id"].is_null());
  EXPECT_TRUE(c["eos_token_id"].is_null());
}

TEST(NanoGptCkpt, OtherToolsFilesAreNamedNotMisread) {
  const std::string llmc = error_of([] { read_nanogpt(fixture_path("gpt2/llmc.bin"), 0); });
  EXPECT_NE(llmc.find("llm.c's model file"), std::string::npos) << llmc;
  EXPECT_NE(llmc.find("--format llmc"), std::string::npos) << llmc;
  const std::string deflated =
      error_of([] { read_nanogpt(fixture_path("nanogpt_ckpt/deflated.pt"), 0); });
  EXPECT_NE(deflated.find("compressed (method 8, deflate)"), std::string::npos) << deflated;
}

TEST(NanoGptCkpt, HeadWithoutWteIsTheTiedEmbedding) {
  // safetensors.torch.save_model keeps one of two tied tensors: here lm_head.weight.
  SafeTensors st = load_safetensors(fixture_path("gpt2/nanogpt.safetensors"));
  SafeTensors head_only;
  head_only.metadata = st.metadata;
  for (auto& [k, t] : st.tensors)
    if (k != "transformer.wte.weight") head_only.tensors[k] = t;
  head_only.tensors["lm_head.weight"] = st.tensors.at("transformer.wte.weight");
  const std::string path = tmp_dir("head") + "/head.safetensors";
  save_safetensors(path, head_only, /*add_checksum=*/false);
  const Gpt2Weights a = read_nanogpt(path, 0);
  const Gpt2Weights b = read_nanogpt(fixture_path("gpt2/nanogpt.safetensors"), 0);
  EXPECT_EQ(a.weights.get("wte").bytes, b.weights.get("wte").bytes);
}
