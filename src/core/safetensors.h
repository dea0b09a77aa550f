// safetensors.h: read and write the safetensors format (8-byte little-endian header length, a JSON
// header of {name: {dtype, shape, data_offsets}} plus "__metadata__" of strings, then raw
// little-endian data). Used for checkpoints and for the PyTorch test fixtures, so PyTorch and
// Hugging Face tools read our files and we read theirs.
// Writes are atomic: a temporary file beside the target, fsynced, then renamed over it; a
// checksum of the data in the metadata lets load() reject corrupted files instead of reading garbage.
// MappedSafeTensors reads a file through a read-only memory map instead (large imports: nothing
// is copied until asked). Leaves out: dtypes other than F32, F64, I32, I64, U8, U16.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "core/atomic_file.h"  // UserOutput
#include "core/mapped_file.h"

namespace scratchgpt {

struct StTensor {
  std::string dtype;           // "F32", "F64", "I32", "I64", "U8", "U16"
  std::vector<int64_t> shape;  // empty for a scalar
  std::vector<uint8_t> bytes;  // raw little-endian data
  int64_t numel() const;
};

class SafeTensors {
 public:
  std::map<std::string, StTensor> tensors;
  std::map<std::string, std::string> metadata;
  std::string source;  // the file it was read from, named in errors ("" when built in memory)

  void add_f32(const std::string& name, const std::vector<int64_t>& shape, const float* data);
  void add_i32(const std::string& name, const std::vector<int64_t>& shape, const int32_t* data);
  void add_i64(const std::string& name, const std::vector<int64_t>& shape, const int64_t* data);
  void add_u8(const std::string& name, const std::vector<int64_t>& shape, const uint8_t* data);

  bool has(const std::string& name) const { return tensors.count(name) != 0; }
  // Checked accessors: a missing name or a different dtype is an Error naming the file's tensor.
  const StTensor& get(const std::string& name) const;
  std::vector<float> f32(const std::string& name) const;  // F32 (or F64, converted)
  std::vector<double> f64(const std::string& name) const;  // F64 (or F32, converted)
  std::vector<int32_t> i32(const std::string& name) const;  // I32 or I64 (checked range)
  std::vector<int64_t> i64(const std::string& name) const;  // I64 or I32
  std::vector<uint8_t> u8(const std::string& name) const;
  std::vector<int64_t> shape(const std::string& name) const { return get(name).shape; }
  // Copies an F32 tensor into dst, checking it has exactly n elements.
  void copy_f32(const std::string& name, float* dst, int64_t n) const;
  std::string meta(const std::string& key, const std::string& fallback = "") const;

  // Checksum of all tensor names and data, stored as metadata "checksum" by save().
  uint64_t checksum() const;

 private:
  std::string where() const;  // "'<source>': " or ""
};

// Loads and validates a file; every defect (missing, truncated, bad header, offsets out of range,
// checksum mismatch) is an Error that names the path and what is wrong.
SafeTensors load_safetensors(const std::string& path);
// The same over bytes in memory; path only names them in errors. The fuzzers' entry point.
SafeTensors parse_safetensors(const uint8_t* bytes, size_t size, const std::string& path);

// A safetensors file mapped read-only, with the same header checks as parse_safetensors (the
// data's checksum, which would read every byte, is left to the caller). The views point into
// the mapping and live as long as this object.
class MappedSafeTensors {
 public:
  struct View {
    std::string dtype;
    std::vector<int64_t> shape;
    const uint8_t* data;  // little-endian elements
    uint64_t offset;      // from the start of the data section
    uint64_t bytes;
  };
  explicit MappedSafeTensors(const std::string& path);
  std::map<std::string, View> tensors;
  std::map<std::string, std::string> metadata;

 private:
  MappedFile file_;
};

// Writes atomically (tmp + fsync + rename). Adds metadata "checksum" unless add_checksum is false.
// user: a path the user named, written under the rule of atomic_file.h (nullptr: our own file).
void save_safetensors(const std::string& path, const SafeTensors& st, bool add_checksum = true,
                      const UserOutput* user = nullptr);

}  // namespace scratchgpt
