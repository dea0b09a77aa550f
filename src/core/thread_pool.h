// thread_pool.h: ThreadPool, persistent workers with deterministic static partitioning.
// parallel_for(n, fn) splits [0, n) into one contiguous chunk per worker, always the same chunks
// for the same (n, threads). Rule for kernels: each output element belongs to exactly one chunk and
// is reduced in a fixed order, so 1 and N threads give bitwise-identical results.
// Hand-off: a worker spins for a short while (kSpinMicros) on the job counter before it sleeps on
// a condition variable, so the hundreds of small parallel_for calls of a training step cost a
// cache-line round trip each instead of a futex wake-up each; an idle pool still sleeps.
// An exception thrown by fn on any thread (a kernel's check failing) comes out of parallel_for on
// the caller, after every chunk has finished (the first one thrown; the others are dropped): no
// worker dies with it (which would end the process) and the pool stays usable.
// Leaves out: work stealing, nested parallelism (a nested call runs serially on the caller).
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <exception>
#include <mutex>
#include <thread>
#include <type_traits>
#include <utility>
#include <vector>

namespace scratchgpt {

// A non-owning reference to a callable fn(begin, end, worker): unlike std::function it never
// allocates, so handing a kernel's lambda to the pool costs nothing inside a training step.
// The callable must outlive the call (parallel_for blocks until every chunk is done).
class RangeFn {
 public:
  template <typename F, typename = std::enable_if_t<!std::is_same_v<std::decay_t<F>, RangeFn>>>
  RangeFn(F&& f)  // NOLINT: implicit, so lambdas pass straight in
      : obj_(const_cast<void*>(static_cast<const void*>(&f))),
        call_([](void* o, int64_t b, int64_t e, int w) {
          (*static_cast<std::remove_reference_t<F>*>(o))(b, e, w);
        }) {}
  void operator()(int64_t b, int64_t e, int w) const { call_(obj_, b, e, w); }

 private:
  void* obj_;
  void (*call_)(void*, int64_t, int64_t, int);
};

class ThreadPool {
 public:
  // fn(begin, end, worker): process items [begin, end); worker is in [0, num_threads()).
  using Fn = RangeFn;

  explicit ThreadPool(int num_threads = 0);  // 0: std::thread::hardware_concurrency()
  ~ThreadPool();
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  int num_threads() const { return num_threads_; }

  // Runs fn over [0, n) split into num_threads() static chunks (fewer when n is small);
  // the calling thread does chunk 0. Blocks until every chunk is done, then rethrows the first
  // exception fn threw, if any.
  void parallel_for(int64_t n, Fn fn);

  // The chunk [begin, end) that worker w of `workers` gets out of n items.
  static void chunk(int64_t n, int workers, int w, int64_t* begin, int64_t* end) {
    int64_t base = n / workers, extra = n % workers;
    *begin = w * base + (w < extra ? w : extra);
    *end = *begin + base + (w < extra ? 1 : 0);
  }

  // The default pool, one thread per core, made on first use: what an ExecContext without a
  // pool of its own runs on (tests, lessons). Commands make their own (run/exec.h).
  static ThreadPool& global();

  // How long a worker (or the caller waiting for its workers) spins before it sleeps.
  static constexpr int64_t kSpinMicros = 200;

 private:
  void worker_loop(int w);
  void keep_error(std::exception_ptr e);  // the job's first exception, for the caller

  int num_threads_ = 1;
  std::vector<std::thread> workers_;
  std::mutex mu_;
  std::condition_variable start_cv_, done_cv_;
  // The job: written by the caller before it bumps generation_ (release), read by the workers
  // after they see the new generation (acquire).
  const Fn* job_ = nullptr;
  int64_t job_n_ = 0;
  int job_workers_ = 0;
  std::atomic<uint64_t> generation_{0};
  std::atomic<int> pending_{0};  // workers that have not finished the current job
  int sleepers_ = 0;             // workers asleep on start_cv_ (guarded by mu_)
  bool caller_asleep_ = false;   // the caller waits on done_cv_ (guarded by mu_)
  std::atomic<bool> stop_{false};
  bool busy_ = false;  // a parallel_for is running (guarded by mu_)
  std::exception_ptr error_;  // the first exception of the current job (guarded by mu_)
};

}  // namespace scratchgpt
