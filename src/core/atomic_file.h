// atomic_file.h: replace a file as one step. The bytes go to a new temporary file beside the
// target, created with an unpredictable name and O_EXCL | O_NOFOLLOW (a planted symlink or an
// existing file is never opened, so nothing outside our own temporary is ever truncated), with the
// target's permissions when it exists; commit() fsyncs it, renames it over the target and fsyncs
// the directory. Until commit() the target is untouched; a failure or a destroyed AtomicFile
// removes the temporary. Leaves out: locking (see out_dir_lock.h) and Windows.
#pragma once

#include <cstddef>
#include <string>

namespace scratchgpt {

class AtomicFile {
 public:
  // Creates the temporary; an Error names the path and the fix if the directory is not writable.
  explicit AtomicFile(std::string path);
  ~AtomicFile();  // removes the temporary unless committed
  AtomicFile(const AtomicFile&) = delete;
  AtomicFile& operator=(const AtomicFile&) = delete;

  void write(const void* data, size_t n);  // all of it, retrying on EINTR; Error on a full disk
  void commit();                           // fsync, rename over the target, fsync the directory
  const std::string& temp_path() const { return tmp_; }

 private:
  void abandon();  // close and unlink the temporary
  std::string path_, tmp_;
  int fd_ = -1;
  bool committed_ = false;
};

// Writes bytes to path through an AtomicFile.
void write_file_atomic(const std::string& path, const std::string& bytes);

}  // namespace scratchgpt
