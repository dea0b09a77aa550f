// cmd_sample.cpp: 'scratchgpt sample': options -> SampleRequest; src/run/sample.h does the work.
#include <cstdio>
#include <memory>

#include "commands.h"
#include "run/sample.h"

namespace scratchgpt::cli {

void register_sample(CLI::App& app) {
  auto r = std::make_shared<SampleRequest>();
  auto* cmd = app.add_subcommand(
      "sample", "Generate text from a trained checkpoint, streamed character by character");
  cmd->add_option("--checkpoint", r->checkpoint, "a .safetensors file written by 'train'")
      ->required();
  cmd->add_option("--prompt", r->prompt, "text to continue (default: a newline)");
  cmd->add_option("--num-tokens", r->num_tokens, "characters to generate per sample")
      ->capture_default_str();
  cmd->add_option("--num-samples", r->num_samples, "independent samples")->capture_default_str();
  cmd->add_option("--temperature", r->sampling.temperature, "softmax temperature (> 0)")
      ->capture_default_str();
  cmd->add_option("--top-k", r->sampling.top_k, "keep the k most likely tokens (0: all)")
      ->capture_default_str();
  cmd->add_option("--top-p", r->sampling.top_p, "keep the smallest set with this mass (1: all)")
      ->capture_default_str();
  cmd->add_option("--seed", r->seed, "random seed")
      ->check(CLI::NonNegativeNumber)
      ->capture_default_str();
  cmd->add_option("--block-size", r->block_size,
                  "context window (default: the model's; at most the model's)")
      ->check(CLI::PositiveNumber);
  add_exec_options(cmd, r->threads, r->matmul);
  cmd->callback([r] { sample_from_checkpoint(*r, stdout); });
}

}  // namespace scratchgpt::cli
