// train_mpi_test.cpp: data-parallel training under a real MPI launcher (OpenMPI's mpirun, several
// processes on this machine) against one process with the same flags: with one micro-step per
// process the losses, gradient norms and checkpoints are the same bits; with several micro-steps
// per process the sums are grouped differently and the losses agree to rounding; a run resumes on
// another number of processes exactly; a killed rank ends the whole job within seconds and leaves
// a loadable checkpoint; flags that cannot work on N processes are one-line errors.
// Skips where the build has no MPI or mpirun is missing.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <filesystem>
#include <string>
#include <thread>

#include "core/safetensors.h"
#include "train_cli_util.h"

using namespace scratchgpt;
using namespace scratchgpt::test;
namespace fs = std::filesystem;

namespace {

bool have_mpi() {
#ifdef SCRATCHGPT_HAVE_MPI
  return std::system("command -v mpirun >/dev/null 2>&1") == 0;
#else
  return false;
#endif
}

#define REQUIRE_MPI()                                                                        \
  if (!have_mpi())                                                                           \
  GTEST_SKIP() << "no MPI in this build or no mpirun on PATH (apt-get install libopenmpi-dev " \
                  "openmpi-bin, then rebuild)"

// "mpirun -np N <binary>" (as root too, more processes than cores allowed) + args.
CliResult run_mpi(int np, const std::string& args) {
  return run_cli(args, "mpirun --allow-run-as-root --oversubscribe -np " + std::to_string(np) + " ");
}

// A small GPT, the split random stream, dropout on: every draw a process makes matters.
std::string train_args(const std::string& data, const std::string& out, int accum, int iters) {
  return "train --preset shakespeare-char-small --n-layer 2 --n-head 2 --n-embd 32 --block-size 32 "
         "--batch-size 4 --dropout 0.1 --rng-stream split --threads 1 --eval-interval 5 "
         "--eval-iters 3 --grad-accum " + std::to_string(accum) + " --max-iters " +
         std::to_string(iters) + " --data-dir '" + data + "' --out-dir '" + out + "'";
}

void expect_same_losses(const std::string& a, const std::string& b, double tol) {
  for (const char* type : {"train", "eval"}) {
    const auto ma = metrics(a + "/metrics.jsonl", type), mb = metrics(b + "/metrics.jsonl", type);
    ASSERT_EQ(ma.size(), mb.size()) << type;
    ASSERT_FALSE(ma.empty()) << type;
    for (size_t i = 0; i < ma.size(); ++i)
      for (const char* key : {"loss", "grad_norm", "train_loss", "val_loss"}) {
        if (!ma[i].contains(key)) continue;
        const double x = ma[i][key].get<double>(), y = mb[i][key].get<double>();
        if (tol == 0)
          EXPECT_EQ(x, y) << type << " line " << i << " " << key;
        else
          EXPECT_NEAR(x, y, tol) << type << " line " << i << " " << key;
      }
  }
}

// Every tensor of two checkpoints (weights, AdamW moments, generator states), bit for bit.
void expect_same_tensors(const std::string& a, const std::string& b) {
  const SafeTensors sa = load_safetensors(a), sb = load_safetensors(b);
  ASSERT_EQ(sa.tensors.size(), sb.tensors.size());
  for (const auto& [name, t] : sa.tensors) {
    ASSERT_TRUE(sb.tensors.count(name)) << name;
    EXPECT_TRUE(t.bytes == sb.tensors.at(name).bytes) << name << " differs";
  }
}

}  // namespace

TEST(TrainMpi, OneMicroStepPerProcessIsBitForBitOneProcess) {
  REQUIRE_MPI();
  const std::string dir = scratch_dir("mpi_exact");
  const std::string data = prepared(dir, shakespeare(60000));
  for (int np : {2, 3}) {
    SCOPED_TRACE(std::to_string(np) + " processes");
    const std::string one = dir + "/one" + std::to_string(np), many = dir + "/many" + std::to_string(np);
    ASSERT_EQ(run_cli(train_args(data, one, np, 12)).rc, 0);
    const CliResult r = run_mpi(np, train_args(data, many, np, 12));
    ASSERT_EQ(r.rc, 0) << r.err;
    EXPECT_NE(r.err.find(std::to_string(np) + " processes"), std::string::npos) << r.err;
    expect_same_losses(one, many, 0);
    expect_same_tensors(one + "/last.safetensors", many + "/last.safetensors");
  }
}

TEST(TrainMpi, SeveralMicroStepsPerProcessAgreeToRounding) {
  REQUIRE_MPI();
  const std::string dir = scratch_dir("mpi_close");
  const std::string data = prepared(dir, shakespeare(60000));
  ASSERT_EQ(run_cli(train_args(data, dir + "/one", 4, 10)).rc, 0);
  const CliResult r = run_mpi(2, train_args(data, dir + "/two", 4, 10));
  ASSERT_EQ(r.rc, 0) << r.err;
  // ((g0 + g1) + g2) + g3 on one process, (g0 + g1) + (g2 + g3) on two: float rounding only.
  expect_same_losses(dir + "/one", dir + "/two", 2e-5);
}

TEST(TrainMpi, ResumesOnAnotherNumberOfProcesses) {
  REQUIRE_MPI();
  const std::string dir = scratch_dir("mpi_resume");
  const std::string data = prepared(dir, shakespeare(60000));
  ASSERT_EQ(run_cli(train_args(data, dir + "/whole", 2, 15)).rc, 0);
  // 2 processes to step 10, then 1 process to 15: the same run.
  ASSERT_EQ(run_mpi(2, train_args(data, dir + "/cut", 2, 10)).rc, 0);
  const CliResult r = run_cli(train_args(data, dir + "/cut", 2, 15) + " --resume");
  ASSERT_EQ(r.rc, 0) << r.err;
  expect_same_tensors(dir + "/whole/last.safetensors", dir + "/cut/last.safetensors");
  expect_same_losses(dir + "/whole", dir + "/cut", 0);
}

TEST(TrainMpi, FlagsThatCannotWorkOnSeveralProcessesAreErrors) {
  REQUIRE_MPI();
  const std::string dir = scratch_dir("mpi_errors");
  const std::string data = prepared(dir, shakespeare(60000));
  CliResult r = run_mpi(2, train_args(data, dir + "/a", 3, 2));
  EXPECT_NE(r.rc, 0);
  EXPECT_NE(r.err.find("--grad-accum 4"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("error (rank 0 of 2)"), std::string::npos) << r.err;
  r = run_mpi(2, "train --preset shakespeare-char-small --max-iters 1 --grad-accum 2 --data-dir '" +
                     data + "' --out-dir '" + dir + "/b'");
  EXPECT_NE(r.rc, 0);
  EXPECT_NE(r.err.find("--rng-stream split"), std::string::npos) << r.err;
}

namespace {
// Starts "mpirun -np 2 ... train" (a long run) in the background, logging to dir/log; returns
// mpirun's pid once the run has written its first checkpoint.
pid_t start_long_mpi_run(const std::string& dir, const std::string& data, const std::string& out) {
  const pid_t launcher = fork();
  if (launcher == 0) {
    const std::string cmd = "exec mpirun --allow-run-as-root --oversubscribe -np 2 '" +
                            std::string(SCRATCHGPT_BINARY) + "' " +
                            train_args(data, out, 2, 100000) + " >'" + dir + "/log' 2>&1";
    execl("/bin/sh", "sh", "-c", cmd.c_str(), static_cast<char*>(nullptr));
    _exit(127);
  }
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (!fs::exists(out + "/last.safetensors") && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  return launcher;
}

// Waits up to `limit` for pid; false (after killing it) if it is still running then.
bool wait_for(pid_t pid, int& status, std::chrono::seconds limit) {
  const auto t0 = std::chrono::steady_clock::now();
  while (waitpid(pid, &status, WNOHANG) == 0) {
    if (std::chrono::steady_clock::now() - t0 > limit) {
      kill(pid, SIGKILL);
      waitpid(pid, &status, 0);
      return false;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  return true;
}
}  // namespace

TEST(TrainMpi, CtrlCStopsEveryRankAtTheSameStepWithACheckpoint) {
  REQUIRE_MPI();
  const std::string dir = scratch_dir("mpi_int");
  const std::string data = prepared(dir, shakespeare(60000));
  const std::string out = dir + "/out";
  const pid_t launcher = start_long_mpi_run(dir, data, out);
  ASSERT_GT(launcher, 0);
  ASSERT_TRUE(fs::exists(out + "/last.safetensors")) << slurp(dir + "/log");
  kill(launcher, SIGINT);  // what Ctrl-C in mpirun's terminal sends it
  int status = 0;
  ASSERT_TRUE(wait_for(launcher, status, std::chrono::seconds(20))) << slurp(dir + "/log");
  const std::string log = slurp(dir + "/log");
  EXPECT_NE(log.find("interrupted: saved"), std::string::npos) << log;
  EXPECT_NE(log.find("mpirun -np 2 scratchgpt train"), std::string::npos) << log;
  // The saved state is whole: eval reads it (checksum, shapes, finite values).
  const CliResult r = run_cli("eval --checkpoint '" + out + "/last.safetensors' --data-dir '" +
                              data + "' --batches 1");
  EXPECT_EQ(r.rc, 0) << r.err;
}

TEST(TrainMpi, AKilledRankEndsTheJobAndLeavesALoadableCheckpoint) {
  REQUIRE_MPI();
  const std::string dir = scratch_dir("mpi_kill");
  const std::string data = prepared(dir, shakespeare(60000));
  const std::string out = dir + "/out";
  const pid_t launcher = start_long_mpi_run(dir, data, out);
  ASSERT_GT(launcher, 0);
  ASSERT_TRUE(fs::exists(out + "/last.safetensors")) << slurp(dir + "/log");
  ASSERT_EQ(std::system(("pkill -9 -n -P " + std::to_string(launcher)).c_str()), 0);
  int status = 0;
  ASSERT_TRUE(wait_for(launcher, status, std::chrono::seconds(20)))
      << "the job still ran 20 s after a rank was killed:\n" << slurp(dir + "/log");
  EXPECT_FALSE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  EXPECT_NE(slurp(dir + "/log").find("rank"), std::string::npos) << slurp(dir + "/log");
  // The checkpoint the survivors left is whole: eval reads it (checksum, shapes, finite).
  const CliResult r = run_cli("eval --checkpoint '" + out + "/last.safetensors' --data-dir '" +
                              data + "' --batches 1");
  EXPECT_EQ(r.rc, 0) << r.err;
}
