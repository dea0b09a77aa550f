// char_tokenizer.h: CharTokenizer, the lecture's character-level tokenizer: the vocabulary is the
// sorted set of unique characters (Unicode code points, as nanoGPT's shakespeare_char), and a
// token id is a character's index in it. Serialised as JSON (vocab.json, checkpoint metadata).
// Leaves out: byte-pair encoding, unknown-character fallback (unknown characters are an Error).
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

namespace scratchgpt {

class CharTokenizer {
 public:
  CharTokenizer() = default;

  // Vocabulary of a text: its unique code points, sorted. Invalid UTF-8 is an Error naming the
  // byte offset; an empty text is an Error.
  static CharTokenizer from_text(const std::string& utf8_text);
  // From a list of characters (each one code point, sorted, unique; checked).
  static CharTokenizer from_chars(const std::vector<std::string>& chars);
  // {"type": "char", "vocab_size": V, "chars": [...]} as written by to_json().
  static CharTokenizer from_json(const std::string& json_text);
  std::string to_json() const;
  // nanoGPT's meta.pkl ({'vocab_size', 'itos', 'stoi'}, prepare.py's) through the restricted
  // unpickler (core/pickle.h): itos must be ids 0..n-1 in order of sorted characters, stoi its
  // inverse, vocab_size their count; path names the file in errors.
  static CharTokenizer from_meta_pkl(const uint8_t* data, size_t size, const std::string& path);
  // to meta.pkl's bytes (protocol 2), which Python's pickle.load reads as prepare.py's dict.
  std::string to_meta_pkl() const;

  int vocab_size() const { return static_cast<int>(chars_.size()); }
  // Token ids of a text; characters outside the vocabulary are an Error that names them all.
  std::vector<int32_t> encode(const std::string& utf8_text) const;
  std::string decode(const std::vector<int32_t>& ids) const;  // ids out of range are an Error
  const std::string& decode_one(int32_t id) const;
  const std::vector<std::string>& chars() const { return chars_; }  // sorted unique code points

 private:
  void build_index();
  std::vector<std::string> chars_;               // id -> UTF-8 bytes of one code point
  std::array<int32_t, 128> ascii_{};             // fast path: ASCII code point -> id or -1
  std::unordered_map<uint32_t, int32_t> index_;  // code point -> id (all of them)
};

}  // namespace scratchgpt
