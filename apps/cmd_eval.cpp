// cmd_eval.cpp: 'scratchgpt eval': options -> EvalRequest; src/run/eval.h does the work.
#include <cstdio>
#include <memory>

#include "commands.h"
#include "run/eval.h"

namespace scratchgpt::cli {

void register_eval(CLI::App& app) {
  auto r = std::make_shared<EvalRequest>();
  auto* cmd = app.add_subcommand(
      "eval",
      "Measure a checkpoint's loss on a prepared dataset (or a text file, --text): by default over "
      "every non-overlapping "
      "window of the split (deterministic, the figure to compare runs by), or with --batches N as "
      "train's noisy estimate over N random batches");
  cmd->add_option("--checkpoint", r->checkpoint, "a .safetensors file written by 'train'")
      ->required();
  cmd->add_option(
      "--data-dir", r->data_dir,
      "a dataset prepared with the checkpoint's vocabulary (default: none; give it or --text)");
  cmd->add_option("--text", r->text,
                  "instead of --data-dir: a UTF-8 text file, tokenized with the checkpoint's "
                  "tokenizer and evaluated as a split: windows x = ids[kT:(k+1)T], y = x shifted "
                  "by one, the remainder dropped (default: none)");
  cmd->add_flag("--allow-special", r->allow_special,
                "with --text and a BPE checkpoint: <|endoftext|> in the text becomes the special "
                "token (GPT-2's 50256), as 'tokenize --allow-special' reads it (default: it is "
                "text)");
  cmd->add_option("--split", r->split, "val or train")->capture_default_str();
  cmd->add_option("--batches", r->batches,
                  "0: the whole split once; N: the mean over N random batches, as train logs")
      ->capture_default_str();
  cmd->add_option("--batch-size", r->batch_size, "windows per forward (default: the checkpoint's)")
      ->check(CLI::PositiveNumber);
  cmd->add_option("--block-size", r->block_size,
                  "window length T (default: the checkpoint's training context)")
      ->check(CLI::PositiveNumber);
  cmd->add_option("--seed", r->seed, "seed of the random batches (with --batches)")
      ->check(CLI::NonNegativeNumber)
      ->capture_default_str();
  add_exec_options(cmd, r->threads, r->matmul, r->simd, r->device);
  add_weights_option(cmd, r->weights);
  add_dtype_option(cmd, r->dtype);
  cmd->footer(
      "Example:\n"
      "  scratchgpt eval --checkpoint out/small/best.safetensors --data-dir "
      "out/data/tinyshakespeare");
  cmd->callback([r] { evaluate_checkpoint(*r, stdout); });
}

}  // namespace scratchgpt::cli
