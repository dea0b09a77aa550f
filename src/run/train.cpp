// train.cpp: see train.h.
#include "run/train.h"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <memory>
#include <sstream>

#include "core/check.h"
#include "core/thread_pool.h"
#include "data/dataset.h"
#include "data/file_io.h"
#include "kernels/cpu/matmul_backend.h"
#include "run/model_factory.h"
#include "train/batch_stream.h"
#include "train/checkpoint.h"
#include "train/evaluate.h"
#include "train/interrupt.h"
#include "train/lr_schedule.h"
#include "train/metrics.h"
#include "train/train_step.h"

namespace scratchgpt {

namespace fs = std::filesystem;

namespace {

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
// then died), so metrics.jsonl reads as one uninterrupted run.
void drop_metrics_after(const std::string& path, const TrainState& state) {
  std::error_code ec;
  if (!fs::exists(path, ec)) return;
  std::istringstream in(read_file(path));
  std::string line, kept;
  while (std::getline(in, line)) {
    if (line.empty()) continue;
    try {
      const nlohmann::json j = nlohmann::json::parse(line);
      const int64_t iter = j.at("iter").get<int64_t>();
      const bool eval = j.at("type") == "eval";
      if (eval ? iter > state.last_eval_iter : iter >= state.iter) continue;
    } catch (const std::exception&) {
      continue;  // a line cut short by a crash
    }
    kept += line + "\n";
  }
  write_file_atomic(path, kept);
}

// Everything a run holds, set up (and every check passed) before the first step.
struct Run {
  TrainConfig cfg;
  Dataset data;
  std::string last_path, best_path;
  std::unique_ptr<DirLock> lock;  // held until the run ends; a second run on out_dir is refused
  std::unique_ptr<LanguageModel> model;
  std::unique_ptr<BatchStream> batches;
  TrainState state;
  std::unique_ptr<MetricsLog> metrics;
  std::vector<int32_t> eval_x, eval_y;  // (B, T) evaluation scratch

  void save(const std::string& path) {
    batches->save(state);
    save_checkpoint(path, *model, cfg, data.tokenizer, state);
  }
};

// 1. The configuration: the preset or the checkpoint's, then the overrides. On resume, also the
// checkpoint (returned in ck) and the lock.
TrainConfig configure(const TrainOptions& opt, Run& run, Checkpoint& ck) {
  TrainConfig cfg;
  std::error_code ec;
  if (opt.resume) {
    SG_CHECK(fs::is_directory(opt.out_dir, ec), "nothing to resume: --out-dir ", opt.out_dir,
             " does not exist; run without --resume to start training");
    run.lock = std::make_unique<DirLock>(opt.out_dir, "--out-dir");
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
  } else {
    SG_CHECK(!opt.preset.empty(),
             "no preset given: pass --preset NAME (bigram, shakespeare-char, "
             "shakespeare-char-small)");
    cfg = preset_config(opt.preset);
  }
  cfg.apply_json(opt.overrides);
  if (cfg.model == ModelKind::kBigram)
    for (const char* key : {"n_layer", "n_head", "n_embd", "dropout", "bias", "tied", "activation"})
      SG_CHECK(!opt.overrides.contains(key), "--", dashed(key),
               " does not apply to the bigram model (its only parameter is a V x V table): drop "
               "it, or train a GPT (--preset shakespeare-char-small)");
  if (opt.resume)
    SG_CHECK(cfg.rng_stream == ck.cfg.rng_stream, "--rng-stream ",
             enum_name<RngStream>(kRngStreamNames, cfg.rng_stream), " differs from the run's (",
             enum_name<RngStream>(kRngStreamNames, ck.cfg.rng_stream),
             "): a resumed run keeps its random stream; drop the flag");
  return cfg;
}

// Every check that can fail runs here, before any work: config, data, out dir, memory, checkpoint.
Run setup(const TrainOptions& opt) {
  SG_CHECK(!opt.out_dir.empty(), "--out-dir is required");
  SG_CHECK(!opt.data_dir.empty(), "--data-dir is required: prepare one with 'scratchgpt prepare'");
  Run run;
  run.last_path = (fs::path(opt.out_dir) / "last.safetensors").string();
  run.best_path = (fs::path(opt.out_dir) / "best.safetensors").string();
  Checkpoint ck;
  TrainConfig cfg = configure(opt, run, ck);

  // 2. The data: its vocabulary fixes V.
  run.data = Dataset::load(opt.data_dir);
  if (opt.resume)
    SG_CHECK(run.data.tokenizer.chars() == ck.tokenizer.chars(), "the vocabulary of ",
             opt.data_dir, " differs from the checkpoint's: resume with the data it was trained on");
  cfg.gpt.vocab_size = run.data.tokenizer.vocab_size();
  cfg.validate();
  const int B = cfg.batch_size, T = cfg.gpt.block_size;
  for (const auto& [name, split] : {std::pair<const char*, const std::vector<uint16_t>*>{
                                        "training", &run.data.train},
                                    {"validation", &run.data.val}})
    SG_CHECK(static_cast<int64_t>(split->size()) >= T + 1, "the ", name, " split has ",
             split->size(), " tokens, shorter than the context block_size + 1 = ", T + 1,
             ": use a smaller --block-size or a longer text");

  // 3. The output directory, before any work; then the execution settings.
  ensure_writable_dir(opt.out_dir, "--out-dir");
  if (!run.lock) run.lock = std::make_unique<DirLock>(opt.out_dir, "--out-dir");
  std::error_code ec;
  if (!opt.resume && !opt.overwrite)
    SG_CHECK(!fs::exists(run.last_path, ec) && !fs::exists(run.best_path, ec), "--out-dir ",
             opt.out_dir,
             " already holds checkpoints of another run: pass --resume to continue it, "
             "--overwrite to replace them, or choose another --out-dir");
  if (cfg.threads > 0) ThreadPool::set_global_threads(cfg.threads);
  cpu::set_matmul_backend(cpu::parse_matmul_backend(cfg.matmul));
  cfg.matmul = cpu::matmul_backend_name(cpu::matmul_backend());  // "auto" resolved, for resume

  // 4. The model and its random streams, fresh or as the checkpoint left them; first whether
  // they can fit at all.
  check_fits_in_memory(training_bytes_lower_bound(cfg), "training this config",
                       "lower --n-embd, --n-layer, --batch-size or --block-size");
  run.model = build_model(cfg);
  if (run.model->block_size() < T)
    fail("block_size ", T, " exceeds the model's context ", run.model->block_size());
  run.batches = std::make_unique<BatchStream>(
      run.data.train.data(), static_cast<int64_t>(run.data.train.size()), B, T, cfg.seed,
                                              cfg.rng_stream == RngStream::kNanoGpt);
  if (opt.resume) {
    restore_params(ck, *run.model, /*with_optimizer=*/true);
    run.state = ck.state;
    run.batches->restore(run.state, ck.path);
    ck.st = SafeTensors();  // free the copy
  } else {
    run.batches->init_model(*run.model);
  }
  run.eval_x.resize(static_cast<size_t>(B) * T);
  run.eval_y.resize(run.eval_x.size());

  // 5. The metrics log, continued on resume; --overwrite removes the earlier run as a whole, its
  // checkpoints with its metrics, so the out dir never pairs new metrics with old checkpoints.
  const std::string metrics_path = (fs::path(opt.out_dir) / "metrics.jsonl").string();
  if (opt.resume) drop_metrics_after(metrics_path, run.state);
  if (opt.overwrite) {
    fs::remove(run.last_path, ec);
    fs::remove(run.best_path, ec);
  }
  run.metrics = std::make_unique<MetricsLog>(metrics_path, opt.resume);
  run.cfg = cfg;
  return run;
}

// The progress line: redrawn in place (at most 10 times a second) on a terminal, one line every
// log_interval steps otherwise; whole lines (evaluations, the stop) are printed over it.
class Progress {
 public:
  Progress(std::FILE* log, const TrainConfig& cfg, int64_t start_iter)
      : log_(log), cfg_(cfg), start_iter_(start_iter), tty_(::isatty(::fileno(log)) != 0) {}

  void step(int64_t it, float loss, double lr, double seconds, int64_t step_tokens) {
    train_s_ += seconds;
    tokens_ += step_tokens;
    // ETA from the wall time per step so far, evaluations included.
    const double eta = seconds_since(t_loop_) / static_cast<double>(it - start_iter_) *
                       static_cast<double>(cfg_.max_iters - it);
    char line[256];
    std::snprintf(line, sizeof(line), "iter %lld/%lld loss %.4f lr %.2e %s tok/s ETA %s",
                  static_cast<long long>(it), static_cast<long long>(cfg_.max_iters), loss, lr,
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

 private:
  std::FILE* log_;
  const TrainConfig& cfg_;
  int64_t start_iter_;
  bool tty_;
  bool open_ = false;  // a \r progress line is on the terminal without its newline
  Clock::time_point t_loop_ = Clock::now();
  Clock::time_point last_draw_ = Clock::now() - std::chrono::seconds(1);
  double train_s_ = 0;  // time in steps only
  int64_t tokens_ = 0;
};

std::string format(const char* fmt, auto... args) {
  char buf[512];
  std::snprintf(buf, sizeof(buf), fmt, args...);
  return buf;
}

// nanoGPT's estimate_loss on train and val, logged; best.safetensors when val improved, then
// last.safetensors.
void evaluate_and_save(Run& run, Progress& progress, double elapsed_s, TrainSummary& sum) {
  const int64_t it = run.state.iter;
  const int B = run.cfg.batch_size, T = run.cfg.gpt.block_size;
  Rng& rng = run.batches->eval_rng(it, run.cfg.eval_interval);
  const float train_loss =
      estimate_loss(*run.model, run.data.train, B, T, run.cfg.eval_iters, rng, run.eval_x, run.eval_y);
  const float val_loss =
      estimate_loss(*run.model, run.data.val, B, T, run.cfg.eval_iters, rng, run.eval_x, run.eval_y);
  run.state.last_eval_iter = it;
  sum.last_val_loss = val_loss;
  run.metrics->log_eval(it, train_loss, val_loss, elapsed_s);
  const bool improved = val_loss < run.state.best_val_loss;
  if (improved) run.state.best_val_loss = val_loss;
  progress.print(format("step %lld: train loss %.4f, val loss %.4f%s", static_cast<long long>(it),
                        train_loss, val_loss, improved ? " (best)" : ""));
  if (improved) run.save(run.best_path);
  run.save(run.last_path);
}

}  // namespace

TrainSummary run_training(const TrainOptions& opt) {
  const auto t_start = Clock::now();
  clear_stop_request();
  // From here a Ctrl-C or SIGTERM only asks to stop: setup finishes, the step-0 checkpoint is
  // written, and the run stops with a resumable out dir.
  install_stop_handler();
  Run run = setup(opt);
  const TrainConfig& cfg = run.cfg;
  TrainState& state = run.state;
  const int B = cfg.batch_size, T = cfg.gpt.block_size;
  std::fprintf(
      opt.log, "training %s (%s, %.2fM parameters) on %s: %lld iters from %lld, B=%d T=%d%s, matmul %s\n",
      cfg.preset.empty() ? "custom" : cfg.preset.c_str(), enum_name<ModelKind>(kModelKindNames, cfg.model),
      static_cast<double>(run.model->num_params()) / 1e6, opt.data_dir.c_str(),
      static_cast<long long>(cfg.max_iters), static_cast<long long>(state.iter), B, T,
      cfg.grad_accum > 1 ? (" x" + std::to_string(cfg.grad_accum) + " accum").c_str() : "",
      cfg.matmul.c_str());
  std::fflush(opt.log);

  TrainSummary sum;
  Progress progress(opt.log, cfg, state.iter);
  while (true) {
    const int64_t it = state.iter;
    if ((it % cfg.eval_interval == 0 || it == cfg.max_iters) && state.last_eval_iter != it)
      evaluate_and_save(run, progress, seconds_since(t_start), sum);
    if (it >= cfg.max_iters) break;
    if (stop_requested()) {
      if (state.last_eval_iter != it) run.save(run.last_path);  // else saved just above
      sum.interrupted = true;
      progress.print(format("interrupted: saved %s at iter %lld. Resume with:\n"
                            "  scratchgpt train --data-dir %s --out-dir %s --resume",
                            run.last_path.c_str(), static_cast<long long>(it),
                            opt.data_dir.c_str(), opt.out_dir.c_str()));
      break;
    }

    const auto t0 = Clock::now();
    const double lr = get_lr(static_cast<int>(it), cfg);
    const StepResult step = train_step(*run.model, *run.batches, cfg, lr, it);
    state.iter = it + 1;
    const double dt = seconds_since(t0);
    const int64_t step_tokens = int64_t{B} * T * cfg.grad_accum;
    run.metrics->log_step(it, step.loss, lr, step.grad_norm, static_cast<double>(step_tokens) / dt,
                          seconds_since(t_start));
    progress.step(state.iter, step.loss, lr, dt, step_tokens);
  }
  progress.end();

  sum.iters = state.iter;
  sum.best_val_loss = state.best_val_loss;
  sum.wall_s = seconds_since(t_start);
  sum.tokens_per_s = progress.tokens_per_s();
  std::fprintf(opt.log,
               "%s: %lld iters, best val loss %.4f, wall time %s (%.1f s), %s tok/s; "
               "checkpoints in %s\n",
               sum.interrupted ? "stopped" : "done", static_cast<long long>(sum.iters),
               sum.best_val_loss, format_duration(sum.wall_s).c_str(), sum.wall_s,
               format_rate(sum.tokens_per_s).c_str(), opt.out_dir.c_str());
  std::fflush(opt.log);
  return sum;
}

}  // namespace scratchgpt
