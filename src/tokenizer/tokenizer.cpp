// tokenizer.cpp: see tokenizer.h.
#include "tokenizer/tokenizer.h"

#include "core/check.h"

namespace scratchgpt {

Tokenizer Tokenizer::bpe(const std::string& name, std::string encoder_json,
                         std::string vocab_bpe) {
  Tokenizer t;
  t.bpe_ = std::make_shared<const BpeTokenizer>(BpeTokenizer::parse(encoder_json, vocab_bpe, name));
  t.name_ = name;
  t.encoder_json_ = std::move(encoder_json);
  t.vocab_bpe_ = std::move(vocab_bpe);
  return t;
}

Tokenizer Tokenizer::bpe(const std::string& gpt2_or_dir) {
  BpeFiles f = BpeFiles::read(gpt2_or_dir);
  return bpe(gpt2_or_dir, std::move(f.encoder_json), std::move(f.vocab_bpe));
}

std::vector<int32_t> Tokenizer::encode(const std::string& text) const {
  return bpe_ ? bpe_->encode(text) : chars_.encode(text);
}

const std::string& Tokenizer::decode_one(int32_t id) const {
  if (!bpe_) return chars_.decode_one(id);
  SG_CHECK(id >= 0 && id < bpe_->vocab_size(), "token id ", id, " is outside the vocabulary of ",
           bpe_->vocab_size(), " tokens");
  return bpe_->token_bytes(id);
}

std::string Tokenizer::decode(const std::vector<int32_t>& ids) const {
  return bpe_ ? bpe_->decode(ids) : chars_.decode(ids);
}

bool Tokenizer::same_as(const Tokenizer& other) const {
  if (is_bpe() != other.is_bpe()) return false;
  if (!is_bpe()) return chars_.chars() == other.chars_.chars();
  return encoder_json_ == other.encoder_json_ && vocab_bpe_ == other.vocab_bpe_;
}

std::string Tokenizer::describe() const {
  if (!bpe_) return std::to_string(chars_.vocab_size()) + " characters";
  return "BPE " + name_ + " (" + std::to_string(bpe_->vocab_size()) + " tokens)";
}

}  // namespace scratchgpt
