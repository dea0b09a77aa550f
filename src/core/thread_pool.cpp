// thread_pool.cpp: see thread_pool.h.
#include "core/thread_pool.h"

#include <algorithm>
#include <memory>

#include "core/check.h"

namespace scratchgpt {

ThreadPool::ThreadPool(int num_threads) {
  if (num_threads <= 0) num_threads = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  num_threads_ = num_threads;
  for (int w = 1; w < num_threads_; ++w) workers_.emplace_back([this, w] { worker_loop(w); });
}

ThreadPool::~ThreadPool() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
  }
  start_cv_.notify_all();
  for (auto& t : workers_) t.join();
}

void ThreadPool::worker_loop(int w) {
  uint64_t seen = 0;
  for (;;) {
    const Fn* job;
    int64_t n;
    int workers;
    {
      std::unique_lock<std::mutex> lock(mu_);
      start_cv_.wait(lock, [&] { return stop_ || generation_ != seen; });
      if (stop_) return;
      seen = generation_;
      job = job_;
      n = job_n_;
      workers = job_workers_;
    }
    if (w < workers) {
      int64_t b, e;
      chunk(n, workers, w, &b, &e);
      if (b < e) (*job)(b, e, w);
    }
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (--pending_ == 0) done_cv_.notify_one();
    }
  }
}

void ThreadPool::parallel_for(int64_t n, Fn fn) {
  if (n <= 0) return;
  int workers = static_cast<int>(std::min<int64_t>(num_threads_, n));
  bool run_serial = workers == 1;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (busy_) run_serial = true;  // nested call: run on the caller, same chunks
    if (!run_serial) {
      busy_ = true;
      job_ = &fn;
      job_n_ = n;
      job_workers_ = workers;
      pending_ = num_threads_ - 1;
      ++generation_;
    }
  }
  if (run_serial) {
    // Same partition as the parallel path so results never depend on the thread count.
    for (int w = 0; w < workers; ++w) {
      int64_t b, e;
      chunk(n, workers, w, &b, &e);
      if (b < e) fn(b, e, w);
    }
    return;
  }
  start_cv_.notify_all();
  int64_t b, e;
  chunk(n, workers, 0, &b, &e);
  fn(b, e, 0);
  std::unique_lock<std::mutex> lock(mu_);
  done_cv_.wait(lock, [&] { return pending_ == 0; });
  busy_ = false;
}

namespace {
std::unique_ptr<ThreadPool>& global_slot() {
  static std::unique_ptr<ThreadPool> pool;
  return pool;
}
}  // namespace

ThreadPool& ThreadPool::global() {
  auto& p = global_slot();
  if (!p) p = std::make_unique<ThreadPool>(0);
  return *p;
}

void ThreadPool::set_global_threads(int num_threads) {
  SG_CHECK(num_threads >= 0, "--threads must be >= 0 (0 means all cores), got ", num_threads);
  global_slot() = std::make_unique<ThreadPool>(num_threads);
}

}  // namespace scratchgpt
