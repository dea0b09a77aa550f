// tokenizer.h: Tokenizer, the one tokenizer a dataset and a checkpoint carry: the lecture's
// characters (char_tokenizer.h) or a byte-level BPE (bpe.h: GPT-2's, or one trained with
// 'tokenizer train'). A BPE keeps its two files' text, so a checkpoint can hold them and a
// sampler needs nothing else. Leaves out: tokenizers of other families (SentencePiece).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "tokenizer/bpe.h"
#include "tokenizer/char_tokenizer.h"

namespace scratchgpt {

class Tokenizer {
 public:
  Tokenizer() = default;
  Tokenizer(CharTokenizer chars) : chars_(std::move(chars)) {}  // NOLINT: a char vocabulary is one
  // A BPE from the text of its encoder.json and vocab.bpe; name says where it came from ("gpt2"
  // or a directory) in messages.
  static Tokenizer bpe(const std::string& name, std::string encoder_json, std::string vocab_bpe);
  // The same from its files: "gpt2" (the bundled data/gpt2/) or a directory with both.
  static Tokenizer bpe(const std::string& gpt2_or_dir);

  bool is_bpe() const { return bpe_ != nullptr; }
  const CharTokenizer& chars() const { return chars_; }
  const BpeTokenizer& bpe() const { return *bpe_; }
  const std::string& name() const { return name_; }
  const std::string& encoder_json() const { return encoder_json_; }
  const std::string& vocab_bpe() const { return vocab_bpe_; }

  int vocab_size() const { return bpe_ ? bpe_->vocab_size() : chars_.vocab_size(); }
  // Characters outside a char vocabulary, or invalid UTF-8, are an Error naming them.
  std::vector<int32_t> encode(const std::string& text) const;
  // One token's bytes (a BPE token may hold part of a character: write the bytes as they come).
  const std::string& decode_one(int32_t id) const;
  std::string decode(const std::vector<int32_t>& ids) const;
  // The same vocabulary: the same characters, or the same two files.
  bool same_as(const Tokenizer& other) const;
  std::string describe() const;  // "65 characters", "BPE gpt2 (50257 tokens)"

 private:
  CharTokenizer chars_;
  std::shared_ptr<const BpeTokenizer> bpe_;
  std::string name_, encoder_json_, vocab_bpe_;
};

}  // namespace scratchgpt
