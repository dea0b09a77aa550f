// model_factory.h: builds the model a TrainConfig names ("bigram" or "gpt") behind the
// LanguageModel interface, so the commands never need to know which model they drive; and the
// memory each needs, to refuse a config that cannot fit before allocating it.
// Leaves out: models other than these two.
#pragma once

#include <cstdint>
#include <memory>
#include <new>

#include "core/arena.h"
#include "core/check.h"
#include "core/cpu_features.h"
#include "core/exec_context.h"
#include "nn/language_model.h"
#include "train/train_config.h"

namespace scratchgpt {

// cfg.gpt.vocab_size must be set (from the data or the checkpoint). Refuses, before allocating, a
// model whose weights alone would not fit in this machine's memory.
std::unique_ptr<LanguageModel> build_model(const TrainConfig& cfg,
                                           const ExecContext& ctx = ExecContext());

// The number of parameters the model of cfg has (what num_params() of the built model returns),
// counted from the shape alone, without allocating it; double: no overflow whatever the config.
double param_count(const TrainConfig& cfg);

// Lower bounds, in bytes and in double (no overflow whatever the config), of what a model needs:
// its weights alone, and training at the config's B and T (weights, gradients, both AdamW moments,
// and the activations the model plans: 16 (B, T, C) tensors a block, 23 more, and 3 (B, T, V)
// for the logits, their softmax and its gradient; within a few percent of the slab). The true
// figures are higher; these only have to catch configs that cannot fit.
double weight_bytes(const TrainConfig& cfg);
double training_bytes_lower_bound(const TrainConfig& cfg);

// An Error naming the need, the machine's memory and the flags to lower when bytes exceed it.
void check_fits_in_memory(double bytes, const char* what, const char* fix);

// Runs f; an allocation that fails inside it (an Arena's OutOfMemory, std::bad_alloc: the bounds
// above are lower bounds, and a process limit or other programs can leave less than the machine
// has) becomes the one-line Error of check_fits_in_memory: what needed it and the flags to lower.
template <typename F>
decltype(auto) with_memory_advice(const char* what, const char* fix, F&& f) {
  try {
    return f();
  } catch (const OutOfMemory& e) {
    fail(what, " needs more memory than this machine could give (allocating ",
         format_bytes(static_cast<double>(e.bytes)), " failed): ", fix);
  } catch (const std::bad_alloc&) {
    fail(what, " needs more memory than this machine could give (an allocation failed): ", fix);
  }
}

}  // namespace scratchgpt
