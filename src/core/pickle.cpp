// pickle.cpp: see pickle.h. One pass over the opcodes with Python's stack, mark stack and memo;
// globals are names checked against a short list, never looked up or called.
#include "core/pickle.h"

#include <cstring>
#include <unordered_map>

#include "core/check.h"

namespace scratchgpt {

namespace {

using Kind = PickleValue::Kind;

// Every opcode of protocols 0-5 by its byte, for errors: "R REDUCE", ...
const char* opcode_name(uint8_t c) {
  static const std::unordered_map<uint8_t, const char*> names = {{'(', "MARK"},
                                                                 {'.', "STOP"},
                                                                 {'0', "POP"},
                                                                 {'1', "POP_MARK"},
                                                                 {'2', "DUP"},
                                                                 {'F', "FLOAT"},
                                                                 {'I', "INT"},
                                                                 {'J', "BININT"},
                                                                 {'K', "BININT1"},
                                                                 {'L', "LONG"},
                                                                 {'M', "BININT2"},
                                                                 {'N', "NONE"},
                                                                 {'P', "PERSID"},
                                                                 {'Q', "BINPERSID"},
                                                                 {'R', "REDUCE"},
                                                                 {'S', "STRING"},
                                                                 {'T', "BINSTRING"},
                                                                 {'U', "SHORT_BINSTRING"},
                                                                 {'V', "UNICODE"},
                                                                 {'X', "BINUNICODE"},
                                                                 {'a', "APPEND"},
                                                                 {'b', "BUILD"},
                                                                 {'c', "GLOBAL"},
                                                                 {'d', "DICT"},
                                                                 {'}', "EMPTY_DICT"},
                                                                 {'e', "APPENDS"},
                                                                 {'g', "GET"},
                                                                 {'h', "BINGET"},
                                                                 {'i', "INST"},
                                                                 {'j', "LONG_BINGET"},
                                                                 {'l', "LIST"},
                                                                 {']', "EMPTY_LIST"},
                                                                 {'o', "OBJ"},
                                                                 {'p', "PUT"},
                                                                 {'q', "BINPUT"},
                                                                 {'r', "LONG_BINPUT"},
                                                                 {'s', "SETITEM"},
                                                                 {'t', "TUPLE"},
                                                                 {')', "EMPTY_TUPLE"},
                                                                 {'u', "SETITEMS"},
                                                                 {'G', "BINFLOAT"},
                                                                 {0x80, "PROTO"},
                                                                 {0x81, "NEWOBJ"},
                                                                 {0x82, "EXT1"},
                                                                 {0x83, "EXT2"},
                                                                 {0x84, "EXT4"},
                                                                 {0x85, "TUPLE1"},
                                                                 {0x86, "TUPLE2"},
                                                                 {0x87, "TUPLE3"},
                                                                 {0x88, "NEWTRUE"},
                                                                 {0x89, "NEWFALSE"},
                                                                 {0x8a, "LONG1"},
                                                                 {0x8b, "LONG4"},
                                                                 {'B', "BINBYTES"},
                                                                 {'C', "SHORT_BINBYTES"},
                                                                 {0x8c, "SHORT_BINUNICODE"},
                                                                 {0x8d, "BINUNICODE8"},
                                                                 {0x8e, "BINBYTES8"},
                                                                 {0x8f, "EMPTY_SET"},
                                                                 {0x90, "ADDITEMS"},
                                                                 {0x91, "FROZENSET"},
                                                                 {0x92, "NEWOBJ_EX"},
                                                                 {0x93, "STACK_GLOBAL"},
                                                                 {0x94, "MEMOIZE"},
                                                                 {0x95, "FRAME"},
                                                                 {0x96, "BYTEARRAY8"},
                                                                 {0x97, "NEXT_BUFFER"},
                                                                 {0x98, "READONLY_BUFFER"}};
  const auto it = names.find(c);
  return it == names.end() ? "unknown" : it->second;
}

// torch.<name> as a storage class or a dtype -> our dtype name ("" if neither).
std::string torch_dtype(const std::string& name) {
  static const std::unordered_map<std::string, std::string> known = {
      {"FloatStorage", "float32"},
      {"DoubleStorage", "float64"},
      {"HalfStorage", "float16"},
      {"BFloat16Storage", "bfloat16"},
      {"LongStorage", "int64"},
      {"IntStorage", "int32"},
      {"ShortStorage", "int16"},
      {"CharStorage", "int8"},
      {"ByteStorage", "uint8"},
      {"BoolStorage", "bool"},
      {"UntypedStorage", "uint8"},
      {"float32", "float32"},
      {"float", "float32"},
      {"float64", "float64"},
      {"double", "float64"},
      {"float16", "float16"},
      {"half", "float16"},
      {"bfloat16", "bfloat16"},
      {"int64", "int64"},
      {"long", "int64"},
      {"int32", "int32"},
      {"int", "int32"},
      {"int16", "int16"},
      {"short", "int16"},
      {"int8", "int8"},
      {"uint8", "uint8"},
      {"bool", "bool"}};
  const auto it = known.find(name);
  return it == known.end() ? "" : it->second;
}

constexpr int kMaxDims = 16;

class Unpickler {
 public:
  Unpickler(const uint8_t* data, size_t size, const std::string& path,
            std::deque<PickleValue>& arena)
      : p_(data), n_(size), path_(path), arena_(arena) {}
  PickleValue* run();

 private:
  const uint8_t* p_;
  size_t n_, at_ = 0, op_at_ = 0;
  const std::string& path_;
  std::deque<PickleValue>& arena_;
  std::vector<PickleValue*> stack_;
  std::vector<size_t> marks_;
  std::unordered_map<uint64_t, PickleValue*> memo_;

  template <typename... A>
  [[noreturn]] void bad(const A&... a) const {
    fail(path_, ": pickle byte ", op_at_, " (opcode ", opcode_name(p_[op_at_]), "): ", a...);
  }
  PickleValue* make(Kind k) {
    arena_.emplace_back();
    arena_.back().kind = k;
    return &arena_.back();
  }
  uint64_t uint(int n) {
    if (n_ - at_ < static_cast<size_t>(n)) bad("the pickle ends inside its argument: truncated");
    uint64_t v = 0;
    for (int i = n - 1; i >= 0; --i) v = (v << 8) | p_[at_ + i];
    at_ += n;
    return v;
  }
  std::string take(uint64_t len) {
    if (len > n_ - at_) bad("a string of ", len, " bytes runs past the end: truncated");
    std::string s(reinterpret_cast<const char*>(p_ + at_), len);
    at_ += len;
    return s;
  }
  std::string line() {
    const void* nl = std::memchr(p_ + at_, '\n', n_ - at_);
    if (!nl) bad("a name with no end of line: truncated");
    return take(static_cast<const uint8_t*>(nl) - (p_ + at_) + 1).substr(0, std::string::npos);
  }
  void push(PickleValue* v) { stack_.push_back(v); }
  PickleValue* pop() {
    if (stack_.size() <= (marks_.empty() ? 0 : marks_.back())) bad("the stack is empty");
    PickleValue* v = stack_.back();
    stack_.pop_back();
    return v;
  }
  PickleValue* top() {
    if (stack_.size() <= (marks_.empty() ? 0 : marks_.back())) bad("the stack is empty");
    return stack_.back();
  }
  std::vector<PickleValue*> pop_mark() {
    if (marks_.empty()) bad("no MARK to pop to");
    std::vector<PickleValue*> items(stack_.begin() + marks_.back(), stack_.end());
    stack_.resize(marks_.back());
    marks_.pop_back();
    return items;
  }
  PickleValue* container(Kind k) {
    PickleValue* c = top();
    if (!c->is(k))
      bad("adds to a ", c->kind_name(), ", not a ", k == Kind::kList ? "list" : "dict");
    return c;
  }
  PickleValue* tuple(std::vector<PickleValue*> items) {
    PickleValue* t = make(Kind::kTuple);
    t->items = std::move(items);
    return t;
  }
  PickleValue* integer(int64_t v) {
    PickleValue* x = make(Kind::kInt);
    x->i = v;
    return x;
  }
  PickleValue* str(Kind k, std::string s) {
    PickleValue* x = make(k);
    x->s = std::move(s);
    return x;
  }
  PickleValue* long_int(uint64_t len);
  PickleValue* global(const std::string& module, const std::string& name);
  PickleValue* reduce(PickleValue* callable, PickleValue* args);
  PickleValue* rebuild_tensor(const std::vector<PickleValue*>& a);
  PickleValue* persistent(PickleValue* pid);
  void memo_put(uint64_t key) { memo_[key] = top(); }
  PickleValue* memo_get(uint64_t key) {
    const auto it = memo_.find(key);
    if (it == memo_.end()) bad("memo entry ", key, " was never stored");
    return it->second;
  }
  bool step(uint8_t c);
  bool step_value(uint8_t c);
  bool step_container(uint8_t c);
};

PickleValue* Unpickler::long_int(uint64_t len) {
  if (len > 8) bad("an int of ", len, " bytes: wider than 64 bits, which no state_dict holds");
  if (len > n_ - at_) bad("the pickle ends inside an int: truncated");
  uint64_t v = 0;
  for (uint64_t i = len; i-- > 0;) v = (v << 8) | p_[at_ + i];
  if (len > 0 && len < 8 && (p_[at_ + len - 1] & 0x80)) v |= ~uint64_t{0} << (8 * len);
  at_ += len;
  return integer(static_cast<int64_t>(v));
}

PickleValue* Unpickler::global(const std::string& module, const std::string& name) {
  const std::string full = module + "." + name;
  const bool ok = full == "collections.OrderedDict" || full == "torch._utils._rebuild_tensor_v2" ||
                  (module == "torch" && !torch_dtype(name).empty());
  if (!ok)
    bad("refuses the global '", full,
        "': this reader builds only what a state_dict holds "
        "(OrderedDict, tensors, storages, dtypes) and never runs code from a file");
  return str(Kind::kGlobal, full);
}

PickleValue* Unpickler::persistent(PickleValue* pid) {
  if (!pid->is(Kind::kTuple) || pid->items.size() != 5 || !pid->items[0]->is(Kind::kStr) ||
      pid->items[0]->s != "storage")
    bad("a persistent id that is not ('storage', type, key, location, numel)");
  const auto& it = pid->items;
  if (!it[1]->is(Kind::kGlobal) || !it[2]->is(Kind::kStr) || !it[4]->is(Kind::kInt) || it[4]->i < 0)
    bad("a storage's persistent id has the wrong types");
  PickleValue* s = make(Kind::kStorage);
  s->dtype = torch_dtype(it[1]->s.substr(it[1]->s.rfind('.') + 1));
  s->s = it[2]->s;
  s->i = it[4]->i;
  return s;
}

PickleValue* Unpickler::rebuild_tensor(const std::vector<PickleValue*>& a) {
  if (a.size() < 6 || a.size() > 7 || !a[0]->is(Kind::kStorage) || !a[1]->is(Kind::kInt) ||
      !a[2]->is(Kind::kTuple) || !a[3]->is(Kind::kTuple) || a[1]->i < 0)
    bad("_rebuild_tensor_v2 with arguments other than (storage, offset, size, stride, ...)");
  PickleValue* t = make(Kind::kTensor);
  t->storage = a[0];
  t->i = a[1]->i;
  if (a[2]->items.size() != a[3]->items.size() || a[2]->items.size() > kMaxDims)
    bad("a tensor's size and stride differ in length, or it has over ", kMaxDims, " dimensions");
  // The last element read, offset + sum((size - 1) * stride), must lie in the storage.
  int64_t last = t->i, numel = 1, span = 0;
  for (size_t d = 0; d < a[2]->items.size(); ++d) {
    const PickleValue *sz = a[2]->items[d], *st = a[3]->items[d];
    if (!sz->is(Kind::kInt) || !st->is(Kind::kInt) || sz->i < 0 || st->i < 0 ||
        sz->i > (int64_t{1} << 40) || st->i > (int64_t{1} << 40))
      bad("a tensor's size or stride is not a whole number in range");
    t->shape.push_back(sz->i);
    t->stride.push_back(st->i);
    if (__builtin_mul_overflow(sz->i > 0 ? sz->i - 1 : 0, st->i, &span) ||
        __builtin_add_overflow(last, span, &last) || __builtin_mul_overflow(numel, sz->i, &numel) ||
        numel > (int64_t{1} << 40))
      bad("a tensor of over 2^40 elements, or one reaching past 2^63");
  }
  if (numel > 0 && last >= t->storage->i)
    bad("a tensor reaches past its storage of ", t->storage->i, " elements: damaged");
  return t;
}

PickleValue* Unpickler::reduce(PickleValue* callable, PickleValue* args) {
  if (!callable->is(Kind::kGlobal) || !args->is(Kind::kTuple))
    bad("calls a ", callable->kind_name(), ": only the allowed globals may be called");
  if (callable->s == "collections.OrderedDict") {
    if (!args->items.empty()) bad("OrderedDict with arguments: only OrderedDict() is read");
    return make(Kind::kDict);
  }
  if (callable->s == "torch._utils._rebuild_tensor_v2") return rebuild_tensor(args->items);
  bad("calls '", callable->s, "', which is a type name here, not a function");
}

// The opcode tables below keep one case to a line, so each reads as the table it is.
// clang-format off
// Scalars, strings, memo and globals; false if c is none of them.
bool Unpickler::step_value(uint8_t c) {
  switch (c) {
    case 'N': push(make(Kind::kNone)); return true;
    case 0x88: case 0x89: push(make(Kind::kBool)); stack_.back()->b = c == 0x88; return true;
    case 'J': push(integer(static_cast<int32_t>(uint(4)))); return true;
    case 'K': push(integer(static_cast<int64_t>(uint(1)))); return true;
    case 'M': push(integer(static_cast<int64_t>(uint(2)))); return true;
    case 0x8a: push(long_int(uint(1))); return true;
    case 0x8b: push(long_int(uint(4))); return true;
    case 'G': {
      const uint64_t bits = __builtin_bswap64(uint(8));  // big-endian
      push(make(Kind::kFloat));
      std::memcpy(&stack_.back()->f, &bits, 8);
      return true;
    }
    case 'X': push(str(Kind::kStr, take(uint(4)))); return true;
    case 0x8c: push(str(Kind::kStr, take(uint(1)))); return true;
    case 0x8d: push(str(Kind::kStr, take(uint(8)))); return true;
    case 'B': push(str(Kind::kBytes, take(uint(4)))); return true;
    case 'C': push(str(Kind::kBytes, take(uint(1)))); return true;
    case 0x8e: push(str(Kind::kBytes, take(uint(8)))); return true;
    case 'q': memo_put(uint(1)); return true;
    case 'r': memo_put(uint(4)); return true;
    case 0x94: memo_put(memo_.size()); return true;
    case 'h': push(memo_get(uint(1))); return true;
    case 'j': push(memo_get(uint(4))); return true;
    case 'c': {
      std::string module = line(), name = line();
      module.pop_back(), name.pop_back();
      push(global(module, name));
      return true;
    }
    case 0x93: {
      PickleValue* name = pop();
      PickleValue* module = pop();
      if (!name->is(Kind::kStr) || !module->is(Kind::kStr)) bad("STACK_GLOBAL of non-strings");
      push(global(module->s, name->s));
      return true;
    }
    default: return false;
  }
}

// Tuples, lists, dicts and the calls that build them; false if c is none of them.
bool Unpickler::step_container(uint8_t c) {
  switch (c) {
    case ')': push(tuple({})); return true;
    case 0x85: case 0x86: case 0x87: {
      std::vector<PickleValue*> items(c - 0x84);
      for (size_t k = items.size(); k-- > 0;) items[k] = pop();
      push(tuple(std::move(items)));
      return true;
    }
    case 't': push(tuple(pop_mark())); return true;
    case ']': push(make(Kind::kList)); return true;
    case 'l': { PickleValue* l = make(Kind::kList); l->items = pop_mark(); push(l); return true; }
    case '}': push(make(Kind::kDict)); return true;
    case 'd': case 'u': {
      std::vector<PickleValue*> items = pop_mark();
      if (items.size() % 2) bad("an odd number of keys and values");
      PickleValue* d = c == 'd' ? make(Kind::kDict) : container(Kind::kDict);
      d->items.insert(d->items.end(), items.begin(), items.end());
      if (c == 'd') push(d);
      return true;
    }
    case 's': {
      PickleValue* v = pop();
      PickleValue* k = pop();
      container(Kind::kDict)->items.insert(container(Kind::kDict)->items.end(), {k, v});
      return true;
    }
    case 'a': { PickleValue* v = pop(); container(Kind::kList)->items.push_back(v); return true; }
    case 'e': {
      std::vector<PickleValue*> items = pop_mark();
      PickleValue* l = container(Kind::kList);
      l->items.insert(l->items.end(), items.begin(), items.end());
      return true;
    }
    case 'R': { PickleValue* args = pop(); PickleValue* f = pop(); push(reduce(f, args)); return true; }
    case 'Q': push(persistent(pop())); return true;
    case 'b': {
      PickleValue* state = pop();
      if (!top()->is(Kind::kDict) || !(state->is(Kind::kDict) || state->is(Kind::kNone)))
        bad("BUILD of a ", top()->kind_name(), ": only an OrderedDict's attributes are read");
      return true;  // an OrderedDict's _metadata attribute: not needed, dropped
    }
    default: return false;
  }
}

// clang-format on

// One opcode; true at STOP.
bool Unpickler::step(uint8_t c) {
  switch (c) {
    case 0x80: {
      const uint64_t proto = uint(1);
      if (proto < 2 || proto > 5) bad("protocol ", proto, ": this reader reads protocols 2 to 5");
      return false;
    }
    case 0x95: {
      const uint64_t len = uint(8);
      if (len > n_ - at_) bad("a frame of ", len, " bytes runs past the end: truncated");
      return false;
    }
    case '(':
      marks_.push_back(stack_.size());
      return false;
    case '0':
      pop();
      return false;
    case '1':
      pop_mark();
      return false;
    case '2':
      push(top());
      return false;
    case '.':
      return true;
    default:
      if (step_value(c) || step_container(c)) return false;
      bad("is not read: this reader understands only the opcodes a state_dict or meta.pkl "
          "uses (protocols 2-5), and never runs code from a file");
  }
}

PickleValue* Unpickler::run() {
  while (true) {
    if (at_ >= n_) fail(path_, ": the pickle ends before its STOP opcode: truncated");
    op_at_ = at_++;
    if (step(p_[op_at_])) break;
  }
  if (stack_.size() != 1 || !marks_.empty()) bad("leaves ", stack_.size(), " values: damaged");
  return stack_.back();
}

}  // namespace

const PickleValue* PickleValue::get(std::string_view key) const {
  if (kind != Kind::kDict) return nullptr;
  for (size_t k = items.size(); k >= 2; k -= 2)
    if (items[k - 2]->is(Kind::kStr) && items[k - 2]->s == key) return items[k - 1];
  return nullptr;
}

const char* PickleValue::kind_name() const {
  static const char* names[] = {"None",  "bool", "int",  "float",  "str",     "bytes",
                                "tuple", "list", "dict", "global", "storage", "tensor"};
  return names[static_cast<int>(kind)];
}

int pickle_dtype_size(const std::string& d) {
  if (d == "float64" || d == "int64") return 8;
  if (d == "float32" || d == "int32") return 4;
  if (d == "float16" || d == "bfloat16" || d == "int16") return 2;
  if (d == "int8" || d == "uint8" || d == "bool") return 1;
  return 0;
}

Pickle::Pickle(const uint8_t* data, size_t size, const std::string& path) {
  Unpickler u(data, size, path, arena_);
  root_ = u.run();
}

namespace {

void put_int(std::string& out, int64_t v) {  // BININT1, BININT2 or BININT, as Python writes
  auto le = [&](uint64_t x, int n) {
    for (int i = 0; i < n; ++i) out += static_cast<char>((x >> (8 * i)) & 0xff);
  };
  if (v >= 0 && v < 256)
    out += 'K', le(v, 1);
  else if (v >= 0 && v < 65536)
    out += 'M', le(v, 2);
  else
    out += 'J', le(static_cast<uint32_t>(v), 4);
}

void put_str(std::string& out, const std::string& s) {  // BINUNICODE
  out += 'X';
  for (int i = 0; i < 4; ++i) out += static_cast<char>((s.size() >> (8 * i)) & 0xff);
  out += s;
}

}  // namespace

std::string write_pickle_char_meta(const std::vector<std::string>& chars) {
  std::string out = "\x80\x02}(";  // PROTO 2, EMPTY_DICT, MARK
  put_str(out, "vocab_size");
  put_int(out, static_cast<int64_t>(chars.size()));
  put_str(out, "itos");
  out += "}(";
  for (size_t i = 0; i < chars.size(); ++i)
    put_int(out, static_cast<int64_t>(i)), put_str(out, chars[i]);
  out += 'u';
  put_str(out, "stoi");
  out += "}(";
  for (size_t i = 0; i < chars.size(); ++i)
    put_str(out, chars[i]), put_int(out, static_cast<int64_t>(i));
  out += "uu.";  // SETITEMS (stoi), SETITEMS (the outer dict), STOP
  return out;
}

}  // namespace scratchgpt
