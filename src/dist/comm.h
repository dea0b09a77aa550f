// comm.h: Comm, the communication interface for data-parallel training: every rank computes
// gradients on its own batches, then all_reduce_sum adds them up across ranks (then the trainer
// divides by size()). Only the single-process NullComm exists today; an MPI implementation
// (comm_mpi.cpp, behind the SCRATCHGPT_MPI CMake switch) will plug in here.
#pragma once

#include <cstdint>
#include <memory>
#include <span>

namespace scratchgpt {

class Comm {
 public:
  virtual ~Comm() = default;
  virtual int rank() const = 0;  // this process, in [0, size())
  virtual int size() const = 0;  // number of processes
  // In place: every rank's data becomes the element-wise sum over all ranks, summed in rank order
  // so the result is bitwise identical on every rank.
  virtual void all_reduce_sum(std::span<float> data) = 0;
  virtual void barrier() = 0;
};

// One process: rank 0 of 1; all_reduce_sum leaves the data unchanged.
class NullComm final : public Comm {
 public:
  int rank() const override { return 0; }
  int size() const override { return 1; }
  void all_reduce_sum(std::span<float>) override {}
  void barrier() override {}
};

// The communicator for this build: NullComm unless built with SCRATCHGPT_MPI.
std::unique_ptr<Comm> make_comm();

}  // namespace scratchgpt
