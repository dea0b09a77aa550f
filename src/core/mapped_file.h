// mapped_file.h: MappedFile, a whole file mapped read-only into memory (mmap), so a multi-GB
// weights file is read by the OS page by page instead of copied into the heap. Errors (missing,
// a directory, not a regular file, mmap failing) name the path; a FIFO or device is refused at
// once (opened O_NONBLOCK, its type checked before any read), never waited on. Leaves out:
// writing.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace scratchgpt {

// "a FIFO (named pipe)", "a directory", ...: what a st_mode that is no regular file is, for errors.
const char* not_a_file(unsigned mode);

class MappedFile {
 public:
  explicit MappedFile(const std::string& path);
  ~MappedFile();
  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;

  const uint8_t* data() const { return data_; }
  size_t size() const { return size_; }

 private:
  const uint8_t* data_ = nullptr;
  size_t size_ = 0;
};

}  // namespace scratchgpt
