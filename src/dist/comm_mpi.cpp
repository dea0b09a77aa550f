// comm_mpi.cpp: MpiComm, the communicator over MPI (builds with SCRATCHGPT_HAVE_MPI; elsewhere
// make_mpi_comm() returns null). all_reduce_sum is a chain in rank order, pipelined in chunks
// (rank r receives the partial sum of ranks < r, adds its own, passes it on), then a broadcast
// from the last rank: deterministic, unlike MPI_Allreduce, whose summation order is the library's.
// Both are non-blocking calls: all_reduce_sum waits for them in MPI, all_reduce_sum_sleeping polls
// them between short sleeps, so that a communication thread waiting for another rank leaves the
// core to backward.
// Leaves out: a ring or tree all-reduce (faster for many ranks, but its order depends on the size).
#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <memory>
#include <thread>
#include <vector>

#include "core/check.h"
#include "dist/comm.h"

#ifdef SCRATCHGPT_HAVE_MPI
#include <mpi.h>

namespace scratchgpt {

namespace {

// Floats per message: small enough that the chain's links work at once (about 2 x size pieces,
// so the chain costs about 1.5 times one transfer of the data), big enough to amortise latency.
int64_t chunk_floats(int64_t n, int size) {
  const int64_t want = (n + 2 * size - 1) / (2 * size);
  return std::clamp<int64_t>(want, int64_t{1} << 14, int64_t{1} << 20);
}

void check_mpi(int rc, const char* what) {
  if (rc == MPI_SUCCESS) return;
  char msg[MPI_MAX_ERROR_STRING];
  int len = 0;
  MPI_Error_string(rc, msg, &len);
  fail("MPI ", what, " failed: ", std::string(msg, static_cast<size_t>(len)));
}

// Completes a non-blocking call: MPI_Wait, or (sleeping) MPI_Test then a sleep growing from a
// few microseconds to 200, so that a thread waiting for another rank does not hold a core (the
// sleeps add at most about that to the reduction's latency).
void complete(MPI_Request& req, bool sleeping, const char* what) {
  if (!sleeping) return check_mpi(MPI_Wait(&req, MPI_STATUS_IGNORE), what);
  for (int us = 5;; us = std::min(2 * us, 200)) {
    int done = 0;
    check_mpi(MPI_Test(&req, &done, MPI_STATUS_IGNORE), what);
    if (done) return;
    std::this_thread::sleep_for(std::chrono::microseconds(us));
  }
}

class MpiComm final : public Comm {
 public:
  MpiComm() {
    int initialized = 0;
    MPI_Initialized(&initialized);
    int provided = MPI_THREAD_SINGLE;
    if (!initialized) {
      // One thread at a time talks to MPI: the main thread, or the communication thread of the
      // overlapped all-reduce (dist/background_reducer.h) while the main thread runs backward.
      check_mpi(MPI_Init_thread(nullptr, nullptr, MPI_THREAD_SERIALIZED, &provided), "Init");
      std::atexit([] {
        int finalized = 0;
        MPI_Finalized(&finalized);
        if (!finalized) MPI_Finalize();
      });
    } else {
      MPI_Query_thread(&provided);
    }
    serialized_ = provided >= MPI_THREAD_SERIALIZED;  // the levels are ordered (MPI 3.1, 12.4.3)
    MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
    MPI_Comm_size(MPI_COMM_WORLD, &size_);
    // Errors come back as codes (and become scratchgpt::Error) instead of aborting silently.
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm local;
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank_, MPI_INFO_NULL, &local);
    MPI_Comm_size(local, &local_size_);
    MPI_Comm_free(&local);
  }

  int rank() const override { return rank_; }
  int size() const override { return size_; }
  int local_size() const override { return local_size_; }

  void all_reduce_sum(std::span<float> data) override { chain_sum(data, /*sleeping=*/false); }
  void all_reduce_sum_sleeping(std::span<float> data) override {
    chain_sum(data, /*sleeping=*/true);
  }

  void all_gather(std::span<const float> mine, std::span<float> all) override {
    SG_CHECK(all.size() == mine.size() * static_cast<size_t>(size_), "all_gather: ", all.size(),
             " slots for ", mine.size(), " values on ", size_, " ranks");
    check_mpi(MPI_Allgather(mine.data(), static_cast<int>(mine.size()), MPI_FLOAT, all.data(),
                            static_cast<int>(mine.size()), MPI_FLOAT, MPI_COMM_WORLD),
              "Allgather");
  }

  bool any(bool flag) override {
    int mine = flag ? 1 : 0, result = 0;
    check_mpi(MPI_Allreduce(&mine, &result, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD), "Allreduce");
    return result != 0;
  }

  void barrier() override { check_mpi(MPI_Barrier(MPI_COMM_WORLD), "Barrier"); }

  bool allows_comm_thread() const override { return serialized_; }

  [[noreturn]] void abort(int code) override {
    MPI_Abort(MPI_COMM_WORLD, code);
    std::exit(code);  // not reached
  }

 private:
  // The chain, then the broadcast, as non-blocking calls completed by complete(): waiting in
  // MPI, or sleeping between polls (the same messages either way, so the same sums).
  void chain_sum(std::span<float> data, bool sleeping) {
    if (size_ == 1) return;
    const int64_t n = static_cast<int64_t>(data.size()), chunk = chunk_floats(n, size_);
    recv_.resize(static_cast<size_t>(std::min(n, chunk)));
    MPI_Request req;
    for (int64_t off = 0; off < n; off += chunk) {
      const int len = static_cast<int>(std::min(chunk, n - off));
      float* mine = data.data() + off;
      if (rank_ > 0) {
        check_mpi(MPI_Irecv(recv_.data(), len, MPI_FLOAT, rank_ - 1, 0, MPI_COMM_WORLD, &req),
                  "Irecv");
        complete(req, sleeping, "Irecv");
        for (int i = 0; i < len; ++i) mine[i] = recv_[static_cast<size_t>(i)] + mine[i];
      }
      if (rank_ < size_ - 1) {
        check_mpi(MPI_Isend(mine, len, MPI_FLOAT, rank_ + 1, 0, MPI_COMM_WORLD, &req), "Isend");
        complete(req, sleeping, "Isend");
      }
    }
    for (int64_t off = 0; off < n; off += (int64_t{1} << 28)) {
      const int len = static_cast<int>(std::min(int64_t{1} << 28, n - off));
      check_mpi(MPI_Ibcast(data.data() + off, len, MPI_FLOAT, size_ - 1, MPI_COMM_WORLD, &req),
                "Ibcast");
      complete(req, sleeping, "Ibcast");
    }
  }

  int rank_ = 0, size_ = 1, local_size_ = 1;
  bool serialized_ = false;  // MPI gave MPI_THREAD_SERIALIZED or MULTIPLE
  std::vector<float> recv_;  // (chunk) one thread at a time uses it, as MPI
};

}  // namespace

std::unique_ptr<Comm> make_mpi_comm() { return std::make_unique<MpiComm>(); }

}  // namespace scratchgpt

#else

namespace scratchgpt {
std::unique_ptr<Comm> make_mpi_comm() { return nullptr; }
}  // namespace scratchgpt

#endif
