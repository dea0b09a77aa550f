// cmd_sample.cpp: 'scratchgpt sample': options -> SampleRequest; src/run/sample.h does the work.
#include <cstdio>
#include <memory>

#include "commands.h"
#include "run/sample.h"

namespace scratchgpt::cli {

void register_sample(CLI::App& app) {
  auto r = std::make_shared<SampleRequest>();
  auto* cmd = app.add_subcommand(
      "sample",
      "Generate text from a checkpoint with its tokenizer (characters or BPE), streamed as the "
      "tokens arrive");
  cmd->add_option("--checkpoint", r->checkpoint, "a .safetensors file written by 'train'")
      ->required();
  cmd->add_option(
      "--prompt", r->prompt,
      "text to continue (default: a newline, as nanoGPT). <|endoftext|> in it is GPT-2's "
      "special token. Empty: a BPE model starts from <|endoftext|>. A prompt longer "
      "than the context keeps its last tokens (a note on stderr)");
  cmd->add_option("--max-new-tokens,--num-tokens", r->max_new_tokens,
                  "tokens to generate per sample (nanoGPT's max_new_tokens; fewer if the sample "
                  "ends at <|endoftext|>)")
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
  cmd->add_option_function<std::string>(
         "--context-rule",
         [r](const std::string& name) {
           r->context_rule = enum_from_name<ContextRule>(kContextRuleNames, name, "--context-rule");
         },
         "when the context is full: 'half' keeps its last half and re-prefills it through the KV "
         "cache (fast; tokens after a crop see fewer tokens than nanoGPT's), 'slide' is "
         "nanoGPT's rule, exact and slower: every token sees the last block-size tokens, "
         "re-prefilled for each new token, so a seeded sample can match nanoGPT's")
      ->type_name("half|slide")
      ->default_str("half");
  cmd->add_flag(
      "--no-stop-at-eot", [r](int64_t) { r->stop_at_eot = false; },
      "keep generating after <|endoftext|> (written as that text), as nanoGPT does; by "
      "default a BPE sample ends there");
  cmd->add_flag(
      "--nanogpt-rng", r->nanogpt_rng,
      "draw random numbers as nanoGPT's sample.py: it seeds, then builds the model, whose "
      "init draws from the generator before the samples do (this builds and initialises "
      "a second model once); with --context-rule slide and the same --seed, "
      "--temperature and --top-k, sample.py's tokens");
  add_exec_options(cmd, r->threads, r->matmul, r->simd, r->device);
  add_weights_option(cmd, r->weights);
  cmd->footer(
      "Example:\n"
      "  scratchgpt sample --checkpoint out/small/best.safetensors --prompt \"ROMEO:\" --top-k 40");
  cmd->callback([r] { sample_from_checkpoint(*r, stdout); });
}

}  // namespace scratchgpt::cli
