// cmd_bench.cpp: 'scratchgpt bench': options -> BenchRequest; src/run/bench.h does the work.
#include <memory>
#include <string>

#include "commands.h"
#include "run/bench.h"

namespace scratchgpt::cli {

void register_bench(CLI::App& app) {
  auto f = std::make_shared<BenchRequest>();
  auto* cmd = app.add_subcommand(
      "bench",
      "Time GPT training steps (forward, backward, AdamW) on random tokens and report ms/step, "
      "tokens/s, GFLOP/s, the fraction of a measured FMA peak, peak memory, page faults a step and "
      "what handing a cache line from core to core costs on this host now (it moves the other "
      "figures); with --sample N, time generating N tokens at batch 1 through the KV cache "
      "instead.");
  std::string presets;
  for (const std::string& name : bench_preset_names())
    presets += (presets.empty() ? "" : " | ") + name;
  cmd->add_option("--preset", f->preset, presets + " (the gpt2 shapes: T=64, B=4 by default)")
      ->capture_default_str();
  cmd->add_option("--n-layer", f->n_layer, "transformer blocks L (default: the preset's)");
  cmd->add_option("--n-head", f->n_head, "attention heads NH (default: the preset's)");
  cmd->add_option("--n-embd", f->n_embd, "embedding width C (default: the preset's)");
  cmd->add_option("--block-size", f->block_size,
                  "longest context of the model (default: the preset's)");
  cmd->add_option("--vocab-size", f->vocab_size, "vocabulary size V (default: the preset's)");
  cmd->add_option("--seq-len", f->seq_len,
                  "tokens per sequence T (default: block size; the gpt2 shapes: 64)");
  cmd->add_option("--batch-size", f->batch_size, "batch size B (default: the preset's)");
  cmd->add_option("--dropout", f->dropout, "dropout probability (default: the preset's)");
  cmd->add_option("--steps", f->steps, "timed steps")->capture_default_str();
  cmd->add_option("--warmup", f->warmup, "untimed steps first")->capture_default_str();
  add_exec_options(cmd, f->threads, f->matmul, f->simd, f->device);
  add_weights_option(cmd, f->weights);
  add_dtype_option(cmd, f->dtype);
  cmd->add_option("--sample", f->sample,
                  "time sampling instead of training: generate this many new tokens, batch 1, "
                  "from a 1-token prompt through the KV cache (random weights, temperature 1); "
                  "reports tokens/s and ms/token (default: time training)");
  cmd->add_option("--prompt-tokens", f->prompt_tokens,
                  "with --sample: also time prefilling a prompt of this many random tokens into an "
                  "empty cache (the best of 3), apart from the generation; reports prompt tokens/s, "
                  "as llama-bench's -p (default: 0, not timed)");
  cmd->add_flag("--json", f->json, "print one JSON object instead of the table");
  cmd->add_option(
      "--tokenizer", f->tokenizer,
      "time encoding text instead: gpt2 (the bundled data/gpt2/) or a directory with "
      "encoder.json and vocab.bpe (MB/s and tokens/s on 1 thread and on --threads; default: "
      "time training)");
  cmd->add_option("--input", f->input,
                  "with --tokenizer: the text (default: the bundled data/tinyshakespeare.txt)");
  cmd->add_option("--repeat", f->repeat, "with --tokenizer: encode the input repeated this often")
      ->capture_default_str();
  cmd->footer(
      "Examples:\n"
      "  scratchgpt bench --preset shakespeare-char-small\n"
      "  scratchgpt bench --preset gpt2 --sample 500   # batch-1 generation through the KV cache\n"
      "  scratchgpt bench --preset gpt2 --sample 128 --prompt-tokens 512 --weights int8   # as "
      "llama-bench -n 128, -p 512");
  cmd->callback([f] { run_bench(*f); });
}

}  // namespace scratchgpt::cli
