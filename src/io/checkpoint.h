// checkpoint.h: training checkpoints as safetensors files (written atomically and checksummed by
// core/safetensors.h, so a good checkpoint is never replaced by a partial one):
//   tensors   <param name>            F32 weights, named as Param::name
//             optim.m.<name>, optim.v.<name>   AdamW moments
//             rng.batch, rng.dropout  U8 generator states (exact resume)
//             state.prefetch  I32 (2, B, T): the batch already drawn for the next step
//                             (rng_stream "nanogpt" only; x then y)
//             state.best_val_loss     F32 (1)
//   metadata  format = "scratchgpt.checkpoint", format_version = "1", config (TrainConfig JSON),
//             vocab (CharTokenizer JSON) for a character model, or tokenizer ({"type": "bpe",
//             "name", "encoder.json", "vocab.bpe": the two files' text}) for a BPE one,
//             iter, last_eval_iter, best_val_loss (text)
// A weights-only checkpoint (what import and export --format scratchgpt write) holds the weights,
// the format, config and tokenizer metadata and contents = "weights": eval, sample and
// train --init-from read it; --resume, which needs the optimizer, refuses it.
// It reads and writes the run's two plain descriptions, TrainConfig and TrainState (train/), and
// nothing else of train/: the trainer itself never includes io/.
// Leaves out: sharded checkpoints, half-precision weights.
#pragma once

#include <string>
#include <vector>

#include "core/safetensors.h"
#include "nn/language_model.h"
#include "tokenizer/tokenizer.h"
#include "train/train_config.h"
#include "train/train_state.h"

namespace scratchgpt {

void save_checkpoint(const std::string& path, LanguageModel& model, const TrainConfig& cfg,
                     const Tokenizer& tokenizer, const TrainState& state);

// weights: tensors under the Param names (F32), as a model's params() has them. user: a path the
// user named (import --out, export --out), written under the rule of core/atomic_file.h.
void save_weights_checkpoint(const std::string& path, SafeTensors weights, const TrainConfig& cfg,
                             const Tokenizer& tokenizer, const UserOutput* user = nullptr);

struct Checkpoint {
  std::string path;
  bool weights_only = false;  // no optimizer moments, generators or counters
  TrainConfig cfg;
  Tokenizer tokenizer;
  TrainState state;
  SafeTensors st;
};

// Missing, truncated, corrupted or foreign files are an Error naming the path and the fix.
// nanoGPT's out/ckpt.pt (a zip) is read as a weights-only checkpoint (io/gpt2_read.h's
// read_nanogpt; a character model's vocabulary from its meta.pkl), so train --init-from takes it.
Checkpoint load_checkpoint(const std::string& path);
// The checks of load_checkpoint over a SafeTensors already read (path names it in errors).
Checkpoint checkpoint_from(SafeTensors st, const std::string& path);

// Copies the weights (and the AdamW moments if with_optimizer) into the model; a missing tensor
// or a shape mismatch is an Error.
void restore_params(const Checkpoint& ck, LanguageModel& model, bool with_optimizer);

}  // namespace scratchgpt
