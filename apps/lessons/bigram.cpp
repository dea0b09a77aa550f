// bigram.cpp: `scratchgpt lesson bigram`, the start of the lecture: Tiny Shakespeare's
// characters as the vocabulary, encode/decode, the train split, get_batch with
// torch.manual_seed(1337), the untrained BigramLanguageModel's loss (the lecture's 4.8786) and a
// 100-character sample drawn with torch.multinomial.
// PyTorch twin: lesson_bigram in tools/lesson_fixtures/lecture.py.
// Modules: src/tokenizer/char_tokenizer.h, src/nn/bigram.h.

#include "nn/bigram.h"

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <vector>

#include "core/check.h"
#include "core/rng.h"
#include "tokenizer/char_tokenizer.h"
#include "kernels/ref/softmax.h"
#include "lessons/lesson.h"

namespace scratchgpt::lessons {

namespace {

// A regular file checked before it is opened: opening a FIFO would wait for a writer forever.
bool readable(const std::string& path) {
  std::error_code ec;
  return std::filesystem::is_regular_file(path, ec) && std::ifstream(path).good();
}

// --data, else data/tinyshakespeare.txt in the working directory, else in the source tree.
std::string find_data(const std::string& flag) {
  if (!flag.empty()) {
    std::error_code ec;
    SG_CHECK(!std::filesystem::exists(flag, ec) || std::filesystem::is_regular_file(flag, ec),
             "--data '", flag,
             "' is not a regular file (a directory, device or pipe): pass the "
             "path of a UTF-8 text file");
    SG_CHECK(readable(flag), "cannot read --data '", flag, "': pass the path of a UTF-8 text file");
    return flag;
  }
  const std::string here = "data/tinyshakespeare.txt";
  if (readable(here)) return here;
  const std::string source = std::string(SCRATCHGPT_SOURCE_DIR) + "/" + here;
  if (readable(source)) return source;
  fail("cannot find data/tinyshakespeare.txt (looked in the working directory and in ",
       SCRATCHGPT_SOURCE_DIR, "): pass --data PATH");
}

std::vector<int64_t> widen(const int32_t* p, int64_t n) { return std::vector<int64_t>(p, p + n); }

}  // namespace

void lesson_bigram(const LessonOptions& opts, LessonOut& lout) {
  const std::string path = find_data(opts.data_path);
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  const std::string text = ss.str();

  step(lout, "The data set");
  const CharTokenizer tok = CharTokenizer::from_text(text);
  const std::vector<int32_t> data = tok.encode(text);  // (N) every character's id
  const int64_t n_chars = static_cast<int64_t>(data.size());
  say(lout, "Tiny Shakespeare (" + path + "), read as characters.");
  lout.line("length of dataset in characters: " + std::to_string(n_chars));
  step(lout, "The vocabulary");
  say(lout, "chars = sorted(list(set(text))): every distinct character, newline first:");
  std::string chars;
  for (const std::string& c : tok.chars()) chars += c;
  lout.line(chars);
  lout.line("vocab_size: " + std::to_string(tok.vocab_size()));

  step(lout, "A character-level tokenizer");
  say(lout, "encode maps each character to its index in chars; decode maps back.");
  const std::vector<int32_t> hii = tok.encode("hii there");
  std::string ids = "[";
  for (size_t i = 0; i < hii.size(); ++i) ids += (i ? ", " : "") + std::to_string(hii[i]);
  lout.line(ids + "]");
  lout.line(tok.decode(hii));

  step(lout, "The whole text as one tensor of token ids");
  show_size(lout, "data.shape:", {n_chars});
  std::vector<int64_t> head = widen(data.data(), 100);
  show(lout, "data[:100]:", head.data(), {100});

  step(lout, "Train split and blocks");
  say(lout,
      "The first 90% train, the rest validate. A block of block_size + 1 = 9 characters holds "
      "8 examples: each prefix (context) predicts the next character (target).");
  const int64_t n_train = static_cast<int64_t>(0.9 * static_cast<double>(n_chars));
  const int block_size = 8, batch_size = 4;
  show(lout, "train_data[:block_size+1]:", head.data(), {block_size + 1});
  for (int t = 0; t < block_size; ++t) {
    show(lout, "when input is", head.data(), {t + 1});
    show(lout, "the target is", head.data() + t + 1, {});
  }

  step(lout, "get_batch");
  say(lout,
      "torch.manual_seed(1337); ix = torch.randint(len(train_data) - block_size, "
      "(batch_size,)); x and y stack 4 random blocks, y shifted by one.");
  Rng rng(1337);
  int64_t ix[batch_size];
  rng.randint(ix, batch_size, 0, n_train - block_size);
  std::vector<int32_t> xb(batch_size * block_size), yb(xb.size());  // (B, T)
  for (int b = 0; b < batch_size; ++b)
    for (int t = 0; t < block_size; ++t) {
      xb[b * block_size + t] = data[ix[b] + t];
      yb[b * block_size + t] = data[ix[b] + t + 1];
    }
  std::vector<int64_t> xb64 = widen(xb.data(), xb.size()), yb64 = widen(yb.data(), yb.size());
  show_size(lout, "inputs:", {batch_size, block_size});
  show(lout, "", xb64.data(), {batch_size, block_size});
  show_size(lout, "targets:", {batch_size, block_size});
  show(lout, "", yb64.data(), {batch_size, block_size});

  step(lout, "The bigram model");
  say(lout,
      "torch.manual_seed(1337); BigramLanguageModel(vocab_size): each token reads the logits "
      "of the next token from row idx of a (65, 65) embedding table.");
  rng.manual_seed(1337);
  const int V = tok.vocab_size();
  Bigram model(V);
  model.init(rng);
  const float loss = model.forward(xb.data(), yb.data(), batch_size, block_size, nullptr);
  show_size(lout, "logits.shape:", {batch_size * block_size, V});
  say(lout, "Untrained, the loss should be about -ln(1/65) = 4.17; it is a little higher.");
  show_scalar(lout, "loss:", loss);

  step(lout, "Sampling 100 characters");
  say(lout,
      "generate: from idx = torch.zeros((1, 1)) (a newline), take the last position's "
      "logits, softmax, torch.multinomial(probs, num_samples=1), append, repeat.");
  std::vector<int32_t> idx = {0};  // (1, T)
  std::vector<float> probs(V);
  for (int i = 0; i < 100; ++i) {
    const int T = static_cast<int>(idx.size());
    model.forward(idx.data(), nullptr, 1, T, nullptr);
    const float* last = model.logits().data + static_cast<int64_t>(T - 1) * V;  // (V)
    ref::softmax_forward(probs.data(), last, 1, V);
    int64_t next = 0;
    rng.multinomial(&next, probs.data(), 1, V, 1, false);
    idx.push_back(static_cast<int32_t>(next));
  }
  lout.line(tok.decode(idx));
}

}  // namespace scratchgpt::lessons
