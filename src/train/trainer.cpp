// trainer.cpp: see trainer.h.
#include "train/trainer.h"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <memory>
#include <sstream>

#include "core/check.h"
#include "core/thread_pool.h"
#include "kernels/cpu/matmul_backend.h"
#include "data/dataset.h"
#include "data/file_io.h"
#include "train/checkpoint.h"
#include "train/evaluate.h"
#include "train/interrupt.h"
#include "train/lr_schedule.h"
#include "train/metrics.h"
#include "train/model_factory.h"
#include "train/optimizer.h"

namespace scratchgpt {

namespace fs = std::filesystem;

namespace {

using Clock = std::chrono::steady_clock;
double seconds_since(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

// Evaluation batches come from a generator seeded by (seed, iter) alone, so an evaluation never
// shifts the training batches and a resumed run evaluates on exactly the same batches.
uint64_t eval_seed(uint64_t seed, int64_t iter) {
  return seed + 0x9E3779B97F4A7C15ULL * static_cast<uint64_t>(iter + 1);
}

// On resume, forget the lines a run logged after the checkpoint it is resumed from (it went on and
// then died), so metrics.jsonl reads as one uninterrupted run.
// "n_layer" -> "n-layer", the flag's spelling.
std::string dashed(std::string key) {
  std::replace(key.begin(), key.end(), '_', '-');
  return key;
}

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

}  // namespace

TrainSummary run_training(const TrainOptions& opt) {
  const auto t_start = Clock::now();
  std::FILE* log = opt.log;
  clear_stop_request();
  // From here a Ctrl-C or SIGTERM only asks to stop: setup finishes, the step-0 checkpoint is
  // written, and the run stops with a resumable out dir.
  install_stop_handler();
  SG_CHECK(!opt.out_dir.empty(), "--out-dir is required");
  SG_CHECK(!opt.data_dir.empty(), "--data-dir is required: prepare one with 'scratchgpt prepare'");
  const std::string last_path = (fs::path(opt.out_dir) / "last.safetensors").string();
  const std::string best_path = (fs::path(opt.out_dir) / "best.safetensors").string();

  // 1. The configuration: preset or checkpoint, then overrides.
  TrainConfig cfg;
  Checkpoint ck;
  std::error_code ec;
  std::unique_ptr<DirLock> lock;  // held until the run ends; a second run on out_dir is refused
  if (opt.resume) {
    SG_CHECK(fs::is_directory(opt.out_dir, ec), "nothing to resume: --out-dir ", opt.out_dir,
             " does not exist; run without --resume to start training");
    lock = std::make_unique<DirLock>(opt.out_dir, "--out-dir");
    // last.safetensors is written after best.safetensors at each evaluation; a run killed
    // between the two at step 0 has only best, which is then the state to resume.
    const bool has_last = fs::exists(last_path, ec), has_best = fs::exists(best_path, ec);
    SG_CHECK(has_last || has_best, "nothing to resume: ", last_path,
             " does not exist; run without --resume to start training");
    ck = load_checkpoint(has_last ? last_path : best_path);
    if (!has_last)
      std::fprintf(log, "%s is missing (the run stopped while writing it): resuming from %s\n",
                   last_path.c_str(), best_path.c_str());
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
  if (cfg.model == "bigram")
    for (const char* key : {"n_layer", "n_head", "n_embd", "dropout", "bias", "tied", "activation"})
      SG_CHECK(!opt.overrides.contains(key), "--", dashed(key),
               " does not apply to the bigram model (its only parameter is a V x V table): drop "
               "it, or train a GPT (--preset shakespeare-char-small)");

  // 2. The data: its vocabulary fixes V.
  Dataset data = Dataset::load(opt.data_dir);
  if (opt.resume)
    SG_CHECK(data.tokenizer.chars() == ck.tokenizer.chars(), "the vocabulary of ", opt.data_dir,
             " differs from the checkpoint's: resume with the data it was trained on");
  cfg.gpt.vocab_size = data.tokenizer.vocab_size();
  cfg.validate();
  const int B = cfg.batch_size, T = cfg.gpt.block_size;
  SG_CHECK(static_cast<int64_t>(data.train.size()) >= T + 1, "the training split has ",
           data.train.size(), " tokens, shorter than the context block_size + 1 = ", T + 1,
           ": use a smaller --block-size or a longer text");
  SG_CHECK(static_cast<int64_t>(data.val.size()) >= T + 1, "the validation split has ",
           data.val.size(), " tokens, shorter than the context block_size + 1 = ", T + 1,
           ": use a smaller --block-size or a longer text");

  // 3. The output directory, before any work.
  ensure_writable_dir(opt.out_dir, "--out-dir");
  if (!lock) lock = std::make_unique<DirLock>(opt.out_dir, "--out-dir");
  if (!opt.resume && !opt.overwrite)
    SG_CHECK(!fs::exists(last_path, ec) && !fs::exists(best_path, ec), "--out-dir ", opt.out_dir,
             " already holds checkpoints of another run: pass --resume to continue it, "
             "--overwrite to replace them, or choose another --out-dir");
  if (cfg.threads > 0) ThreadPool::set_global_threads(cfg.threads);
  cpu::set_matmul_backend(cpu::parse_matmul_backend(cfg.matmul));
  cfg.matmul = cpu::matmul_backend_name(cpu::matmul_backend());  // "auto" resolved, for resume

  // 4. Model, optimizer state and generators: first whether they can fit at all.
  check_fits_in_memory(training_bytes_lower_bound(cfg), "training this config",
                       "lower --n-embd, --n-layer, --batch-size or --block-size");
  BuiltModel built = build_model(cfg);
  LanguageModel& model = *built.model;
  if (model.block_size() < T)
    fail("block_size ", T, " exceeds the model's context ", model.block_size());
  // rng_stream "split": batch_rng and dropout_rng, and a generator per evaluation.
  // "nanogpt": batch_rng is nanoGPT's one generator and serves everything.
  const bool one_stream = cfg.rng_stream == "nanogpt";
  if (opt.resume)
    SG_CHECK(cfg.rng_stream == ck.cfg.rng_stream, "--rng-stream ", cfg.rng_stream,
             " differs from the run's (", ck.cfg.rng_stream,
             "): a resumed run keeps its random stream; drop the flag");
  Rng batch_rng(cfg.seed + 1), dropout_rng(cfg.seed + 2);
  Rng& mask_rng = one_stream ? batch_rng : dropout_rng;  // dropout masks
  const size_t BT = static_cast<size_t>(B) * T;
  std::vector<int32_t> x(BT), y(BT);    // (B, T) the step's batch; evaluation scratch
  std::vector<int32_t> xn(BT), yn(BT);  // (B, T) nanogpt: the next step's batch, prefetched
  auto draw_batch = [&](Rng& rng, std::vector<int32_t>& bx, std::vector<int32_t>& by) {
    get_batch(data.train.data(), static_cast<int64_t>(data.train.size()), B, T, rng, bx.data(),
              by.data());
  };
  TrainState state;
  if (opt.resume) {
    restore_params(ck, model, /*with_optimizer=*/true);
    state = ck.state;
    batch_rng.set_state(state.batch_rng);
    dropout_rng.set_state(state.dropout_rng);
    if (one_stream) {
      SG_CHECK(state.prefetch.size() == 2 * BT, "checkpoint ", last_path, " holds a prefetched batch of ",
               state.prefetch.size() / 2, " tokens where B x T = ", BT,
               ": resume with the run's --batch-size and --block-size");
      std::copy(state.prefetch.begin(), state.prefetch.begin() + BT, xn.begin());
      std::copy(state.prefetch.begin() + BT, state.prefetch.end(), yn.begin());
    }
    ck.st = SafeTensors();  // free the copy
  } else if (one_stream) {
    batch_rng.manual_seed(cfg.seed);  // torch.manual_seed(seed); model = GPT(...)
    built.init(batch_rng);
    draw_batch(batch_rng, xn, yn);  // X, Y = get_batch('train'): the very first batch
  } else {
    Rng init_rng(cfg.seed);
    built.init(init_rng);
  }
  std::vector<Param>& params = model.params();
  const std::string metrics_path = (fs::path(opt.out_dir) / "metrics.jsonl").string();
  if (opt.resume) drop_metrics_after(metrics_path, state);
  if (opt.overwrite) {
    // The earlier run goes as a whole: its checkpoints with its metrics, so that the out dir
    // never pairs the new metrics with the old checkpoints.
    fs::remove(last_path, ec);
    fs::remove(best_path, ec);
  }
  MetricsLog metrics(metrics_path, opt.resume);

  auto save = [&](const std::string& path) {
    state.batch_rng = batch_rng.get_state();
    state.dropout_rng = dropout_rng.get_state();
    state.prefetch.clear();
    if (one_stream) {
      state.prefetch.insert(state.prefetch.end(), xn.begin(), xn.end());
      state.prefetch.insert(state.prefetch.end(), yn.begin(), yn.end());
    }
    save_checkpoint(path, model, cfg, data.tokenizer, state);
  };

  const bool tty = ::isatty(::fileno(log)) != 0;
  std::fprintf(
      log, "training %s (%s, %.2fM parameters) on %s: %lld iters from %lld, B=%d T=%d%s, matmul %s\n",
      cfg.preset.empty() ? "custom" : cfg.preset.c_str(), cfg.model.c_str(),
      static_cast<double>(model.num_params()) / 1e6, opt.data_dir.c_str(),
      static_cast<long long>(cfg.max_iters), static_cast<long long>(state.iter), B, T,
      cfg.grad_accum > 1 ? (" x" + std::to_string(cfg.grad_accum) + " accum").c_str() : "",
      cfg.matmul.c_str());
  std::fflush(log);

  TrainSummary sum;
  const int64_t start_iter = state.iter;
  double train_s = 0;
  const auto t_loop = Clock::now();
  bool progress_open = false;  // a \r progress line is on the terminal without its newline
  int64_t tokens = 0;
  auto last_draw = Clock::now() - std::chrono::seconds(1);
  int64_t it = state.iter;
  while (true) {
    // Evaluation (and checkpoints) every eval_interval steps and at the end.
    if ((it % cfg.eval_interval == 0 || it == cfg.max_iters) && state.last_eval_iter != it) {
      // nanogpt: nanoGPT evaluates only at multiples of eval_interval, from its one stream. The
      // extra evaluation of a run stopped elsewhere (max_iters) draws from its own generator, so
      // that resuming it continues the stream exactly.
      Rng own_eval_rng(eval_seed(cfg.seed, it));
      Rng& eval_rng = one_stream && it % cfg.eval_interval == 0 ? batch_rng : own_eval_rng;
      const float train_loss =
          estimate_loss(model, data.train, B, T, cfg.eval_iters, eval_rng, x, y);
      const float val_loss = estimate_loss(model, data.val, B, T, cfg.eval_iters, eval_rng, x, y);
      state.last_eval_iter = it;
      sum.last_val_loss = val_loss;
      metrics.log_eval(it, train_loss, val_loss, seconds_since(t_start));
      const bool improved = val_loss < state.best_val_loss;
      if (improved) state.best_val_loss = val_loss;
      progress_open = false;
      std::fprintf(log, "%sstep %lld: train loss %.4f, val loss %.4f%s\n", tty ? "\r\x1b[K" : "",
                   static_cast<long long>(it), train_loss, val_loss, improved ? " (best)" : "");
      std::fflush(log);
      if (improved) save(best_path);
      save(last_path);
    }
    if (it >= cfg.max_iters) break;
    if (stop_requested()) {
      if (state.last_eval_iter != it) save(last_path);  // else saved just above
      sum.interrupted = true;
      progress_open = false;
      std::fprintf(log,
                   "%sinterrupted: saved %s at iter %lld. Resume with:\n"
                   "  scratchgpt train --data-dir %s --out-dir %s --resume\n",
                   tty ? "\r\x1b[K" : "", last_path.c_str(), static_cast<long long>(it),
                   opt.data_dir.c_str(), opt.out_dir.c_str());
      break;
    }

    // One optimizer step: grad_accum micro-steps, mean gradient, clip, AdamW.
    const auto t0 = Clock::now();
    const double lr = get_lr(static_cast<int>(it), cfg);
    model.zero_grad();
    double loss_sum = 0;
    for (int micro = 0; micro < cfg.grad_accum; ++micro) {
      if (one_stream) {
        // nanoGPT: forward on the prefetched batch, fetch the next one, then backward.
        x.swap(xn);
        y.swap(yn);
        loss_sum += model.forward(x.data(), y.data(), B, T, &mask_rng);
        draw_batch(batch_rng, xn, yn);
      } else {
        draw_batch(batch_rng, x, y);
        loss_sum += model.forward(x.data(), y.data(), B, T, &mask_rng);
      }
      model.backward();
    }
    if (cfg.grad_accum > 1) scale_grads(params, 1.0f / static_cast<float>(cfg.grad_accum));
    const double norm = optimizer_step(params, static_cast<float>(lr), cfg, static_cast<int>(it + 1));
    const auto loss = static_cast<float>(loss_sum / cfg.grad_accum);
    SG_CHECK(std::isfinite(loss), "the loss became ", loss, " at iter ", it,
             ": lower --lr or enable --grad-clip");
    ++it;
    state.iter = it;

    const double dt = seconds_since(t0);
    train_s += dt;
    tokens += static_cast<int64_t>(B) * T * cfg.grad_accum;
    const double tok_s = static_cast<double>(B) * T * cfg.grad_accum / dt;
    metrics.log_step(it - 1, loss, lr, norm, tok_s, seconds_since(t_start));
    const double avg_tok_s = static_cast<double>(tokens) / train_s;
    // ETA from the wall time per step so far, evaluations included.
    const double eta = seconds_since(t_loop) / static_cast<double>(it - start_iter) *
                       static_cast<double>(cfg.max_iters - it);
    char line[256];
    std::snprintf(line, sizeof(line), "iter %lld/%lld loss %.4f lr %.2e %s tok/s ETA %s",
                  static_cast<long long>(it), static_cast<long long>(cfg.max_iters), loss, lr,
                  format_rate(avg_tok_s).c_str(), format_duration(eta).c_str());
    if (tty) {
      if (seconds_since(last_draw) > 0.1 || it == cfg.max_iters) {
        std::fprintf(log, "\r\x1b[K%s", line);
        std::fflush(log);
        progress_open = true;
        last_draw = Clock::now();
      }
    } else if (it % cfg.log_interval == 0 || it == cfg.max_iters) {
      std::fprintf(log, "%s\n", line);
      std::fflush(log);
    }

  }
  if (tty && progress_open) std::fprintf(log, "\n");

  sum.iters = state.iter;
  sum.best_val_loss = state.best_val_loss;
  sum.wall_s = seconds_since(t_start);
  sum.tokens_per_s = train_s > 0 ? static_cast<double>(tokens) / train_s : 0;
  std::fprintf(log,
               "%s: %lld iters, best val loss %.4f, wall time %s (%.1f s), %s tok/s; "
               "checkpoints in %s\n",
               sum.interrupted ? "stopped" : "done", static_cast<long long>(sum.iters),
               sum.best_val_loss, format_duration(sum.wall_s).c_str(), sum.wall_s,
               format_rate(sum.tokens_per_s).c_str(), opt.out_dir.c_str());
  std::fflush(log);
  return sum;
}

}  // namespace scratchgpt
