// zip_reader.h: the entries of a zip archive held in memory, as PyTorch's torch.save writes it
// (every entry stored, names "<archive>/data.pkl", "<archive>/data/<key>", ...; ZIP64 extra
// fields past 4 GiB). Views point into the caller's bytes. Every defect (no end record, offsets
// or sizes outside the bytes, an entry that is compressed or encrypted) is an Error naming the
// file and what is wrong. Leaves out: compressed entries (the error names the method), writing.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>

namespace scratchgpt {

inline constexpr uint8_t kZipMagic[4] = {'P', 'K', 3, 4};
bool is_zip(const uint8_t* data, size_t size);

class ZipReader {
 public:
  struct Entry {
    const uint8_t* data;
    uint64_t size;
  };
  // data, size: the whole archive; path names it in errors.
  ZipReader(const uint8_t* data, size_t size, const std::string& path);
  const std::map<std::string, Entry>& entries() const { return entries_; }
  // The entry called name; a missing one is an Error naming it.
  Entry at(const std::string& name) const;
  bool has(const std::string& name) const { return entries_.count(name) != 0; }

 private:
  std::map<std::string, Entry> entries_;
  std::string path_;
};

}  // namespace scratchgpt
