// file_io.cpp: see file_io.h.
#include "data/file_io.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "core/check.h"

namespace scratchgpt {

namespace fs = std::filesystem;

std::string read_file(const std::string& path) {
  std::error_code ec;
  SG_CHECK(fs::exists(path, ec), "file not found: ", path, ": check the path");
  SG_CHECK(!fs::is_directory(path, ec), path, " is a directory, not a file: give a file path");
  SG_CHECK(fs::is_regular_file(path, ec), path,
           " is not a regular file (a device, pipe or socket, read without end): give a file");
  std::ifstream f(path, std::ios::binary);
  SG_CHECK(f.good(), "cannot open ", path, ": ", std::strerror(errno));
  std::ostringstream ss;
  ss << f.rdbuf();
  SG_CHECK(!f.bad(), "cannot read ", path, ": ", std::strerror(errno));
  return ss.str();
}

void ensure_writable_dir(const std::string& dir, const std::string& what) {
  SG_CHECK(!dir.empty(), what, " is empty: give a directory");
  std::error_code ec;
  fs::create_directories(dir, ec);
  SG_CHECK(!ec, "cannot create ", what, " '", dir, "': ", ec.message(),
           ": choose a writable directory");
  SG_CHECK(fs::is_directory(dir, ec), what, " '", dir, "' is not a directory");
  // The probe is an AtomicFile never committed: an unpredictable O_EXCL | O_NOFOLLOW temporary,
  // removed again, so a symlink planted in the directory is never written through.
  try {
    AtomicFile probe((fs::path(dir) / ".write_probe").string());
  } catch (const Error& e) {
    fail(what, " '", dir, "' is not writable (", e.what(), ")");
  }
}

DirLock::DirLock(const std::string& dir, const std::string& what) {
  const std::string path = (fs::path(dir) / ".lock").string();
  fd_ = ::open(path.c_str(), O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0644);
  SG_CHECK(fd_ >= 0, "cannot lock ", what, " '", dir, "' (", path, ": ", std::strerror(errno),
           "): choose a writable directory");
  if (::flock(fd_, LOCK_EX | LOCK_NB) != 0) {
    const int err = errno;
    char buf[32] = {};
    const ssize_t n = ::pread(fd_, buf, sizeof(buf) - 1, 0);
    ::close(fd_);
    fd_ = -1;
    std::string holder = n > 0 ? std::string(buf, static_cast<size_t>(n)) : "";
    while (!holder.empty() && (holder.back() == '\n' || holder.back() == ' ')) holder.pop_back();
    SG_CHECK(err != EWOULDBLOCK, what, " '", dir, "' is in use by another run (pid ",
             holder.empty() ? "unknown" : holder,
             "): wait for it to finish, stop it, or choose another ", what);
    fail("cannot lock ", what, " '", dir, "': ", std::strerror(err));
  }
  const std::string pid = std::to_string(::getpid()) + "\n";
  if (::ftruncate(fd_, 0) != 0 || ::pwrite(fd_, pid.data(), pid.size(), 0) < 0) {
    // The lock holds without the pid; a second run would only miss the pid in its message.
  }
}

DirLock::~DirLock() {
  if (fd_ >= 0) ::close(fd_);  // closing the descriptor releases the flock
}

}  // namespace scratchgpt
