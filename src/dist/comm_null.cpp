// comm_null.cpp: the single-process communicator (the default build has no MPI).
#include "dist/comm.h"

namespace scratchgpt {

std::unique_ptr<Comm> make_comm() { return std::make_unique<NullComm>(); }

}  // namespace scratchgpt
