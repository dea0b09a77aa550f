// atomic_file.cpp: see atomic_file.h.
#include "core/atomic_file.h"

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <random>

#include "core/check.h"
#include "core/mapped_file.h"  // not_a_file

namespace scratchgpt {

namespace fs = std::filesystem;

namespace {

std::string parent_dir(const std::string& path) {
  const fs::path p(path);
  return p.has_parent_path() ? p.parent_path().string() : std::string(".");
}

// "out/hf/" -> "out/hf": a trailing slash would leave the path without a file name.
std::string without_trailing_slashes(std::string path) {
  while (path.size() > 1 && path.back() == '/') path.pop_back();
  return path;
}

// ".<name>.tmp.<pid>.<16 hex digits>": hidden, beside the target, not guessable in advance; the
// pid tells a later writer whether the one that made it is still alive.
std::string temp_name_for(const std::string& path) {
  static thread_local std::mt19937_64 gen(std::random_device{}() ^
                                          (static_cast<uint64_t>(::getpid()) << 32));
  char suffix[40];
  std::snprintf(suffix, sizeof(suffix), "%ld.%016llx", static_cast<long>(::getpid()),
                static_cast<unsigned long long>(gen()));
  std::string name = ".";  // appended piece by piece: GCC 12 flags `"." + s + ...` (-Wrestrict)
  name.append(fs::path(path).filename().string());
  name.append(".tmp.");
  name.append(suffix);
  return (fs::path(parent_dir(path)) / name).string();
}

// The writer's pid when entry is one of our temporaries (".<name>.tmp.<pid>.<16 hex>"), else 0.
long temp_owner(const std::string& entry) {
  if (entry.size() < 1 + 1 + 5 + 1 + 1 + 16 || entry[0] != '.') return 0;
  const size_t hex = entry.size() - 16;
  if (entry[hex - 1] != '.') return 0;
  for (size_t i = hex; i < entry.size(); ++i)
    if (!std::isxdigit(static_cast<unsigned char>(entry[i]))) return 0;
  size_t digits = hex - 1;
  while (digits > 0 && std::isdigit(static_cast<unsigned char>(entry[digits - 1]))) --digits;
  if (digits == hex - 1 || hex - 1 - digits > 9) return 0;
  if (digits < 7 || entry.compare(digits - 5, 5, ".tmp.") != 0) return 0;  // a name before it
  return std::stol(entry.substr(digits, hex - 1 - digits));
}

// Removes the temporaries in dir whose writers are dead (killed before commit). A live writer's
// (kill(pid, 0) succeeds, or says we may not signal it) is never touched.
void remove_stale_temporaries(const std::string& dir) {
  DIR* d = ::opendir(dir.c_str());
  if (d == nullptr) return;
  std::vector<std::string> stale;
  while (const dirent* e = ::readdir(d)) {
    const long pid = temp_owner(e->d_name);
    if (pid <= 0 || pid == ::getpid()) continue;
    if (::kill(static_cast<pid_t>(pid), 0) != 0 && errno == ESRCH) stale.push_back(e->d_name);
  }
  ::closedir(d);
  for (const std::string& name : stale) {
    const std::string p = (fs::path(dir) / name).string();
    struct stat st {};
    if (::lstat(p.c_str(), &st) != 0) continue;
    std::error_code ec;
    if (S_ISDIR(st.st_mode))
      fs::remove_all(p, ec);  // does not follow symlinks inside
    else
      ::unlink(p.c_str());
  }
}

void fsync_dir(const std::string& dir) {
  const int dfd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dfd >= 0) {
    ::fsync(dfd);
    ::close(dfd);
  }
}

// /dev/stdout, /dev/stderr, /dev/fd/N and /proc/self/fd/N name a descriptor of ours (one the
// shell opened): its number, else -1.
int descriptor_named(const std::string& path) {
  if (path == "/dev/stdout") return 1;
  if (path == "/dev/stderr") return 2;
  for (const char* prefix : {"/dev/fd/", "/proc/self/fd/"}) {
    const std::string p = prefix;
    if (path.rfind(p, 0) != 0 || path.size() == p.size() || path.size() > p.size() + 6) continue;
    int n = 0;
    for (size_t i = p.size(); i < path.size(); ++i) {
      if (!std::isdigit(static_cast<unsigned char>(path[i]))) return -1;
      n = n * 10 + (path[i] - '0');
    }
    return n;
  }
  return -1;
}

// What the rule of atomic_file.h makes of a user-named output.
struct OutputPlan {
  enum Kind { kNew, kReplace, kStream } kind;
  std::string path;  // where to write: a symlink's target for kReplace
};

OutputPlan plan_output(const std::string& path, const UserOutput& rule) {
  const std::string& flag = rule.flag;
  SG_CHECK(!path.empty(), flag, " is empty: give a file name");
  if (descriptor_named(path) >= 0) return {OutputPlan::kStream, path};
  struct stat lst {};
  if (::lstat(path.c_str(), &lst) != 0) {
    SG_CHECK(errno == ENOENT, flag, ": cannot write ", path, ": ", std::strerror(errno));
    const std::string dir = parent_dir(path);
    std::error_code ec;
    SG_CHECK(fs::is_directory(dir, ec), flag, ": cannot write ", path, ": directory '", dir,
             "' does not exist: create it or choose another ", flag);
    return {OutputPlan::kNew, path};
  }
  struct stat st {};
  SG_CHECK(::stat(path.c_str(), &st) == 0, flag, " ", path,
           " is a symlink to nothing: remove it or choose another ", flag);
  if (S_ISCHR(st.st_mode) || S_ISFIFO(st.st_mode)) return {OutputPlan::kStream, path};
  SG_CHECK(S_ISREG(st.st_mode), flag, " ", path, " is ", not_a_file(st.st_mode),
           ": give the name of a file to write");
  SG_CHECK(rule.overwrite, flag, " ", path,
           " exists: give --overwrite to replace it, or choose another ", flag,
           " (nothing was written)");
  if (!S_ISLNK(lst.st_mode)) return {OutputPlan::kReplace, path};
  std::error_code ec;
  const fs::path target = fs::canonical(path, ec);
  SG_CHECK(!ec, flag, ": cannot follow the symlink ", path, ": ", ec.message());
  return {OutputPlan::kReplace, target.string()};
}

// A device or FIFO opened for writing without creating or truncating anything; O_NONBLOCK so a
// FIFO nobody reads fails (ENXIO) instead of waiting for a reader forever. A descriptor of ours
// by name (/dev/stdout) is duplicated, so the bytes go where it goes, after what it already got.
int open_stream(const std::string& path, const UserOutput& rule) {
  if (const int n = descriptor_named(path); n >= 0) {
    if (n == 1) std::fflush(stdout);  // lines printed before come first
    const int fd = ::fcntl(n, F_DUPFD_CLOEXEC, 3);
    SG_CHECK(fd >= 0, rule.flag, ": cannot write ", path, ": ", std::strerror(errno));
    return fd;
  }
  const int fd = ::open(path.c_str(), O_WRONLY | O_NOCTTY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) {
    SG_CHECK(errno != ENXIO, rule.flag, " ", path,
             " cannot be opened for writing (a FIFO no process reads, or a socket): start its "
             "reader first, or choose a file");
    fail(rule.flag, ": cannot write ", path, ": ", std::strerror(errno));
  }
  struct stat st {};
  const bool ok = ::fstat(fd, &st) == 0 && (S_ISCHR(st.st_mode) || S_ISFIFO(st.st_mode));
  const int flags = ok ? ::fcntl(fd, F_GETFL) : -1;
  if (flags < 0 || ::fcntl(fd, F_SETFL, flags & ~O_NONBLOCK) != 0) {
    ::close(fd);
    fail(rule.flag, " ", path, " changed while it was being opened: try again");
  }
  return fd;
}

// rename(from, to) unless something is at `to` (EEXIST then); where the file system has no
// RENAME_NOREPLACE, a hard link (which never replaces) does the same.
int rename_no_replace(const std::string& from, const std::string& to) {
  if (::renameat2(AT_FDCWD, from.c_str(), AT_FDCWD, to.c_str(), RENAME_NOREPLACE) == 0) return 0;
  if (errno != EINVAL && errno != ENOSYS) return -1;
  if (::link(from.c_str(), to.c_str()) == 0) return ::unlink(from.c_str());
  if (errno == EEXIST) return -1;
  struct stat st {};
  if (::lstat(to.c_str(), &st) == 0) {
    errno = EEXIST;
    return -1;
  }
  return ::rename(from.c_str(), to.c_str());
}

}  // namespace

void check_output(const std::string& path, const UserOutput& rule) { plan_output(path, rule); }

void check_not_input(const std::string& output, const UserOutput& rule, const std::string& input,
                     const std::string& input_flag) {
  struct stat out {
  }, in{};
  if (::stat(output.c_str(), &out) != 0 || ::stat(input.c_str(), &in) != 0) return;
  SG_CHECK(out.st_dev != in.st_dev || out.st_ino != in.st_ino, rule.flag, " ", output, " is the ",
           input_flag, " ", input, " this command reads: write to another file (",
           rule.overwrite ? "--overwrite never replaces an input" : "it would be lost", ")");
  if (!S_ISDIR(out.st_mode)) return;
  std::error_code ec;
  const fs::path dir = fs::canonical(output, ec), file = fs::canonical(input, ec);
  if (ec) return;
  const std::string d = dir.string() + "/";
  SG_CHECK(file.string().rfind(d, 0) != 0, rule.flag, " ", output, " holds the ", input_flag, " ",
           input, " this command reads: choose another ", rule.flag);
}

AtomicFile::AtomicFile(std::string path, const UserOutput* user) : path_(std::move(path)) {
  if (user != nullptr) {
    flag_ = user->flag;
    const OutputPlan plan = plan_output(path_, *user);
    path_ = plan.path;
    if (plan.kind == OutputPlan::kStream) {
      fd_ = open_stream(path_, *user);
      stream_ = true;
      return;
    }
    no_replace_ = plan.kind == OutputPlan::kNew;
  }
  const std::string dir = parent_dir(path_);
  std::error_code ec;
  SG_CHECK(fs::is_directory(dir, ec), "cannot write '", path_, "': directory '", dir,
           "' does not exist");
  remove_stale_temporaries(dir);
  // Keep the permissions of the file we replace (a 0600 checkpoint stays 0600).
  mode_t mode = 0644;
  struct stat st {};
  if (::stat(path_.c_str(), &st) == 0 && S_ISREG(st.st_mode)) mode = st.st_mode & 07777;
  for (int attempt = 0; attempt < 16 && fd_ < 0; ++attempt) {
    tmp_ = temp_name_for(path_);
    fd_ = ::open(tmp_.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd_ < 0 && errno != EEXIST) break;
  }
  if (fd_ < 0) {
    const int err = errno;
    tmp_.clear();
    fail("cannot write '", path_, "': ", std::strerror(err),
         ": choose a writable output directory");
  }
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
           stream_ ? "" : " (is the disk full? the previous file is kept)");
    }
    c += w;
    n -= static_cast<size_t>(w);
  }
}

void AtomicFile::commit() {
  SG_CHECK(fd_ >= 0, "internal: commit of a closed AtomicFile for '", path_, "'");
  if (stream_) {  // nothing to rename; a pipe or device cannot be fsynced
    const int rc = ::close(fd_);
    fd_ = -1;
    SG_CHECK(rc == 0, "cannot write '", path_, "': ", std::strerror(errno));
    committed_ = true;
    return;
  }
  if (::fsync(fd_) != 0 || ::close(fd_) != 0) {
    const int err = errno;
    fd_ = -1;
    abandon();
    fail("cannot flush '", path_, "': ", std::strerror(err), " (the previous file is kept)");
  }
  fd_ = -1;
  const int rc =
      no_replace_ ? rename_no_replace(tmp_, path_) : ::rename(tmp_.c_str(), path_.c_str());
  if (rc != 0) {
    const int err = errno;
    abandon();
    SG_CHECK(err != EEXIST, flag_, " ", path_,
             " appeared while it was being written: it was left as it is; give --overwrite to "
             "replace it");
    fail("cannot replace '", path_, "': ", std::strerror(err));
  }
  committed_ = true;
  fsync_dir(parent_dir(path_));
}

void write_file_atomic(const std::string& path, const std::string& bytes, const UserOutput* user) {
  AtomicFile f(path, user);
  f.write(bytes.data(), bytes.size());
  f.commit();
}

AtomicDir::AtomicDir(std::string path, const UserOutput& rule, std::vector<std::string> ours)
    : path_(without_trailing_slashes(std::move(path))), flag_(rule.flag) {
  SG_CHECK(!path_.empty(), flag_, " is empty: give a directory name");
  struct stat lst {};
  if (::lstat(path_.c_str(), &lst) != 0) {
    SG_CHECK(errno == ENOENT, flag_, ": cannot write ", path_, ": ", std::strerror(errno));
    std::error_code ec;
    fs::create_directories(parent_dir(path_), ec);
    SG_CHECK(!ec, flag_, ": cannot create the directory '", parent_dir(path_), "': ", ec.message(),
             ": choose a writable place");
  } else {
    struct stat st {};
    SG_CHECK(::stat(path_.c_str(), &st) == 0, flag_, " ", path_,
             " is a symlink to nothing: remove it or choose another ", flag_);
    SG_CHECK(S_ISDIR(st.st_mode), flag_, " ", path_, " is ",
             S_ISREG(st.st_mode) ? "a file" : not_a_file(st.st_mode),
             ", and this format writes a directory: choose a directory name");
    if (S_ISLNK(lst.st_mode)) {  // replace the directory the link points to; the link stays
      std::error_code ec;
      path_ = fs::canonical(path_, ec).string();
      SG_CHECK(!ec, flag_, ": cannot follow the symlink ", path_, ": ", ec.message());
    }
    replace_ = true;
    std::error_code ec;
    for (const auto& e : fs::directory_iterator(path_, ec)) {
      const std::string name = e.path().filename().string();
      SG_CHECK(rule.overwrite, flag_, " ", path_,
               " exists and is not empty: give --overwrite to replace it, or choose another ",
               flag_, " (nothing was written)");
      bool known = false;
      for (const std::string& n : ours) known = known || n == name;
      SG_CHECK(known && e.is_regular_file() && !e.is_symlink(), flag_, " ", path_, " holds '", name,
               "', which this command does not write, so it is not an earlier output of "
               "it: choose another ",
               flag_, " (nothing was changed)");
    }
    SG_CHECK(!ec, flag_, ": cannot read the directory ", path_, ": ", ec.message());
  }
  const std::string parent = parent_dir(path_);
  remove_stale_temporaries(parent);
  for (int attempt = 0; attempt < 16; ++attempt) {
    tmp_ = temp_name_for(path_);
    if (::mkdir(tmp_.c_str(), 0755) == 0) return;
    if (errno != EEXIST) break;
  }
  const int err = errno;
  tmp_.clear();
  fail(flag_, ": cannot write ", path_, ": ", std::strerror(err),
       ": choose a writable output directory");
}

AtomicDir::~AtomicDir() {
  if (committed_ || tmp_.empty()) return;
  std::error_code ec;
  fs::remove_all(tmp_, ec);
}

std::string AtomicDir::file(const std::string& name) const {
  return (fs::path(tmp_) / name).string();
}

void AtomicDir::commit() {
  SG_CHECK(!tmp_.empty() && !committed_, "internal: commit of a finished AtomicDir ", path_);
  fsync_dir(tmp_);
  int rc;
  if (!replace_) {
    rc = rename_no_replace(tmp_, path_);
  } else {
    // Swap the new directory and the old one in one step; the old one then goes.
    rc = ::renameat2(AT_FDCWD, tmp_.c_str(), AT_FDCWD, path_.c_str(), RENAME_EXCHANGE);
    if (rc != 0 && (errno == EINVAL || errno == ENOSYS)) {  // no RENAME_EXCHANGE here
      const std::string aside = temp_name_for(path_);
      rc = ::rename(path_.c_str(), aside.c_str());
      if (rc == 0) {
        rc = ::rename(tmp_.c_str(), path_.c_str());
        if (rc != 0) {
          const int err = errno;
          ::rename(aside.c_str(), path_.c_str());
          errno = err;
        } else {
          tmp_ = aside;
        }
      }
    }
  }
  if (rc != 0) {
    const int err = errno;
    SG_CHECK(err != EEXIST && err != ENOTEMPTY, flag_, " ", path_,
             " appeared while it was being written: it was left as it is; give --overwrite to "
             "replace it");
    fail(flag_, ": cannot put ", path_, " in place: ", std::strerror(err));
  }
  committed_ = true;
  if (replace_) {  // tmp_ now holds the old directory
    std::error_code ec;
    fs::remove_all(tmp_, ec);
  }
  fsync_dir(parent_dir(path_));
}

}  // namespace scratchgpt
