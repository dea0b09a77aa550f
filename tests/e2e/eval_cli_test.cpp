// eval_cli_test.cpp: 'scratchgpt eval' end to end. The whole-split loss of a bigram equals the
// mean of -log softmax(table[x])[y] over the split's first windows * T tokens, computed here
// in double from the checkpoint's table (an identity, independent of the model code); a GPT's
// whole-split loss does not depend on how the windows are batched; random-batch estimates are
// seeded; bad input is one "error:" line.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>

#include "data/dataset.h"
#include "io/checkpoint.h"
#include "train_cli_util.h"

using namespace scratchgpt::test;

namespace {

struct Reported {
  double loss = NAN;
  long long tokens = -1;
};

// Parses "val loss 1.2345 (perplexity ...) over N tokens: ..." from eval's stdout.
Reported parse(const CliResult& r) {
  Reported out;
  char split[8] = {};
  double perplexity = 0;
  if (std::sscanf(r.out.c_str(), "%7s loss %lf (perplexity %lf) over %lld tokens", split, &out.loss,
                  &perplexity, &out.tokens) != 4 ||
      (std::string(split) != "val" && std::string(split) != "train")) {
    ADD_FAILURE() << "unexpected eval output: [" << r.out << "] stderr [" << r.err << "]";
    out = Reported();
  }
  return out;
}

struct TrainedRun {
  std::string data, checkpoint;
};

// A briefly trained tiny GPT (block size 16) on a slice of Tiny Shakespeare.
const TrainedRun& gpt_run() {
  static const TrainedRun run = [] {
    const std::string dir = scratch_dir("eval_gpt");
    TrainedRun r{prepared(dir, shakespeare(40000)), dir + "/run/best.safetensors"};
    const CliResult t = run_cli(
        "train --preset shakespeare-char-small --n-layer 1 --n-head 2 --n-embd 16 --block-size 16 "
        "--batch-size 8 --max-iters 40 --eval-interval 40 --eval-iters 2 --data-dir '" +
        r.data + "' --out-dir '" + dir + "/run'");
    if (t.rc != 0) ADD_FAILURE() << t.err;
    return r;
  }();
  return run;
}

}  // namespace

TEST(EvalCli, BigramWholeSplitLossIsTheTableCrossEntropy) {
  const std::string dir = scratch_dir("eval_bigram");
  const std::string data = prepared(dir, shakespeare(30000));
  const CliResult t = run_cli("train --preset bigram --max-iters 200 --eval-interval 200 "
                              "--eval-iters 2 --data-dir '" + data + "' --out-dir '" + dir +
                              "/run'");
  ASSERT_EQ(t.rc, 0) << t.err;
  const std::string ck_path = dir + "/run/last.safetensors";
  const CliResult e = run_cli("eval --checkpoint '" + ck_path + "' --data-dir '" + data + "'");
  ASSERT_EQ(e.rc, 0) << e.err;
  const Reported got = parse(e);

  const scratchgpt::Checkpoint ck = scratchgpt::load_checkpoint(ck_path);
  const scratchgpt::Dataset ds = scratchgpt::Dataset::load(data);
  const std::vector<float> table = ck.st.f32("token_embedding_table.weight");  // (V, V)
  const int V = ds.tokenizer.vocab_size();
  const int T = ck.cfg.gpt.block_size;
  const int64_t n = static_cast<int64_t>(ds.val.size());
  const int64_t tokens = (n - 1) / T * T;
  double sum = 0;
  for (int64_t i = 0; i < tokens; ++i) {
    const float* row = table.data() + static_cast<int64_t>(ds.val[i]) * V;
    double mx = row[0], z = 0;
    for (int v = 1; v < V; ++v) mx = std::max(mx, static_cast<double>(row[v]));
    for (int v = 0; v < V; ++v) z += std::exp(row[v] - mx);
    sum += std::log(z) + mx - row[ds.val[i + 1]];
  }
  EXPECT_EQ(got.tokens, tokens);
  EXPECT_NEAR(got.loss, sum / static_cast<double>(tokens), 1e-4);  // printed with 4 decimals
  EXPECT_LT(got.loss, 3.5);  // trained: well below ln(V) ~ 4.1
}

TEST(EvalCli, GptWholeSplitLossDoesNotDependOnBatching) {
  const TrainedRun& r = gpt_run();
  const std::string base = "eval --checkpoint '" + r.checkpoint + "' --data-dir '" + r.data + "' ";
  const Reported def = parse(run_cli(base));
  const Reported one = parse(run_cli(base + "--batch-size 1"));
  const Reported odd = parse(run_cli(base + "--batch-size 7 --threads 1"));
  const scratchgpt::Dataset ds = scratchgpt::Dataset::load(r.data);
  EXPECT_EQ(def.tokens, (static_cast<long long>(ds.val.size()) - 1) / 16 * 16);
  EXPECT_EQ(one.tokens, def.tokens);
  EXPECT_EQ(odd.tokens, def.tokens);
  EXPECT_NEAR(one.loss, def.loss, 2e-4);
  EXPECT_NEAR(odd.loss, def.loss, 2e-4);
  // A shorter window sees less context on average: the loss changes, the token count too.
  const Reported t8 = parse(run_cli(base + "--block-size 8"));
  EXPECT_EQ(t8.tokens, (static_cast<long long>(ds.val.size()) - 1) / 8 * 8);
  // The train split is evaluated when asked for.
  const Reported tr = parse(run_cli(base + "--split train"));
  EXPECT_EQ(tr.tokens, (static_cast<long long>(ds.train.size()) - 1) / 16 * 16);
}

TEST(EvalCli, RandomBatchEstimatesAreSeeded) {
  const TrainedRun& r = gpt_run();
  const std::string base = "eval --checkpoint '" + r.checkpoint + "' --data-dir '" + r.data +
                           "' --batches 3 --batch-size 4 ";
  const CliResult a = run_cli(base + "--seed 5");
  const CliResult b = run_cli(base + "--seed 5");
  const CliResult c = run_cli(base + "--seed 6");
  ASSERT_EQ(a.rc, 0) << a.err;
  EXPECT_EQ(parse(a).loss, parse(b).loss);
  EXPECT_NE(parse(a).loss, parse(c).loss);
  EXPECT_EQ(parse(a).tokens, 3 * 4 * 16);
}

TEST(EvalCli, BadInput) {
  const TrainedRun& r = gpt_run();
  const std::string dir = scratch_dir("eval_errors");
  const std::string ck = "--checkpoint '" + r.checkpoint + "' ";
  const std::string good = slurp(r.checkpoint);
  expect_error(run_cli("eval --checkpoint '" + dir + "/none.safetensors' --data-dir '" + r.data +
                       "'"),
               "not found");
  spit(dir + "/trunc.safetensors", good.substr(0, good.size() / 2));
  expect_error(run_cli("eval --checkpoint '" + dir + "/trunc.safetensors' --data-dir '" + r.data +
                       "'"),
               "trunc.safetensors");
  expect_error(run_cli("eval " + ck + "--data-dir '" + dir + "/nodata'"), "prepare");
  // Another vocabulary: the same ids would mean other characters.
  const std::string other = prepared(dir, "abc abc abc abc\n" + std::string(200, 'x'));
  expect_error(run_cli("eval " + ck + "--data-dir '" + other + "'"), "vocabulary");
  const std::string d = "--data-dir '" + r.data + "' ";
  expect_error(run_cli("eval " + ck + d + "--split test"), "--split");
  expect_error(run_cli("eval " + ck + d + "--batches -1"), "--batches");
  expect_error(run_cli("eval " + ck + d + "--block-size 17"), "--block-size");
  expect_error(run_cli("eval " + ck + d + "--batch-size -2"), "--batch-size");
  expect_error(run_cli("eval " + ck + d + "--matmul fast"), "--matmul");
  EXPECT_EQ(slurp(r.checkpoint), good);  // the checkpoint is untouched
}
