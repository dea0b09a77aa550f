// commands.h: each subcommand of the CLI registers itself with one function, defined in its own
// apps/cmd_<name>.cpp. The work itself lives in src/; these files only parse options.
#pragma once

#include <CLI/CLI.hpp>
#include <string>

#include "core/check.h"
#include "core/enum_names.h"
#include "core/exec_context.h"
#include "train/train_config.h"

namespace scratchgpt::cli {

// The help of a hyperparameter of train's table (train/train_config.h), for another command's
// flag of the same meaning.
inline const std::string& config_help(const std::string& key) {
  for (const ConfigField& field : config_fields())
    if (key == field.key) return field.help;
  fail("no hyperparameter '", key, "' in config_fields()");
}

// --threads, --matmul and --simd, how a command computes (core/exec_context.h), for the commands other
// than train: spelled as train's flags, the backend named by the same table (kMatmulBackendNames)
// and explained by the same help (its row of config_fields()). An unknown backend name is an
// Error listing the choices.
inline void add_device_option(CLI::App* cmd, std::string& device) {
  cmd->add_option("--device", device,
                  "where to compute: cpu (default) or cuda (the GPU, in a build with CUDA; "
                  "checkpoints are the same either way)")
      ->check(CLI::IsMember({"cpu", "cuda"}));
}

inline void add_exec_options(CLI::App* cmd, int& threads, MatmulBackend& matmul,
                             std::string& simd, std::string& device) {
  add_device_option(cmd, device);
  cmd->add_option("--simd", simd,
                  "the kernels' instruction set: avx512, avx2 or scalar (default: the best this "
                  "CPU has, or SCRATCHGPT_SIMD); to measure the AVX2 code on an AVX-512 machine");
  cmd->add_option("--threads", threads, "worker threads (0: all cores)")->capture_default_str();
  cmd->add_option_function<std::string>(
         "--matmul",
         [&matmul](const std::string& name) {
           matmul = enum_from_name<MatmulBackend>(kMatmulBackendNames, name, "--matmul");
         },
         config_help("matmul"))
      ->type_name("TEXT")
      ->default_str(enum_name<MatmulBackend>(kMatmulBackendNames, matmul));
}

// --dtype, the precision of the matrix products' inputs (eval, bench; train's comes from its
// config table, train_config.h).
inline void add_dtype_option(CLI::App* cmd, Dtype& dtype) {
  cmd->add_option_function<std::string>(
         "--dtype",
         [&dtype](const std::string& name) {
           dtype = enum_from_name<Dtype>(kDtypeNames, name, "--dtype");
         },
         config_help("dtype"))
      ->type_name("TEXT")
      ->default_str("fp32");
}

// --weights, the precision the matrix products read their weights in (sample, eval, attention,
// bench).
inline void add_weights_option(CLI::App* cmd, std::string& weights) {
  cmd->add_option("--weights", weights,
                  "weights of the matrix products: fp32 (default), bf16 (half the bytes) or int8 "
                  "(blocks of 32 with one scale, like llama.cpp's Q8_0), converted once at load");
}

void register_prepare(CLI::App& app);  // cmd_prepare.cpp
void register_train(CLI::App& app);    // cmd_train.cpp
void register_sample(CLI::App& app);   // cmd_sample.cpp
void register_eval(CLI::App& app);     // cmd_eval.cpp
void register_lesson(CLI::App& app);   // cmd_lesson.cpp
void register_bench(CLI::App& app);    // cmd_bench.cpp
void register_tokenize(CLI::App& app); // cmd_tokenize.cpp
void register_import(CLI::App& app);   // cmd_import.cpp
void register_export(CLI::App& app);   // cmd_export.cpp
void register_attention(CLI::App& app);  // cmd_attention.cpp
void register_report(CLI::App& app);     // cmd_report.cpp

inline void register_commands(CLI::App& app) {
  register_prepare(app);
  register_train(app);
  register_sample(app);
  register_eval(app);
  register_lesson(app);
  register_bench(app);
  register_tokenize(app);
  register_import(app);
  register_export(app);
  register_attention(app);
  register_report(app);
}

}  // namespace scratchgpt::cli
