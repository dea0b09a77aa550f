// atomic_file.h: replace a file as one step, and the one rule for every output a user names.
// AtomicFile writes the bytes to a new temporary file beside the target, created with an
// unpredictable name and O_EXCL | O_NOFOLLOW (a planted symlink or an existing file is never
// opened, so nothing outside our own temporary is ever truncated), with the target's permissions
// when it exists; commit() fsyncs it, renames it over the target and fsyncs the directory. Until
// commit() the target is untouched; a failure or a destroyed AtomicFile removes the temporary.
// Temporaries are named ".<name>.tmp.<pid>.<16 hex digits>"; each new one first removes those of
// writers that are dead (a kill -9 leaves its temporary behind), never a live writer's.
// Given a UserOutput (--out, --csv, --html: see check_output), it follows the rule for outputs
// the user named; AtomicDir is the same for a directory (export --format hf).
// Leaves out: locking (DirLock in data/file_io.h) and Windows.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace scratchgpt {

// An output path the user named, and what the command was told about replacing it. The rule,
// the same for every command (export, import, report, attention, lesson --html):
//   - nothing there: a new file, written through a temporary and renamed into place only if
//     nothing appeared there meanwhile (RENAME_NOREPLACE);
//   - a regular file (or a symlink to one): refused unless `overwrite`; then replaced as one
//     step (through a symlink: the file it points to is replaced, the link stays);
//   - a character device or a FIFO (or a symlink to one: /dev/null, /dev/stdout on a terminal or
//     a pipe): written to directly, never replaced (a FIFO nobody reads is an error, never a
//     hang); /dev/stdout, /dev/stderr, /dev/fd/N, /proc/self/fd/N: written through that
//     descriptor of ours, wherever it goes (a terminal, a pipe, the file of `> f`);
//   - a directory, a block device, a socket, a symlink to nothing: refused.
struct UserOutput {
  std::string flag;        // the option that named it, e.g. "--out": errors name it
  bool overwrite = false;  // the command's --overwrite
};

// Applies the rule without writing anything, so a command refuses a bad output before its work
// (AtomicFile applies it again when it writes). An Error names the flag, the path and the fix.
void check_output(const std::string& path, const UserOutput& rule);

// Refuses, --overwrite or not, an output that is an input of the same command: the same file
// (also through links), or, for an output directory, a directory holding the input. The input's
// flag (e.g. "--checkpoint") is named in the Error.
void check_not_input(const std::string& output, const UserOutput& rule, const std::string& input,
                     const std::string& input_flag);

class AtomicFile {
 public:
  // Creates the temporary; an Error names the path and the fix if the directory is not writable.
  // With user: the rule above (an existing file needs user->overwrite; a stream is opened and
  // written directly, temp_path() is then empty).
  explicit AtomicFile(std::string path, const UserOutput* user = nullptr);
  ~AtomicFile();  // removes the temporary unless committed
  AtomicFile(const AtomicFile&) = delete;
  AtomicFile& operator=(const AtomicFile&) = delete;

  void write(const void* data, size_t n);  // all of it, retrying on EINTR; Error on a full disk
  void commit();                           // fsync, rename over the target, fsync the directory
  const std::string& temp_path() const { return tmp_; }

 private:
  void abandon();  // close and unlink the temporary
  std::string path_, tmp_, flag_;
  int fd_ = -1;
  bool committed_ = false;
  bool no_replace_ = false;  // a new user output: never rename over what appeared meanwhile
  bool stream_ = false;      // a device or FIFO written directly
};

// Writes bytes to path through an AtomicFile (with user: under the rule for user outputs).
void write_file_atomic(const std::string& path, const std::string& bytes,
                       const UserOutput* user = nullptr);

// A directory written as one step. Its files go into a new temporary directory beside it
// (".<name>.tmp.<pid>.<random>", made by mkdir, so nothing planted is followed); commit() puts it
// in place: over nothing or an empty directory; with rule.overwrite, over a directory holding
// only regular files named in `ours` (what an earlier run of the same command wrote), swapped in
// one step (RENAME_EXCHANGE) and the old one removed after. Anything else there is refused. Until
// commit() the target is untouched; a failure or a destroyed AtomicDir removes the temporary.
class AtomicDir {
 public:
  AtomicDir(std::string path, const UserOutput& rule, std::vector<std::string> ours);
  ~AtomicDir();
  AtomicDir(const AtomicDir&) = delete;
  AtomicDir& operator=(const AtomicDir&) = delete;

  std::string file(const std::string& name) const;  // where to write that file now
  void commit();
  const std::string& temp_path() const { return tmp_; }

 private:
  std::string path_, tmp_, flag_;
  bool replace_ = false;  // a directory is there: swap, then remove the old one
  bool committed_ = false;
};

}  // namespace scratchgpt
