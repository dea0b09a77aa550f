// eval.h: what 'scratchgpt eval' does: load a checkpoint and a prepared dataset, check that they
// belong together, and measure the loss on a split, over all of it (train/evaluate.h's full_loss)
// or over random batches as train logs it (estimate_loss); or the same over a text file
// (--text), tokenized with the checkpoint's tokenizer. Leaves out: strided evaluation.
#pragma once

#include <cstdint>
#include <cstdio>
#include <string>

#include "core/exec_context.h"

namespace scratchgpt {

struct EvalRequest {
  std::string checkpoint;
  std::string data_dir;      // a prepared dataset with the checkpoint's vocabulary, or
  std::string text;          // a UTF-8 text file, tokenized with the checkpoint's tokenizer and
                             // evaluated as a split (one of the two)
  bool allow_special = false;  // --text with a BPE: "<|endoftext|>" is the special token, not text
  std::string split = "val";  // "val" or "train"
  int batches = 0;            // 0: full_loss; > 0: estimate_loss over this many random batches
  int batch_size = 0;         // 0: the checkpoint's
  int block_size = 0;         // T; 0: the checkpoint's training context
  uint64_t seed = 1337;       // batch offsets when batches > 0
  int threads = 0;            // 0: all cores
  MatmulBackend matmul = MatmulBackend::kAuto;
  std::string simd;  // "": the default level; avx512, avx2 or scalar (capped at the CPU's)
  std::string device;  // "" or cpu, or cuda (run/exec.h)
  std::string weights;  // --weights: "" (fp32), fp32, bf16 or int8 for the matrix products
  Dtype dtype = Dtype::kFp32;  // --dtype: the products' inputs rounded to bf16 (run/exec.h)
};

struct EvalResult {
  double loss = 0;
  int64_t tokens = 0;  // predicted tokens the loss averages over
  double seconds = 0;
};

// Loads, checks (every check before any work) and evaluates; writes one summary line to out.
EvalResult evaluate_checkpoint(const EvalRequest& req, std::FILE* out);

}  // namespace scratchgpt
