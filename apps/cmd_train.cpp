// cmd_train.cpp: 'scratchgpt train': options -> TrainOptions; src/run/train.h does the work.
// Precedence: preset (or the checkpoint's config with --resume) < --config FILE < flags.
#include <algorithm>
#include <cstdio>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "commands.h"
#include "core/check.h"
#include "run/train.h"
#include "train/train_config.h"

namespace scratchgpt::cli {

namespace {

// The preset whose values train's --help shows as the hyperparameters' defaults.
constexpr const char* kHelpPreset = "shakespeare-char-small";

// "Presets:" and one line a preset: its model's shape and its run's length.
std::string presets_footer() {
  std::string text = "Presets (L layers x C wide, NH heads, context T, batch B, steps):\n";
  for (const std::string& name : preset_names()) {
    const TrainConfig c = preset_config(name);
    char line[160];
    std::snprintf(line, sizeof line, "  %-24s L=%d C=%d NH=%d T=%d B=%d x %d, %d steps\n",
                  name.c_str(), c.gpt.n_layer, c.gpt.n_embd, c.gpt.n_head, c.gpt.block_size,
                  c.batch_size, c.grad_accum, c.max_iters);
    text += line;
  }
  return text;
}

}  // namespace

void register_train(CLI::App& app) {
  struct Flags {
    std::string preset, data_dir, out_dir, config, init_from, report, simd, device;
    OverlapAllreduce overlap_allreduce = OverlapAllreduce::kAuto;
    bool resume = false, overwrite = false;
    std::vector<std::pair<const ConfigField*, CLI::Option*>> given;  // one per hyperparameter
    std::vector<std::string> text;                                   // their values as typed
  };
  auto f = std::make_shared<Flags>();
  auto* cmd = app.add_subcommand(
      "train",
      "Train a model on a prepared dataset; checkpoints last.safetensors and "
      "best.safetensors in --out-dir. Ctrl-C stops cleanly after the current step.");
  cmd->add_option("--preset", f->preset,
                  preset_list() +
                      " (default: none; not needed with --resume, optional with --init-from or "
                      "--config)");
  cmd->add_option("--data-dir", f->data_dir,
                  "directory written by 'scratchgpt prepare'; or nanoGPT's (raw train.bin and "
                  "val.bin: give --vocab-size) or llm.c's (*_train.bin and *_val.bin shards)")
      ->required();
  cmd->add_option("--out-dir", f->out_dir, "where checkpoints and metrics.jsonl go")->required();
  cmd->add_flag("--resume", f->resume, "continue exactly from --out-dir/last.safetensors");
  cmd->add_flag("--overwrite", f->overwrite, "replace the checkpoints of an earlier run");
  cmd->add_option("--init-from", f->init_from,
                  "start from this checkpoint's weights (fine-tuning): its architecture, a fresh "
                  "optimizer, the hyperparameters of --preset (optional) and the flags; "
                  "--block-size below its context crops the position table (default: none)");
  add_device_option(cmd, f->device);
  cmd->add_option("--simd", f->simd,
                  "the kernels' instruction set: avx512, avx2 or scalar (default: the best this "
                  "CPU has, or SCRATCHGPT_SIMD); the numbers differ in rounding only");
  cmd->add_option_function<std::string>(
         "--overlap-allreduce",
         [f](const std::string& name) {
           f->overlap_allreduce = enum_from_name<OverlapAllreduce>(kOverlapAllreduceNames, name,
                                                                   "--overlap-allreduce");
         },
         "under mpirun: sum the gradients across processes during the last backward, each "
         "block's as soon as it is done, on a communication thread (on), after backward (off), "
         "or auto (the default): on where MPI allows the thread. The same bits either way")
      ->type_name("on|off|auto")
      ->default_str("auto");
  cmd->add_option("--report", f->report,
                  "an HTML page of the run's curves (as 'scratchgpt report'), redrawn at every "
                  "evaluation and reloading itself while the run goes on (default: none)");
  cmd->add_option("--config", f->config,
                  "config file: a JSON object of config keys (as in checkpoints' config), or "
                  "nanoGPT's key = value lines (config/train_shakespeare_char.py; its names such "
                  "as learning_rate are read too). With it, --preset is optional (the base is "
                  "nanoGPT's train.py defaults). nanoGPT's --key=value overrides work as well "
                  "(default: none)");
  cmd->allow_extras();  // nanoGPT's --key=value words and config path: src/run/train.cpp reads them
  // One flag per hyperparameter of the table (train/train_config.h), spelled as its key with
  // dashes; "preset" has a flag of its own. A hyperparameter's default is the preset's: help shows
  // the default preset's value, and the footer every preset's shape.
  const auto& fields = config_fields();
  const TrainConfig shown = preset_config(kHelpPreset);
  f->text.resize(fields.size());
  for (size_t i = 0; i < fields.size(); ++i) {
    const ConfigField& field = fields[i];
    const std::string key = field.key;
    if (key == "preset") continue;
    std::string flag = "--" + key;
    std::replace(flag.begin(), flag.end(), '_', '-');
    static const char* kTypeNames[] = {"INT", "FLOAT", "BOOL", "TEXT"};
    const nlohmann::json value = field.get(shown);
    CLI::Option* o = cmd->add_option(flag, f->text[i], field.help)
                         ->type_name(kTypeNames[static_cast<int>(field.kind)])
                         ->default_str(value.is_string() ? value.get<std::string>() : value.dump())
                         ->group(std::string("Hyperparameters (default: the --preset's; shown: ") +
                                 kHelpPreset + "'s)");
    f->given.emplace_back(&field, o);
  }
  cmd->footer(presets_footer() +
              "\nExamples:\n"
              "  scratchgpt train --preset shakespeare-char-small "
              "--data-dir out/data/tinyshakespeare --out-dir out/small\n"
              "  scratchgpt train --resume --data-dir out/data/tinyshakespeare --out-dir out/small"
              "   # continue exactly\n"
              "  scratchgpt train --init-from gpt2.safetensors --data-dir out/data/shakespeare "
              "--out-dir out/ft --max-iters 20 --lr 3e-5   # fine-tune");
  cmd->callback([f, cmd] {
    const ConfigField* first = config_fields().data();
    TrainOptions opt;
    opt.preset = f->preset;
    opt.data_dir = f->data_dir;
    opt.out_dir = f->out_dir;
    opt.resume = f->resume;
    opt.init_from = f->init_from;
    opt.overwrite = f->overwrite;
    opt.report = f->report;
    opt.simd = f->simd;
    opt.device = f->device;
    opt.overlap_allreduce = f->overlap_allreduce;
    opt.config_file = f->config;
    opt.extra_args = cmd->remaining();
    for (const auto& [field, option] : f->given)  // given flags win over --config
      if (option->count() > 0)
        opt.overrides[field->key] =
            config_value_from_text(*field, f->text[static_cast<size_t>(field - first)]);
    run_training(opt);
  });
}

}  // namespace scratchgpt::cli
