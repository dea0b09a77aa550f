// comm_test.cpp: the single-process communicator is rank 0 of 1 and its all-reduce is the identity
// (the sum over one rank), so the trainer's "reduce then divide by size()" is exact without MPI.
#include "dist/comm.h"

#include <gtest/gtest.h>

#include <vector>

TEST(Comm, NullCommIsOneRankAndSumIsIdentity) {
  auto comm = scratchgpt::make_comm();
  EXPECT_EQ(comm->rank(), 0);
  EXPECT_EQ(comm->size(), 1);
  std::vector<float> g = {1.5f, -2.25f, 3e-8f, 0.0f};
  std::vector<float> before = g;
  comm->all_reduce_sum(g);
  for (float& x : g) x /= static_cast<float>(comm->size());
  EXPECT_EQ(g, before);
  comm->barrier();
}
