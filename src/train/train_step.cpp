// train_step.cpp: see train_step.h.
#include "train/train_step.h"

#include <chrono>
#include <cmath>
#include <cstring>

#include "core/check.h"
#include "kernels/kernels.h"
#include "train/optimizer.h"

namespace scratchgpt {

TrainStep::TrainStep(LanguageModel& model, BatchStream& batches, const TrainConfig& cfg, Comm& comm,
                     bool overlap)
    : model_(model), batches_(batches), cfg_(cfg), adamw_(adamw_config(cfg)), comm_(comm) {
  const int N = comm.size(), G = cfg.grad_accum;
  SG_CHECK(G % N == 0, "--grad-accum ", G, " is not a multiple of the ", N,
           " processes: it counts the micro-steps of a step over all of them (nanoGPT divides "
           "gradient_accumulation_steps by the world size); use --grad-accum ",
           N * ((G + N - 1) / N));
  count_ = G / N;
  first_ = comm.rank() * count_;
  const ExecContext& ex = model.exec();
  SG_CHECK(ex.device == Device::kCpu || N == 1,
           "--device cuda trains in one process: run it without mpirun");
  if (count_ > 1) accum_.reserve(model.grad_slab().size(), ex.device);
  losses_.resize(static_cast<size_t>(count_));
  all_losses_.resize(static_cast<size_t>(G));
  if (overlap && N > 1) reducer_ = std::make_unique<BackgroundReducer>(comm);
}

StepResult TrainStep::run(double lr, int64_t iter) {
  const ExecContext& ex = model_.exec();
  const std::span<float> grads = model_.grad_slab();
  float* accum = count_ > 1 ? accum_.base() : nullptr;
  for (int micro = 0; micro < cfg_.grad_accum; ++micro) {
    const int k = micro - first_;
    if (k < 0 || k >= count_) {
      batches_.skip();  // another process's micro-step: its batch, drawn to keep the stream
      continue;
    }
    model_.zero_grad();  // each micro-step's gradient starts fresh, then is added in order
    losses_[static_cast<size_t>(k)] = batches_.forward(model_, iter, micro);
    if (reducer_ && k == count_ - 1) {
      // The last micro-step, overlapped: each range backward finishes is added to the earlier
      // micro-steps' sum (k >= 1 when there is one), then goes to the communication thread.
      float* sum = accum != nullptr ? accum : grads.data();
      model_.backward([&](size_t begin, size_t end) {
        if (accum != nullptr)
          for (size_t i = begin; i < end; ++i) accum[i] = accum[i] + grads[i];
        reducer_->start({sum + begin, end - begin});
      });
      continue;
    }
    model_.backward();
    if (accum == nullptr) continue;
    const int64_t n = static_cast<int64_t>(grads.size());
    if (k == 0) {
      kernels::copy(ex, accum, grads.data(), n);
    } else {
      kernels::residual_forward(ex, accum, accum, grads.data(), n);  // accum = accum + grads
    }
  }
  if (!reducer_ && accum != nullptr)
    kernels::copy(ex, grads.data(), accum, static_cast<int64_t>(grads.size()));
  using Clock = std::chrono::steady_clock;
  const auto t_wait = Clock::now();
  auto t0 = t_wait;
  double overlap_s = 0;
  if (reducer_) {
    reducer_->wait();  // the ranges still in flight (block 0's, the embeddings'), then MPI is ours
    overlap_s = reducer_->take_busy_seconds();
    if (accum != nullptr) std::memcpy(grads.data(), accum, grads.size_bytes());
  } else {
    if (comm_.size() > 1) comm_.barrier();  // splits waiting from moving data, for the report
    t0 = Clock::now();
    comm_.all_reduce_sum(grads);  // ((sum of rank 0) + sum of rank 1) + ...
  }
  comm_.all_gather(losses_, all_losses_);
  const double comm_s = std::chrono::duration<double>(Clock::now() - t0).count();
  const double wait_s = std::chrono::duration<double>(t0 - t_wait).count();
  double loss_sum = 0;
  for (float l : all_losses_) loss_sum += l;  // in micro-step order

  std::vector<Param>& params = model_.params();
  if (cfg_.grad_accum > 1) scale_grads(ex, params, 1.0f / static_cast<float>(cfg_.grad_accum));
  StepResult r;
  r.grad_norm = optimizer_step(model_, static_cast<float>(lr), adamw_, static_cast<int>(iter + 1));
  r.loss = static_cast<float>(loss_sum / cfg_.grad_accum);
  r.comm_s = comm_s;
  r.wait_s = wait_s;
  r.overlap_s = overlap_s;
  SG_CHECK(std::isfinite(r.loss), "the loss became ", r.loss, " at iter ", iter,
           ": lower --lr or enable --grad-clip");
  return r;
}

}  // namespace scratchgpt
