// nanogpt_ckpt.cpp: see nanogpt_ckpt.h.
#include "io/nanogpt_ckpt.h"

#include <cmath>
#include <cstring>

#include "core/check.h"
#include "core/mapped_file.h"
#include "core/pickle.h"
#include "core/zip_reader.h"

namespace scratchgpt {

namespace {

using Kind = PickleValue::Kind;

float half_to_float(uint16_t h) {
  const uint32_t sign = (h & 0x8000u) << 16, exp = (h >> 10) & 0x1f, man = h & 0x3ff;
  float f;
  if (exp == 0) {
    f = std::ldexp(static_cast<float>(man), -24);
  } else if (exp == 31) {
    const uint32_t bits = 0x7f800000u | (man << 13);
    std::memcpy(&f, &bits, 4);
  } else {
    const uint32_t bits = ((exp + 112) << 23) | (man << 13);
    std::memcpy(&f, &bits, 4);
  }
  uint32_t out;
  std::memcpy(&out, &f, 4);
  out |= sign;
  std::memcpy(&f, &out, 4);
  return f;
}

// One element of a storage as float.
float element(const uint8_t* p, const std::string& dtype) {
  if (dtype == "float32") {
    float f;
    std::memcpy(&f, p, 4);
    return f;
  }
  if (dtype == "float64") {
    double d;
    std::memcpy(&d, p, 8);
    return static_cast<float>(d);
  }
  uint16_t h;
  std::memcpy(&h, p, 2);
  if (dtype == "float16") return half_to_float(h);
  const uint32_t bits = static_cast<uint32_t>(h) << 16;  // bfloat16: float32's high half
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}

StTensor to_f32(const PickleValue& t, const ZipReader& zip, const std::string& archive,
                const std::string& name, const std::string& path) {
  const std::string& dtype = t.storage->dtype;
  SG_CHECK(dtype == "float32" || dtype == "bfloat16" || dtype == "float16" || dtype == "float64",
           path, ": tensor '", name, "' is ", dtype.empty() ? "of an unknown type" : dtype,
           ": this build reads float32, bfloat16, float16 and float64 weights");
  const int es = pickle_dtype_size(dtype);
  const ZipReader::Entry e = zip.at(archive + "/data/" + t.storage->s);
  SG_CHECK(e.size / es >= static_cast<uint64_t>(t.storage->i), path, ": the storage of tensor '",
           name, "' holds ", e.size / es, " elements, its record says ", t.storage->i, ": damaged");
  int64_t want = 1;
  for (size_t d = t.shape.size(); d-- > 0;) {
    SG_CHECK(t.shape[d] == 1 || t.stride[d] == want, path, ": tensor '", name,
             "' is not contiguous: save the state_dict of a model, as nanoGPT's train.py does");
    want *= t.shape[d];
  }
  StTensor out{"F32", t.shape, std::vector<uint8_t>(static_cast<size_t>(want) * 4)};
  const uint8_t* src = e.data + static_cast<size_t>(t.i) * es;
  for (int64_t k = 0; k < want; ++k) {
    const float v = element(src + k * es, dtype);
    std::memcpy(out.bytes.data() + k * 4, &v, 4);
  }
  return out;
}

// A dict of plain values (model_args, config) as JSON; other values are left out.
nlohmann::json plain_json(const PickleValue* d) {
  nlohmann::json j = nlohmann::json::object();
  if (!d || !d->is(Kind::kDict)) return j;
  for (size_t k = 0; k + 1 < d->items.size(); k += 2) {
    const PickleValue *key = d->items[k], *v = d->items[k + 1];
    if (!key->is(Kind::kStr)) continue;
    if (v->is(Kind::kInt))
      j[key->s] = v->i;
    else if (v->is(Kind::kFloat))
      j[key->s] = v->f;
    else if (v->is(Kind::kBool))
      j[key->s] = v->b;
    else if (v->is(Kind::kStr))
      j[key->s] = v->s;
    else if (v->is(Kind::kNone))
      j[key->s] = nullptr;
  }
  return j;
}

}  // namespace

TorchStateDict parse_nanogpt_ckpt(const uint8_t* data, size_t size, const std::string& path) {
  const ZipReader zip(data, size, path);
  std::string archive;
  for (const auto& [name, e] : zip.entries())
    if (name.ends_with("/data.pkl") && name.find('/') == name.size() - 9)
      archive = name.substr(0, name.size() - 9);
  SG_CHECK(!archive.empty(), path, " is a zip archive without a data.pkl: not a torch.save file");
  const ZipReader::Entry pkl = zip.at(archive + "/data.pkl");
  const Pickle p(pkl.data, pkl.size, path + ":" + archive + "/data.pkl");
  const PickleValue* model = p.root().get("model");
  if (!model) model = &p.root();  // torch.save(model.state_dict())
  SG_CHECK(model->is(Kind::kDict), path, " holds no state_dict (its 'model' is a ",
           model->kind_name(), "): not a nanoGPT checkpoint");
  TorchStateDict r;
  for (size_t k = 0; k + 1 < model->items.size(); k += 2) {
    const PickleValue *key = model->items[k], *t = model->items[k + 1];
    if (!key->is(Kind::kStr) || !t->is(Kind::kTensor)) {
      SG_CHECK(model != &p.root(), path, ": its state_dict has a ", key->kind_name(), " key or a ",
               t->kind_name(), " value: not a nanoGPT checkpoint");
      continue;  // a bare dict of other things: the check below says so
    }
    r.tensors.tensors[key->s] = to_f32(*t, zip, archive, key->s, path);
  }
  SG_CHECK(!r.tensors.tensors.empty(), path, " holds no tensors: not a nanoGPT checkpoint");
  r.model_args = plain_json(p.root().get("model_args"));
  r.config = plain_json(p.root().get("config"));
  return r;
}

TorchStateDict read_nanogpt_ckpt(const std::string& path) {
  const MappedFile f(path);
  return parse_nanogpt_ckpt(f.data(), f.size(), path);
}

}  // namespace scratchgpt
