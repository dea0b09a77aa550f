// train.cpp: see train.h.
#include "run/train.h"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <optional>
#include <thread>

#include "core/check.h"
#include "core/text.h"
#include "core/utf8.h"
#include "data/dataset.h"
#include "data/file_io.h"
#include "dist/comm.h"
#include "io/checkpoint.h"
#include "kernels/kernels.h"
#include "run/exec.h"
#include "run/model_factory.h"
#include "run/report.h"
#include "train/batch_stream.h"
#include "train/evaluate.h"
#include "train/interrupt.h"
#include "train/lr_schedule.h"
#include "train/metrics.h"
#include "train/nanogpt_config.h"
#include "train/train_step.h"

namespace scratchgpt {

namespace fs = std::filesystem;

namespace {

// What training needs memory for, and the flags that size it: the pre-check's words, and a failed
// allocation's (with_memory_advice) after it.
constexpr const char* kTrainingNeeds = "training this config";
constexpr const char* kTrainingFix = "lower --n-embd, --n-layer, --batch-size or --block-size";

using Clock = std::chrono::steady_clock;
double seconds_since(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

// "n_layer" -> "n-layer", the flag's spelling.
std::string dashed(std::string key) {
  std::replace(key.begin(), key.end(), '_', '-');
  return key;
}

// On resume, forget the lines a run logged after the checkpoint it is resumed from (it went on and
// then died), so metrics.jsonl reads as one uninterrupted run. Returns the time_s of the last line
// kept, where the resumed run's clock goes on from.
double drop_metrics_after(const std::string& path, const TrainState& state) {
  std::error_code ec;
  if (!fs::exists(path, ec)) return 0;
  std::string kept;
  double time_s = 0;
  for (const MetricsLine& line : read_metrics(path)) {
    const nlohmann::json& j = line.json;
    if (j["type"] != "config") {  // the config is the run's first line, always kept
      const auto iter = j.find("iter");
      if (iter == j.end() || !iter->is_number_integer()) continue;  // not a line we wrote
      const bool eval = j["type"] == "eval";
      const int64_t i = iter->get<int64_t>();
      if (eval ? i > state.last_eval_iter : i >= state.iter) continue;
      const auto t = j.find("time_s");
      if (t != j.end() && t->is_number()) time_s = std::max(time_s, t->get<double>());
    }
    kept += line.text + "\n";
  }
  write_file_atomic(path, kept);
  return time_s;
}

// Everything a run holds, set up (and every check passed) before the first step.
struct Run {
  Run() = default;
  Run(const Run&) = delete;
  Run& operator=(const Run&) = delete;
  Comm* comm = nullptr;  // the processes of a data-parallel run (one: NullComm)
  bool rank0 = true;     // writes checkpoints, metrics and the log
  TrainConfig cfg;
  Dataset data;
  std::string last_path, best_path;
  std::unique_ptr<DirLock> lock;  // held until the run ends; a second run on out_dir is refused
  Exec exec;                      // how to compute: the model's context and its pool (outlives it)
  std::unique_ptr<LanguageModel> model;
  std::unique_ptr<BatchStream> batches;
  std::unique_ptr<TrainStep> step;
  TrainState state;
  std::unique_ptr<MetricsLog> metrics;
  double time_offset_s = 0;  // metrics' time_s of the run this one resumes (its clock goes on)
  std::vector<int32_t> eval_x, eval_y;  // (B, T) evaluation scratch

  void save(const std::string& path) {
    if (!rank0) return;  // every rank holds the same weights and streams
    batches->save(state);
    save_checkpoint(path, *model, cfg, data.tokenizer, state);
  }
};

// 1. The configuration: the preset or the checkpoint's, then the overrides. On resume, also the
// checkpoint (returned in ck) and the lock.

// The config keys given: --config's file (JSON, or nanoGPT's key = value lines), then nanoGPT's
// --key=value words, then our flags over them; nanoGPT's names become ours. Keys with no meaning
// here are appended to ignored; unknown keys, from every source, are one error.
nlohmann::json given_keys(const TrainOptions& opt, std::vector<std::string>& ignored) {
  std::vector<std::string> unknown;
  nlohmann::json over = nlohmann::json::object();
  std::string config_file = opt.config_file;
  nlohmann::json words = nlohmann::json::object();
  for (const std::string& w : opt.extra_args) {
    SG_CHECK(utf8_invalid_offset(w) == std::string::npos, "the argument '", w,
             "' to train is not valid UTF-8");
    if (w.rfind("--", 0) == 0 && w.find('=') != std::string::npos) {
      // nanoGPT's configurator: literal_eval of the value, or the text itself.
      const size_t eq = w.find('=');
      const std::string key = w.substr(2, eq - 2), text = w.substr(eq + 1);
      words[key] = python_literal(text).value_or(nlohmann::json(text));
    } else if (!w.empty() && w[0] != '-' && config_file.empty()) {
      config_file = w;  // nanoGPT's `train.py config/file.py`
    } else {
      fail("unknown argument '", w, "' to train: see 'scratchgpt train --help' (nanoGPT's "
           "overrides are written --key=value)");
    }
  }
  if (!config_file.empty()) {
    const std::string text = read_file(config_file);
    const size_t first = text.find_first_not_of(" \t\r\n");
    nlohmann::json file;
    if (first != std::string::npos && text[first] == '{') {
      try {
        file = nlohmann::json::parse(text);
      } catch (const nlohmann::json::exception& e) {
        fail("--config ", config_file, " is not valid JSON (", e.what(), ")");
      }
    } else {
      file = parse_nanogpt_config(text, config_file);
    }
    over = canonical_config_keys(file, ignored, unknown, "--config " + config_file);
  }
  const nlohmann::json cli = canonical_config_keys(words, ignored, unknown, "the command line");
  // Our flags have our names; only nanoGPT's spellings of --dtype (--dtype=bfloat16) are dropped.
  const nlohmann::json flags = canonical_config_keys(opt.overrides, ignored, unknown, "the flags");
  SG_CHECK(unknown.empty(), "unknown config key", unknown.size() > 1 ? "s" : "", " ", [&] {
    std::string all;
    for (const std::string& k : unknown) all += (all.empty() ? "'" : ", '") + k + "'";
    return all;
  }(), ": see 'scratchgpt train --help' for the names (nanoGPT's are read too)");
  for (auto it = cli.begin(); it != cli.end(); ++it) over[it.key()] = *it;
  for (auto it = flags.begin(); it != flags.end(); ++it) over[it.key()] = *it;
  return over;
}

bool has_config(const TrainOptions& opt) {
  if (!opt.config_file.empty()) return true;
  for (const std::string& w : opt.extra_args)
    if (!w.empty() && w[0] != '-') return true;
  return false;
}

// --init-from: the keys that fix the architecture come from the checkpoint; a flag or config key
// asking for another value is an error naming it. block_size may shrink (the position table is
// cropped, nanoGPT's crop_block_size), never grow.
void check_init_from(const TrainConfig& cfg, const nlohmann::json& given, const Checkpoint& ck) {
  const nlohmann::json want = cfg.to_json(), have = ck.cfg.to_json();
  for (const char* key :
       {"model", "vocab_size", "n_layer", "n_head", "n_embd", "bias", "tied", "activation"})
    SG_CHECK(!given.contains(key) || want.at(key) == have.at(key), "--init-from ", ck.path,
             ": its ", key, " is ", have.at(key).dump(), ", but --", dashed(key), " asks for ",
             want.at(key).dump(), ": a fine-tuned model keeps its checkpoint's architecture; drop --",
             dashed(key));
  if (cfg.model == ModelKind::kGpt)
    SG_CHECK(cfg.gpt.block_size <= ck.cfg.gpt.block_size, "--init-from ", ck.path,
             ": --block-size ", cfg.gpt.block_size, " exceeds its context (block_size ",
             ck.cfg.gpt.block_size, "): its position table has no rows beyond ",
             ck.cfg.gpt.block_size, "; use --block-size ", ck.cfg.gpt.block_size, " or less");
}

TrainConfig configure(const TrainOptions& opt, const nlohmann::json& given, Run& run,
                      Checkpoint& ck) {
  TrainConfig cfg;
  std::error_code ec;
  if (opt.resume) {
    SG_CHECK(fs::is_directory(opt.out_dir, ec), "nothing to resume: --out-dir ", opt.out_dir,
             " does not exist; run without --resume to start training");
    if (run.rank0) run.lock = std::make_unique<DirLock>(opt.out_dir, "--out-dir");
    // last.safetensors is written after best.safetensors at each evaluation; a run killed
    // between the two at step 0 has only best, which is then the state to resume.
    const bool has_last = fs::exists(run.last_path, ec), has_best = fs::exists(run.best_path, ec);
    SG_CHECK(has_last || has_best, "nothing to resume: ", run.last_path,
             " does not exist; run without --resume to start training");
    ck = load_checkpoint(has_last ? run.last_path : run.best_path);
    if (!has_last)
      std::fprintf(opt.log, "%s is missing (the run stopped while writing it): resuming from %s\n",
                   run.last_path.c_str(), run.best_path.c_str());
    cfg = ck.cfg;
    SG_CHECK(opt.preset.empty() || opt.preset == ck.cfg.preset, "--preset ", opt.preset,
             " differs from the run's preset (", ck.cfg.preset.empty() ? "none" : ck.cfg.preset,
             "): a resumed run keeps its checkpoint's config; drop --preset");
  } else if (!opt.init_from.empty()) {
    ck = load_checkpoint(opt.init_from);
    // The new run's hyperparameters: the preset's if one is given, else the checkpoint's; then
    // --config and the flags. The architecture is the checkpoint's whatever the preset says.
    cfg = opt.preset.empty() ? ck.cfg : preset_config(opt.preset);
    const float dropout = cfg.gpt.dropout;  // a hyperparameter of the run, not the architecture
    cfg.model = ck.cfg.model;
    cfg.gpt = ck.cfg.gpt;  // block_size too, unless --block-size crops it
    cfg.gpt.dropout = dropout;
  } else if (opt.preset.empty()) {
    // A config file alone: over nanoGPT's train.py defaults, as nanoGPT's configs are written.
    SG_CHECK(has_config(opt), "no preset given: pass --preset NAME (", preset_list(),
             "), a --config FILE, or --init-from CHECKPOINT");
    cfg = nanogpt_defaults();
  } else {
    cfg = preset_config(opt.preset);
  }
  cfg.apply_json(given);
  if (!opt.init_from.empty()) check_init_from(cfg, given, ck);
  if (cfg.model == ModelKind::kBigram)
    for (const char* key : {"n_layer", "n_head", "n_embd", "dropout", "bias", "tied", "activation"})
      SG_CHECK(!given.contains(key), "--", dashed(key),
               " does not apply to the bigram model (its only parameter is a V x V table): drop "
               "it, or train a GPT (--preset shakespeare-char-small)");
  if (opt.resume)
    SG_CHECK(cfg.rng_stream == ck.cfg.rng_stream, "--rng-stream ",
             enum_name<RngStream>(kRngStreamNames, cfg.rng_stream), " differs from the run's (",
             enum_name<RngStream>(kRngStreamNames, ck.cfg.rng_stream),
             "): a resumed run keeps its random stream; drop the flag");
  return cfg;
}

// Flags that contradict each other, or are missing, before anything is read.
void check_options(const TrainOptions& opt) {
  SG_CHECK(!opt.out_dir.empty(), "--out-dir is required");
  SG_CHECK(!(opt.resume && opt.overwrite),
           "--resume and --overwrite contradict each other: --resume continues the run in "
           "--out-dir, --overwrite replaces it; pass one");
  SG_CHECK(!opt.data_dir.empty(), "--data-dir is required: prepare one with 'scratchgpt prepare'");
  SG_CHECK(!(opt.resume && !opt.init_from.empty()),
           "--resume and --init-from contradict each other: --resume continues the run in "
           "--out-dir (weights, optimizer and all), --init-from starts a new run from a "
           "checkpoint's weights; pass one");
}

// 2. The data: its vocabulary fixes V (cfg.gpt.vocab_size); every split holds a context.
// nanoGPT's raw files do not say their vocabulary: --vocab-size (or the checkpoint's) does.
void load_data(const TrainOptions& opt, const nlohmann::json& given, const Checkpoint& ck,
               TrainConfig& cfg, Run& run) {
  const int given_vocab = given.contains("vocab_size") ? cfg.gpt.vocab_size : 0;
  SG_CHECK(!given.contains("vocab_size") || given_vocab > 0, "--vocab-size ", given_vocab,
           " is not a vocabulary size: give a positive count of token ids, larger than every id "
           "in the data (50257 for GPT-2's tokens), or leave it out for data that says its own");
  const bool from_ck = opt.resume || !opt.init_from.empty();
  run.data = Dataset::load(opt.data_dir, from_ck ? ck.tokenizer.vocab_size() : given_vocab);
  SG_CHECK(given_vocab == 0 || given_vocab == run.data.tokenizer.vocab_size(), "--vocab-size ",
           given_vocab, " differs from the data's vocabulary (", run.data.tokenizer.describe(),
           " in ", opt.data_dir, "): drop --vocab-size");
  if (opt.resume)
    SG_CHECK(run.data.tokenizer.same_as(ck.tokenizer), "the vocabulary of ", opt.data_dir, " (",
             run.data.tokenizer.describe(), ") differs from the checkpoint's (",
             ck.tokenizer.describe(), "): resume with the data it was trained on");
  if (!opt.init_from.empty())
    SG_CHECK(run.data.tokenizer.same_as(ck.tokenizer), "--init-from ", opt.init_from,
             ": its tokenizer (", ck.tokenizer.describe(), ") differs from the tokenizer of ",
             opt.data_dir, " (", run.data.tokenizer.describe(),
             "): prepare the data with the checkpoint's tokenizer");
  // nanoGPT's padded vocabulary (is_padded_vocab) of a checkpoint stays: its extra rows are trained.
  const int V = run.data.tokenizer.vocab_size();
  cfg.gpt.vocab_size = from_ck && is_padded_vocab(ck.cfg.gpt.vocab_size, V) ? ck.cfg.gpt.vocab_size : V;
  cfg.validate();
  const int T = cfg.gpt.block_size;
  for (const auto& [name, split] : {std::pair<const char*, const std::vector<uint32_t>*>{
                                        "training", &run.data.train},
                                    {"validation", &run.data.val}})
    SG_CHECK(static_cast<int64_t>(split->size()) >= T + 1, "the ", name, " split has ",
             split->size(), " tokens, shorter than the context block_size + 1 = ", T + 1,
             ": use a smaller --block-size or a longer text");
}

// 1 and 2: the config resolved (the checkpoint read into ck on resume and init-from) and checked
// against the data and the number of processes.
TrainConfig resolve_config(const TrainOptions& opt, Run& run, Checkpoint& ck) {
  std::vector<std::string> ignored;
  const nlohmann::json given = given_keys(opt, ignored);
  if (!ignored.empty() && run.rank0) {
    std::string names;
    for (const std::string& k : ignored) names += (names.empty() ? "" : ", ") + k;
    std::fprintf(opt.log,
                 "ignored config keys (nanoGPT's, no meaning here: --data-dir, --out-dir and "
                 "--init-from say where; its dtype is its GPU autocast's, ours --dtype fp32 "
                 "or bf16): %s\n",
                 names.c_str());
  }
  TrainConfig cfg = configure(opt, given, run, ck);
  load_data(opt, given, ck, cfg, run);
  const int processes = run.comm->size();
  SG_CHECK(processes == 1 || cfg.rng_stream == RngStream::kSplit, "--rng-stream nanogpt draws "
           "every random number of a step from one generator in order, which one process alone "
           "can follow: pass --rng-stream split to train on ", processes, " processes");
  return cfg;
}

// 3. The output directory (rank 0 writes it), before any work: locked, and never another run's
// checkpoints unless --resume or --overwrite says so.
void open_out_dir(const TrainOptions& opt, Run& run) {
  if (!run.rank0) return;
  ensure_writable_dir(opt.out_dir, "--out-dir");
  if (!run.lock) run.lock = std::make_unique<DirLock>(opt.out_dir, "--out-dir");
  std::error_code ec;
  if (!opt.resume && !opt.overwrite)
    SG_CHECK(!fs::exists(run.last_path, ec) && !fs::exists(run.best_path, ec), "--out-dir ",
             opt.out_dir,
             " already holds checkpoints of another run: pass --resume to continue it, "
             "--overwrite to replace them, or choose another --out-dir");
}

// How this rank computes: the execution context, handed to the model, which passes it to its
// kernels. Without --threads, a machine's cores are shared among its processes.
void make_rank_exec(const TrainOptions& opt, TrainConfig& cfg, Run& run) {
  int threads = cfg.threads;
  if (threads == 0 && run.comm->local_size() > 1) {
    const int cores = static_cast<int>(std::thread::hardware_concurrency());
    threads = std::max(1, cores / run.comm->local_size());
  }
  run.exec = make_exec(threads, cfg.matmul, opt.simd, opt.device, cfg.dtype);
  cfg.matmul = run.exec.ctx.matmul;  // auto resolved, for resume
}

// The all-reduce during the last backward (--overlap-allreduce; the same bits either way).
// auto is on: across machines a NIC moves the data while the cores compute, and on one shared
// 2-core machine it measured no slower than off (faster: a waiting rank sleeps instead of
// spinning; docs/bench-log.md). auto says nothing when MPI cannot run a communication thread.
bool decide_overlap(const TrainOptions& opt, const Run& run) {
  Comm& comm = *run.comm;
  bool overlap = opt.overlap_allreduce != OverlapAllreduce::kOff;
  if (overlap && comm.size() > 1 && !comm.allows_comm_thread()) {
    overlap = false;
    if (run.rank0 && opt.overlap_allreduce == OverlapAllreduce::kOn)
      std::fprintf(opt.log,
                   "note: this MPI library does not give MPI_THREAD_SERIALIZED, which "
                   "--overlap-allreduce needs: the gradients are summed after backward\n");
  }
  // Every rank must sum the same way (overlapped, the slab goes in per-block pieces, whose
  // messages differ from the whole slab's): on only where it is on for all of them.
  if (comm.size() > 1) overlap = !comm.any(!overlap);
  return overlap;
}

// The weights and random streams as the run starts: a resumed run's as its checkpoint left them;
// a new run's drawn, then (--init-from) overwritten by the checkpoint's, as nanoGPT's
// from_pretrained builds GPT(config) before copying the weights in: the random streams
// (rng_stream nanogpt) are the same as a fresh run's.
void start_weights(const TrainOptions& opt, const TrainConfig& cfg, Checkpoint& ck, Run& run) {
  if (opt.resume) {
    restore_params(ck, *run.model, /*with_optimizer=*/true);
    run.state = ck.state;
    run.batches->restore(run.state, ck.path);
    ck.st = SafeTensors();  // free the copy
    return;
  }
  run.batches->init_model(*run.model);
  if (opt.init_from.empty()) return;
  // Fresh AdamW moments (the model's are zero) and counters; the checkpoint's weights, the
  // position table cropped to rows [0, T) when the new context is shorter.
  const int T = cfg.gpt.block_size;
  if (cfg.model == ModelKind::kGpt && T < ck.cfg.gpt.block_size) {
    const std::vector<float> wpe = ck.st.f32("wpe");  // (block_size, C), row-major
    ck.st.add_f32("wpe", {T, cfg.gpt.n_embd}, wpe.data());
  }
  restore_params(ck, *run.model, /*with_optimizer=*/false);
  ck.st = SafeTensors();  // free the copy
}

// 4. The model, its random streams and its step, fresh or from the checkpoint; first whether
// they can fit at all.
void build_run_model(const TrainOptions& opt, const TrainConfig& cfg, Checkpoint& ck,
                     bool overlap, Run& run) {
  const int B = cfg.batch_size, T = cfg.gpt.block_size;
  check_fits_in_memory(training_bytes_lower_bound(cfg), kTrainingNeeds, kTrainingFix);
  run.model = build_model(cfg, run.exec.ctx);
  if (run.model->block_size() < T)
    fail("block_size ", T, " exceeds the model's context ", run.model->block_size());
  run.model->plan(B, T);  // the activations too, before anything is printed or written
  run.batches = std::make_unique<BatchStream>(
      run.data.train.data(), static_cast<int64_t>(run.data.train.size()), B, T, cfg.seed,
      cfg.rng_stream == RngStream::kNanoGpt);
  start_weights(opt, cfg, ck, run);
  run.cfg = cfg;
  run.step = std::make_unique<TrainStep>(*run.model, *run.batches, run.cfg, *run.comm, overlap);
  run.eval_x.resize(static_cast<size_t>(B) * T);
  run.eval_y.resize(run.eval_x.size());
}

// 5. The metrics log, continued on resume; --overwrite removes the earlier run as a whole, its
// checkpoints with its metrics, so the out dir never pairs new metrics with old checkpoints.
void open_metrics(const TrainOptions& opt, Run& run) {
  if (!run.rank0) return;
  const std::string metrics_path = (fs::path(opt.out_dir) / "metrics.jsonl").string();
  if (opt.resume) run.time_offset_s = drop_metrics_after(metrics_path, run.state);
  if (opt.overwrite) {
    std::error_code ec;
    fs::remove(run.last_path, ec);
    fs::remove(run.best_path, ec);
  }
  run.metrics = std::make_unique<MetricsLog>(metrics_path, opt.resume);
  if (!opt.resume) run.metrics->log_config(run.cfg.to_json().dump());
}

// Every check that can fail runs here, before any work: config, data, out dir, memory, checkpoint.
// Run holds references into itself (the step to its config and model), so it is built in place.
void setup(const TrainOptions& opt, Comm& comm, Run& run) {
  check_options(opt);
  run.comm = &comm;
  run.rank0 = comm.rank() == 0;
  run.last_path = (fs::path(opt.out_dir) / "last.safetensors").string();
  run.best_path = (fs::path(opt.out_dir) / "best.safetensors").string();
  Checkpoint ck;
  TrainConfig cfg = resolve_config(opt, run, ck);
  require_dtype(cfg.dtype, opt.device, cfg.matmul);  // before the out dir is made
  open_out_dir(opt, run);
  make_rank_exec(opt, cfg, run);
  const bool overlap = decide_overlap(opt, run);
  build_run_model(opt, cfg, ck, overlap, run);
  open_metrics(opt, run);
}

// The progress line: redrawn in place (at most 10 times a second) on a terminal, one line every
// log_interval steps otherwise; whole lines (evaluations, the stop) are printed over it. It opens
// with the banner and closes with the summary (and, under mpirun, the all-reduce's share).
class Progress {
 public:
  Progress(std::FILE* log, const TrainConfig& cfg, int64_t start_iter)
      : log_(log), cfg_(cfg), start_iter_(start_iter), tty_(::isatty(::fileno(log)) != 0) {}

  // What trains on what, and how.
  void banner(const Run& run, const TrainOptions& opt) {
    const Comm& comm = *run.comm;
    const std::string procs =
        comm.size() > 1
            ? ", " + std::to_string(comm.size()) + " processes" +
                  (run.step->overlapped() ? " (all-reduce overlapped with backward)" : "")
            : std::string();
    std::fprintf(
        log_,
        "training %s (%s, %.2fM parameters) on %s: %lld iters from %lld, B=%d T=%d%s%s, matmul "
        "%s%s\n",
        cfg_.preset.empty() ? "custom" : printable(cfg_.preset).c_str(),
        enum_name<ModelKind>(kModelKindNames, cfg_.model),
        static_cast<double>(run.model->num_params()) / 1e6, opt.data_dir.c_str(),
        static_cast<long long>(cfg_.max_iters), static_cast<long long>(start_iter_),
        cfg_.batch_size, cfg_.gpt.block_size,
        cfg_.grad_accum > 1 ? (" x" + std::to_string(cfg_.grad_accum) + " accum").c_str() : "",
        procs.c_str(), kernels::matmul_backend_name(cfg_.matmul),
        bf16_banner(run.exec.ctx));
    if (!opt.init_from.empty())
      std::fprintf(log_, "from the weights of %s (a fresh optimizer)\n", opt.init_from.c_str());
    std::fflush(log_);
  }

  void step(int64_t it, const StepResult& r, double lr, double seconds, int64_t step_tokens) {
    train_s_ += seconds;
    tokens_ += step_tokens;
    comm_s_ += r.comm_s, wait_s_ += r.wait_s, overlap_s_ += r.overlap_s;
    // ETA from the wall time per step so far, evaluations included.
    const double eta = seconds_since(t_loop_) / static_cast<double>(it - start_iter_) *
                       static_cast<double>(cfg_.max_iters - it);
    char line[256];
    std::snprintf(line, sizeof(line), "iter %lld/%lld loss %.4f lr %.2e %s tok/s ETA %s",
                  static_cast<long long>(it), static_cast<long long>(cfg_.max_iters), r.loss, lr,
                  format_rate(tokens_per_s()).c_str(), format_duration(eta).c_str());
    if (tty_) {
      if (seconds_since(last_draw_) > 0.1 || it == cfg_.max_iters) {
        std::fprintf(log_, "\r\x1b[K%s", line);
        std::fflush(log_);
        open_ = true;
        last_draw_ = Clock::now();
      }
    } else if (it % cfg_.log_interval == 0 || it == cfg_.max_iters) {
      std::fprintf(log_, "%s\n", line);
      std::fflush(log_);
    }
  }
  // A whole line (it may hold several), over the progress line on a terminal.
  void print(const std::string& text) {
    std::fprintf(log_, "%s%s\n", tty_ ? "\r\x1b[K" : "", text.c_str());
    std::fflush(log_);
    open_ = false;
  }
  void end() {
    if (tty_ && open_) std::fprintf(log_, "\n");
    open_ = false;
  }
  double tokens_per_s() const { return train_s_ > 0 ? static_cast<double>(tokens_) / train_s_ : 0; }

  // The last lines: the run's outcome, and under mpirun what the all-reduce cost per step.
  void summary(const TrainSummary& sum, const TrainOptions& opt, const Run& run) {
    std::fprintf(log_,
                 "%s: %lld iters, best val loss %.4f, wall time %s (%.1f s), %s tok/s; "
                 "checkpoints in %s\n",
                 sum.interrupted ? "stopped" : "done", static_cast<long long>(sum.iters),
                 sum.best_val_loss, format_duration(sum.wall_s).c_str(), sum.wall_s,
                 format_rate(sum.tokens_per_s).c_str(), opt.out_dir.c_str());
    const int processes = run.comm->size();
    const double steps = static_cast<double>(sum.iters - start_iter_);
    if (processes > 1 && steps > 0 && run.step->overlapped())
      std::fprintf(log_,
                   "all-reduce: %.2f ms per step after backward (waiting for the slowest process "
                   "included), %.1f%% of the step time (%d processes); %.2f ms per step summing "
                   "during backward\n",
                   comm_s_ / steps * 1e3, 100.0 * comm_s_ / train_s_, processes,
                   overlap_s_ / steps * 1e3);
    else if (processes > 1 && steps > 0)
      std::fprintf(log_,
                   "all-reduce: %.2f ms per step, %.1f%% of the step time (%d processes); waiting "
                   "for the slowest process: %.2f ms per step\n",
                   comm_s_ / steps * 1e3, 100.0 * comm_s_ / train_s_, processes,
                   wait_s_ / steps * 1e3);
    std::fflush(log_);
  }

 private:
  std::FILE* log_;
  const TrainConfig& cfg_;
  int64_t start_iter_;  // the iter this process started from
  bool tty_;
  bool open_ = false;  // a \r progress line is on the terminal without its newline
  Clock::time_point t_loop_ = Clock::now();
  Clock::time_point last_draw_ = Clock::now() - std::chrono::seconds(1);
  double train_s_ = 0;  // time in steps only
  int64_t tokens_ = 0;
  double comm_s_ = 0, wait_s_ = 0;  // all-reduce, waiting for the slowest process
  double overlap_s_ = 0;            // summing on the communication thread
};

std::string format(const char* fmt, auto... args) {
  char buf[512];
  std::snprintf(buf, sizeof(buf), fmt, args...);
  return buf;
}

// nanoGPT's estimate_loss on train and val, logged; best.safetensors when val improved, then
// last.safetensors.
void evaluate_and_save(Run& run, Progress& progress, double elapsed_s, TrainSummary& sum,
                       const TrainOptions& opt) {
  const int64_t it = run.state.iter;
  const int B = run.cfg.batch_size, T = run.cfg.gpt.block_size;
  Rng& rng = run.batches->eval_rng(it, run.cfg.eval_interval);
  const float train_loss = estimate_loss(*run.model, run.data.train, B, T, run.cfg.eval_iters,
                                         rng, run.eval_x, run.eval_y, *run.comm);
  const float val_loss = estimate_loss(*run.model, run.data.val, B, T, run.cfg.eval_iters, rng,
                                       run.eval_x, run.eval_y, *run.comm);
  run.state.last_eval_iter = it;
  sum.last_val_loss = val_loss;
  if (run.metrics) run.metrics->log_eval(it, train_loss, val_loss, elapsed_s);
  const bool improved = val_loss < run.state.best_val_loss;
  if (improved) run.state.best_val_loss = val_loss;
  progress.print(format("step %lld: train loss %.4f, val loss %.4f%s", static_cast<long long>(it),
                        train_loss, val_loss, improved ? " (best)" : ""));
  if (improved) run.save(run.best_path);
  run.save(run.last_path);
  // The page a browser tab can stay open on: reloaded every 30 s while the run goes on.
  if (run.rank0 && !opt.report.empty()) {
    ReportRequest page{{opt.out_dir}, opt.report, "", it < run.cfg.max_iters ? 30 : 0};
    page.overwrite = true;  // redrawn at every evaluation: each redraw replaces the last
    run_report(page, nullptr);
  }
}

// Ctrl-C or SIGTERM on any process: last.safetensors saved (unless this iter's evaluation just
// did) and how to resume printed.
void stop_and_save(Run& run, Progress& progress, const TrainOptions& opt) {
  const int64_t it = run.state.iter;
  if (run.state.last_eval_iter != it) run.save(run.last_path);
  const int processes = run.comm->size();
  const std::string launcher =
      processes > 1 ? "mpirun -np " + std::to_string(processes) + " " : std::string();
  progress.print(format("interrupted: saved %s at iter %lld. Resume with:\n"
                        "  %sscratchgpt train --data-dir %s --out-dir %s --resume",
                        run.last_path.c_str(), static_cast<long long>(it), launcher.c_str(),
                        opt.data_dir.c_str(), opt.out_dir.c_str()));
}

// nanoGPT's train.py: evaluate and save every eval_interval steps, then one optimizer step at a
// time, until max_iters or a stop request.
TrainSummary train(const TrainOptions& opt, Comm& comm, std::FILE* log) {
  const auto t_start = Clock::now();
  Run run;
  setup(opt, comm, run);
  const TrainConfig& cfg = run.cfg;
  TrainState& state = run.state;
  const int64_t step_tokens = int64_t{cfg.batch_size} * cfg.gpt.block_size * cfg.grad_accum;
  Progress progress(log, cfg, state.iter);
  progress.banner(run, opt);
  TrainSummary sum;
  while (true) {
    const int64_t it = state.iter;
    if ((it % cfg.eval_interval == 0 || it == cfg.max_iters) && state.last_eval_iter != it)
      evaluate_and_save(run, progress, run.time_offset_s + seconds_since(t_start), sum, opt);
    if (it >= cfg.max_iters) break;
    if (comm.any(stop_requested())) {  // every process stops at the same step
      stop_and_save(run, progress, opt);
      sum.interrupted = true;
      break;
    }
    const auto t0 = Clock::now();
    const double lr = get_lr(static_cast<int>(it), cfg);
    const StepResult step = run.step->run(lr, it);
    state.iter = it + 1;
    const double dt = seconds_since(t0);
    if (run.metrics)
      run.metrics->log_step(it, step.loss, lr, step.grad_norm,
                            static_cast<double>(step_tokens) / dt,
                            run.time_offset_s + seconds_since(t_start));
    progress.step(state.iter, step, lr, dt, step_tokens);
  }
  progress.end();
  sum.iters = state.iter;
  sum.best_val_loss = state.best_val_loss;
  sum.wall_s = seconds_since(t_start);
  sum.tokens_per_s = progress.tokens_per_s();
  progress.summary(sum, opt, run);
  return sum;
}

}  // namespace

TrainSummary run_training(const TrainOptions& opt) {
  clear_stop_request();
  // From here a Ctrl-C or SIGTERM only asks to stop: setup finishes, the step-0 checkpoint is
  // written, and the run stops with a resumable out dir.
  install_stop_handler();
  const std::unique_ptr<Comm> comm = make_comm();
  auto train_here = [&](std::FILE* log) {
    return with_memory_advice(kTrainingNeeds, kTrainingFix, [&] { return train(opt, *comm, log); });
  };
  if (comm->size() == 1) return train_here(opt.log);
  // Several processes: rank 0 speaks for the run; a failure on any rank ends the whole job at
  // once (no rank is left waiting in a collective), naming the rank.
  std::FILE* quiet = comm->rank() == 0 ? nullptr : std::fopen("/dev/null", "w");
  try {
    const TrainSummary sum = train_here(quiet ? quiet : opt.log);
    if (quiet) std::fclose(quiet);
    comm->barrier();
    return sum;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "error (rank %d of %d): %s\n", comm->rank(), comm->size(),
                 printable(e.what(), true).c_str());
    std::fflush(stderr);
    comm->abort(1);
  }
  std::_Exit(1);  // not reached: abort ends the process
}

}  // namespace scratchgpt
