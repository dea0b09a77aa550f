// char_tokenizer.cpp: see char_tokenizer.h.
#include "tokenizer/char_tokenizer.h"

#include <nlohmann/json.hpp>
#include <set>

#include "core/check.h"
#include "core/pickle.h"
#include "core/utf8.h"

namespace scratchgpt {

CharTokenizer CharTokenizer::from_text(const std::string& text) {
  SG_CHECK(!text.empty(), "the text is empty: a vocabulary needs at least one character");
  std::vector<uint8_t> seen(0x110000, 0);  // one flag per code point
  size_t pos = 0;
  uint32_t cp;
  while (pos < text.size()) {
    SG_CHECK(utf8_next(text, pos, &cp), "the text is not valid UTF-8 at byte offset ", pos,
             ": convert it to UTF-8 first (e.g. iconv -t UTF-8)");
    seen[cp] = 1;
  }
  CharTokenizer tok;
  for (uint32_t c = 0; c < seen.size(); ++c)
    if (seen[c]) tok.chars_.push_back(utf8_encode(c));
  tok.build_index();
  return tok;
}

CharTokenizer CharTokenizer::from_meta_pkl(const uint8_t* data, size_t size,
                                           const std::string& path) {
  const Pickle p(data, size, path);
  const PickleValue *n = p.root().get("vocab_size"), *itos = p.root().get("itos"),
                    *stoi = p.root().get("stoi");
  SG_CHECK(n && itos && stoi && n->is(PickleValue::Kind::kInt) && itos->is(PickleValue::Kind::kDict) &&
               stoi->is(PickleValue::Kind::kDict),
           path, " is not nanoGPT's meta.pkl of a character vocabulary (a dict of vocab_size, "
           "itos and stoi); a GPT-2-token dataset needs none");
  SG_CHECK(n->i > 0 && static_cast<size_t>(n->i) * 2 == itos->items.size() &&
               itos->items.size() == stoi->items.size(),
           path, ": vocab_size ", n->i, " but itos has ", itos->items.size() / 2, " entries and stoi ",
           stoi->items.size() / 2);
  std::vector<std::string> chars;
  for (size_t k = 0; k < itos->items.size(); k += 2) {
    const PickleValue *id = itos->items[k], *ch = itos->items[k + 1];
    SG_CHECK(id->is(PickleValue::Kind::kInt) && id->i == static_cast<int64_t>(k / 2) &&
                 ch->is(PickleValue::Kind::kStr),
             path, ": itos entry ", k / 2, " is not id ", k / 2, " -> a character");
    const PickleValue* back = stoi->get(ch->s);
    SG_CHECK(back && back->is(PickleValue::Kind::kInt) && back->i == id->i, path,
             ": stoi does not map itos[", id->i, "] back to ", id->i);
    chars.push_back(ch->s);
  }
  try {
    return from_chars(chars);
  } catch (const Error& e) {
    fail(path, ": ", e.what());
  }
}

std::string CharTokenizer::to_meta_pkl() const { return write_pickle_char_meta(chars_); }

CharTokenizer CharTokenizer::from_chars(const std::vector<std::string>& chars) {
  SG_CHECK(!chars.empty(), "the vocabulary is empty");
  CharTokenizer tok;
  tok.chars_ = chars;
  uint32_t prev = 0;
  for (size_t i = 0; i < chars.size(); ++i) {
    size_t pos = 0;
    uint32_t cp;
    SG_CHECK(utf8_next(chars[i], pos, &cp) && pos == chars[i].size(), "vocabulary entry ", i,
             " is not exactly one UTF-8 character");
    SG_CHECK(i == 0 || cp > prev, "vocabulary entries must be sorted and unique (entry ", i, " is ",
             describe_code_point(cp), ")");
    prev = cp;
  }
  tok.build_index();
  return tok;
}

void CharTokenizer::build_index() {
  ascii_.fill(-1);
  index_.clear();
  for (size_t i = 0; i < chars_.size(); ++i) {
    size_t pos = 0;
    uint32_t cp = 0;
    utf8_next(chars_[i], pos, &cp);
    index_[cp] = static_cast<int32_t>(i);
    if (cp < 128) ascii_[cp] = static_cast<int32_t>(i);
  }
}

CharTokenizer CharTokenizer::from_json(const std::string& json_text) {
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(json_text);
  } catch (const std::exception& e) {
    fail("the vocabulary is not valid JSON (", e.what(), ")");
  }
  SG_CHECK(j.is_object() && j.contains("chars") && j["chars"].is_array(),
           "the vocabulary JSON has no \"chars\" array");
  if (j.contains("type"))
    SG_CHECK(j["type"].is_string() && j["type"].get<std::string>() == "char", "vocabulary type ",
             j["type"].dump(), " is not supported (only \"char\")");
  std::vector<std::string> chars;
  for (const auto& c : j["chars"]) {
    SG_CHECK(c.is_string(), "vocabulary entries must be strings");
    chars.push_back(c.get<std::string>());
  }
  CharTokenizer tok = from_chars(chars);
  if (j.contains("vocab_size"))
    SG_CHECK(j["vocab_size"].is_number_integer() &&
                 j["vocab_size"].get<int64_t>() == tok.vocab_size(),
             "vocabulary says vocab_size ", j["vocab_size"].dump(), " but lists ",
             tok.vocab_size(), " characters");
  return tok;
}

std::string CharTokenizer::to_json() const {
  nlohmann::json j;
  j["type"] = "char";
  j["vocab_size"] = vocab_size();
  j["chars"] = chars_;
  return j.dump();
}

std::vector<int32_t> CharTokenizer::encode(const std::string& text) const {
  std::vector<int32_t> ids;
  ids.reserve(text.size());
  std::set<uint32_t> unknown;
  size_t pos = 0;
  uint32_t cp;
  while (pos < text.size()) {
    SG_CHECK(utf8_next(text, pos, &cp), "the text is not valid UTF-8 at byte offset ", pos);
    int32_t id = -1;
    if (cp < 128) {
      id = ascii_[cp];
    } else {
      auto it = index_.find(cp);
      if (it != index_.end()) id = it->second;
    }
    if (id < 0)
      unknown.insert(cp);
    else
      ids.push_back(id);
  }
  if (!unknown.empty()) {
    std::string list;
    int shown = 0;
    for (uint32_t c : unknown) {
      if (shown++ == 10) {
        list += ", ...";
        break;
      }
      list += (list.empty() ? "" : ", ") + describe_code_point(c);
    }
    fail(unknown.size(), " character(s) not in the vocabulary: ", list,
         ": use only characters of the training text");
  }
  return ids;
}

const std::string& CharTokenizer::decode_one(int32_t id) const {
  SG_CHECK(id >= 0 && id < vocab_size(), "token id ", id, " is outside the vocabulary [0, ",
           vocab_size(), ")");
  return chars_[id];
}

std::string CharTokenizer::decode(const std::vector<int32_t>& ids) const {
  std::string out;
  out.reserve(ids.size());
  for (int32_t id : ids) out += decode_one(id);
  return out;
}

}  // namespace scratchgpt
