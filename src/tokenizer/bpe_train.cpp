// bpe_train.cpp: see bpe_train.h.
#include "tokenizer/bpe_train.h"

#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <queue>
#include <set>
#include <unordered_map>

#include "core/atomic_file.h"
#include "core/check.h"
#include "core/utf8.h"
#include "tokenizer/bpe.h"
#include "tokenizer/pretokenize.h"

namespace scratchgpt {

namespace {

uint64_t key(int32_t a, int32_t b) {
  return static_cast<uint64_t>(static_cast<uint32_t>(a)) << 32 | static_cast<uint32_t>(b);
}

struct Words {
  std::vector<std::vector<int32_t>> symbols;  // each distinct piece as token ids
  std::vector<int64_t> count;                 // how often it occurs
};

Words count_pieces(std::string_view text) {
  const size_t bad = utf8_invalid_offset(std::string(text));
  SG_CHECK(bad == std::string::npos, "the text is not valid UTF-8 at byte offset ", bad,
           ": convert it to UTF-8 first (e.g. iconv -f latin1 -t utf-8)");
  std::unordered_map<std::string_view, int64_t> counts;
  pretokenize(text, [&](size_t b, size_t e) { ++counts[text.substr(b, e - b)]; });
  // In text order of first occurrence would need another pass; sort for determinism instead.
  std::vector<std::pair<std::string_view, int64_t>> sorted(counts.begin(), counts.end());
  std::sort(sorted.begin(), sorted.end());
  Words w;
  for (const auto& [piece, n] : sorted) {
    std::vector<int32_t> s;
    for (char c : piece) s.push_back(static_cast<unsigned char>(c));
    w.symbols.push_back(std::move(s));
    w.count.push_back(n);
  }
  return w;
}

// The id of the merged token: an existing token with the same bytes, or a new one.
int32_t add_token(TrainedBpe& bpe, std::map<std::string, int32_t>& id_of, int32_t a, int32_t b) {
  std::string bytes = bpe.tokens[static_cast<size_t>(a)] + bpe.tokens[static_cast<size_t>(b)];
  const auto it = id_of.find(bytes);
  if (it != id_of.end()) return it->second;
  const auto id = static_cast<int32_t>(bpe.tokens.size());
  bpe.tokens.push_back(bytes);
  id_of.emplace(std::move(bytes), id);
  return id;
}

// A tokenizer needs at least one merge (BpeTokenizer::load refuses a vocab.bpe without): the
// vocabulary must have room for one, and the text must hold a pair to merge.
constexpr int kLeastVocabSize = 256 + 1 + 1;  // the bytes, one merge, <|endoftext|>

TrainedBpe start(std::string_view text, int vocab_size, std::map<std::string, int32_t>& id_of) {
  const bool small = vocab_size < kLeastVocabSize;
  SG_CHECK(!text.empty() || small,
           "the input has no text: give --input a UTF-8 text to learn the merges from");
  SG_CHECK(!small, text.empty() ? "the input has no text, and " : "", "--vocab-size ", vocab_size,
           " leaves no room for a merge: give --vocab-size ", kLeastVocabSize,
           " or more (the 256 bytes, the merges and <|endoftext|>)",
           text.empty() ? ", and a UTF-8 text to learn the merges from" : "");
  TrainedBpe bpe;
  for (int b = 0; b < 256; ++b) {
    bpe.tokens.emplace_back(1, static_cast<char>(b));
    id_of.emplace(bpe.tokens.back(), b);
  }
  return bpe;
}

void finish(TrainedBpe& bpe) {
  SG_CHECK(!bpe.merges.empty(),
           "the input has nothing to merge (each piece of it, as GPT-2's pre-tokenizer splits it, "
           "is one byte): give a longer UTF-8 text");
  bpe.eot = static_cast<int32_t>(bpe.tokens.size());
  bpe.tokens.emplace_back("<|endoftext|>");
}

// Replaces every non-overlapping (a, b) in s, left to right, by m.
void merge_in(std::vector<int32_t>& s, int32_t a, int32_t b, int32_t m) {
  size_t out = 0;
  for (size_t i = 0; i < s.size();) {
    if (i + 1 < s.size() && s[i] == a && s[i + 1] == b) {
      s[out++] = m;
      i += 2;
    } else {
      s[out++] = s[i++];
    }
  }
  s.resize(out);
}

}  // namespace

TrainedBpe train_bpe_readable(std::string_view text, int vocab_size) {
  std::map<std::string, int32_t> id_of;
  TrainedBpe bpe = start(text, vocab_size, id_of);
  Words w = count_pieces(text);
  while (static_cast<int>(bpe.tokens.size()) + 1 < vocab_size) {
    std::map<std::pair<int32_t, int32_t>, int64_t> pairs;  // ordered: ties -> smallest pair
    for (size_t i = 0; i < w.symbols.size(); ++i)
      for (size_t j = 0; j + 1 < w.symbols[i].size(); ++j)
        pairs[{w.symbols[i][j], w.symbols[i][j + 1]}] += w.count[i];
    if (pairs.empty()) break;
    auto best = pairs.begin();
    for (auto it = pairs.begin(); it != pairs.end(); ++it)
      if (it->second > best->second) best = it;
    const auto [a, b] = best->first;
    const int32_t m = add_token(bpe, id_of, a, b);
    bpe.merges.emplace_back(a, b);
    for (auto& s : w.symbols) merge_in(s, a, b, m);
  }
  finish(bpe);
  return bpe;
}

TrainedBpe train_bpe(std::string_view text, int vocab_size) {
  std::map<std::string, int32_t> id_of;
  TrainedBpe bpe = start(text, vocab_size, id_of);
  Words w = count_pieces(text);
  // Pair counts, and the pieces each pair occurs in (updated as merges change the pieces).
  std::unordered_map<uint64_t, int64_t> count;
  std::unordered_map<uint64_t, std::set<int32_t>> where;
  for (size_t i = 0; i < w.symbols.size(); ++i)
    for (size_t j = 0; j + 1 < w.symbols[i].size(); ++j) {
      const uint64_t k = key(w.symbols[i][j], w.symbols[i][j + 1]);
      count[k] += w.count[i];
      where[k].insert(static_cast<int32_t>(i));
    }
  // Max-heap of (count, pair), ties to the smallest pair; stale entries are skipped when popped.
  using Entry = std::pair<int64_t, uint64_t>;
  auto worse = [](const Entry& x, const Entry& y) {
    return x.first != y.first ? x.first < y.first : x.second > y.second;
  };
  std::priority_queue<Entry, std::vector<Entry>, decltype(worse)> heap(worse);
  for (const auto& [k, n] : count) heap.emplace(n, k);
  while (static_cast<int>(bpe.tokens.size()) + 1 < vocab_size && !heap.empty()) {
    const auto [n, k] = heap.top();
    heap.pop();
    const auto it = count.find(k);
    if (it == count.end() || it->second != n || n <= 0) continue;  // stale
    const auto a = static_cast<int32_t>(k >> 32), b = static_cast<int32_t>(k & 0xFFFFFFFFu);
    const int32_t m = add_token(bpe, id_of, a, b);
    bpe.merges.emplace_back(a, b);
    // Re-count the pieces that hold (a, b): remove their old pairs, merge, add the new ones.
    const std::set<int32_t> pieces = where[k];
    std::unordered_map<uint64_t, int64_t> delta;
    for (const int32_t i : pieces) {
      std::vector<int32_t>& s = w.symbols[static_cast<size_t>(i)];
      const int64_t c = w.count[static_cast<size_t>(i)];
      for (size_t j = 0; j + 1 < s.size(); ++j) delta[key(s[j], s[j + 1])] -= c;
      for (size_t j = 0; j + 1 < s.size(); ++j) where[key(s[j], s[j + 1])].erase(i);
      merge_in(s, a, b, m);
      for (size_t j = 0; j + 1 < s.size(); ++j) {
        delta[key(s[j], s[j + 1])] += c;
        where[key(s[j], s[j + 1])].insert(i);
      }
    }
    for (const auto& [dk, d] : delta) {
      if (d == 0) continue;
      int64_t& total = count[dk];
      total += d;
      if (total > 0) heap.emplace(total, dk);
    }
  }
  finish(bpe);
  return bpe;
}

void save_bpe(const TrainedBpe& bpe, const std::string& dir) {
  auto spelled = [](const std::string& bytes) {
    std::string s;
    for (char c : bytes) s += byte_to_unicode(static_cast<uint8_t>(c));
    return s;
  };
  nlohmann::json enc = nlohmann::json::object();
  for (size_t id = 0; id < bpe.tokens.size(); ++id)
    enc[static_cast<int32_t>(id) == bpe.eot ? bpe.tokens[id] : spelled(bpe.tokens[id])] = id;
  std::string merges = "#version: 0.2\n";
  for (const auto& [a, b] : bpe.merges)
    merges += spelled(bpe.tokens[static_cast<size_t>(a)]) + " " +
              spelled(bpe.tokens[static_cast<size_t>(b)]) + "\n";
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  SG_CHECK(!ec, "cannot create --out ", dir, ": ", ec.message());
  write_file_atomic((std::filesystem::path(dir) / "encoder.json").string(), enc.dump() + "\n");
  write_file_atomic((std::filesystem::path(dir) / "vocab.bpe").string(), merges);
}

}  // namespace scratchgpt
