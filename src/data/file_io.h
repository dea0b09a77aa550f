// file_io.h: whole-file reads and atomic writes (temporary file beside the target, fsync, rename),
// so a reader never sees a half-written file and a good file is never replaced by a partial one.
// Leaves out: streaming and memory mapping (datasets here fit in memory many times over).
#pragma once

#include <string>

namespace scratchgpt {

// Reads a whole file; a missing or unreadable file is an Error naming the path.
std::string read_file(const std::string& path);

// Writes bytes to path atomically; failures are an Error naming the path and the reason.
void write_file_atomic(const std::string& path, const std::string& bytes);

// Creates dir (and parents) and proves it is writable by creating and removing a probe file.
// Call before long work so that a bad --out-dir fails at once, not after hours.
void ensure_writable_dir(const std::string& dir, const std::string& what);

}  // namespace scratchgpt
