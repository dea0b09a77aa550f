// safetensors.cpp: see safetensors.h.
#include "core/safetensors.h"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <nlohmann/json.hpp>
#include <tuple>

#include "core/atomic_file.h"
#include "core/check.h"

namespace scratchgpt {

namespace {

int dtype_size(const std::string& d) {
  if (d == "F32" || d == "I32") return 4;
  if (d == "F64" || d == "I64") return 8;
  if (d == "U16") return 2;
  if (d == "U8") return 1;
  return 0;
}

void add_raw(SafeTensors& st, const std::string& name, const char* dtype,
             const std::vector<int64_t>& shape, const void* data, size_t elem) {
  StTensor t;
  t.dtype = dtype;
  t.shape = shape;
  size_t bytes = static_cast<size_t>(t.numel()) * elem;
  t.bytes.resize(bytes);
  if (bytes) std::memcpy(t.bytes.data(), data, bytes);
  st.tensors[name] = std::move(t);
}

template <typename Out, typename In>
std::vector<Out> convert(const StTensor& t) {
  std::vector<Out> out(t.numel());
  for (int64_t i = 0; i < t.numel(); ++i) {
    In v;
    std::memcpy(&v, t.bytes.data() + i * sizeof(In), sizeof(In));
    out[i] = static_cast<Out>(v);
  }
  return out;
}

uint64_t fnv1a(uint64_t h, const void* data, size_t n) {
  const uint8_t* p = static_cast<const uint8_t*>(data);
  for (size_t i = 0; i < n; ++i) {
    h ^= p[i];
    h *= 0x100000001b3ULL;
  }
  return h;
}

}  // namespace

int64_t StTensor::numel() const {
  int64_t n = 1;
  for (int64_t s : shape) n *= s;
  return n;
}

void SafeTensors::add_f32(const std::string& n, const std::vector<int64_t>& s, const float* d) {
  add_raw(*this, n, "F32", s, d, 4);
}
void SafeTensors::add_i32(const std::string& n, const std::vector<int64_t>& s, const int32_t* d) {
  add_raw(*this, n, "I32", s, d, 4);
}
void SafeTensors::add_i64(const std::string& n, const std::vector<int64_t>& s, const int64_t* d) {
  add_raw(*this, n, "I64", s, d, 8);
}
void SafeTensors::add_u8(const std::string& n, const std::vector<int64_t>& s, const uint8_t* d) {
  add_raw(*this, n, "U8", s, d, 1);
}

std::string SafeTensors::where() const { return source.empty() ? "" : "'" + source + "': "; }

const StTensor& SafeTensors::get(const std::string& name) const {
  auto it = tensors.find(name);
  SG_CHECK(it != tensors.end(), where(), "tensor '", name, "' is missing from the file");
  return it->second;
}

std::vector<float> SafeTensors::f32(const std::string& name) const {
  const StTensor& t = get(name);
  if (t.dtype == "F32") return convert<float, float>(t);
  if (t.dtype == "F64") return convert<float, double>(t);
  fail(where(), "tensor '", name, "' has dtype ", t.dtype, ", expected F32");
}

std::vector<double> SafeTensors::f64(const std::string& name) const {
  const StTensor& t = get(name);
  if (t.dtype == "F64") return convert<double, double>(t);
  if (t.dtype == "F32") return convert<double, float>(t);
  fail(where(), "tensor '", name, "' has dtype ", t.dtype, ", expected F64");
}

std::vector<int64_t> SafeTensors::i64(const std::string& name) const {
  const StTensor& t = get(name);
  if (t.dtype == "I64") return convert<int64_t, int64_t>(t);
  if (t.dtype == "I32") return convert<int64_t, int32_t>(t);
  fail(where(), "tensor '", name, "' has dtype ", t.dtype, ", expected I64 or I32");
}

std::vector<int32_t> SafeTensors::i32(const std::string& name) const {
  const StTensor& t = get(name);
  if (t.dtype == "I32") return convert<int32_t, int32_t>(t);
  if (t.dtype == "I64") {
    auto v = convert<int64_t, int64_t>(t);
    std::vector<int32_t> out(v.size());
    for (size_t i = 0; i < v.size(); ++i) {
      SG_CHECK(v[i] >= std::numeric_limits<int32_t>::min() &&
                   v[i] <= std::numeric_limits<int32_t>::max(),
               where(), "tensor '", name, "' value ", v[i], " does not fit in int32");
      out[i] = static_cast<int32_t>(v[i]);
    }
    return out;
  }
  fail(where(), "tensor '", name, "' has dtype ", t.dtype, ", expected I32 or I64");
}

std::vector<uint8_t> SafeTensors::u8(const std::string& name) const {
  const StTensor& t = get(name);
  SG_CHECK(t.dtype == "U8", where(), "tensor '", name, "' has dtype ", t.dtype, ", expected U8");
  return t.bytes;
}

void SafeTensors::copy_f32(const std::string& name, float* dst, int64_t n) const {
  const StTensor& t = get(name);
  SG_CHECK(t.dtype == "F32", where(), "tensor '", name, "' has dtype ", t.dtype, ", expected F32");
  SG_CHECK(t.numel() == n, where(), "tensor '", name, "' has ", t.numel(), " elements, expected ", n);
  std::memcpy(dst, t.bytes.data(), static_cast<size_t>(n) * sizeof(float));
}

std::string SafeTensors::meta(const std::string& key, const std::string& fallback) const {
  auto it = metadata.find(key);
  return it == metadata.end() ? fallback : it->second;
}

uint64_t SafeTensors::checksum() const {
  uint64_t h = 0xcbf29ce484222325ULL;
  for (const auto& [name, t] : tensors) {
    h = fnv1a(h, name.data(), name.size());
    h = fnv1a(h, t.dtype.data(), t.dtype.size());
    for (int64_t s : t.shape) h = fnv1a(h, &s, sizeof(s));
    h = fnv1a(h, t.bytes.data(), t.bytes.size());
  }
  return h;
}

namespace {

// Whether j is an array of whole numbers. nlohmann converts a float such as 1e59 to an integer
// type with a plain cast, which is undefined behaviour out of range (the fuzzer found one).
bool whole_numbers(const nlohmann::json& j) {
  return j.is_array() && std::all_of(j.begin(), j.end(),
                                     [](const nlohmann::json& x) { return x.is_number_integer(); });
}

// The checks every reader makes on a file's header: its length, its JSON, each tensor's dtype,
// shape and byte range (inside the data, of the size the shape needs, no two overlapping). Calls
// add(name, dtype, shape, begin, end) for each tensor and returns the start of the data.
template <typename Add>
const uint8_t* read_header(const uint8_t* bytes, size_t size, const std::string& path,
                           std::map<std::string, std::string>& metadata, Add add) {
  SG_CHECK(size >= 8, "'", path, "' is not a safetensors file (only ", size,
           " bytes): it is truncated or corrupted");
  uint64_t header_len = 0;
  for (int i = 7; i >= 0; --i) header_len = (header_len << 8) | bytes[i];
  SG_CHECK(header_len > 0 && header_len <= size - 8 && header_len < (100u << 20), "'", path,
           "' has a bad safetensors header length: it is truncated or corrupted");
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(bytes + 8, bytes + 8 + header_len);
  } catch (const std::exception&) {
    fail("'", path, "' has an unreadable safetensors header: it is corrupted");
  }
  SG_CHECK(j.is_object(), "'", path, "' has a safetensors header that is not a JSON object");
  const uint8_t* data = bytes + 8 + header_len;
  const uint64_t data_size = size - 8 - header_len;
  std::vector<std::pair<uint64_t, uint64_t>> ranges;  // [begin, end) of each tensor's bytes
  try {
    for (auto it = j.begin(); it != j.end(); ++it) {
      if (it.key() == "__metadata__") {
        SG_CHECK(it.value().is_object(), "'", path, "': __metadata__ is not an object");
        for (auto m = it.value().begin(); m != it.value().end(); ++m)
          metadata[m.key()] = m.value().get<std::string>();
        continue;
      }
      std::string dtype = it.value().at("dtype").get<std::string>();
      SG_CHECK(
          whole_numbers(it.value().at("shape")) && whole_numbers(it.value().at("data_offsets")),
          "'", path, "': tensor '", it.key(),
          "' has a shape or data_offsets that are not whole numbers: it is corrupted");
      std::vector<int64_t> shape = it.value().at("shape").get<std::vector<int64_t>>();
      auto off = it.value().at("data_offsets").get<std::vector<uint64_t>>();
      const int es = dtype_size(dtype);
      SG_CHECK(es > 0, "'", path, "': tensor '", it.key(), "' has unsupported dtype ", dtype);
      // The element count, checked for overflow: no shape may claim more than the file holds.
      uint64_t numel = 1;
      for (int64_t d : shape) {
        SG_CHECK(d >= 0, "'", path, "': tensor '", it.key(), "' has a negative dimension");
        SG_CHECK(!__builtin_mul_overflow(numel, static_cast<uint64_t>(d), &numel) &&
                     numel <= data_size,
                 "'", path, "': tensor '", it.key(), "' has a shape larger than the file");
      }
      SG_CHECK(off.size() == 2 && off[0] <= off[1] && off[1] <= data_size, "'", path,
               "': tensor '", it.key(), "' lies outside the file: it is truncated or corrupted");
      SG_CHECK(off[1] - off[0] == numel * static_cast<uint64_t>(es), "'", path, "': tensor '",
               it.key(), "' has ", off[1] - off[0], " bytes but its shape needs ",
               numel * static_cast<uint64_t>(es));
      ranges.emplace_back(off[0], off[1]);
      add(it.key(), std::move(dtype), std::move(shape), off[0], off[1]);
    }
  } catch (const nlohmann::json::exception&) {
    fail("'", path, "' has a malformed safetensors header: it is corrupted");
  }
  std::sort(ranges.begin(), ranges.end());
  for (size_t i = 1; i < ranges.size(); ++i)
    SG_CHECK(ranges[i].first >= ranges[i - 1].second, "'", path,
             "': two tensors share bytes: it is corrupted");
  return data;
}

}  // namespace

SafeTensors parse_safetensors(const uint8_t* bytes, size_t size, const std::string& path) {
  SafeTensors st;
  st.source = path;
  std::vector<std::tuple<std::string, uint64_t, uint64_t>> where;
  const uint8_t* data = read_header(
      bytes, size, path, st.metadata,
      [&](const std::string& name, std::string dtype, std::vector<int64_t> shape, uint64_t begin,
          uint64_t end) {
        StTensor t;
        t.dtype = std::move(dtype);
        t.shape = std::move(shape);
        st.tensors[name] = std::move(t);
        where.emplace_back(name, begin, end);
      });
  for (const auto& [name, begin, end] : where)
    st.tensors[name].bytes.assign(data + begin, data + end);
  const std::string sum = st.meta("checksum");
  if (!sum.empty())
    SG_CHECK(sum == std::to_string(st.checksum()), "'", path,
             "' failed its checksum: it is corrupted");
  return st;
}

MappedSafeTensors::MappedSafeTensors(const std::string& path) : file_(path) {
  const uint8_t* data = read_header(
      file_.data(), file_.size(), path, metadata,
      [&](const std::string& name, std::string dtype, std::vector<int64_t> shape, uint64_t begin,
          uint64_t end) {
        tensors[name] = View{std::move(dtype), std::move(shape), nullptr, begin, end - begin};
      });
  for (auto& [name, v] : tensors) v.data = data + v.offset;
}

SafeTensors load_safetensors(const std::string& path) {
  std::error_code ec;
  SG_CHECK(!std::filesystem::is_directory(path, ec), "'", path,
           "' is a directory, not a safetensors file: give the file's path");
  const MappedFile file(path);  // a FIFO or device is refused at once, never read
  return parse_safetensors(file.data(), file.size(), path);
}

void save_safetensors(const std::string& path, const SafeTensors& st, bool add_checksum,
                      const UserOutput* user) {
  nlohmann::json j = nlohmann::json::object();
  nlohmann::json meta = nlohmann::json::object();
  for (const auto& [k, v] : st.metadata) meta[k] = v;
  if (add_checksum) meta["checksum"] = std::to_string(st.checksum());
  if (!meta.empty()) j["__metadata__"] = meta;
  uint64_t offset = 0;
  for (const auto& [name, t] : st.tensors) {
    j[name] = {{"dtype", t.dtype},
               {"shape", t.shape},
               {"data_offsets", {offset, offset + t.bytes.size()}}};
    offset += t.bytes.size();
  }
  std::string header = j.dump();
  while ((header.size() + 8) % 8 != 0) header.push_back(' ');
  uint64_t hl = header.size();
  uint8_t len_bytes[8];
  for (int i = 0; i < 8; ++i) len_bytes[i] = static_cast<uint8_t>(hl >> (8 * i));

  AtomicFile f(path, user);
  f.write(len_bytes, 8);
  f.write(header.data(), header.size());
  for (const auto& [name, t] : st.tensors) f.write(t.bytes.data(), t.bytes.size());
  f.commit();
}

}  // namespace scratchgpt
