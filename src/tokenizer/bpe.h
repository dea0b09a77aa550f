// bpe.h: BpeTokenizer, GPT-2's byte-level byte-pair encoding (OpenAI's r50k_base, 50257 tokens),
// exact with OpenAI's tiktoken: the text's bytes are split by GPT-2's pre-tokenizer
// (pretokenize.h), each piece starts as one token per byte, and the adjacent pair of lowest merge
// rank is merged until no pair has a rank (a scan for it on short pieces, a heap of ranks and
// queues of pairs on long ones: O(n log n) in the piece's length); decode concatenates the
// tokens' bytes. The files are GPT-2's own: encoder.json (token -> id, bytes written through
// GPT-2's byte-to-unicode table) and vocab.bpe (the merges, best first). `<|endoftext|>` is text
// unless allow_special. Readable twin: ReadableBpe (GPT-2's encoder.py loop), tested to agree.
// Leaves out: other encodings (cl100k_base), special tokens other than <|endoftext|>.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace scratchgpt {

// The text of a BPE's two files: dir/encoder.json and dir/vocab.bpe ("gpt2" names the bundled
// data/gpt2/). A missing or unreadable file is an Error naming it.
struct BpeFiles {
  std::string encoder_json, vocab_bpe;
  static BpeFiles read(const std::string& gpt2_or_dir);
};

class BpeTokenizer {
 public:
  // Reads dir/encoder.json and dir/vocab.bpe. Missing or malformed files, a merge naming a token
  // encoder.json lacks, and a merge that spells <|endoftext|> are Errors naming the file, the line
  // and the fix.
  static BpeTokenizer load(const std::string& dir);
  // The same over the two files' contents (dir only names them in errors): the fuzzer's entry.
  static BpeTokenizer parse(const std::string& encoder_json, const std::string& vocab_bpe,
                            const std::string& dir);
  // The GPT-2 tokenizer shipped in the repo (data/gpt2/), found like the bundled dataset.
  static BpeTokenizer gpt2();

  // Token ids of text (UTF-8: invalid input is an Error naming the byte offset). allow_special:
  // "<|endoftext|>" is the special token (tiktoken's encode(allowed_special="all")); otherwise it
  // is text (encode_ordinary).
  std::vector<int32_t> encode(std::string_view text, bool allow_special = false) const;
  // The same, on `threads` threads (0: all cores): the text is cut into jobs of about job_bytes
  // at places that are piece boundaries in any context, so the ids are the same.
  std::vector<int32_t> encode_parallel(std::string_view text, bool allow_special, int threads,
                                       size_t job_bytes = size_t{1} << 20) const;
  // The bytes of the tokens (an id outside the vocabulary is an Error naming it). Byte-level BPE
  // can split a character across tokens, so a slice of ids may decode to partial UTF-8.
  std::string decode(const std::vector<int32_t>& ids) const;
  const std::string& token_bytes(int32_t id) const { return bytes_[static_cast<size_t>(id)]; }

  int vocab_size() const { return static_cast<int>(bytes_.size()); }
  int32_t eot_id() const { return eot_; }  // <|endoftext|>, or -1
  // llm.c's tokenizer file (gpt2_tokenizer.bin, train_gpt2.py's write_tokenizer, version 2): a
  // header of 256 int32 (20240328, 2, V, the <|endoftext|> id), then each token's bytes after
  // their length in one byte. train_gpt2.c decodes its samples with it. An Error when a token is
  // longer than 255 bytes or there is no <|endoftext|>.
  std::string llmc_tokenizer_file() const;
  int num_merges() const { return static_cast<int>(merge_list_.size()); }
  // Merge r (rank r, best first): the two tokens it joins.
  std::pair<int32_t, int32_t> merge(int r) const { return merge_list_[static_cast<size_t>(r)]; }

  // The ids of one pre-tokenized piece, merged by rank (the fast path, no cache): merge_scan on
  // pieces of up to kScanMaxBytes, merge_heap on longer ones. work, if given, grows by the steps
  // of the merge loop (see below).
  void encode_piece(std::string_view piece, std::vector<int32_t>& out,
                    uint64_t* work = nullptr) const;
  static constexpr size_t kScanMaxBytes = 192;  // about the crossover: bench/tokenizer_bench.cpp
  // encode_piece's two merge loops, exposed for the tests and benchmarks. Both merge the leftmost
  // of the pairs of lowest rank, one at a time, so they give the same ids. merge_scan finds it by
  // scanning every pair and closes the gap by moving the parts after it: O(n^2), the fastest on
  // short pieces (work: pairs compared and parts moved). merge_heap keeps the parts in a linked
  // list and the pairs in a min-heap of the ranks present, each with a queue of its pairs'
  // positions, sorted once: O(n log n) (work: comparisons of the heaps and sorts, entries taken).
  void merge_scan(std::string_view piece, std::vector<int32_t>& out,
                  uint64_t* work = nullptr) const;
  void merge_heap(std::string_view piece, std::vector<int32_t>& out,
                  uint64_t* work = nullptr) const;

 private:
  std::vector<std::string> bytes_;                       // id -> bytes
  int32_t byte_token_[256] = {};                         // byte -> the id of that one-byte token
  std::vector<std::pair<int32_t, int32_t>> merge_list_;  // rank -> (left, right)
  // (left << 32 | right) -> (rank << 32 | merged id), open addressing.
  std::vector<uint64_t> keys_, values_;
  uint64_t mask_ = 0;
  std::vector<int32_t> merged_of_rank_;  // rank -> merged id (merge_heap's; -1 for a repeat)
  int32_t eot_ = -1;

  uint64_t find_pair(int32_t a, int32_t b) const;  // (rank << 32 | id), or ~0 when no merge
  void encode_ordinary(std::string_view text, std::vector<int32_t>& out,
                       std::unordered_map<std::string, std::vector<int32_t>>& cache) const;
};

// GPT-2's encoder.py bpe() on one piece: merge every occurrence of the best-ranked pair, left to
// right, until none has a rank. The slow, obviously right twin of encode_piece (quadratic and
// worse: for pieces of a few kilobytes at most).
class ReadableBpe {
 public:
  explicit ReadableBpe(const BpeTokenizer& tok);
  std::vector<int32_t> encode_piece(std::string_view piece) const;

 private:
  std::map<std::pair<std::string, std::string>, int> ranks_;  // merge (bytes, bytes) -> rank
  std::map<std::string, int32_t> id_of_;                      // token bytes -> id
};

// GPT-2's bytes_to_unicode(): each byte as the printable character encoder.json writes it (as
// UTF-8). Printable Latin-1 bytes stand for themselves; the others map to U+0100 and up.
std::string byte_to_unicode(uint8_t b);

}  // namespace scratchgpt
