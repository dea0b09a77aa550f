// background_reducer_test.cpp: BackgroundReducer, the communication thread of the overlapped
// all-reduce, over a stand-in Comm that records what it is asked to sum: every queued range is
// summed exactly once, in the order queued, off the caller's thread, and wait() returns only
// after the last; a failure in the thread comes back from wait() as the Error it was, and the
// ranges queued after it are dropped; a Comm that allows no other thread is refused.
#include "dist/background_reducer.h"

#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <mutex>
#include <span>
#include <string>
#include <thread>
#include <vector>

#include "core/check.h"

namespace scratchgpt {
namespace {

// "Sums" a range by adding 1 to each element (so a range summed twice shows), slowly, and records
// the ranges and the thread it ran on; fails on the range starting at fail_at.
class RecordingComm final : public Comm {
 public:
  bool allow_thread = true;
  const float* fail_at = nullptr;
  std::mutex mu;
  std::vector<const float*> order;
  std::vector<std::thread::id> threads;

  int rank() const override { return 0; }
  int size() const override { return 2; }
  int local_size() const override { return 2; }
  void all_reduce_sum(std::span<float> data) override {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
    {
      std::lock_guard<std::mutex> lock(mu);
      order.push_back(data.data());
      threads.push_back(std::this_thread::get_id());
    }
    if (data.data() == fail_at) fail("MPI Recv failed: a stand-in for a lost peer");
    for (float& x : data) x += 1.0f;
  }
  void all_gather(std::span<const float>, std::span<float>) override {}
  bool any(bool flag) override { return flag; }
  void barrier() override {}
  bool allows_comm_thread() const override { return allow_thread; }
  [[noreturn]] void abort(int code) override { std::exit(code); }
};

TEST(BackgroundReducer, SumsEveryRangeOnceInOrderOffTheCallersThread) {
  RecordingComm comm;
  std::vector<float> slab(100, 0.0f);
  BackgroundReducer reducer(comm);
  for (int step = 0; step < 3; ++step) {  // reused across steps, as TrainStep does
    // Backward's order: the end of the slab first.
    reducer.start({slab.data() + 80, 20});
    reducer.start({slab.data() + 50, 30});
    reducer.start({slab.data() + 20, 30});
    reducer.start({slab.data(), 20});
    reducer.wait();
    for (float x : slab) ASSERT_EQ(x, static_cast<float>(step + 1)) << "step " << step;
  }
  ASSERT_EQ(comm.order.size(), 12u);
  for (size_t i = 0; i < comm.order.size(); ++i) {
    const size_t want[] = {80, 50, 20, 0};
    EXPECT_EQ(comm.order[i], slab.data() + want[i % 4]) << i;
    EXPECT_NE(comm.threads[i], std::this_thread::get_id()) << i;
  }
  EXPECT_GT(reducer.take_busy_seconds(), 0.0);
  EXPECT_EQ(reducer.take_busy_seconds(), 0.0);
  reducer.wait();  // nothing queued: returns at once
}

TEST(BackgroundReducer, AFailureComesBackFromWaitAndDropsTheRest) {
  RecordingComm comm;
  std::vector<float> slab(30, 0.0f);
  comm.fail_at = slab.data() + 10;
  BackgroundReducer reducer(comm);
  reducer.start({slab.data() + 20, 10});
  reducer.start({slab.data() + 10, 10});
  reducer.start({slab.data(), 10});
  try {
    reducer.wait();
    FAIL() << "wait() returned after a failed range";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("lost peer"), std::string::npos) << e.what();
  }
  EXPECT_EQ(slab[25], 1.0f);         // summed before the failure
  EXPECT_EQ(slab[5], 0.0f);          // queued after it: dropped
  reducer.start({slab.data(), 10});  // ignored: the Comm failed
  EXPECT_THROW(reducer.wait(), Error);
  EXPECT_EQ(slab[5], 0.0f);
}

TEST(BackgroundReducer, RefusesACommThatAllowsNoOtherThread) {
  RecordingComm comm;
  comm.allow_thread = false;
  EXPECT_THROW(BackgroundReducer reducer(comm), Error);
}

}  // namespace
}  // namespace scratchgpt
