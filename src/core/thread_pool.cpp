// thread_pool.cpp: see thread_pool.h.
#include "core/thread_pool.h"

#include <pthread.h>

#include <algorithm>
#include <chrono>
#include <csignal>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#endif

namespace scratchgpt {

namespace {

inline void cpu_relax() {
#if defined(__x86_64__) || defined(__i386__)
  _mm_pause();
#endif
}

// Spins until done() or kSpinMicros have passed; returns done(). After the first kPauseMicros of
// pure spinning it yields between polls, so that with more threads than free cores the thread it
// waits for gets to run.
template <typename Done>
bool spin_until(const Done& done) {
  using Clock = std::chrono::steady_clock;
  constexpr int64_t kPauseMicros = 20;
  const auto start = Clock::now();
  const auto yield_from = start + std::chrono::microseconds(kPauseMicros);
  const auto deadline = start + std::chrono::microseconds(ThreadPool::kSpinMicros);
  for (;;) {
    for (int i = 0; i < 32; ++i) {
      if (done()) return true;
      cpu_relax();
    }
    const auto now = Clock::now();
    if (now >= deadline) return done();
    if (now >= yield_from) std::this_thread::yield();
  }
}

}  // namespace

ThreadPool::ThreadPool(int num_threads) {
  if (num_threads <= 0)
    num_threads = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  num_threads_ = num_threads;
  for (int w = 1; w < num_threads_; ++w) workers_.emplace_back([this, w] { worker_loop(w); });
}

ThreadPool::~ThreadPool() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_.store(true, std::memory_order_release);
  }
  start_cv_.notify_all();
  for (auto& t : workers_) t.join();
}

void ThreadPool::worker_loop(int w) {
  // Workers never take the process-directed stop signals (Ctrl-C, kill, hang-up): those go to the
  // thread that installed the handler (train/interrupt.h), which runs it on its own signal stack.
  // A handler run on a worker in the middle of a kernel would push its frame wherever that
  // kernel's rsp points, which for oneDNN's JIT GEMM is the heap.
  sigset_t stop_signals;
  sigemptyset(&stop_signals);
  for (int sig : {SIGINT, SIGTERM, SIGHUP, SIGQUIT}) sigaddset(&stop_signals, sig);
  pthread_sigmask(SIG_BLOCK, &stop_signals, nullptr);
  uint64_t seen = 0;
  for (;;) {
    auto has_work = [&] {
      return generation_.load(std::memory_order_acquire) != seen ||
             stop_.load(std::memory_order_acquire);
    };
    if (!spin_until(has_work)) {
      std::unique_lock<std::mutex> lock(mu_);
      ++sleepers_;
      start_cv_.wait(lock, has_work);
      --sleepers_;
    }
    if (stop_.load(std::memory_order_acquire)) return;
    seen = generation_.load(std::memory_order_acquire);
    const int workers = job_workers_;
    if (w < workers) {
      int64_t b, e;
      chunk(job_n_, workers, w, &b, &e);
      if (b < e) {
        try {
          (*job_)(b, e, w);
        } catch (...) {
          keep_error(std::current_exception());
        }
      }
    }
    if (pending_.fetch_sub(1, std::memory_order_acq_rel) == 1) {
      // Last one out: wake the caller if it gave up spinning (under the lock, so the wake-up
      // cannot fall between its check and its wait).
      std::lock_guard<std::mutex> lock(mu_);
      if (caller_asleep_) done_cv_.notify_one();
    }
  }
}

void ThreadPool::parallel_for(int64_t n, Fn fn) {
  if (n <= 0) return;
  // A one-thread pool has no worker to hand to and no state to guard: no lock. serial_pool() is
  // one, called by every worker at once (attention's per-head products: about 2,300 calls a step
  // on the small model), whose shared mutex cost about 1% of the step.
  if (num_threads_ == 1) return fn(0, n, 0);
  int workers = static_cast<int>(std::min<int64_t>(num_threads_, n));
  bool run_serial = workers == 1;
  bool wake = false;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (busy_) run_serial = true;  // nested call: run on the caller, same chunks
    if (!run_serial) {
      busy_ = true;
      job_ = &fn;
      job_n_ = n;
      job_workers_ = workers;
      pending_.store(num_threads_ - 1, std::memory_order_relaxed);
      generation_.fetch_add(1, std::memory_order_release);
      wake = sleepers_ > 0;
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
  if (wake) start_cv_.notify_all();
  int64_t b, e;
  chunk(n, workers, 0, &b, &e);
  try {  // the workers read fn: wait for them before leaving, even when this chunk throws
    fn(b, e, 0);
  } catch (...) {
    keep_error(std::current_exception());
  }
  auto all_done = [&] { return pending_.load(std::memory_order_acquire) == 0; };
  if (!spin_until(all_done)) {
    std::unique_lock<std::mutex> lock(mu_);
    caller_asleep_ = true;
    done_cv_.wait(lock, all_done);
    caller_asleep_ = false;
  }
  std::exception_ptr error;
  {
    std::lock_guard<std::mutex> lock(mu_);
    busy_ = false;
    std::swap(error, error_);
  }
  if (error) std::rethrow_exception(error);
}

void ThreadPool::keep_error(std::exception_ptr e) {
  std::lock_guard<std::mutex> lock(mu_);
  if (!error_) error_ = std::move(e);
}

ThreadPool& ThreadPool::global() {
  static ThreadPool pool(0);
  return pool;
}

}  // namespace scratchgpt
