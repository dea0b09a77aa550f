// comm_null.cpp: the single-process communicator, and make_comm() (see comm.h).
#include <cstdlib>
#include <cstring>

#include "core/check.h"
#include "dist/comm.h"

namespace scratchgpt {

std::unique_ptr<Comm> make_mpi_comm();  // comm_mpi.cpp (null without MPI)

void NullComm::all_gather(std::span<const float> mine, std::span<float> all) {
  SG_CHECK(all.size() == mine.size(), "all_gather: ", all.size(), " slots for ", mine.size(),
           " values on 1 rank");
  if (!mine.empty()) std::memmove(all.data(), mine.data(), mine.size_bytes());
}

void NullComm::abort(int code) { std::exit(code); }

bool started_by_mpi_launcher() {
  for (const char* var : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_RANK", "MPI_LOCALNRANKS"})
    if (std::getenv(var) != nullptr) return true;
  return false;
}

std::unique_ptr<Comm> make_comm() {
  if (!started_by_mpi_launcher()) return std::make_unique<NullComm>();
  std::unique_ptr<Comm> mpi = make_mpi_comm();
  if (mpi) return mpi;
  // Without MPI every process would train alone, each its own copy of the run: refuse a launch of
  // several (OpenMPI's mpirun says how many in OMPI_COMM_WORLD_SIZE; MPICH, Intel MPI and Slurm's
  // PMI in PMI_SIZE).
  for (const char* var : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE"}) {
    const char* n = std::getenv(var);
    SG_CHECK(n == nullptr || std::strtol(n, nullptr, 10) <= 1, "an MPI launcher started ", n,
             " processes (", var, "=", n, ") but this build has no MPI: apt-get install "
             "libopenmpi-dev openmpi-bin and rebuild with MPI (cmake -DSCRATCHGPT_MPI=ON), or run "
             "without mpirun");
  }
  return std::make_unique<NullComm>();
}

}  // namespace scratchgpt
