// eval_text_test.cpp: 'eval --text FILE' tokenizes FILE with the checkpoint's tokenizer and
// evaluates it as a split. Identity: 'prepare' puts the text's last 10% (from the code point that
// starts it) into val.bin, tokenized on its own; so --text of a file holding exactly that part
// prints the same line as --data-dir of the prepared directory, for the whole text and for
// shorter windows (--block-size), for a character model and for a GPT-2 BPE model. --allow-special
// counts <|endoftext|> as one token, as 'tokenize --allow-special' does. Bad requests are one error
// line.
#include <gtest/gtest.h>

#include <cstdio>
#include <map>
#include <string>
#include <vector>

#include "data/dataset.h"
#include "test_util.h"
#include "train_cli_util.h"

using namespace scratchgpt::test;

namespace {

struct Case {
  std::string dir, data, checkpoint, val_text;
};

// A tiny GPT trained for a few steps on a slice of Tiny Shakespeare prepared with `tokenizer`;
// val_text is the part of the text prepare's val split holds (the text is ASCII: characters are
// bytes).
Case trained(const std::string& name, const std::string& tokenizer, const std::string& preset) {
  // Each model is trained once per process (the tests share them: under ASan a BPE model's
  // training costs tens of seconds).
  static std::map<std::string, Case> done;
  if (const auto it = done.find(name); it != done.end()) return it->second;
  Case& c = done[name];
  c.dir = scratch_dir(name);
  // Under the sanitizers a third of the text: each eval there costs a second per 10k characters.
  const std::string text = shakespeare(kSanitized ? 12000 : 30000);
  spit(c.dir + "/input.txt", text);
  const CliResult p = run_cli("prepare --tokenizer " + tokenizer + " --input '" + c.dir +
                              "/input.txt' --out-dir '" + c.dir + "/data'");
  EXPECT_EQ(p.rc, 0) << p.err;
  c.data = c.dir + "/data";
  c.checkpoint = c.dir + "/run/last.safetensors";
  // Under the sanitizers 2 steps, not 10: a step of GPT-2's vocabulary costs a second there, and
  // what the tests need is a checkpoint, not a trained model.
  const std::string iters = kSanitized ? "2" : "10";
  const CliResult t = run_cli("train --preset " + preset +
                              " --n-layer 1 --n-head 2 --n-embd 16 --block-size 16 --batch-size 4 "
                              "--max-iters " + iters + " --eval-interval " + iters +
                              " --eval-iters 1 --data-dir '" + c.data + "' --out-dir '" + c.dir +
                              "/run'");
  EXPECT_EQ(t.rc, 0) << t.err;
  c.val_text = text.substr(static_cast<size_t>(static_cast<double>(text.size()) * 0.9));
  spit(c.dir + "/val.txt", c.val_text);
  return c;
}

// "val loss 4.1234 (perplexity ...) over N tokens: W windows of T, all of the split, ..." ->
// everything up to the timing, with the leading word dropped.
std::string figures(const CliResult& r) {
  EXPECT_EQ(r.rc, 0) << r.err;
  const size_t from = r.out.find(" loss "), to = r.out.find(", all of the ");
  if (from == std::string::npos || to == std::string::npos) {
    ADD_FAILURE() << "unexpected eval output: [" << r.out << "]";
    return "";
  }
  return r.out.substr(from, to - from);
}

void expect_text_equals_val_split(const Case& c) {
  const std::string base = "eval --checkpoint '" + c.checkpoint + "' --threads 1 ";
  // Under the sanitizers (a BPE eval there takes seconds) the middle window is left out.
  std::vector<std::string> extras = {"", "--block-size 8", "--block-size 5 --batch-size 3"};
  if (kSanitized) extras.erase(extras.begin() + 1);
  CliResult whole;  // --text at the model's own block size
  for (const std::string& extra : extras) {
    SCOPED_TRACE(extra);
    const CliResult split = run_cli(base + "--data-dir '" + c.data + "' " + extra);
    const CliResult text = run_cli(base + "--text '" + c.dir + "/val.txt' " + extra);
    EXPECT_EQ(figures(text), figures(split));
    EXPECT_EQ(text.out.rfind("text loss ", 0), 0u) << text.out;
    if (extra.empty()) whole = text;
  }
  // The token count: every whole window of T=16, the remainder dropped.
  const scratchgpt::Dataset ds = scratchgpt::Dataset::load(c.data);
  const long long n = static_cast<long long>(ds.val.size());
  const CliResult& text = whole;
  EXPECT_NE(text.out.find("over " + std::to_string((n - 1) / 16 * 16) +
                          " tokens: " + std::to_string((n - 1) / 16) + " windows of 16"),
            std::string::npos)
      << text.out;
}

}  // namespace

TEST(EvalText, CharModelTextEqualsTheValSplit) {
  expect_text_equals_val_split(trained("eval_text_char", "char", "shakespeare-char-small"));
}

TEST(EvalText, Gpt2BpeModelTextEqualsTheValSplit) {
  expect_text_equals_val_split(trained("eval_text_bpe", "gpt2", "shakespeare-bpe"));
}

TEST(EvalText, BadRequestsAreOneErrorLine) {
  const Case c = trained("eval_text_char", "char", "shakespeare-char-small");
  const std::string base = "eval --checkpoint '" + c.checkpoint + "' ";
  expect_error(run_cli(base + "--text '" + c.dir + "/val.txt' --data-dir '" + c.data + "'"),
               "pass one");
  expect_error(run_cli(base), "--text");
  expect_error(run_cli(base + "--text '" + c.dir + "/nope.txt'"), "nope.txt");
  spit(c.dir + "/short.txt", "First Citizen");
  expect_error(run_cli(base + "--text '" + c.dir + "/short.txt'"), "short.txt");
  spit(c.dir + "/alien.txt", std::string(100, 'a') + "\xe2\x82\xac");  // a euro sign
  expect_error(run_cli(base + "--text '" + c.dir + "/alien.txt'"), "character");
}

// --allow-special: "<|endoftext|>" in the text is one token (GPT-2's 50256) instead of the seven of
// its spelling. The oracle for the count is 'tokenize' (tested against tiktoken) with the same
// flag.
TEST(EvalText, AllowSpecialReadsEndOfTextAsTheSpecialToken) {
  const Case c = trained("eval_text_bpe", "gpt2", "shakespeare-bpe");
  // Pieces of the text without white space at their ends, joined by "\n<|endoftext|>\n": as text,
  // <|endoftext|> is 7 tokens ("<", "|", "end", "of", "text", "|", ">"), as the special token 1,
  // and the newlines around it are cut alike either way, so the counts differ by 6 a separator.
  std::string text;
  long long eots = 0;
  for (size_t i = 0; i < c.val_text.size(); i += 100) {
    std::string piece = c.val_text.substr(i, 100);
    piece.erase(0, piece.find_first_not_of(" \n"));
    piece.erase(piece.find_last_not_of(" \n") + 1);
    if (piece.empty()) continue;
    if (!text.empty()) text += "\n<|endoftext|>\n", ++eots;
    text += piece;
  }
  spit(c.dir + "/eot.txt", text);
  const std::string base = "eval --checkpoint '" + c.checkpoint + "' --threads 1 --block-size 4 ";
  long long counts[2] = {0, 0};
  for (int allow = 0; allow < 2; ++allow) {
    const std::string flag = allow ? "--allow-special " : "";
    const CliResult ids = run_cli("tokenize " + flag + "--input '" + c.dir + "/eot.txt'");
    ASSERT_EQ(ids.rc, 0) << ids.err;
    long long m = 0;
    for (size_t pos = 0; (pos = ids.out.find_first_of("0123456789", pos)) != std::string::npos;
         pos = ids.out.find_first_not_of("0123456789", pos))
      ++m;
    counts[allow] = m;
    const CliResult r = run_cli(base + flag + "--text '" + c.dir + "/eot.txt'");
    ASSERT_EQ(r.rc, 0) << r.err;
    EXPECT_NE(r.out.find("over " + std::to_string((m - 1) / 4 * 4) +
                         " tokens: " + std::to_string((m - 1) / 4) + " windows of 4"),
              std::string::npos)
        << flag << r.out;
  }
  EXPECT_GT(eots, 5);
  EXPECT_EQ(counts[0] - counts[1], 6 * eots)
      << "each <|endoftext|> is 7 tokens as text, 1 as special";
  // A character model has no special token: the flag is refused, with the fix.
  const Case ch = trained("eval_text_char", "char", "shakespeare-char-small");
  expect_error(run_cli("eval --checkpoint '" + ch.checkpoint + "' --allow-special --text '" +
                       ch.dir + "/val.txt'"),
               "--allow-special");
}
