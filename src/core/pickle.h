// pickle.h: a restricted unpickler for the pickles a PyTorch state_dict file (torch.save's
// data.pkl) and nanoGPT's meta.pkl hold, protocols 2-5: None, bool, int (to 64 bits, LONG1),
// float, str, bytes, tuple, list, dict, collections.OrderedDict, tensors built by
// torch._utils._rebuild_tensor_v2 over storages named by persistent ids ('storage',
// torch.<T>Storage or a torch dtype, key, location, numel). Everything else (any other global,
// REDUCE of anything but those two, protocol-0 text opcodes, extensions) is an Error naming the
// opcode or global: it never runs code or builds foreign objects (PyTorch's weights_only=True
// loader is the model). Work and memory are linear in the input (at most one value per opcode, no
// recursion); values may be shared (memo) or even cyclic, so callers look values up and never walk
// a whole tree. write_pickle_char_meta writes nanoGPT's meta.pkl. Leaves out: writing other
// pickles.
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace scratchgpt {

struct PickleValue {
  enum class Kind : uint8_t {
    kNone,
    kBool,
    kInt,
    kFloat,
    kStr,
    kBytes,
    kTuple,
    kList,
    kDict,
    kGlobal,
    kStorage,
    kTensor
  };
  Kind kind = Kind::kNone;
  bool b = false;
  int64_t i = 0;  // int; storage: its element count; tensor: storage offset (elements)
  double f = 0;
  std::string s;      // str, bytes, global "module.name"; storage: its key
  std::string dtype;  // storage: "float32", "bfloat16", "float16", "float64", "int64", ...
  std::vector<PickleValue*> items;       // tuple, list; dict: key, value, key, value, ...
  std::vector<int64_t> shape, stride;    // tensor
  const PickleValue* storage = nullptr;  // tensor

  bool is(Kind k) const { return kind == k; }
  // dict lookups by str key (the last of equal keys, as Python keeps); nullptr when absent.
  const PickleValue* get(std::string_view key) const;
  const char* kind_name() const;
};

// Bytes per element of a storage dtype ("float32" -> 4); 0 for an unknown name.
int pickle_dtype_size(const std::string& dtype);

class Pickle {
 public:
  // data, size: one pickle; path names it in errors. Refuses anything outside the subset above.
  Pickle(const uint8_t* data, size_t size, const std::string& path);
  const PickleValue& root() const { return *root_; }

 private:
  std::deque<PickleValue> arena_;  // owns every value; pointers into a deque stay valid
  PickleValue* root_ = nullptr;
};

// nanoGPT's meta.pkl for a character vocabulary: {'vocab_size': n, 'itos': {i: ch}, 'stoi':
// {ch: i}} in pickle protocol 2, which Python's pickle.load reads as the dict prepare.py wrote.
// chars: the characters in id order, each UTF-8.
std::string write_pickle_char_meta(const std::vector<std::string>& chars);

}  // namespace scratchgpt
