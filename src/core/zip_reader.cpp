// zip_reader.cpp: see zip_reader.h. The central directory is read from the end record (ZIP64's
// when the classic one says 0xFFFFFFFF); each entry's data starts after its local header.
#include "core/zip_reader.h"

#include <cstring>

#include "core/check.h"

namespace scratchgpt {

namespace {

uint64_t le(const uint8_t* p, int n) {
  uint64_t v = 0;
  for (int i = n - 1; i >= 0; --i) v = (v << 8) | p[i];
  return v;
}

const char* method_name(uint64_t m) {
  switch (m) {
    case 8:
      return "deflate";
    case 9:
      return "deflate64";
    case 12:
      return "bzip2";
    case 14:
      return "lzma";
    case 93:
      return "zstd";
    case 95:
      return "xz";
    default:
      return "unknown";
  }
}

struct Sizes {
  uint64_t compressed, size, offset;
};

// The ZIP64 extra field (id 1) of a central-directory entry: each 0xFFFFFFFF value of s, in order.
void read_zip64_extra(const uint8_t* p, uint64_t n, Sizes& s, const std::string& path) {
  uint64_t at = 0;
  while (at + 4 <= n) {
    const uint64_t id = le(p + at, 2), len = le(p + at + 2, 2);
    SG_CHECK(at + 4 + len <= n, path, ": a zip extra field runs past its entry: damaged archive");
    if (id == 1) {
      uint64_t q = at + 4;
      for (uint64_t* v : {&s.size, &s.compressed, &s.offset}) {
        if (*v != 0xFFFFFFFFu) continue;
        SG_CHECK(q + 8 <= at + 4 + len, path,
                 ": a ZIP64 extra field is too short: damaged archive");
        *v = le(p + q, 8);
        q += 8;
      }
    }
    at += 4 + len;
  }
}

}  // namespace

bool is_zip(const uint8_t* data, size_t size) {
  return size >= 4 && std::memcmp(data, kZipMagic, 4) == 0;
}

ZipReader::ZipReader(const uint8_t* data, size_t size, const std::string& path) : path_(path) {
  SG_CHECK(size >= 22, path, " is too short for a zip archive: truncated");
  // The end record: the last "PK\5\6" within 22 + 65535 bytes of the end.
  size_t eocd = size;
  const size_t lowest = size > 22 + 65535 ? size - 22 - 65535 : 0;
  for (size_t i = size - 22 + 1; i-- > lowest;)
    if (le(data + i, 4) == 0x06054b50) {
      eocd = i;
      break;
    }
  SG_CHECK(eocd != size, path, " has no zip end record: truncated or not a zip archive");
  uint64_t count = le(data + eocd + 10, 2), cd_size = le(data + eocd + 12, 4),
           cd_off = le(data + eocd + 16, 4);
  if ((count == 0xFFFF || cd_size == 0xFFFFFFFFu || cd_off == 0xFFFFFFFFu) && eocd >= 20 &&
      le(data + eocd - 20, 4) == 0x07064b50) {  // ZIP64 locator, then its end record
    const uint64_t z = le(data + eocd - 20 + 8, 8);
    SG_CHECK(size >= 56 && z <= size - 56 && le(data + z, 4) == 0x06064b50, path,
             ": its ZIP64 end record is missing or out of place: damaged archive");
    count = le(data + z + 32, 8), cd_size = le(data + z + 40, 8), cd_off = le(data + z + 48, 8);
  }
  SG_CHECK(cd_off <= size && cd_size <= size - cd_off && count <= cd_size / 46, path,
           ": its zip central directory lies outside the file: truncated or damaged");
  const uint8_t* p = data + cd_off;
  const uint8_t* end = p + cd_size;
  for (uint64_t e = 0; e < count; ++e) {
    SG_CHECK(end - p >= 46 && le(p, 4) == 0x02014b50, path, ": zip central directory entry ", e,
             " is damaged");
    const uint64_t flags = le(p + 8, 2), method = le(p + 10, 2);
    Sizes s{le(p + 20, 4), le(p + 24, 4), le(p + 42, 4)};
    const uint64_t name_len = le(p + 28, 2), extra_len = le(p + 30, 2), comment = le(p + 32, 2);
    SG_CHECK(static_cast<uint64_t>(end - p) >= 46 + name_len + extra_len + comment, path,
             ": zip central directory entry ", e, " runs past the directory: damaged");
    const std::string name(reinterpret_cast<const char*>(p + 46), name_len);
    read_zip64_extra(p + 46 + name_len, extra_len, s, path);
    SG_CHECK(!(flags & 1), path, ": zip entry '", name, "' is encrypted: not a PyTorch file");
    SG_CHECK(method == 0, path, ": zip entry '", name, "' is compressed (method ", method, ", ",
             method_name(method),
             "): torch.save stores its entries uncompressed; this reader "
             "reads stored entries only (re-save it with torch.save)");
    SG_CHECK(s.compressed == s.size, path, ": zip entry '", name,
             "' is stored but its two sizes differ: damaged");
    SG_CHECK(s.offset <= size && size - s.offset >= 30 && le(data + s.offset, 4) == 0x04034b50,
             path, ": zip entry '", name, "' has no local header where the directory says");
    const uint64_t start =
        s.offset + 30 + le(data + s.offset + 26, 2) + le(data + s.offset + 28, 2);
    SG_CHECK(start <= size && s.size <= size - start, path, ": zip entry '", name,
             "' runs past the end of the file: truncated");
    SG_CHECK(entries_.emplace(name, Entry{data + start, s.size}).second, path, ": zip entry '",
             name, "' appears twice: damaged");
    p += 46 + name_len + extra_len + comment;
  }
}

ZipReader::Entry ZipReader::at(const std::string& name) const {
  const auto it = entries_.find(name);
  SG_CHECK(it != entries_.end(), path_, " has no entry '", name, "': incomplete PyTorch file");
  return it->second;
}

}  // namespace scratchgpt
