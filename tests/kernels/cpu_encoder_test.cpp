// cpu_encoder_test.cpp: cpu::encoder_* (token plus position embedding, and its backward into wte
// and wpe) against ref:: bit for bit, with repeated tokens, on 1, 2 and 3 threads.
#include <gtest/gtest.h>

#include "cpu_test_util.h"
#include "kernels/cpu/encoder.h"
#include "kernels/ref/encoder.h"

namespace scratchgpt {
namespace {

using namespace test;  // cpu_test_util.h

// The second shape is large enough (over 1 Mi elements) for the backward to go threaded.
TEST(CpuEncoder, EncoderEqualsReferenceBitForBit) {
  test::KernelEnv env;
  struct Shape {
    int B, T, C;
  };
  for (const Shape& s : {Shape{4, 37, 300}, Shape{8, 300, 450}}) {
    const int B = s.B, T = s.T, C = s.C, V = 11, maxT = T + 3;
    std::vector<int32_t> idx(B * T);
    for (int i = 0; i < B * T; ++i) idx[i] = (i * 7 + i / 5) % V;  // repeated tokens
    auto wte = random_floats(size_t(V) * C, 1), wpe = random_floats(size_t(maxT) * C, 2);
    auto dout = random_floats(size_t(B) * T * C, 3);
    for (bool with_wpe : {true, false})
      for (int threads : {1, 2}) {
        test::set_threads(threads);
        SCOPED_TRACE("B*T*C=" + std::to_string(B * T * C) + " threads=" + std::to_string(threads) +
                     (with_wpe ? " wpe" : " no wpe"));
        const float* p = with_wpe ? wpe.data() : nullptr;
        std::vector<float> out(size_t(B) * T * C), rout(out.size());
        cpu::encoder_forward(test::ctx(), out.data(), idx.data(), wte.data(), p, B, T, C);
        ref::encoder_forward(rout.data(), idx.data(), wte.data(), p, B, T, C);
        EXPECT_TRUE(bitwise_equal(out, rout));
        auto dwte = random_floats(wte.size(), 4), dwpe = random_floats(wpe.size(), 5);
        auto rdwte = dwte, rdwpe = dwpe;
        cpu::encoder_backward(test::ctx(), dwte.data(), with_wpe ? dwpe.data() : nullptr,
                              dout.data(), idx.data(), B, T, C);
        ref::encoder_backward(rdwte.data(), with_wpe ? rdwpe.data() : nullptr, dout.data(),
                              idx.data(), B, T, C);
        EXPECT_TRUE(bitwise_equal(dwte, rdwte));
        EXPECT_TRUE(bitwise_equal(dwpe, rdwpe));
      }
  }
}

}  // namespace
}  // namespace scratchgpt
