// checkpoint_test.cpp: a checkpoint restores weights, AdamW moments, generator states, counters,
// config and vocabulary exactly; foreign or damaged files are errors naming the path.
#include "io/checkpoint.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>

#include "core/check.h"
#include "data/file_io.h"
#include "nn/bigram.h"
#include "test_util.h"

using namespace scratchgpt;
namespace fs = std::filesystem;

namespace {
std::string tmp_path(const std::string& name) {
  return (test::scratch_root() / name).string();
}
using test::error_of;
}  // namespace

TEST(Checkpoint, RoundTripIsExact) {
  const CharTokenizer tok = CharTokenizer::from_text("abcdeé\n");
  TrainConfig cfg = preset_config("bigram");
  cfg.gpt.vocab_size = tok.vocab_size();
  cfg.seed = 99;
  Bigram m(tok.vocab_size());
  Rng rng(5);
  m.init(rng);
  Param& p = m.params()[0];
  for (int64_t i = 0; i < p.m.numel(); ++i) p.m.data[i] = 0.001f * i, p.v.data[i] = 1e-7f * i;
  Rng batch(11), dropout(12);
  batch.random();
  TrainState st;
  st.iter = 1234;
  st.last_eval_iter = 1200;
  st.best_val_loss = 2.4841234f;
  st.batch_rng = batch.get_state();
  st.dropout_rng = dropout.get_state();
  const std::string path = tmp_path("ck.safetensors");
  save_checkpoint(path, m, cfg, tok, st);

  const Checkpoint ck = load_checkpoint(path);
  EXPECT_EQ(ck.cfg.to_json(), cfg.to_json());
  EXPECT_EQ(ck.tokenizer.chars().chars(), tok.chars());
  EXPECT_EQ(ck.state.iter, 1234);
  EXPECT_EQ(ck.state.last_eval_iter, 1200);
  EXPECT_EQ(ck.state.best_val_loss, st.best_val_loss);
  Rng b2(0);
  b2.set_state(ck.state.batch_rng);
  EXPECT_EQ(b2.random(), batch.random());  // the generator continues where it was
  Bigram m2(tok.vocab_size());
  restore_params(ck, m2, true);
  const Param& q = m2.params()[0];
  for (int64_t i = 0; i < p.value.numel(); ++i) {
    ASSERT_EQ(q.value.data[i], p.value.data[i]);
    ASSERT_EQ(q.m.data[i], p.m.data[i]);
    ASSERT_EQ(q.v.data[i], p.v.data[i]);
  }
  // A model of another shape is refused.
  Bigram other(tok.vocab_size() + 1);
  EXPECT_NE(error_of([&] { restore_params(ck, other, false); }).find("shape"), std::string::npos);
}

TEST(Checkpoint, ForeignAndDamagedFilesAreErrors) {
  EXPECT_NE(error_of([] { load_checkpoint(tmp_path("missing.safetensors")); }).find("not found"),
            std::string::npos);
  // A valid safetensors file that is not a checkpoint.
  SafeTensors st;
  float x = 1;
  st.add_f32("x", {1}, &x);
  const std::string foreign = tmp_path("foreign.safetensors");
  save_safetensors(foreign, st);
  EXPECT_NE(error_of([&] { load_checkpoint(foreign); }).find("not a scratchgpt"),
            std::string::npos);
  // Truncated.
  const std::string bytes = read_file(foreign);
  write_file_atomic(tmp_path("cut.safetensors"), bytes.substr(0, bytes.size() - 2));
  EXPECT_NE(error_of([&] { load_checkpoint(tmp_path("cut.safetensors")); }).find("cut.safetensors"),
            std::string::npos);
}
