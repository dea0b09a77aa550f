// scratch_dir.h: each test process's files go under one folder, <temp>/sg_test_<pid>, which is
// removed when the process exits with every test passed, and kept (named on stderr) when one
// failed, for a look. (Each test once made its own folders and none removed them: a day of test
// runs left gigabytes in /tmp and CI ran out of disk.) A process killed by a timeout leaves its
// folder behind.
#pragma once

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <system_error>

namespace scratchgpt::test {

namespace scratch_detail {
inline std::filesystem::path& root() {
  static std::filesystem::path r;
  return r;
}
inline pid_t& owner() {
  static pid_t p = 0;
  return p;
}
// At exit, in the process that made the folder (a forked child that exits does nothing).
inline void remove_if_passed() {
  if (::getpid() != owner() || root().empty()) return;
  if (::testing::UnitTest::GetInstance()->Passed()) {
    std::error_code ec;
    std::filesystem::remove_all(root(), ec);
  } else {
    std::fprintf(stderr, "a test failed: its files are kept in %s\n", root().c_str());
  }
}
}  // namespace scratch_detail

// This process's scratch folder, made on the first call (a forked child shares its parent's).
inline const std::filesystem::path& scratch_root() {
  namespace fs = std::filesystem;
  fs::path& r = scratch_detail::root();
  if (r.empty()) {
    r = fs::temp_directory_path() / ("sg_test_" + std::to_string(::getpid()));
    fs::remove_all(r);  // an earlier process's with the same pid
    fs::create_directories(r);
    scratch_detail::owner() = ::getpid();
    std::atexit(scratch_detail::remove_if_passed);
  }
  return r;
}

// scratch_root()/name, emptied: a test's own folder.
inline std::string scratch_dir(const std::string& name) {
  namespace fs = std::filesystem;
  const fs::path d = scratch_root() / name;
  fs::remove_all(d);
  fs::create_directories(d);
  return d.string();
}

}  // namespace scratchgpt::test
