// background_reducer.cpp: see background_reducer.h.
#include "dist/background_reducer.h"

#include <chrono>

#include "core/check.h"

namespace scratchgpt {

namespace {
Comm& checked(Comm& comm) {  // before the thread starts: a throwing constructor must not leave it
  SG_CHECK(comm.allows_comm_thread(),
           "BackgroundReducer: this Comm may only be called from the thread that made it");
  return comm;
}
}  // namespace

BackgroundReducer::BackgroundReducer(Comm& comm)
    : comm_(checked(comm)), thread_([this] { loop(); }) {}

BackgroundReducer::~BackgroundReducer() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
  }
  work_cv_.notify_one();
  thread_.join();
}

void BackgroundReducer::start(std::span<float> range) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (error_) return;  // the Comm failed: wait() reports it
    queue_.push_back(range);
  }
  work_cv_.notify_one();
}

void BackgroundReducer::wait() {
  std::unique_lock<std::mutex> lock(mu_);
  done_cv_.wait(lock, [this] { return queue_.empty() && !busy_; });
  if (error_) std::rethrow_exception(error_);
}

double BackgroundReducer::take_busy_seconds() {
  std::lock_guard<std::mutex> lock(mu_);
  const double s = busy_s_;
  busy_s_ = 0;
  return s;
}

void BackgroundReducer::loop() {
  std::unique_lock<std::mutex> lock(mu_);
  while (true) {
    work_cv_.wait(lock, [this] { return stop_ || !queue_.empty(); });
    if (queue_.empty()) return;  // stop_, and nothing left to sum
    const std::span<float> range = queue_.front();
    queue_.pop_front();
    busy_ = true;
    lock.unlock();
    const auto t0 = std::chrono::steady_clock::now();
    std::exception_ptr error;
    try {
      comm_.all_reduce_sum_sleeping(range);  // the computing threads keep the cores
    } catch (...) {
      error = std::current_exception();
    }
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    lock.lock();
    busy_ = false;
    busy_s_ += s;
    if (error) {
      error_ = error;
      queue_.clear();  // a Comm that failed once is not used again
    }
    if (queue_.empty()) done_cv_.notify_all();
  }
}

}  // namespace scratchgpt
