// atomic_file_test.cpp: the replace-as-one-step writer never follows a planted symlink, never
// truncates anything but its own temporary, keeps the replaced file's permissions, leaves no
// temporary behind, and on failure leaves the previous file as it was.
#include "core/atomic_file.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "core/check.h"

using namespace scratchgpt;
namespace fs = std::filesystem;

namespace {
std::string fresh_dir(const std::string& name) {
  fs::path d = fs::temp_directory_path() / ("sg_atomic_" + std::to_string(::getpid())) / name;
  fs::remove_all(d);
  fs::create_directories(d);
  return d.string();
}
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
