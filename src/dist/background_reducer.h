// background_reducer.h: BackgroundReducer, a communication thread that sums ranges of an array
// across ranks (Comm::all_reduce_sum_sleeping) while the caller goes on computing: the overlap of
// the gradient all-reduce with backward, as PyTorch DDP's buckets and llm.c do. start() queues a
// range and returns at once; wait() returns when every queued range is summed, or rethrows the
// first failure. Ranges are summed one at a time in the order queued, each with the same
// per-element rank-order sum as all_reduce_sum of the whole array, so the results are the same
// bits. While ranges are in flight only this thread calls the Comm; the caller may call it again
// once wait() has returned (needs comm.allows_comm_thread()).
// Leaves out: several ranges on the wire at once, merging small ranges into larger buckets.
// Simpler twin: Comm::all_reduce_sum on the whole array after backward.
#pragma once

#include <condition_variable>
#include <deque>
#include <exception>
#include <mutex>
#include <span>
#include <thread>

#include "dist/comm.h"

namespace scratchgpt {

class BackgroundReducer {
 public:
  explicit BackgroundReducer(Comm& comm);  // starts the thread (idle until start())
  ~BackgroundReducer();                    // sums what was queued, then ends the thread
  BackgroundReducer(const BackgroundReducer&) = delete;
  BackgroundReducer& operator=(const BackgroundReducer&) = delete;

  // Queues range for summing; it must stay untouched by the caller until wait() returns. Every
  // rank must queue the same ranges (by size) in the same order, as for all_reduce_sum.
  void start(std::span<float> range);
  // Blocks until every queued range is summed; an Error the thread met (an MPI failure) is
  // rethrown here, and the ranges queued after it are dropped.
  void wait();
  // Seconds the thread has spent summing since the last call (the time wait() could hide).
  double take_busy_seconds();

 private:
  void loop();  // the thread: pops ranges and sums them until told to stop

  Comm& comm_;
  std::mutex mu_;
  std::condition_variable work_cv_, done_cv_;
  std::deque<std::span<float>> queue_;  // queued, not yet started
  bool busy_ = false;                   // the thread is summing one range now
  bool stop_ = false;
  std::exception_ptr error_;
  double busy_s_ = 0;
  std::thread thread_;  // last: starts after the members it uses exist
};

}  // namespace scratchgpt
