// bpe.cpp: see bpe.h.
#include "tokenizer/bpe.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <limits>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <thread>

#include "core/bundled.h"
#include "core/check.h"
#include "core/thread_pool.h"
#include "core/utf8.h"
#include "tokenizer/pretokenize.h"

namespace scratchgpt {

namespace fs = std::filesystem;

namespace {

constexpr std::string_view kEndOfText = "<|endoftext|>";
constexpr uint64_t kNone = ~uint64_t{0};

uint64_t pair_key(int32_t a, int32_t b) {
  return static_cast<uint64_t>(static_cast<uint32_t>(a)) << 32 | static_cast<uint32_t>(b);
}
uint64_t mix(uint64_t k) {  // splitmix64's finaliser: spreads the keys over the table
  k ^= k >> 30;
  k *= 0xBF58476D1CE4E5B9ULL;
  k ^= k >> 27;
  k *= 0x94D049BB133111EBULL;
  return k ^ (k >> 31);
}

std::string read_whole(const std::string& path, const char* what) {
  // The type first: opening a FIFO would block until something writes to it.
  std::error_code ec;
  SG_CHECK(!fs::exists(path, ec) || fs::is_regular_file(path, ec), path, " (", what,
           ") is not a regular file (a device, pipe or socket): give --tokenizer a directory with "
           "GPT-2's encoder.json and vocab.bpe files, or 'gpt2'");
  std::ifstream in(path, std::ios::binary);
  SG_CHECK(in.good(), "cannot read ", path, " (", what,
           "): give --tokenizer a directory with GPT-2's encoder.json and vocab.bpe, or 'gpt2'");
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// GPT-2's byte_decoder: the code point encoder.json uses for each byte, inverted.
int byte_of_code_point(uint32_t cp) {
  static const auto table = [] {
    std::vector<int> t(512, -1);
    int n = 0;
    for (int b = 0; b < 256; ++b) {
      const bool printable = (b >= '!' && b <= '~') || (b >= 0xA1 && b <= 0xAC) || b >= 0xAE;
      t[static_cast<size_t>(printable ? b : 256 + n++)] = b;
    }
    return t;
  }();
  return cp < 512 ? table[cp] : -1;
}

}  // namespace

std::string byte_to_unicode(uint8_t b) {
  const bool printable = (b >= '!' && b <= '~') || (b >= 0xA1 && b <= 0xAC) || b >= 0xAE;
  if (printable) return utf8_encode(b);
  int n = 0;
  for (int x = 0; x < b; ++x)
    if (!((x >= '!' && x <= '~') || (x >= 0xA1 && x <= 0xAC) || x >= 0xAE)) ++n;
  return utf8_encode(256u + static_cast<uint32_t>(n));
}

BpeFiles BpeFiles::read(const std::string& gpt2_or_dir) {
  std::string dir = gpt2_or_dir;
  if (gpt2_or_dir == "gpt2") {
    dir = find_bundled("data/gpt2");
    SG_CHECK(!dir.empty(),
             "cannot find the bundled data/gpt2/ (GPT-2's encoder.json and "
             "vocab.bpe): run from the repository, or pass --tokenizer DIR");
  }
  return {read_whole((fs::path(dir) / "encoder.json").string(), "the token -> id map"),
          read_whole((fs::path(dir) / "vocab.bpe").string(), "the merges")};
}

BpeTokenizer BpeTokenizer::gpt2() { return load("gpt2"); }

BpeTokenizer BpeTokenizer::load(const std::string& dir) {
  const BpeFiles f = BpeFiles::read(dir);
  return parse(f.encoder_json, f.vocab_bpe, dir);
}

namespace {

// encoder.json read as a stream of (spelling, id) pairs: nlohmann-json's SAX interface checks the
// JSON and its escapes without building a document (GPT-2's 50257 entries load in a few ms).
// Anything but one flat object of whole numbers is an error naming the file.
class EncoderJsonReader : public nlohmann::json_sax<nlohmann::json> {
 public:
  explicit EncoderJsonReader(const std::string& path) : path_(path) {}
  std::vector<std::pair<std::string, int64_t>> entries;

  bool key(string_t& k) override {
    key_ = std::move(k);
    return true;
  }
  bool number_integer(number_integer_t v) override { return id(v); }
  bool number_unsigned(number_unsigned_t v) override {
    return id(v > uint64_t{INT64_MAX} ? -1 : static_cast<int64_t>(v));
  }
  bool start_object(std::size_t) override {
    SG_CHECK(depth_++ == 0, path_, ": token '", key_, "' has an object as its id: ", kUse);
    return true;
  }
  bool end_object() override { return --depth_, true; }
  bool null() override { return not_a_number("null"); }
  bool boolean(bool) override { return not_a_number("a boolean"); }
  bool number_float(number_float_t, const string_t& text) override { return not_a_number(text); }
  bool string(string_t& v) override { return not_a_number("\"" + v + "\""); }
  bool binary(binary_t&) override { return not_a_number("binary"); }
  bool start_array(std::size_t) override { return not_a_number("an array"); }
  bool end_array() override { return true; }
  bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception& e) override {
    fail(path_, " is not valid JSON (", e.what(), "): ", kUse);
  }

 private:
  static constexpr const char* kUse = "use GPT-2's encoder.json";
  bool id(int64_t v) {
    SG_CHECK(depth_ == 1, path_, " must be a JSON object of token -> id: ", kUse);
    entries.emplace_back(std::move(key_), v);
    return true;
  }
  bool not_a_number(const std::string& what) {
    SG_CHECK(depth_ == 1, path_, " must be a JSON object of token -> id: ", kUse);
    fail(path_, ": token '", key_, "' has a non-integer id ", what);
  }
  const std::string& path_;
  std::string key_;
  int depth_ = 0;
};

// Spelling -> id over encoder.json's entries: a flat open-addressing table at most half full,
// each slot the spelling's hash and its entry, so a probe seldom leaves one cache line (GPT-2's
// 50257 spellings and 150000 lookups of vocab.bpe cost a few ms; std::unordered_map took 25).
class SpellingIndex {
 public:
  explicit SpellingIndex(const std::vector<std::pair<std::string, int64_t>>& entries)
      : entries_(entries) {
    size_t cap = 16;
    while (cap < 2 * entries.size()) cap <<= 1;
    slots_.assign(cap, Slot{0, -1});
  }
  // Adds entries[e]; false when its spelling is there already.
  bool insert(int32_t e) {
    const std::string_view key = entries_[static_cast<size_t>(e)].first;
    const uint64_t h = hash(key);
    for (size_t i = h & (slots_.size() - 1);; i = (i + 1) & (slots_.size() - 1)) {
      if (slots_[i].entry < 0) {
        slots_[i] = Slot{static_cast<uint32_t>(h), e};
        return true;
      }
      if (matches(slots_[i], h, key)) return false;
    }
  }
  // The id of a spelling, or -1.
  int32_t find(std::string_view key) const {
    const uint64_t h = hash(key);
    for (size_t i = h & (slots_.size() - 1);; i = (i + 1) & (slots_.size() - 1)) {
      if (slots_[i].entry < 0) return -1;
      if (matches(slots_[i], h, key))
        return static_cast<int32_t>(entries_[static_cast<size_t>(slots_[i].entry)].second);
    }
  }

 private:
  struct Slot {
    uint32_t hash;
    int32_t entry;  // -1: empty
  };
  static uint64_t hash(std::string_view s) {  // FNV-1a, then splitmix64's finaliser
    uint64_t h = 0xcbf29ce484222325ULL;
    for (char c : s) h = (h ^ static_cast<uint8_t>(c)) * 0x100000001b3ULL;
    return mix(h);
  }
  bool matches(const Slot& slot, uint64_t h, std::string_view key) const {
    return slot.hash == static_cast<uint32_t>(h) &&
           entries_[static_cast<size_t>(slot.entry)].first == key;
  }
  const std::vector<std::pair<std::string, int64_t>>& entries_;
  std::vector<Slot> slots_;
};

}  // namespace

BpeTokenizer BpeTokenizer::parse(const std::string& encoder_json, const std::string& merges,
                                 const std::string& dir) {
  const std::string enc_path = (fs::path(dir) / "encoder.json").string();
  const std::string bpe_path = (fs::path(dir) / "vocab.bpe").string();
  BpeTokenizer t;
  EncoderJsonReader reader(enc_path);
  nlohmann::json::sax_parse(encoder_json, &reader);
  std::vector<std::pair<std::string, int64_t>>& enc = reader.entries;
  SG_CHECK(!enc.empty(), enc_path, " must be a JSON object of token -> id: use GPT-2's encoder.json");
  SG_CHECK(enc.size() < (1u << 24), enc_path, " has ", enc.size(), " tokens, too many");
  t.bytes_.assign(enc.size(), std::string());
  std::vector<bool> seen(enc.size(), false);
  SpellingIndex id_of(enc);  // encoder.json's spelling -> id
  for (size_t e = 0; e < enc.size(); ++e) {
    const auto& [spelling, id] = enc[e];
    SG_CHECK(id >= 0 && id < static_cast<int64_t>(enc.size()) && !seen[static_cast<size_t>(id)],
             enc_path, ": token '", spelling, "' has id ", id, ", outside 0..", enc.size() - 1,
             " or used twice: the ids must number the tokens");
    SG_CHECK(id_of.insert(static_cast<int32_t>(e)), enc_path, ": token '", spelling,
             "' is listed twice: each token once");
    seen[static_cast<size_t>(id)] = true;
    if (spelling == kEndOfText) {
      t.eot_ = static_cast<int32_t>(id);
      t.bytes_[static_cast<size_t>(id)] = std::string(kEndOfText);
      continue;
    }
    // Back through byte_decoder: each code point of the spelling is one byte.
    std::string& bytes = t.bytes_[static_cast<size_t>(id)];
    size_t pos = 0;
    uint32_t cp = 0;
    while (pos < spelling.size()) {
      SG_CHECK(utf8_next(spelling, pos, &cp), enc_path, ": token id ", id, " is not UTF-8");
      const int b = byte_of_code_point(cp);
      SG_CHECK(b >= 0, enc_path, ": token id ", id, " holds U+", std::hex, cp,
               ", which is not one of GPT-2's byte characters");
      bytes.push_back(static_cast<char>(b));
    }
  }
  for (int b = 0; b < 256; ++b) {
    const int32_t id = id_of.find(byte_to_unicode(static_cast<uint8_t>(b)));
    SG_CHECK(id >= 0, enc_path, " has no token for the byte ", b,
             ": a byte-level BPE needs all 256 (use GPT-2's encoder.json)");
    t.byte_token_[b] = id;
  }

  // vocab.bpe: one merge "a b" a line, in rank order. Each merge's result is the token spelled
  // a + b (the byte characters map one to one, so its bytes are the two tokens' bytes joined).
  std::vector<int32_t> merged;  // rank -> the merged id
  std::string joined;
  const std::string_view all(merges);
  int line_no = 0;
  for (size_t from = 0; from < all.size();) {
    size_t to = all.find('\n', from);
    if (to == std::string_view::npos) to = all.size();
    std::string_view line = all.substr(from, to - from);
    from = to + 1;
    ++line_no;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (line.empty() || (line_no == 1 && line.substr(0, 8) == "#version")) continue;
    const size_t sp = line.find(' ');
    SG_CHECK(sp != std::string::npos && sp > 0 && sp + 1 < line.size() &&
                 line.find(' ', sp + 1) == std::string::npos,
             bpe_path, " line ", line_no, " is not two tokens separated by one space: '", line,
             "'");
    const std::string_view a = line.substr(0, sp), b = line.substr(sp + 1);
    joined.assign(a).append(b);
    const int32_t ia = id_of.find(a), ib = id_of.find(b), im = id_of.find(joined);
    SG_CHECK(ia >= 0 && ib >= 0, bpe_path, " line ", line_no, " merges '", ia < 0 ? a : b,
             "', a token ", enc_path,
             " does not have: the two files must come from the same tokenizer");
    SG_CHECK(im >= 0, bpe_path, " line ", line_no, " merges into '", joined, "', which ",
             enc_path, " does not have: the two files must come from the same tokenizer");
    // The special token is not made of bytes: no merge may build it (BPE would emit it for text).
    SG_CHECK(joined != kEndOfText, bpe_path, " line ", line_no, " merges '", a, "' and '", b,
             "' into '", kEndOfText,
             "', the special token: delete that line (no merge may spell it)");
    t.merge_list_.emplace_back(ia, ib);
    merged.push_back(im);
  }
  SG_CHECK(!t.merge_list_.empty(), bpe_path, " has no merges: use GPT-2's vocab.bpe");
  // The pair table at most half full: (left, right) -> rank << 32 | merged id.
  size_t cap = 1;
  while (cap < 2 * t.merge_list_.size()) cap <<= 1;
  t.keys_.assign(cap, kNone);
  t.values_.assign(cap, 0);
  t.mask_ = cap - 1;
  t.merged_of_rank_.assign(t.merge_list_.size(), -1);
  for (size_t r = 0; r < t.merge_list_.size(); ++r) {
    const auto [a, b] = t.merge_list_[r];
    const uint64_t key = pair_key(a, b);
    uint64_t h = mix(key) & t.mask_;
    while (t.keys_[h] != kNone && t.keys_[h] != key) h = (h + 1) & t.mask_;
    if (t.keys_[h] == key) continue;  // a repeated merge: the first (best) rank stands
    t.keys_[h] = key;
    t.values_[h] = static_cast<uint64_t>(r) << 32 | static_cast<uint32_t>(merged[r]);
    t.merged_of_rank_[r] = merged[r];
  }
  return t;
}

std::string BpeTokenizer::llmc_tokenizer_file() const {
  SG_CHECK(eot_ >= 0, "llm.c's tokenizer file names <|endoftext|>, and this tokenizer has none");
  std::string out(256 * 4, '\0');
  const int32_t header[4] = {20240328, 2, vocab_size(), eot_};
  for (int i = 0; i < 4; ++i)
    for (int b = 0; b < 4; ++b)
      out[static_cast<size_t>(4 * i + b)] = static_cast<char>((header[i] >> (8 * b)) & 0xFF);
  for (size_t id = 0; id < bytes_.size(); ++id) {
    SG_CHECK(!bytes_[id].empty() && bytes_[id].size() < 256, "token ", id, " has ",
             bytes_[id].size(), " bytes; llm.c's tokenizer file holds 1 to 255");
    out += static_cast<char>(bytes_[id].size());
    out += bytes_[id];
  }
  return out;
}

uint64_t BpeTokenizer::find_pair(int32_t a, int32_t b) const {
  const uint64_t key = pair_key(a, b);
  for (uint64_t h = mix(key) & mask_;; h = (h + 1) & mask_) {
    if (keys_[h] == key) return values_[h];
    if (keys_[h] == kNone) return kNone;
  }
}

void BpeTokenizer::encode_piece(std::string_view piece, std::vector<int32_t>& out,
                                uint64_t* work) const {
  if (piece.size() <= kScanMaxBytes)
    merge_scan(piece, out, work);
  else
    merge_heap(piece, out, work);
}

void BpeTokenizer::merge_scan(std::string_view piece, std::vector<int32_t>& out,
                              uint64_t* work) const {
  const size_t n = piece.size();
  if (n == 0) return;
  if (n == 1) {
    out.push_back(byte_token_[static_cast<unsigned char>(piece[0])]);
    return;
  }
  // ids[i]: the token at part i; rank[i]: the merge of parts i and i + 1 (or none).
  thread_local std::vector<int32_t> ids;
  thread_local std::vector<uint64_t> rank;
  ids.resize(n);
  rank.resize(n);
  for (size_t i = 0; i < n; ++i) ids[i] = byte_token_[static_cast<unsigned char>(piece[i])];
  size_t m = n;
  uint64_t steps = 0;
  for (size_t i = 0; i + 1 < m; ++i) rank[i] = find_pair(ids[i], ids[i + 1]);
  rank[m - 1] = kNone;
  while (m > 1) {
    size_t best = 0;
    for (size_t i = 1; i + 1 < m; ++i)
      if (rank[i] < rank[best]) best = i;  // ranks are unique: the leftmost of the lowest
    steps += m;
    if (rank[best] == kNone) break;
    ids[best] = static_cast<int32_t>(rank[best] & 0xFFFFFFFFu);
    for (size_t i = best + 1; i + 1 < m; ++i) {
      ids[i] = ids[i + 1];
      rank[i] = rank[i + 1];
    }
    steps += m - best;
    --m;
    rank[m - 1] = kNone;
    if (best + 1 < m)
      rank[best] = find_pair(ids[best], ids[best + 1]);
    else
      rank[best] = kNone;
    if (best > 0) rank[best - 1] = find_pair(ids[best - 1], ids[best]);
  }
  if (work) *work += steps;
  out.insert(out.end(), ids.begin(), ids.begin() + static_cast<std::ptrdiff_t>(m));
}

void BpeTokenizer::merge_heap(std::string_view piece, std::vector<int32_t>& out,
                              uint64_t* work) const {
  const size_t n = piece.size();
  if (n == 0) return;
  SG_CHECK(n < (uint64_t{1} << 32) - 1, "a piece of ", n,
           " bytes is too long to encode (4 GiB at most): split the text");
  // Part i starts at byte i of the piece; the live parts form a list (next, prev; kEnd ends it).
  // rank: the merge of the part and the part after it, or kEnd; kEnd also marks a part merged
  // into the one before it. One struct of 16 bytes per part, so that a merge touches few cache
  // lines. Local, not thread_local: a long piece's parts are not kept afterwards.
  constexpr uint32_t kEnd = ~uint32_t{0};
  struct Part {
    uint32_t rank;
    int32_t id;
    uint32_t next, prev;
  };
  auto rank_of = [this](int32_t a, int32_t b) {
    const uint64_t v = find_pair(a, b);
    return v == kNone ? kEnd : static_cast<uint32_t>(v >> 32);
  };
  std::vector<Part> parts(n);
  for (size_t i = 0; i < n; ++i)
    parts[i] = {kEnd, byte_token_[static_cast<unsigned char>(piece[i])],
                i + 1 < n ? static_cast<uint32_t>(i + 1) : kEnd,
                i > 0 ? static_cast<uint32_t>(i - 1) : kEnd};
  uint64_t steps = 0;
  auto greater = [&steps](uint32_t x, uint32_t y) {  // std's heaps are max-heaps: this makes min
    ++steps;
    return x > y;
  };
  // The pairs waiting, by rank: a min-heap of the ranks that have some, and for each such rank a
  // queue of the parts whose pair has it (an entry is stale once its part's rank differs:
  // skipped), sorted when its rank comes to the top of the heap and then taken left to right. So
  // the next pair is the leftmost of the lowest rank, as in merge_scan, and most of the work is
  // sequential. A queue at the top gets no new entries: the lower ranks are empty then, so every
  // later pair of rank <= r holds a token that the merges since made, each containing a token
  // made by merge r, (a, b) -> ab; such a token is longer than a and b, so the pair is never
  // (a, b). (Were it, the queue would be sorted again: right either way.)
  struct Queue {
    uint32_t rank = 0;
    bool sorted = false;
    size_t head = 0;  // run[head..] are still to take
    std::vector<uint32_t> run;
  };
  std::vector<Queue> queues;
  std::vector<uint32_t> ranks;  // the heap of ranks: each at most once, with a non-empty queue
  thread_local std::vector<uint32_t> queue_of;  // rank -> its queue in queues, or kEnd
  if (queue_of.size() < merge_list_.size()) queue_of.resize(merge_list_.size(), kEnd);
  struct Clean {  // leaves queue_of all kEnd for the next piece, even on bad_alloc
    std::vector<uint32_t>& of;
    const std::vector<Queue>& used;
    ~Clean() {
      for (const Queue& q : used) of[q.rank] = kEnd;
    }
  } clean{queue_of, queues};
  auto file = [&](uint32_t part) {  // files part's pair, which has a rank
    const uint32_t r = parts[part].rank;
    if (queue_of[r] == kEnd) {
      queue_of[r] = static_cast<uint32_t>(queues.size());
      queues.emplace_back().rank = r;
    }
    Queue& q = queues[queue_of[r]];
    if (q.head == q.run.size()) {
      ranks.push_back(r);
      std::push_heap(ranks.begin(), ranks.end(), greater);
    }
    q.run.push_back(part);
    q.sorted = false;
  };
  for (size_t i = 0; i + 1 < n; ++i) {
    parts[i].rank = rank_of(parts[i].id, parts[i + 1].id);
    if (parts[i].rank != kEnd) file(static_cast<uint32_t>(i));
  }
  // Sets the rank of the pair (part i, the part after it) and files it.
  auto rerank = [&](uint32_t i) {
    Part& p = parts[i];
    p.rank = p.next == kEnd ? kEnd : rank_of(p.id, parts[p.next].id);
    if (p.rank != kEnd) file(i);
  };
  while (!ranks.empty()) {
    const uint32_t r = ranks.front();
    Queue& q = queues[queue_of[r]];
    if (!q.sorted) {
      steps += q.run.size() - q.head;
      if (!std::is_sorted(q.run.begin() + static_cast<std::ptrdiff_t>(q.head), q.run.end()))
        std::sort(q.run.begin() + static_cast<std::ptrdiff_t>(q.head), q.run.end(),
                  [&steps](uint32_t x, uint32_t y) {
                    ++steps;
                    return x < y;
                  });
      q.sorted = true;
    }
    const uint32_t i = q.run[q.head++];
    steps += 2;
    if (q.head == q.run.size()) {  // emptied: off the heap of ranks
      std::pop_heap(ranks.begin(), ranks.end(), greater);
      ranks.pop_back();
      q.run.clear();
      q.head = 0;
    }
    Part& p = parts[i];
    if (p.rank != r) continue;  // stale (or merged away: kEnd)
    // Merge part i with the part after it, which leaves the list.
    Part& gone = parts[p.next];
    p.id = merged_of_rank_[r];
    gone.rank = kEnd;
    p.next = gone.next;
    if (gone.next != kEnd) parts[gone.next].prev = i;
    rerank(i);
    if (p.prev != kEnd) rerank(p.prev);
  }
  if (work) *work += steps;
  for (uint32_t i = 0; i != kEnd; i = parts[i].next) out.push_back(parts[i].id);
}

void BpeTokenizer::encode_ordinary(
    std::string_view text, std::vector<int32_t>& out,
    std::unordered_map<std::string, std::vector<int32_t>>& cache) const {
  pretokenize(text, [&](size_t b, size_t e) {
    const std::string_view piece = text.substr(b, e - b);
    if (piece.size() == 1) {
      out.push_back(byte_token_[static_cast<unsigned char>(piece[0])]);
      return;
    }
    if (piece.size() > 64) {  // long runs (digits, spaces) rarely repeat: not worth caching
      encode_piece(piece, out);
      return;
    }
    std::string key(piece);
    auto it = cache.find(key);
    if (it == cache.end()) {
      if (cache.size() > (1u << 18)) cache.clear();
      std::vector<int32_t> ids;
      encode_piece(piece, ids);
      it = cache.emplace(std::move(key), std::move(ids)).first;
    }
    out.insert(out.end(), it->second.begin(), it->second.end());
  });
}

namespace {
void check_utf8(std::string_view text) {
  const size_t bad = utf8_invalid_offset(std::string(text));
  SG_CHECK(bad == std::string::npos, "the text is not valid UTF-8 at byte offset ", bad,
           ": convert it to UTF-8 first (e.g. iconv -f latin1 -t utf-8)");
}
}  // namespace

std::vector<int32_t> BpeTokenizer::encode(std::string_view text, bool allow_special) const {
  return encode_parallel(text, allow_special, 1);
}

std::vector<int32_t> BpeTokenizer::encode_parallel(std::string_view text, bool allow_special,
                                                   int threads, size_t job_bytes) const {
  check_utf8(text);
  // Segments between special tokens (all of the text when they are not allowed).
  std::vector<std::pair<size_t, size_t>> segs;
  std::vector<bool> eot_after;
  size_t start = 0;
  if (allow_special && eot_ >= 0) {
    for (size_t p = text.find(kEndOfText); p != std::string_view::npos;
         p = text.find(kEndOfText, start)) {
      segs.emplace_back(start, p);
      eot_after.push_back(true);
      start = p + kEndOfText.size();
    }
  }
  segs.emplace_back(start, text.size());
  eot_after.push_back(false);

  // Cut each segment into jobs of about job_bytes at places that are piece boundaries whatever
  // the context: before a printable ASCII character that follows a lone newline (a newline after
  // a non-whitespace character). The newline is then a piece of its own either way (one
  // whitespace character before a non-space; or a run reaching the end of the job), and a
  // newline is never the optional space of a word. A longer whitespace run would be split
  // differently at the end of a job (\s+(?!\S) takes all of it there), so no cut goes there.
  struct Job {
    size_t b, e;
    bool eot;
  };
  std::vector<Job> jobs;
  for (size_t s = 0; s < segs.size(); ++s) {
    const size_t end = segs[s].second;
    size_t b = segs[s].first;
    while (b < end) {
      size_t e = threads == 1 ? end : std::min(end, b + std::max<size_t>(job_bytes, 2));
      while (e < end && !(text[e - 1] == '\n' && e - 2 >= b && text[e - 2] > ' ' &&
                          text[e - 2] < 0x7F && text[e] > ' ' && text[e] < 0x7F))
        ++e;
      jobs.push_back({b, e, false});
      b = e;
    }
    if (eot_after[s]) jobs.push_back({0, 0, true});
  }
  std::vector<std::vector<int32_t>> parts(jobs.size());
  auto run = [&](int64_t first, int64_t last) {
    std::unordered_map<std::string, std::vector<int32_t>> cache;
    for (int64_t j = first; j < last; ++j) {
      const Job& job = jobs[static_cast<size_t>(j)];
      if (job.eot) {
        parts[static_cast<size_t>(j)].push_back(eot_);
        continue;
      }
      parts[static_cast<size_t>(j)].reserve((job.e - job.b) / 3);
      encode_ordinary(text.substr(job.b, job.e - job.b), parts[static_cast<size_t>(j)], cache);
    }
  };
  if (threads == 1 || jobs.size() <= 1) {
    run(0, static_cast<int64_t>(jobs.size()));
  } else {
    ThreadPool pool(threads);
    pool.parallel_for(static_cast<int64_t>(jobs.size()),
                      [&](int64_t b, int64_t e, int) { run(b, e); });
  }
  if (parts.size() == 1) return std::move(parts[0]);
  size_t total = 0;
  for (const auto& p : parts) total += p.size();
  std::vector<int32_t> out;
  out.reserve(total);
  for (const auto& p : parts) out.insert(out.end(), p.begin(), p.end());
  return out;
}

std::string BpeTokenizer::decode(const std::vector<int32_t>& ids) const {
  std::string out;
  for (size_t i = 0; i < ids.size(); ++i) {
    SG_CHECK(ids[i] >= 0 && ids[i] < vocab_size(), "token id ", ids[i], " (at position ", i,
             ") is outside the vocabulary of ", vocab_size(), " tokens");
    out += bytes_[static_cast<size_t>(ids[i])];
  }
  return out;
}

ReadableBpe::ReadableBpe(const BpeTokenizer& tok) {
  for (int r = 0; r < tok.num_merges(); ++r) {
    const auto [a, b] = tok.merge(r);
    ranks_.emplace(std::make_pair(tok.token_bytes(a), tok.token_bytes(b)), r);
  }
  for (int32_t id = 0; id < tok.vocab_size(); ++id)
    if (id != tok.eot_id()) id_of_.emplace(tok.token_bytes(id), id);
}

std::vector<int32_t> ReadableBpe::encode_piece(std::string_view piece) const {
  std::vector<std::string> word;
  for (char c : piece) word.emplace_back(1, c);
  while (word.size() > 1) {
    // The pair with the lowest rank.
    int best = -1;
    std::pair<std::string, std::string> best_pair;
    for (size_t i = 0; i + 1 < word.size(); ++i) {
      const auto it = ranks_.find({word[i], word[i + 1]});
      if (it != ranks_.end() && (best < 0 || it->second < best)) {
        best = it->second;
        best_pair = it->first;
      }
    }
    if (best < 0) break;
    // Merge every occurrence of it, left to right.
    std::vector<std::string> next;
    for (size_t i = 0; i < word.size();) {
      if (i + 1 < word.size() && word[i] == best_pair.first && word[i + 1] == best_pair.second) {
        next.push_back(word[i] + word[i + 1]);
        i += 2;
      } else {
        next.push_back(word[i]);
        ++i;
      }
    }
    word = std::move(next);
  }
  std::vector<int32_t> out;
  for (const std::string& w : word) out.push_back(id_of_.at(w));
  return out;
}

}  // namespace scratchgpt
