// uniform_draw.h: std::uniform_real_distribution's numbers for a std::mt19937, without its cost
// in unoptimised test code (test data only).
#pragma once

#include <cmath>
#include <random>
#include <type_traits>

namespace scratchgpt::test {

// std::uniform_real_distribution<F>(lo, hi)(gen), the same bits as libstdc++'s: its
// generate_canonical takes one 32-bit draw for a float and two (low word first) for a double,
// divides by 2^32 or 2^64, and keeps the result below 1. libstdc++ computes the number of draws
// with a long double logarithm on every call, which clang leaves to run time at -O0 (the test
// files in CI's sanitizer build): a third of cpu_matmul_test's time there. rng_test holds this
// to std's bits.
// G: a generator of 32-bit words (std::mt19937).
template <typename F, typename G>
F uniform_draw(G& gen, F lo, F hi) {
  static_assert(std::is_same_v<F, float> || std::is_same_v<F, double>);
  static_assert(G::min() == 0 && G::max() == 0xffffffffu);
  F u;
  if constexpr (std::is_same_v<F, float>) {
    u = static_cast<float>(gen()) / 4294967296.0f;
  } else {
    const double low = static_cast<double>(gen());
    u = (low + static_cast<double>(gen()) * 4294967296.0) / 18446744073709551616.0;
  }
  if (u >= F(1)) u = std::nextafter(F(1), F(0));
  return u * (hi - lo) + lo;
}

}  // namespace scratchgpt::test
