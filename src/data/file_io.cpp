// file_io.cpp: see file_io.h.
#include "data/file_io.h"

#include <fcntl.h>
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
  std::ifstream f(path, std::ios::binary);
  SG_CHECK(f.good(), "cannot open ", path, ": ", std::strerror(errno));
  std::ostringstream ss;
  ss << f.rdbuf();
  SG_CHECK(!f.bad(), "cannot read ", path, ": ", std::strerror(errno));
  return ss.str();
}

void write_file_atomic(const std::string& path, const std::string& bytes) {
  const std::string tmp = path + ".tmp." + std::to_string(::getpid());
  int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  SG_CHECK(fd >= 0, "cannot write ", tmp, ": ", std::strerror(errno),
           ": choose a writable output directory");
  size_t done = 0;
  while (done < bytes.size()) {
    ssize_t w = ::write(fd, bytes.data() + done, bytes.size() - done);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) {
      const int err = errno;
      ::close(fd);
      ::unlink(tmp.c_str());
      fail("cannot write ", tmp, ": ", std::strerror(err), ": free some disk space");
    }
    done += static_cast<size_t>(w);
  }
  if (::fsync(fd) != 0 || ::close(fd) != 0) {
    const int err = errno;
    ::unlink(tmp.c_str());
    fail("cannot flush ", tmp, ": ", std::strerror(err));
  }
  if (::rename(tmp.c_str(), path.c_str()) != 0) {
    const int err = errno;
    ::unlink(tmp.c_str());
    fail("cannot rename ", tmp, " to ", path, ": ", std::strerror(err));
  }
}

void ensure_writable_dir(const std::string& dir, const std::string& what) {
  SG_CHECK(!dir.empty(), what, " is empty: give a directory");
  std::error_code ec;
  fs::create_directories(dir, ec);
  SG_CHECK(!ec, "cannot create ", what, " '", dir, "': ", ec.message(),
           ": choose a writable directory");
  SG_CHECK(fs::is_directory(dir, ec), what, " '", dir, "' is not a directory");
  const std::string probe =
      (fs::path(dir) / (".write_probe." + std::to_string(::getpid()))).string();
  int fd = ::open(probe.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  SG_CHECK(fd >= 0, "cannot write to ", what, " '", dir, "': ", std::strerror(errno),
           ": choose a writable directory");
  ::close(fd);
  ::unlink(probe.c_str());
}

}  // namespace scratchgpt
