// file_io.h: whole-file reads and atomic writes (temporary file beside the target, fsync, rename),
// so a reader never sees a half-written file and a good file is never replaced by a partial one.
// Leaves out: streaming and memory mapping (datasets here fit in memory many times over).
#pragma once

#include <string>

#include "core/atomic_file.h"  // write_file_atomic

namespace scratchgpt {

// Reads a whole file; a missing or unreadable file is an Error naming the path.
std::string read_file(const std::string& path);


// Creates dir (and parents) and proves it is writable by creating and removing a probe file.
// Call before long work so that a bad --out-dir fails at once, not after hours.
void ensure_writable_dir(const std::string& dir, const std::string& what);

// An exclusive lock on a directory for the life of this object: flock on "<dir>/.lock", which
// holds the holder's pid. A second holder (another process) gets an Error naming that pid, so two
// runs never share one --out-dir. The kernel drops the lock when the process dies, kill -9 too.
class DirLock {
 public:
  DirLock(const std::string& dir, const std::string& what);
  ~DirLock();
  DirLock(const DirLock&) = delete;
  DirLock& operator=(const DirLock&) = delete;

 private:
  int fd_ = -1;
};

}  // namespace scratchgpt
