// outputs_test.cpp: the one rule for the files a command writes at a path the user named
// (core/atomic_file.h), through the CLI: export, import, report, attention and lesson --html
// refuse an existing output without --overwrite and never replace the input they read; a FIFO or
// device at --out is written to, never replaced; an hf export directory appears complete or not
// at all. And every reader refuses a FIFO at once instead of blocking on it (each command runs
// under `timeout 20`, so a blocking open fails the test instead of hanging it).
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <filesystem>
#include <thread>

#include "test_util.h"
#include "train_cli_util.h"

using namespace scratchgpt::test;
namespace fs = std::filesystem;

namespace {

const std::string kTok = " --tokenizer '" + fixture_path("gpt2/tok500") + "'";

// A small trained run (a resumable last.safetensors with AdamW's moments), made once.
struct TrainedRun {
  std::string data, dir;
};
const TrainedRun& trained() {
  static const TrainedRun run = [] {
    const std::string dir = scratch_dir("outputs_run");
    TrainedRun r{prepared(dir, shakespeare(20000)), dir + "/run"};
    const CliResult c = run_cli(
        "train --preset shakespeare-char-small --n-layer 1 --n-head 2 --n-embd 16 "
        "--block-size 16 --batch-size 2 --max-iters 2 --eval-interval 2 --eval-iters 1 "
        "--threads 1 --data-dir '" +
        r.data + "' --out-dir '" + r.dir + "'");
    if (c.rc != 0) ADD_FAILURE() << c.err;
    return r;
  }();
  return run;
}


}  // namespace

// `export --out run/last.safetensors` made a resumable checkpoint weights-only, and nanoGPT's
// export or an import replaced best.safetensors or last.safetensors without a word.
TEST(Outputs, ARunsCheckpointsAreNeverReplacedWithoutOverwrite) {
  const TrainedRun& run = trained();
  const std::string last = run.dir + "/last.safetensors", best = run.dir + "/best.safetensors";
  const std::string last_bytes = slurp(last), best_bytes = slurp(best);
  ASSERT_FALSE(last_bytes.empty());
  // The checkpoint read is never the one written, --overwrite or not.
  for (const char* overwrite : {"", " --overwrite"}) {
    CliResult r = run_cli("export --format scratchgpt --checkpoint '" + last + "' --out '" + last +
                          "'" + overwrite);
    expect_error(r, "is the --checkpoint");
    EXPECT_NE(r.err.find("write to another file"), std::string::npos) << r.err;
  }
  expect_error(run_cli("export --format nanogpt --checkpoint '" + last + "' --out '" + best + "'"),
               "exists: give --overwrite to replace it");
  expect_error(run_cli("import --format hf --input '" + fixture_path("gpt2/hub") + "' --out '" +
                       last + "'" + kTok),
               "--out " + last + " exists: give --overwrite");
  const std::string bin = scratch_dir("outputs_same") + "/gpt2.bin";
  fs::copy_file(fixture_path("gpt2/llmc.bin"), bin);
  expect_error(
      run_cli("import --format llmc --input '" + bin + "' --out '" + bin + "' --overwrite" + kTok),
      "is the --input");
  EXPECT_TRUE(slurp(bin) == slurp(fixture_path("gpt2/llmc.bin")));
  EXPECT_TRUE(slurp(last) == last_bytes);
  EXPECT_TRUE(slurp(best) == best_bytes);
  // The run resumes: its checkpoint kept its optimizer state.
  CliResult r = run_cli("train --resume --max-iters 3 --threads 1 --data-dir '" + run.data +
                        "' --out-dir '" + run.dir + "'");
  EXPECT_EQ(r.rc, 0) << r.err;
  // With --overwrite, an existing output that is not an input is replaced.
  const std::string w = scratch_dir("outputs_overwrite") + "/w.safetensors";
  spit(w, "an older file");
  expect_error(run_cli("export --format scratchgpt --checkpoint '" + best + "' --out '" + w + "'"),
               "--overwrite");
  EXPECT_EQ(slurp(w), "an older file");
  r = run_cli("export --format scratchgpt --checkpoint '" + best + "' --out '" + w +
              "' --overwrite");
  ASSERT_EQ(r.rc, 0) << r.err;
  EXPECT_NE(slurp(w), "an older file");
  EXPECT_EQ(temporaries(fs::path(w).parent_path().string()), 0u);
}

// report (--out and --csv), attention --out and lesson --html follow the same rule.
TEST(Outputs, PagesAndTablesNeedOverwriteToReplaceAFile) {
  const TrainedRun& run = trained();
  const std::string dir = scratch_dir("outputs_pages");
  for (const char* name : {"r.html", "r.csv", "a.html", "l.html"}) spit(dir + "/" + name, "mine");
  const std::string report = "report --run '" + run.dir + "' ";
  expect_error(run_cli(report + "--out '" + dir + "/r.html'"), "--out " + dir + "/r.html exists");
  expect_error(run_cli(report + "--csv '" + dir + "/r.csv'"), "--csv " + dir + "/r.csv exists");
  expect_error(run_cli(report + "--out '" + dir + "/new.html' --csv '" + dir + "/r.csv'"),
               "--csv " + dir + "/r.csv exists");
  EXPECT_FALSE(fs::exists(dir + "/new.html"));  // checked before either is written
  expect_error(run_cli(report + "--out '" + dir + "/x' --csv '" + dir + "/x' --overwrite"),
               "the same file");
  const std::string attention = "attention --checkpoint '" + run.dir +
                                "/last.safetensors' --prompt 'ROMEO:' --out '" + dir + "/a.html'";
  expect_error(run_cli(attention), "--out " + dir + "/a.html exists");
  expect_error(run_cli("attention --checkpoint '" + run.dir +
                       "/last.safetensors' --prompt hi "
                       "--out '" +
                       run.dir + "/last.safetensors' --overwrite"),
               "is the --checkpoint");
  const std::string lesson = "lesson head --T 2 --html '" + dir + "/l.html'";
  expect_error(run_cli(lesson), "--html " + dir + "/l.html exists");
  expect_error(run_cli("lesson head --T 2 --overwrite"), "--overwrite replaces an existing --html");
  for (const char* name : {"r.html", "r.csv", "a.html", "l.html"})
    EXPECT_EQ(slurp(dir + "/" + name), "mine") << name;
  CliResult r =
      run_cli(report + "--out '" + dir + "/r.html' --csv '" + dir + "/r.csv' --overwrite");
  EXPECT_EQ(r.rc, 0) << r.err;
  r = run_cli(attention + " --overwrite");
  EXPECT_EQ(r.rc, 0) << r.err;
  r = run_cli(lesson + " --overwrite");
  EXPECT_EQ(r.rc, 0) << r.err;
  for (const char* name : {"r.html", "r.csv", "a.html", "l.html"})
    EXPECT_NE(slurp(dir + "/" + name), "mine") << name;
  EXPECT_EQ(temporaries(dir), 0u);
}

// A FIFO or character device at --out is written to, never replaced by a regular file (as root,
// `--out /dev/null` replaced the system's); a FIFO nobody reads is an error, not a hang;
// /dev/fd/1 (the shell's standard output) is written to where it goes.
TEST(Outputs, StreamsAreWrittenToNeverReplaced) {
  const TrainedRun& run = trained();
  const std::string dir = scratch_dir("outputs_streams");
  const std::string ck = run.dir + "/best.safetensors";
  const std::string fifo = dir + "/pipe";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0644), 0);
  CliResult r = run_cli("export --format scratchgpt --checkpoint '" + ck + "' --out '" + fifo + "'",
                        "timeout 20 ");
  expect_error(r, "a FIFO no process reads");
  EXPECT_TRUE(is_fifo(fifo));
  // With a reader: the whole checkpoint comes through the FIFO.
  const int rfd = ::open(fifo.c_str(), O_RDONLY | O_NONBLOCK);
  ASSERT_GE(rfd, 0);
  const int keep = ::open(fifo.c_str(), O_WRONLY);  // a writer of our own: reads block, no EOF
  ASSERT_GE(keep, 0);
  ASSERT_EQ(::fcntl(rfd, F_SETFL, 0), 0);
  std::string got;
  std::thread reader([&] {
    char buf[65536];
    for (ssize_t n; (n = ::read(rfd, buf, sizeof buf)) > 0;)
      got.append(buf, static_cast<size_t>(n));
  });
  r = run_cli("export --format scratchgpt --checkpoint '" + ck + "' --out '" + fifo + "'",
              "timeout 20 ");
  ::close(keep);
  reader.join();
  ::close(rfd);
  EXPECT_EQ(r.rc, 0) << r.err;
  EXPECT_TRUE(is_fifo(fifo));
  r = run_cli("export --format scratchgpt --checkpoint '" + ck + "' --out '" + dir + "/w.st'");
  ASSERT_EQ(r.rc, 0) << r.err;
  EXPECT_EQ(got.size(), slurp(dir + "/w.st").size());
  // A character device node of our own (root only), the null device.
  if (::geteuid() == 0) {
    ASSERT_EQ(::mknod((dir + "/null").c_str(), S_IFCHR | 0666, ::makedev(1, 3)), 0);
    r = run_cli("export --format scratchgpt --checkpoint '" + ck + "' --out '" + dir + "/null'");
    EXPECT_EQ(r.rc, 0) << r.err;
    struct stat st {};
    ASSERT_EQ(::lstat((dir + "/null").c_str(), &st), 0);
    EXPECT_TRUE(S_ISCHR(st.st_mode));
  }
  // The shell's standard output by name: the CSV arrives where stdout goes (here, a file the
  // test reads), before the summary line; the file is not replaced.
  r = run_cli("report --run '" + run.dir + "' --csv /dev/fd/1");
  EXPECT_EQ(r.rc, 0) << r.err;
  EXPECT_EQ(r.out.rfind("run,type,iter,loss", 0), 0u) << r.out;
  EXPECT_NE(r.out.find("metrics lines"), std::string::npos) << r.out;
  EXPECT_EQ(temporaries(dir), 0u);
}

// export --format hf writes a directory as one step: a failure leaves the earlier export whole
// (before, model.safetensors was replaced before config.json failed: one model's weights beside
// another's config), and an existing directory is replaced only with --overwrite and only when
// it holds nothing but an export's files.
TEST(Outputs, AnHfExportDirectoryIsAllOrNothing) {
  const TrainedRun& run = trained();
  const std::string dir = scratch_dir("outputs_hf");
  const std::string gpt2 = dir + "/gpt2.safetensors", hf = dir + "/hf";
  ASSERT_EQ(run_cli("import --format hf --input '" + fixture_path("gpt2/hub") + "' --out '" + gpt2 +
                    "'" + kTok)
                .rc,
            0);
  CliResult r = run_cli("export --format hf --checkpoint '" + gpt2 + "' --out '" + hf + "'");
  ASSERT_EQ(r.rc, 0) << r.err;
  const std::string weights = slurp(hf + "/model.safetensors");
  const std::string char_ck = run.dir + "/best.safetensors";
  expect_error(run_cli("export --format hf --checkpoint '" + char_ck + "' --out '" + hf + "'"),
               "exists and is not empty: give --overwrite");
  // config.json cannot be written (a directory stands in its place): nothing changes.
  fs::remove(hf + "/config.json");
  fs::create_directories(hf + "/config.json");
  r = run_cli("export --format hf --checkpoint '" + char_ck + "' --out '" + hf + "' --overwrite");
  EXPECT_NE(r.rc, 0);
  EXPECT_TRUE(slurp(hf + "/model.safetensors") == weights) << "the weights were replaced";
  fs::remove(hf + "/config.json");
  // A directory holding anything but an export's files is not replaced.
  spit(hf + "/notes.txt", "mine");
  expect_error(
      run_cli("export --format hf --checkpoint '" + char_ck + "' --out '" + hf + "' --overwrite"),
      "holds 'notes.txt'");
  fs::remove(hf + "/notes.txt");
  // A directory holding the checkpoint read is never the output.
  expect_error(
      run_cli("export --format hf --checkpoint '" + gpt2 + "' --out '" + dir + "' --overwrite"),
      "holds the --checkpoint");
  // With --overwrite, an earlier export is replaced as a whole: no vocab.json of the old model
  // stays beside the character model's weights, and no temporary is left.
  r = run_cli("export --format hf --checkpoint '" + char_ck + "' --out '" + hf + "' --overwrite");
  ASSERT_EQ(r.rc, 0) << r.err;
  EXPECT_FALSE(slurp(hf + "/model.safetensors") == weights);
  EXPECT_TRUE(fs::exists(hf + "/config.json"));
  EXPECT_FALSE(fs::exists(hf + "/vocab.json"));
  EXPECT_EQ(temporaries(dir), 0u);
}

// A FIFO given as a checkpoint, an --init-from or an import's input blocked its reader forever;
// every reader now refuses it at once with one line naming it.
TEST(Outputs, AFifoAsAnInputIsRefusedAtOnce) {
  const TrainedRun& run = trained();
  const std::string dir = scratch_dir("outputs_fifo_in");
  const std::string fifo = dir + "/model.safetensors";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0644), 0);
  fs::create_directories(dir + "/hf");
  fs::copy_file(fixture_path("gpt2/hub/config.json"), dir + "/hf/config.json");
  ASSERT_EQ(::mkfifo((dir + "/hf/model.safetensors").c_str(), 0644), 0);
  const std::string out = " --out '" + dir + "/o.safetensors'";
  const std::string commands[] = {
      "sample --checkpoint '" + fifo + "' --num-tokens 2",
      "eval --checkpoint '" + fifo + "' --data-dir '" + run.data + "'",
      "export --format llmc --checkpoint '" + fifo + "' --out '" + dir + "/o.bin'",
      "attention --checkpoint '" + fifo + "' --prompt hi --out '" + dir + "/o.html'",
      "train --init-from '" + fifo + "' --data-dir '" + run.data + "' --out-dir '" + dir +
          "/ft' --max-iters 1",
      "import --format nanogpt --input '" + fifo + "'" + out + kTok,
      "import --format llmc --input '" + fifo + "'" + out + kTok,
      "import --format hf --input '" + dir + "/hf'" + out + kTok,
  };
  for (const std::string& c : commands) {
    SCOPED_TRACE(c);
    const CliResult r = run_cli(c, "timeout 20 ");
    ASSERT_NE(r.rc, 124) << "blocked on the FIFO";
    expect_error(r, "model.safetensors' is a FIFO (named pipe), not a regular file");
  }
  EXPECT_FALSE(fs::exists(dir + "/o.safetensors"));
}
