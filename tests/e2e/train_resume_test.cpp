// train_resume_test.cpp: a run stopped after k steps and resumed produces the same losses, bit for
// bit, as a run never stopped: stopped by --max-iters, and stopped by Ctrl-C (SIGINT) at whatever
// step it lands on, with either random stream ("split", and "nanogpt" whose checkpoints carry the
// prefetched batch). A tiny GPT with dropout checks that the dropout generator is restored too.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>

#include <chrono>
#include <thread>

#include "train_cli_util.h"

using namespace scratchgpt::test;

namespace {

std::string data_dir() {
  static const std::string d = prepared(scratch_dir("resume_data"), shakespeare(100000));
  return d;
}

// Tiny GPT with dropout and gradient accumulation, schedule fixed by lr_decay_iters (not
// max_iters).
const char* kTinyGpt =
    "--preset shakespeare-char-small --n-layer 1 --n-head 2 --n-embd 16 --block-size 16 "
    "--batch-size 4 --dropout 0.1 --grad-accum 2 --warmup-iters 5 --lr-decay-iters 40 "
    "--eval-interval 10 --eval-iters 3 --threads 1";

void expect_same_train_losses(const std::vector<nlohmann::json>& a,
                              const std::vector<nlohmann::json>& b, size_t n) {
  ASSERT_GE(a.size(), n);
  ASSERT_GE(b.size(), n);
  for (size_t i = 0; i < n; ++i) {
    ASSERT_EQ(a[i]["iter"], b[i]["iter"]);
    EXPECT_EQ(a[i]["loss"].get<double>(), b[i]["loss"].get<double>()) << "iter " << i;
    EXPECT_EQ(a[i]["lr"].get<double>(), b[i]["lr"].get<double>()) << "iter " << i;
  }
}

}  // namespace

class TrainResumeStream : public ::testing::TestWithParam<std::string> {};

TEST_P(TrainResumeStream, StopAtKThenResumeEqualsUninterrupted) {
  const std::string full = scratch_dir("resume_full_" + GetParam());
  const std::string split = scratch_dir("resume_split_" + GetParam());
  const std::string base = std::string(kTinyGpt) + " --rng-stream " + GetParam() +
                           " --data-dir '" + data_dir() + "'";
  CliResult r = run_cli("train " + base + " --out-dir '" + full + "' --max-iters 40");
  ASSERT_EQ(r.rc, 0) << r.err;
  // 17 is not a multiple of eval_interval: the stopped run makes an extra evaluation at 17.
  r = run_cli("train " + base + " --out-dir '" + split + "' --max-iters 17");
  ASSERT_EQ(r.rc, 0) << r.err;
  // As if the run had gone on past its checkpoint and died: resume forgets those lines.
  spit(split + "/metrics.jsonl",
       slurp(split + "/metrics.jsonl") +
           "{\"type\": \"train\", \"iter\": 17, \"loss\": 9.0, \"lr\": 0.1}\n{\"type\": \"tr");
  r = run_cli("train --data-dir '" + data_dir() + "' --out-dir '" + split +
              "' --resume --max-iters 40");
  ASSERT_EQ(r.rc, 0) << r.err;
  const auto a = metrics(full + "/metrics.jsonl", "train");
  const auto b = metrics(split + "/metrics.jsonl", "train");
  ASSERT_EQ(a.size(), 40u);
  ASSERT_EQ(b.size(), 40u);
  expect_same_train_losses(a, b, 40);
  // Evaluations at the common steps agree as well, and so do the final weights.
  const auto ea = metrics(full + "/metrics.jsonl", "eval");
  const auto eb = metrics(split + "/metrics.jsonl", "eval");
  for (const auto& e : ea) {
    bool found = false;
    for (const auto& f : eb)
      if (f["iter"] == e["iter"]) {
        found = true;
        EXPECT_EQ(e["val_loss"].get<double>(), f["val_loss"].get<double>()) << e.dump();
      }
    EXPECT_TRUE(found) << e.dump();
  }
  EXPECT_EQ(slurp(full + "/last.safetensors").size(), slurp(split + "/last.safetensors").size());
}

INSTANTIATE_TEST_SUITE_P(Streams, TrainResumeStream, ::testing::Values("split", "nanogpt"));

// A resumed run keeps its stream (and, on the nanogpt stream, its batch shape): asking for another
// is an error, and nothing is written.
TEST(TrainResume, ChangingTheStreamOrItsBatchShapeOnResumeIsRefused) {
  const std::string dir = scratch_dir("resume_stream_change");
  const std::string base = std::string(kTinyGpt) + " --data-dir '" + data_dir() + "'";
  CliResult r = run_cli("train " + base + " --out-dir '" + dir + "' --max-iters 3");
  ASSERT_EQ(r.rc, 0) << r.err;
  const std::string before = slurp(dir + "/last.safetensors");
  r = run_cli("train --data-dir '" + data_dir() + "' --out-dir '" + dir +
              "' --resume --max-iters 6 --rng-stream split");
  EXPECT_NE(r.rc, 0);
  EXPECT_TRUE(one_error_line(r)) << r.err;
  EXPECT_NE(r.err.find("--rng-stream"), std::string::npos) << r.err;
  EXPECT_EQ(slurp(dir + "/last.safetensors"), before);
  // The nanogpt stream's prefetched batch has the run's shape: another batch size is refused.
  r = run_cli("train --data-dir '" + data_dir() + "' --out-dir '" + dir +
              "' --resume --max-iters 6 --batch-size 5");
  EXPECT_NE(r.rc, 0);
  EXPECT_TRUE(one_error_line(r)) << r.err;
  EXPECT_NE(r.err.find("--batch-size"), std::string::npos) << r.err;
  EXPECT_EQ(slurp(dir + "/last.safetensors"), before);
}

// Stops a long run with `sig` once it has logged some steps, resumes it, and compares the losses
// with a run never stopped.
static void stop_with_signal_and_resume(int sig, const std::string& name,
                                        const char* stream = "split") {
  const std::string stopped = scratch_dir(name + "_stopped"), full = scratch_dir(name + "_full");
  const std::string data = data_dir();
  // A bigram run far too long to finish; interrupt it once it has logged some steps.
  const std::string log = stopped + "/stderr.txt";
  const pid_t pid = ::fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    std::freopen(log.c_str(), "w", stderr);
    std::freopen("/dev/null", "w", stdout);
    ::execl(SCRATCHGPT_BINARY, SCRATCHGPT_BINARY, "train", "--preset", "bigram", "--data-dir",
            data.c_str(), "--out-dir", stopped.c_str(), "--max-iters", "100000000",
            "--eval-interval", "1000000", "--eval-iters", "2", "--rng-stream", stream,
            static_cast<char*>(nullptr));
    std::_Exit(127);
  }
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(300);
  while (metrics(stopped + "/metrics.jsonl", "train").size() < 50 &&
         std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  ::kill(pid, sig);
  int status = 0;
  ::waitpid(pid, &status, 0);
  ASSERT_TRUE(WIFEXITED(status)) << "killed by a signal instead of stopping cleanly";
  EXPECT_EQ(WEXITSTATUS(status), 0);
  const std::string err = slurp(log);
  EXPECT_NE(err.find("interrupted"), std::string::npos) << err;
  EXPECT_NE(err.find("--resume"), std::string::npos) << err;
  const size_t k = metrics(stopped + "/metrics.jsonl", "train").size();
  ASSERT_GE(k, 50u);

  // Resume to k + 30 steps; compare with a run that went straight to k + 30.
  const std::string n = std::to_string(k + 30);
  CliResult r = run_cli("train --data-dir '" + data + "' --out-dir '" + stopped +
                        "' --resume --max-iters " + n);
  ASSERT_EQ(r.rc, 0) << r.err;
  r = run_cli("train --preset bigram --data-dir '" + data + "' --out-dir '" + full +
              "' --eval-interval 1000000 --eval-iters 2 --rng-stream " + stream +
              " --max-iters " + n);
  ASSERT_EQ(r.rc, 0) << r.err;
  expect_same_train_losses(metrics(full + "/metrics.jsonl", "train"),
                           metrics(stopped + "/metrics.jsonl", "train"), k + 30);
}

TEST(TrainResume, CtrlCSavesAndResumesExactly) { stop_with_signal_and_resume(SIGINT, "sigint"); }

TEST(TrainResume, SigtermSavesAndResumesExactly) { stop_with_signal_and_resume(SIGTERM, "sigterm"); }

TEST(TrainResume, CtrlCResumesTheNanoGptStreamExactly) {
  stop_with_signal_and_resume(SIGINT, "sigint_nanogpt", "nanogpt");
}

// The matmul backend is part of the run: a checkpoint records the one used ("auto" resolved), and
// --resume without --matmul continues on it, bit for bit, even where the build's default differs.
TEST(TrainResume, ResumeKeepsTheRecordedMatmulBackend) {
  const std::string full = scratch_dir("resume_own_full"), split = scratch_dir("resume_own_split");
  const std::string base =
      std::string(kTinyGpt) + " --matmul own --data-dir '" + data_dir() + "'";
  CliResult r = run_cli("train " + base + " --out-dir '" + full + "' --max-iters 20");
  ASSERT_EQ(r.rc, 0) << r.err;
  r = run_cli("train " + base + " --out-dir '" + split + "' --max-iters 8");
  ASSERT_EQ(r.rc, 0) << r.err;
  EXPECT_NE(slurp(split + "/last.safetensors").find("\\\"matmul\\\":\\\"own\\\""),
            std::string::npos);
  r = run_cli("train --data-dir '" + data_dir() + "' --out-dir '" + split +
              "' --resume --max-iters 20");
  ASSERT_EQ(r.rc, 0) << r.err;
  EXPECT_NE(r.err.find("matmul own"), std::string::npos) << r.err;
  expect_same_train_losses(metrics(full + "/metrics.jsonl", "train"),
                           metrics(split + "/metrics.jsonl", "train"), 20);
}
