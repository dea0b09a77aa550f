// train_mpi_test.cpp: data-parallel training under a real MPI launcher (OpenMPI's mpirun, several
// processes on this machine) against one process with the same flags: with one micro-step per
// process the losses, gradient norms and checkpoints are the same bits; with several micro-steps
// per process the sums are grouped differently and the losses agree to rounding; a run resumes on
// another number of processes exactly (2 to 1, 1 to 2); one rank failing on bad input, or a killed
// rank, ends the whole job within seconds naming the rank, and leaves a loadable checkpoint; flags
// that cannot work on N processes are one-line errors. The all-reduce overlapped with backward
// (--overlap-allreduce on) gives the same bits as the one after it, and fails the same ways.
// Skips where the build has no MPI or mpirun is missing; in CI (CI=true) a build with MPI and no
// mpirun fails instead, so a broken install cannot pass as a skip.
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

constexpr bool kBuiltWithMpi =
#ifdef SCRATCHGPT_HAVE_MPI
    true;
#else
    false;
#endif

bool have_mpirun() { return std::system("command -v mpirun >/dev/null 2>&1") == 0; }

// CI sets CI=true (GitHub Actions, GitLab, most others).
bool in_ci() {
  const char* ci = std::getenv("CI");
  return ci != nullptr && std::string(ci) == "true";
}

// Skips without MPI; fails where the build has MPI but mpirun is missing and CI=true.
#define REQUIRE_MPI()                                                                         \
  do {                                                                                        \
    if (!kBuiltWithMpi) GTEST_SKIP() << "this build has no MPI (apt-get install "             \
                                        "libopenmpi-dev openmpi-bin, then rebuild)";          \
    if (!have_mpirun()) {                                                                     \
      if (in_ci())                                                                            \
        FAIL() << "built with MPI but no mpirun on PATH, and CI=true: install openmpi-bin"; \
      GTEST_SKIP() << "no mpirun on PATH (apt-get install openmpi-bin)";                      \
    }                                                                                         \
  } while (false)

// mpirun, as root too, more processes than cores allowed.
const std::string kMpirun = "mpirun --allow-run-as-root --oversubscribe ";

// "mpirun -np N <binary>" + args.
CliResult run_mpi(int np, const std::string& args) {
  return run_cli(args, kMpirun + "-np " + std::to_string(np) + " ");
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

// A build without MPI under a launcher of several processes: each would train alone, so it is a
// one-line error saying to rebuild with MPI (runs in the builds without MPI, e.g. CI's sanitizer
// build; an MPI build would try to join a job that does not exist).
TEST(TrainMpi, ALaunchOfSeveralWithoutMpiIsAnError) {
  if (kBuiltWithMpi) GTEST_SKIP() << "this build has MPI";
  const std::string dir = scratch_dir("mpi_none");
  const std::string data = prepared(dir, shakespeare(60000));
  for (const char* var : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE"}) {
    SCOPED_TRACE(var);
    const CliResult r = run_cli(train_args(data, dir + "/out", 2, 2),
                                "env " + std::string(var) + "=2 ");
    expect_error(r, std::string(var) + "=2");
    EXPECT_NE(r.err.find("rebuild with MPI"), std::string::npos) << r.err;
    EXPECT_FALSE(fs::exists(dir + "/out"));
  }
  // One process (mpirun -np 1) trains as usual.
  EXPECT_EQ(run_cli(train_args(data, dir + "/one", 2, 2), "env PMI_SIZE=1 ").rc, 0);
}

TEST(TrainMpi, OneMicroStepPerProcessIsBitForBitOneProcess) {
  REQUIRE_MPI();
  const std::string dir = scratch_dir("mpi_exact");
  const std::string data = prepared(dir, shakespeare(60000));
  for (int np : {2, 3, 4}) {
    SCOPED_TRACE(std::to_string(np) + " processes");
    const std::string one = dir + "/one" + std::to_string(np),
                      many = dir + "/many" + std::to_string(np);
    ASSERT_EQ(run_cli(train_args(data, one, np, 12)).rc, 0);
    const CliResult r = run_mpi(np, train_args(data, many, np, 12));
    ASSERT_EQ(r.rc, 0) << r.err;
    EXPECT_NE(r.err.find(std::to_string(np) + " processes"), std::string::npos) << r.err;
    expect_same_losses(one, many, 0);
    expect_same_tensors(one + "/last.safetensors", many + "/last.safetensors");
  }
}

// --dtype bf16 too (its portable path, on any CPU): rounding is per element, so 2 processes of one
// micro-step each are still one process of two, bit for bit.
TEST(TrainMpi, Bf16IsBitForBitOneProcess) {
  REQUIRE_MPI();
  const std::string dir = scratch_dir("mpi_bf16");
  const std::string data = prepared(dir, shakespeare(60000));
  const std::string bf16 = " --dtype bf16";
  const std::string any_cpu = "SCRATCHGPT_BF16_ANY_CPU=1 ";
  ASSERT_EQ(run_cli(train_args(data, dir + "/one", 2, 8) + bf16, any_cpu).rc, 0);
  const CliResult r =
      run_cli(train_args(data, dir + "/two", 2, 8) + bf16, any_cpu + kMpirun + "-np 2 ");
  ASSERT_EQ(r.rc, 0) << r.err;
  EXPECT_NE(r.err.find("bf16 products"), std::string::npos) << r.err;
  expect_same_losses(dir + "/one", dir + "/two", 0);
  expect_same_tensors(dir + "/one/last.safetensors", dir + "/two/last.safetensors");
}

// Each block's gradients summed on a communication thread during the last backward: the same
// per-element rank-order sums, so the same bits as summing after backward and as one process; with
// two micro-steps per process too (the last one's ranges are added to the first's as they finish).
TEST(TrainMpi, OverlappedAllReduceIsBitForBitTheOneAfterBackward) {
  REQUIRE_MPI();
  const std::string dir = scratch_dir("mpi_overlap");
  const std::string data = prepared(dir, shakespeare(60000));
  for (int np : {2, 3}) {
    SCOPED_TRACE(std::to_string(np) + " processes");
    const std::string n = std::to_string(np);
    ASSERT_EQ(run_cli(train_args(data, dir + "/one" + n, np, 12)).rc, 0);
    for (int per_process : {1, 2}) {
      SCOPED_TRACE(std::to_string(per_process) + " micro-steps per process");
      const std::string tag = n + "_" + std::to_string(per_process);
      const std::string on = dir + "/on" + tag, off = dir + "/off" + tag;
      CliResult r =
          run_mpi(np, train_args(data, on, np * per_process, 12) + " --overlap-allreduce on");
      ASSERT_EQ(r.rc, 0) << r.err;
      EXPECT_NE(r.err.find(n + " processes (all-reduce overlapped with backward)"),
                std::string::npos)
          << r.err;
      EXPECT_NE(r.err.find("summing during backward"), std::string::npos) << r.err;
      r = run_mpi(np, train_args(data, off, np * per_process, 12) + " --overlap-allreduce off");
      ASSERT_EQ(r.rc, 0) << r.err;
      EXPECT_EQ(r.err.find("overlapped"), std::string::npos) << r.err;
      expect_same_losses(on, off, 0);
      expect_same_tensors(on + "/last.safetensors", off + "/last.safetensors");
      if (per_process == 1) {
        expect_same_losses(dir + "/one" + n, on, 0);
        expect_same_tensors(dir + "/one" + n + "/last.safetensors", on + "/last.safetensors");
      }
    }
  }
  // A value other than on, off or auto is a one-line error.
  const CliResult r = run_mpi(2, train_args(data, dir + "/bad", 2, 2) + " --overlap-allreduce yes");
  EXPECT_NE(r.rc, 0);
  EXPECT_NE(r.err.find("--overlap-allreduce"), std::string::npos) << r.err;
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

TEST(TrainMpi, ResumesFromOneProcessOnTwo) {
  REQUIRE_MPI();
  const std::string dir = scratch_dir("mpi_resume_up");
  const std::string data = prepared(dir, shakespeare(60000));
  ASSERT_EQ(run_cli(train_args(data, dir + "/whole", 2, 15)).rc, 0);
  // 1 process to step 10, then 2 processes to 15: the same run.
  ASSERT_EQ(run_cli(train_args(data, dir + "/cut", 2, 10)).rc, 0);
  const CliResult r = run_mpi(2, train_args(data, dir + "/cut", 2, 15) + " --resume");
  ASSERT_EQ(r.rc, 0) << r.err;
  EXPECT_NE(r.err.find("2 processes"), std::string::npos) << r.err;
  expect_same_tensors(dir + "/whole/last.safetensors", dir + "/cut/last.safetensors");
  expect_same_losses(dir + "/whole", dir + "/cut", 0);
}

TEST(TrainMpi, OneFailingRankEndsTheJobNamingIt) {
  REQUIRE_MPI();
  const std::string dir = scratch_dir("mpi_one_bad");
  const std::string data = prepared(dir, shakespeare(60000));
  // MPMD: rank 0 gets good flags, rank 1 the same but a data dir that does not exist. `timeout`
  // turns a hang into exit 124 instead of a stuck test (the job ends in about 3 s; the limit is
  // far above what a busy machine needs, so it catches a hang only).
  const std::string good = train_args(data, dir + "/out", 2, 1000);
  const std::string bad = train_args(dir + "/nonexistent", dir + "/out", 2, 1000);
  const CliResult r = run_cli(bad, "timeout -k 5 180 " + kMpirun + "-np 1 '" +
                                       std::string(SCRATCHGPT_BINARY) + "' " + good + " : -np 1 ");
  EXPECT_NE(r.rc, 0) << r.err;
  EXPECT_NE(r.rc, 124) << "the job hung until timeout killed it:\n" << r.err;
  EXPECT_NE(r.err.find("error (rank 1 of 2)"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("nonexistent"), std::string::npos) << r.err;
  // The good rank never got to write a checkpoint of a half-started run.
  EXPECT_FALSE(fs::exists(dir + "/out/last.safetensors"));
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
pid_t start_long_mpi_run(const std::string& dir, const std::string& data, const std::string& out,
                         const std::string& extra = "") {
  const pid_t launcher = fork();
  if (launcher == 0) {
    const std::string cmd = "exec " + kMpirun + "-np 2 '" + std::string(SCRATCHGPT_BINARY) + "' " +
                            train_args(data, out, 2, 100000) + extra + " >'" + dir + "/log' 2>&1";
    execl("/bin/sh", "sh", "-c", cmd.c_str(), static_cast<char*>(nullptr));
    _exit(127);
  }
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(300);
  while (!fs::exists(out + "/last.safetensors") && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  return launcher;
}

// The newest child process of pid (0 if none).
pid_t newest_child(pid_t pid) {
  const std::string list = scratch_dir("mpi_pgrep") + "/pids";
  if (std::system(("pgrep -n -P " + std::to_string(pid) + " >'" + list + "'").c_str()) != 0)
    return 0;
  return static_cast<pid_t>(std::atoi(slurp(list).c_str()));
}

// OMPI_COMM_WORLD_RANK from a process's environment (-1 if absent).
int mpi_rank_of(pid_t pid) {
  const std::string env = slurp("/proc/" + std::to_string(pid) + "/environ");
  const std::string key = std::string("OMPI_COMM_WORLD_RANK=");
  for (size_t at = 0; at < env.size(); at = env.find('\0', at) + 1) {
    if (env.compare(at, key.size(), key) == 0) return std::atoi(env.c_str() + at + key.size());
    if (env.find('\0', at) == std::string::npos) break;
  }
  return -1;
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

// Ctrl-C in mpirun's terminal, with extra flags for the run.
void expect_ctrl_c_stops_every_rank(const std::string& name, const std::string& extra) {
  const std::string dir = scratch_dir(name);
  const std::string data = prepared(dir, shakespeare(60000));
  const std::string out = dir + "/out";
  const pid_t launcher = start_long_mpi_run(dir, data, out, extra);
  ASSERT_GT(launcher, 0);
  ASSERT_TRUE(fs::exists(out + "/last.safetensors")) << slurp(dir + "/log");
  kill(launcher, SIGINT);  // what Ctrl-C in mpirun's terminal sends it
  int status = 0;
  ASSERT_TRUE(wait_for(launcher, status, std::chrono::seconds(180))) << slurp(dir + "/log");
  const std::string log = slurp(dir + "/log");
  EXPECT_NE(log.find("interrupted: saved"), std::string::npos) << log;
  EXPECT_NE(log.find("mpirun -np 2 scratchgpt train"), std::string::npos) << log;
  // The saved state is whole: eval reads it (checksum, shapes, finite values).
  const CliResult r = run_cli("eval --checkpoint '" + out + "/last.safetensors' --data-dir '" +
                              data + "' --batches 1");
  EXPECT_EQ(r.rc, 0) << r.err;
}

// SIGKILL to one rank mid-run, with extra flags for the run.
void expect_killed_rank_ends_the_job(const std::string& name, const std::string& extra) {
  const std::string dir = scratch_dir(name);
  const std::string data = prepared(dir, shakespeare(60000));
  const std::string out = dir + "/out";
  const pid_t launcher = start_long_mpi_run(dir, data, out, extra);
  ASSERT_GT(launcher, 0);
  ASSERT_TRUE(fs::exists(out + "/last.safetensors")) << slurp(dir + "/log");
  // The newest of mpirun's children, and its rank (OpenMPI puts it in each process's environment).
  const pid_t victim = newest_child(launcher);
  ASSERT_GT(victim, 0);
  const int rank = mpi_rank_of(victim);
  ASSERT_GE(rank, 0);
  ASSERT_EQ(kill(victim, SIGKILL), 0);
  int status = 0;
  ASSERT_TRUE(wait_for(launcher, status, std::chrono::seconds(180)))
      << "the job still ran 180 s after a rank was killed:\n" << slurp(dir + "/log");
  EXPECT_FALSE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  // mpirun names the process that died: "process rank 1 with PID 0 on node vm exited on signal 9
  // (Killed)" (OpenMPI 4.1 prints PID 0 for a local process, so only the rank is checked).
  const std::string log = slurp(dir + "/log");
  EXPECT_NE(log.find("process rank " + std::to_string(rank) + " with PID"), std::string::npos)
      << "killed rank " << rank << " (pid " << victim << "):\n" << log;
  EXPECT_NE(log.find("signal 9"), std::string::npos) << log;
  // The checkpoint the survivors left is whole: eval reads it (checksum, shapes, finite).
  const CliResult r = run_cli("eval --checkpoint '" + out + "/last.safetensors' --data-dir '" +
                              data + "' --batches 1");
  EXPECT_EQ(r.rc, 0) << r.err;
}

}  // namespace

TEST(TrainMpi, CtrlCStopsEveryRankAtTheSameStepWithACheckpoint) {
  REQUIRE_MPI();
  expect_ctrl_c_stops_every_rank("mpi_int", "");
}

TEST(TrainMpi, AKilledRankEndsTheJobAndLeavesALoadableCheckpoint) {
  REQUIRE_MPI();
  expect_killed_rank_ends_the_job("mpi_kill", "");
}

// The same with the all-reduce on the communication thread: the rank killed or stopped while the
// other may be summing in the background, never a hang.
TEST(TrainMpi, CtrlCStopsEveryRankWithTheOverlappedAllReduce) {
  REQUIRE_MPI();
  expect_ctrl_c_stops_every_rank("mpi_int_overlap", " --overlap-allreduce on");
}

TEST(TrainMpi, AKilledRankEndsTheJobWithTheOverlappedAllReduce) {
  REQUIRE_MPI();
  expect_killed_rank_ends_the_job("mpi_kill_overlap", " --overlap-allreduce on");
}
