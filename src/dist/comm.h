// comm.h: Comm, the communication of data-parallel training: every rank runs its share of a
// step's micro-batches, then all_reduce_sum adds the gradients up across ranks, in rank order, so
// the result is the same bits on every rank and, with one micro-batch per rank, the same bits as
// one process adding its micro-batches in order. NullComm is one process; MpiComm (comm_mpi.cpp,
// in builds with MPI) is chosen at run time when an MPI launcher (mpirun) started the program.
// dist/background_reducer.h runs all_reduce_sum on a communication thread, to overlap it with
// backward. Leaves out: sharded optimizer state.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>

namespace scratchgpt {

class Comm {
 public:
  virtual ~Comm() = default;
  virtual int rank() const = 0;        // this process, in [0, size())
  virtual int size() const = 0;        // number of processes
  virtual int local_size() const = 0;  // processes on this machine
  // In place: every rank's data becomes ((data_0 + data_1) + data_2) + ... over the ranks in
  // order, bitwise identical on every rank. Element by element: summing the parts of an array in
  // separate calls gives the same bits as one call on the whole.
  virtual void all_reduce_sum(std::span<float> data) = 0;
  // The same sum (the same bits), for a communication thread beside threads that compute: it
  // waits for the other ranks by sleeping between polls instead of spinning on a core, as MPI's
  // blocking calls do. Every rank must sum a range the same way (this or all_reduce_sum).
  virtual void all_reduce_sum_sleeping(std::span<float> data) { all_reduce_sum(data); }
  // all[r * n + i] = rank r's mine[i], for every rank; mine holds n values.
  virtual void all_gather(std::span<const float> mine, std::span<float> all) = 0;
  // True on every rank when flag is true on any rank (a stop request, a failure).
  virtual bool any(bool flag) = 0;
  virtual void barrier() = 0;
  // True when a thread other than the one that made this Comm may call it, one thread at a time
  // (MPI at MPI_THREAD_SERIALIZED or better): what a communication thread needs.
  virtual bool allows_comm_thread() const = 0;
  // Ends every process of the job now with this exit code (after the caller printed why).
  [[noreturn]] virtual void abort(int code) = 0;
};

// One process: rank 0 of 1; the reductions leave the data unchanged.
class NullComm final : public Comm {
 public:
  int rank() const override { return 0; }
  int size() const override { return 1; }
  int local_size() const override { return 1; }
  void all_reduce_sum(std::span<float>) override {}
  void all_gather(std::span<const float> mine, std::span<float> all) override;
  bool any(bool flag) override { return flag; }
  void barrier() override {}
  bool allows_comm_thread() const override { return true; }
  [[noreturn]] void abort(int code) override;
};

// An MpiComm when an MPI launcher started this process (and the build has MPI; a launcher of
// several processes without it is an Error saying how to build with MPI), else a NullComm. MPI is
// initialised by the first call and finalised at exit.
std::unique_ptr<Comm> make_comm();

// True when the environment says an MPI launcher (OpenMPI, MPICH, Slurm's PMI) started us.
bool started_by_mpi_launcher();

}  // namespace scratchgpt
