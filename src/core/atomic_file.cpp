// atomic_file.cpp: see atomic_file.h.
#include "core/atomic_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <random>

#include "core/check.h"

namespace scratchgpt {

namespace fs = std::filesystem;

namespace {

std::string parent_dir(const std::string& path) {
  const fs::path p(path);
  return p.has_parent_path() ? p.parent_path().string() : std::string(".");
}

// ".<name>.tmp.<16 hex digits>": hidden, beside the target, not guessable in advance.
std::string temp_name_for(const std::string& path) {
  static thread_local std::mt19937_64 gen(std::random_device{}() ^
                                          (static_cast<uint64_t>(::getpid()) << 32));
  char suffix[17];
  std::snprintf(suffix, sizeof(suffix), "%016llx", static_cast<unsigned long long>(gen()));
  std::string name = ".";  // appended piece by piece: GCC 12 flags `"." + s + ...` (-Wrestrict)
  name.append(fs::path(path).filename().string());
  name.append(".tmp.");
  name.append(suffix);
  return (fs::path(parent_dir(path)) / name).string();
}

}  // namespace

AtomicFile::AtomicFile(std::string path) : path_(std::move(path)) {
  const std::string dir = parent_dir(path_);
  std::error_code ec;
  SG_CHECK(fs::is_directory(dir, ec), "cannot write '", path_, "': directory '", dir,
           "' does not exist");
  // Keep the permissions of the file we replace (a 0600 checkpoint stays 0600).
  mode_t mode = 0644;
  struct stat st {};
  if (::stat(path_.c_str(), &st) == 0 && S_ISREG(st.st_mode)) mode = st.st_mode & 07777;
  for (int attempt = 0; attempt < 16 && fd_ < 0; ++attempt) {
    tmp_ = temp_name_for(path_);
    fd_ = ::open(tmp_.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd_ < 0 && errno != EEXIST) break;
  }
  SG_CHECK(fd_ >= 0, "cannot write '", path_, "': ", std::strerror(errno),
           ": choose a writable output directory");
  if (::fchmod(fd_, mode) != 0) {
    const int err = errno;
    abandon();
    fail("cannot set the permissions of '", tmp_, "': ", std::strerror(err));
  }
}

AtomicFile::~AtomicFile() {
  if (!committed_) abandon();
}

void AtomicFile::abandon() {
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
  if (!tmp_.empty()) ::unlink(tmp_.c_str());
  tmp_.clear();
}

void AtomicFile::write(const void* data, size_t n) {
  SG_CHECK(fd_ >= 0, "internal: write to a closed AtomicFile for '", path_, "'");
  const char* c = static_cast<const char*>(data);
  while (n > 0) {
    const ssize_t w = ::write(fd_, c, n);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) {
      const int err = w < 0 ? errno : ENOSPC;
      abandon();
      fail("cannot write '", path_, "': ", std::strerror(err),
           " (is the disk full? the previous file is kept)");
    }
    c += w;
    n -= static_cast<size_t>(w);
  }
}

void AtomicFile::commit() {
  SG_CHECK(fd_ >= 0, "internal: commit of a closed AtomicFile for '", path_, "'");
  if (::fsync(fd_) != 0 || ::close(fd_) != 0) {
    const int err = errno;
    fd_ = -1;
    abandon();
    fail("cannot flush '", path_, "': ", std::strerror(err), " (the previous file is kept)");
  }
  fd_ = -1;
  if (::rename(tmp_.c_str(), path_.c_str()) != 0) {
    const int err = errno;
    abandon();
    fail("cannot replace '", path_, "': ", std::strerror(err));
  }
  committed_ = true;
  const int dfd = ::open(parent_dir(path_).c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dfd >= 0) {
    ::fsync(dfd);
    ::close(dfd);
  }
}

void write_file_atomic(const std::string& path, const std::string& bytes) {
  AtomicFile f(path);
  f.write(bytes.data(), bytes.size());
  f.commit();
}

}  // namespace scratchgpt
