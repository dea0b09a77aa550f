// sample.h: what 'scratchgpt sample' does: load a checkpoint, rebuild its model and tokenizer
// (characters or BPE), encode the prompt and stream the generated text through the model's KV
// cache, flushed per token, holding back the bytes of a character a BPE token left incomplete.
// Leaves out: batched sampling of several prompts at once.
#pragma once

#include <cstdint>
#include <cstdio>
#include <functional>
#include <string>
#include <string_view>

#include "core/exec_context.h"
#include "sample/generate.h"
#include "sample/sampler.h"
#include "sample/utf8_stream.h"
#include "tokenizer/tokenizer.h"

namespace scratchgpt {

struct SampleRequest {
  std::string checkpoint;
  // nanoGPT's default start. Empty: a BPE with <|endoftext|> starts from that token (what GPT-2
  // saw between documents; a sample is a new document); a character model needs a prompt.
  std::string prompt = "\n";
  int max_new_tokens = 500;  // nanoGPT's max_new_tokens (--num-tokens is its alias)
  int num_samples = 1;
  uint64_t seed = 1337;
  int block_size = 0;  // context window; 0: the model's; larger than the model's is an Error
  ContextRule context_rule = ContextRule::kHalf;
  bool stop_at_eot = true;  // a BPE with <|endoftext|>: a sample ends when it draws that token
  // nanoGPT's sample.py seeds, then builds the model (its construction and init draw from the
  // generator), then samples: with nanogpt_rng the seeded Rng first makes those same draws.
  bool nanogpt_rng = false;
  SamplingOptions sampling;
  int threads = 0;  // 0: all cores
  MatmulBackend matmul = MatmulBackend::kAuto;
  std::string simd;  // "": the default level; avx512, avx2 or scalar (capped at the CPU's)
  std::string device;  // "" or cpu, or cuda (run/exec.h)
  std::string weights;  // --weights: "" (fp32), fp32, bf16 or int8 for the matrix products
};

// Writes prompt + generated text of each sample to out, samples separated by a line of dashes.
// A prompt longer than the context is cropped to its last tokens with a note on err.
void sample_from_checkpoint(const SampleRequest& req, std::FILE* out, std::FILE* err = stderr);

// Token ids in, text out as the tokens arrive: each token's bytes go through a Utf8HoldBack, so
// write() never sees part of a character; finish() writes what is still held. Ill-formed bytes
// (a model can emit tokens whose bytes never complete a character) are written as U+FFFD, as
// nanoGPT's sample.py prints them: the written text is exactly
// utf8_replace_invalid(tokenizer.decode(all ids)), and always valid UTF-8.
class TextStream {
 public:
  TextStream(const Tokenizer& tokenizer, std::function<void(std::string_view)> write)
      : tokenizer_(tokenizer), write_(std::move(write)) {}
  void put(int32_t id);
  void finish();

 private:
  const Tokenizer& tokenizer_;
  std::function<void(std::string_view)> write_;
  Utf8HoldBack hold_;
};

}  // namespace scratchgpt
