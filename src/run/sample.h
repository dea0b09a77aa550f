// sample.h: what 'scratchgpt sample' does: load a checkpoint, rebuild its model and
// vocabulary, encode the prompt and stream generated characters (flushed per token) through the
// model's KV cache. Leaves out: batched sampling of several prompts at once.
#pragma once

#include <cstdint>
#include <cstdio>
#include <string>

#include "core/exec_context.h"
#include "sample/sampler.h"

namespace scratchgpt {

struct SampleRequest {
  std::string checkpoint;
  std::string prompt = "\n";  // nanoGPT's default start
  int num_tokens = 500;
  int num_samples = 1;
  uint64_t seed = 1337;
  int block_size = 0;  // context window; 0: the model's; larger than the model's is an Error
  SamplingOptions sampling;
  int threads = 0;  // 0: all cores
  MatmulBackend matmul = MatmulBackend::kAuto;
};

// Writes prompt + generated text of each sample to out, samples separated by a line of dashes.
void sample_from_checkpoint(const SampleRequest& req, std::FILE* out);

}  // namespace scratchgpt
