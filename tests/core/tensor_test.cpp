// tensor_test.cpp: Tensor is a row-major view: shape bookkeeping, element addressing, printing,
// and a checked error for a rank it cannot hold.
#include "core/tensor.h"

#include <gtest/gtest.h>

#include <numeric>
#include <vector>

#include "core/check.h"

using namespace scratchgpt;

TEST(Tensor, ShapeNumelAndSize) {
  std::vector<float> buf(2 * 3 * 4);
  Tensor t(buf.data(), {2, 3, 4});  // (B, T, C)
  EXPECT_EQ(t.rank, 3);
  EXPECT_EQ(t.numel(), 24);
  EXPECT_EQ(t.size(0), 2);
  EXPECT_EQ(t.size(2), 4);
  EXPECT_EQ(t.size(-1), 4);
  EXPECT_EQ(t.size(-3), 2);
  EXPECT_EQ(t.shape[3], 1);  // unused trailing dims are 1
  EXPECT_EQ(t.data, buf.data());
  EXPECT_EQ(t.end() - t.begin(), 24);
}

TEST(Tensor, DefaultIsEmptyScalarView) {
  Tensor t;
  EXPECT_EQ(t.data, nullptr);
  EXPECT_EQ(t.rank, 0);
  EXPECT_EQ(t.numel(), 1);  // the empty product
  EXPECT_EQ(t.shape_str(), "()");
}

TEST(Tensor, AtIsRowMajorForEveryRank) {
  std::vector<float> buf(2 * 3 * 4 * 5);
  std::iota(buf.begin(), buf.end(), 0.0f);  // buf[i] = i
  Tensor t1(buf.data(), {120});
  Tensor t2(buf.data(), {6, 20});
  Tensor t3(buf.data(), {2, 3, 20});
  Tensor t4(buf.data(), {2, 3, 4, 5});
  for (int a = 0; a < 2; ++a)
    for (int b = 0; b < 3; ++b)
      for (int c = 0; c < 4; ++c)
        for (int d = 0; d < 5; ++d) {
          const float flat = static_cast<float>(((a * 3 + b) * 4 + c) * 5 + d);
          EXPECT_EQ(t4.at(a, b, c, d), flat);
          EXPECT_EQ(t3.at(a, b, c * 5 + d), flat);
          EXPECT_EQ(t2.at(a * 3 + b, c * 5 + d), flat);
          EXPECT_EQ(t1.at(static_cast<int64_t>(flat)), flat);
        }
  t4.at(1, 2, 3, 4) = -7.0f;  // a view: writes go to the buffer
  EXPECT_EQ(buf.back(), -7.0f);
}

TEST(Tensor, ShapeString) {
  float x = 0;
  EXPECT_EQ(Tensor(&x, {4, 8, 32}).shape_str(), "(4, 8, 32)");
  EXPECT_EQ(Tensor(&x, {5}).shape_str(), "(5,)");  // as Python prints a 1-tuple
  EXPECT_EQ(Tensor(&x, {1, 1, 1, 1}).shape_str(), "(1, 1, 1, 1)");
}

TEST(Tensor, RankAboveFourIsCheckedError) {
  float x = 0;
  try {
    Tensor t(&x, {1, 2, 3, 4, 5});
    FAIL() << "expected an Error for rank 5";
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(), "Tensor rank 5 exceeds 4");
  }
}

TEST(Tensor, WorksForOtherElementTypes) {
  std::vector<double> buf(6, 0.0);
  TensorOf<double> t(buf.data(), {2, 3});
  t.at(1, 0) = 2.5;
  EXPECT_EQ(buf[3], 2.5);
  EXPECT_EQ(t.shape_str(), "(2, 3)");
}
