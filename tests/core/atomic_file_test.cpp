// atomic_file_test.cpp: the replace-as-one-step writer never follows a planted symlink, never
// truncates anything but its own temporary, keeps the replaced file's permissions, leaves no
// temporary behind, and on failure leaves the previous file as it was; a dead writer's temporary
// is removed by the next writer. User-named outputs: an existing file only with --overwrite, a
// FIFO or device written to and never replaced, an input never the output; a directory output
// appears complete or not at all.
#include "core/atomic_file.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <sstream>

#include "core/check.h"
#include "test_util.h"

using namespace scratchgpt;
using namespace scratchgpt::test;
namespace fs = std::filesystem;

namespace {
std::string fresh_dir(const std::string& name) { return scratch_dir(name); }
std::string slurp(const std::string& p) {
  std::ifstream f(p, std::ios::binary);
  std::ostringstream ss;
  ss << f.rdbuf();
  return ss.str();
}
void spit(const std::string& p, const std::string& bytes) {
  std::ofstream f(p, std::ios::binary);
  f << bytes;
}
size_t entries(const std::string& dir) {
  size_t n = 0;
  for ([[maybe_unused]] const auto& e : fs::directory_iterator(dir)) ++n;
  return n;
}
}  // namespace

TEST(AtomicFile, WritesAndLeavesNoTemporary) {
  const std::string d = fresh_dir("plain");
  write_file_atomic(d + "/a.txt", "hello");
  EXPECT_EQ(slurp(d + "/a.txt"), "hello");
  write_file_atomic(d + "/a.txt", "bye");
  EXPECT_EQ(slurp(d + "/a.txt"), "bye");
  EXPECT_EQ(entries(d), 1u);
}

// The old scheme wrote to a fixed "<name>.tmp" with O_TRUNC: a symlink planted there made us
// truncate and overwrite its target. Every name an attacker could plant is left alone now, and the
// target stays a regular file.
TEST(AtomicFile, NeverFollowsAPlantedSymlink) {
  const std::string d = fresh_dir("symlink"), victim_dir = fresh_dir("victim");
  const std::string victim = victim_dir + "/precious.txt";
  spit(victim, "do not touch");
  for (const char* planted : {"/last.safetensors.tmp", "/.last.safetensors.tmp"})
    fs::create_symlink(victim, d + planted);
  write_file_atomic(d + "/last.safetensors", "checkpoint");
  EXPECT_EQ(slurp(victim), "do not touch");
  EXPECT_FALSE(fs::is_symlink(d + "/last.safetensors"));
  EXPECT_EQ(slurp(d + "/last.safetensors"), "checkpoint");
}

TEST(AtomicFile, KeepsThePermissionsOfTheFileItReplaces) {
  const std::string d = fresh_dir("mode");
  spit(d + "/secret", "v1");
  fs::permissions(d + "/secret", fs::perms::owner_read | fs::perms::owner_write);
  write_file_atomic(d + "/secret", "v2");
  struct stat st {};
  ASSERT_EQ(::stat((d + "/secret").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
  write_file_atomic(d + "/new", "x");  // a new file gets the usual 0644
  ASSERT_EQ(::stat((d + "/new").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0644u);
}

TEST(AtomicFile, AnAbandonedWriteKeepsThePreviousFile) {
  const std::string d = fresh_dir("abandon");
  write_file_atomic(d + "/f", "old");
  {
    AtomicFile f(d + "/f");
    f.write("new but unfinished", 18);
    EXPECT_TRUE(fs::exists(f.temp_path()));
  }  // destroyed without commit(), as when an Error unwinds through it
  EXPECT_EQ(slurp(d + "/f"), "old");
  EXPECT_EQ(entries(d), 1u);
}

TEST(AtomicFile, AMissingOrReadOnlyDirectoryIsAnError) {
  const std::string d = fresh_dir("ro");
  EXPECT_THROW(write_file_atomic(d + "/no/such/dir/f", "x"), Error);
  if (::geteuid() == 0) GTEST_SKIP() << "root writes into read-only directories";
  fs::permissions(d, fs::perms::owner_read | fs::perms::owner_exec);
  EXPECT_THROW(write_file_atomic(d + "/f", "x"), Error);
  fs::permissions(d, fs::perms::owner_all);
}

TEST(AtomicFile, TemporaryNamesDiffer) {
  const std::string d = fresh_dir("names");
  AtomicFile a(d + "/f"), b(d + "/f");
  EXPECT_NE(a.temp_path(), b.temp_path());
}

// ---- The rule for outputs the user named (--out, --csv, --html): UserOutput.

namespace {
const UserOutput kNoOverwrite{"--out", false}, kOverwrite{"--out", true};
}  // namespace

// Before, every output was replaced without asking: an export over a run's own checkpoint lost
// its optimizer state. An existing file now needs --overwrite; a new one is created.
TEST(AtomicFile, AnExistingOutputIsReplacedOnlyWithOverwrite) {
  const std::string d = fresh_dir("user_exists");
  write_file_atomic(d + "/ck", "new", &kNoOverwrite);
  EXPECT_EQ(slurp(d + "/ck"), "new");
  const std::string e = error_of([&] { write_file_atomic(d + "/ck", "other", &kNoOverwrite); });
  EXPECT_NE(e.find("--out " + d + "/ck exists: give --overwrite"), std::string::npos) << e;
  EXPECT_THROW(check_output(d + "/ck", kNoOverwrite), Error);
  EXPECT_EQ(slurp(d + "/ck"), "new");
  write_file_atomic(d + "/ck", "other", &kOverwrite);
  EXPECT_EQ(slurp(d + "/ck"), "other");
  EXPECT_EQ(entries(d), 1u);
  // Through a symlink: the file it points to is replaced, the link stays a link.
  fs::create_symlink(d + "/ck", d + "/link");
  EXPECT_THROW(write_file_atomic(d + "/link", "x", &kNoOverwrite), Error);
  write_file_atomic(d + "/link", "through", &kOverwrite);
  EXPECT_TRUE(fs::is_symlink(d + "/link"));
  EXPECT_EQ(slurp(d + "/ck"), "through");
  // A directory, a symlink to nothing, a missing directory: refused, naming the flag.
  fs::create_directories(d + "/sub");
  EXPECT_NE(error_of([&] { check_output(d + "/sub", kOverwrite); }).find("is a directory"),
            std::string::npos);
  fs::create_symlink(d + "/nothing", d + "/dangling");
  EXPECT_NE(error_of([&] { check_output(d + "/dangling", kOverwrite); }).find("symlink to nothing"),
            std::string::npos);
  EXPECT_NE(error_of([&] {
              check_output(d + "/no/dir/f", kNoOverwrite);
            }).find("--out: cannot write " + d + "/no/dir/f: directory"),
            std::string::npos);
  EXPECT_FALSE(fs::exists(d + "/nothing"));
}

// A file that appears while a new output is written is never replaced (RENAME_NOREPLACE).
TEST(AtomicFile, ANewOutputNeverReplacesAFileThatAppearedMeanwhile) {
  const std::string d = fresh_dir("user_race");
  {
    AtomicFile f(d + "/out", &kNoOverwrite);
    f.write("ours", 4);
    spit(d + "/out", "theirs");
    const std::string e = error_of([&] { f.commit(); });
    EXPECT_NE(e.find("appeared while it was being written"), std::string::npos) << e;
  }
  EXPECT_EQ(slurp(d + "/out"), "theirs");
  EXPECT_EQ(entries(d), 1u);
}

// A FIFO (or a device: /dev/null, /dev/stdout) is written to directly, never replaced by a
// regular file as root's rename used to; a FIFO nobody reads is an error at once, not a hang.
TEST(AtomicFile, DevicesAndFifosAreWrittenToNeverReplaced) {
  const std::string d = fresh_dir("user_fifo");
  const std::string fifo = d + "/pipe";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0644), 0);
  const std::string e = error_of([&] { write_file_atomic(fifo, "x", &kNoOverwrite); });
  EXPECT_NE(e.find("a FIFO no process reads"), std::string::npos) << e;
  EXPECT_TRUE(is_fifo(fifo));
  // With a reader, the bytes go through the FIFO, which stays a FIFO; so through a symlink to it.
  fs::create_symlink(fifo, d + "/link");
  for (const std::string& path : {fifo, d + "/link"}) {
    const int rfd = ::open(fifo.c_str(), O_RDONLY | O_NONBLOCK);
    ASSERT_GE(rfd, 0);
    write_file_atomic(path, "through the pipe", &kNoOverwrite);
    char buf[64] = {};
    EXPECT_EQ(::read(rfd, buf, sizeof buf), 16);
    EXPECT_EQ(std::string(buf), "through the pipe");
    ::close(rfd);
    EXPECT_TRUE(is_fifo(fifo)) << path;
  }
  EXPECT_TRUE(fs::is_symlink(d + "/link"));
  // A character device of our own (root only: mknod), the null device.
  if (::geteuid() == 0) {
    const std::string dev = d + "/null";
    ASSERT_EQ(::mknod(dev.c_str(), S_IFCHR | 0666, ::makedev(1, 3)), 0);
    write_file_atomic(dev, "gone", &kNoOverwrite);
    struct stat st {};
    ASSERT_EQ(::lstat(dev.c_str(), &st), 0);
    EXPECT_TRUE(S_ISCHR(st.st_mode));
  }
  EXPECT_EQ(temporaries(d), 0u);
}

// The input a command reads is never its output, --overwrite or not; nor inside an output
// directory that would be replaced.
TEST(AtomicFile, AnInputIsNeverTheOutput) {
  const std::string d = fresh_dir("user_input");
  spit(d + "/ck", "checkpoint");
  fs::create_symlink(d + "/ck", d + "/alias");
  for (const UserOutput& rule : {kNoOverwrite, kOverwrite}) {
    const std::string e =
        error_of([&] { check_not_input(d + "/alias", rule, d + "/ck", "--checkpoint"); });
    EXPECT_NE(e.find("is the --checkpoint " + d + "/ck"), std::string::npos) << e;
  }
  EXPECT_NE(error_of([&] {
              check_not_input(d, kOverwrite, d + "/ck", "--checkpoint");
            }).find("holds the --checkpoint"),
            std::string::npos);
  check_not_input(d + "/other", kOverwrite, d + "/ck", "--checkpoint");  // not there: fine
  EXPECT_EQ(slurp(d + "/ck"), "checkpoint");
}

// kill -9 leaves a temporary behind; the next write beside it removes it, but never the
// temporary of a writer that is alive (its pid is in the name).
TEST(AtomicFile, TemporariesOfDeadWritersAreRemoved) {
  const std::string d = fresh_dir("stale");
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    try {
      AtomicFile f(d + "/last.safetensors");
      f.write("half a checkpoint", 17);
      ::kill(::getpid(), SIGKILL);  // as kill -9 mid-write: no destructor runs
    } catch (...) {
    }
    ::_exit(1);
  }
  int status = 0;
  ASSERT_EQ(::waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFSIGNALED(status));
  ASSERT_EQ(temporaries(d), 1u);
  const std::string dead = d + "/.last.safetensors.tmp." + std::to_string(child) + ".";
  bool named = false;
  for (const auto& e : fs::directory_iterator(d)) named |= e.path().string().rfind(dead, 0) == 0;
  EXPECT_TRUE(named) << "the temporary names its writer's pid";
  // A live writer's (pid 1 is always alive) and a name that is not ours stay.
  spit(d + "/.best.safetensors.tmp.1.0123456789abcdef", "alive");
  spit(d + "/.notes.tmp.x", "not ours");
  write_file_atomic(d + "/metrics", "x");
  EXPECT_EQ(temporaries(d), 2u);
  EXPECT_TRUE(fs::exists(d + "/.best.safetensors.tmp.1.0123456789abcdef"));
  EXPECT_TRUE(fs::exists(d + "/.notes.tmp.x"));
}

// A directory output (export --format hf) appears complete or not at all.
TEST(AtomicDir, AppearsCompleteOrNotAtAll) {
  const std::string d = fresh_dir("dir");
  const std::vector<std::string> ours = {"config.json", "model.safetensors"};
  const std::string out = d + "/hf";
  {
    AtomicDir a(out, kNoOverwrite, ours);
    write_file_atomic(a.file("model.safetensors"), "A weights");
    EXPECT_FALSE(fs::exists(out));
  }  // abandoned (as when the config's write fails): nothing there, no temporary left
  EXPECT_EQ(entries(d), 0u);
  {
    AtomicDir a(out + "/", kNoOverwrite, ours);  // a trailing slash names the same directory
    write_file_atomic(a.file("model.safetensors"), "A weights");
    write_file_atomic(a.file("config.json"), "A config");
    a.commit();
  }
  EXPECT_EQ(slurp(out + "/model.safetensors"), "A weights");
  EXPECT_EQ(entries(d), 1u);
  const std::string e = error_of([&] { AtomicDir a(out, kNoOverwrite, ours); });
  EXPECT_NE(e.find("exists and is not empty: give --overwrite"), std::string::npos) << e;
  {
    AtomicDir b(out, kOverwrite, ours);
    write_file_atomic(b.file("model.safetensors"), "B weights");
    EXPECT_EQ(slurp(out + "/model.safetensors"), "A weights");  // untouched until commit
  }
  EXPECT_EQ(slurp(out + "/model.safetensors"), "A weights");
  {
    AtomicDir b(out, kOverwrite, ours);
    write_file_atomic(b.file("model.safetensors"), "B weights");
    b.commit();
  }
  EXPECT_EQ(slurp(out + "/model.safetensors"), "B weights");
  EXPECT_FALSE(fs::exists(out + "/config.json"));  // the old directory went as a whole
  EXPECT_EQ(entries(d), 1u);
  // A directory holding anything else (a run's checkpoints, a home) is never replaced.
  spit(out + "/last.safetensors", "a run's checkpoint");
  EXPECT_NE(error_of([&] { AtomicDir c(out, kOverwrite, ours); }).find("holds 'last.safetensors'"),
            std::string::npos);
  EXPECT_EQ(slurp(out + "/last.safetensors"), "a run's checkpoint");
  spit(d + "/file", "x");
  EXPECT_NE(error_of([&] { AtomicDir c(d + "/file", kOverwrite, ours); }).find("is a file"),
            std::string::npos);
  EXPECT_EQ(entries(d), 2u);
}
