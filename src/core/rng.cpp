// rng.cpp: mt19937 as PyTorch's CPU generator seeds and steps it, and PyTorch 1.13's transforms
// on top of it (x86-64 build with AVX2 kernels, no MKL), reproduced bit for bit.
// Bulk draws (rand, normal's uniforms, bernoulli_scalar, dropout_noise) go through fill_raw and
// the block kernels of rng_kernels.h: scalar twins here, AVX2 versions in rng_avx2.cpp.
// Leaves out: torch's non-AVX2 (scalar normal_fill) and MKL code paths.
#include "core/rng.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <limits>
#include <utility>
#include <vector>

#include "core/check.h"
#include "core/rng_kernels.h"
#include "core/cpu_features.h"

// Torch's kernels were compiled by GCC with -mfma and contraction on; where its binary fused a
// multiply and an add into one FMA, we call std::fma. No other a * b + c is left in this file
// (y - z * 0.5f below is exact either way), so our own compiler's contraction cannot change a bit.

namespace scratchgpt {

// ---- The block kernels' scalar twins (see rng_kernels.h). ----
namespace rng_detail {

namespace {
uint32_t mix(uint32_t u, uint32_t v) {
  constexpr uint32_t kMatrixA = 0x9908b0dfu, kUpper = 0x80000000u, kLower = 0x7fffffffu;
  return (((u & kUpper) | (v & kLower)) >> 1) ^ ((v & 1u) ? kMatrixA : 0u);
}

uint32_t temper(uint32_t y) {
  y ^= (y >> 11);
  y ^= (y << 7) & 0x9d2c5680u;
  y ^= (y << 15) & 0xefc60000u;
  y ^= (y >> 18);
  return y;
}
}  // namespace

void mt_twist_scalar(uint32_t* mt) {
  int j = 0;
  for (; j < kMtN - kMtM; ++j) mt[j] = mt[j + kMtM] ^ mix(mt[j], mt[j + 1]);
  for (; j < kMtN - 1; ++j) mt[j] = mt[j + kMtM - kMtN] ^ mix(mt[j], mt[j + 1]);
  mt[kMtN - 1] = mt[kMtM - 1] ^ mix(mt[kMtN - 1], mt[0]);
}

void mt_temper_scalar(uint32_t* out, const uint32_t* state, int64_t n) {
  for (int64_t i = 0; i < n; ++i) out[i] = temper(state[i]);
}

void bernoulli53_scalar(float* out, const uint32_t* words, int64_t n, uint64_t threshold,
                        float one) {
  for (int64_t i = 0; i < n; ++i) {
    out[i] = bits53(words[2 * i], words[2 * i + 1]) < threshold ? one : 0.0f;
  }
}

void uniform24_scalar(float* out, const uint32_t* words, int64_t n, float from, float to) {
  for (int64_t i = 0; i < n; ++i) {
    const float x = static_cast<float>(words[i] & ((1u << 24) - 1)) * (1.0f / (1u << 24));
    out[i] = std::fma(x, to - from, from);
  }
}

int64_t argmax_p_over_exp_ref(const float* p, const double* u, int64_t n) {
  int64_t best = 0;
  float best_v = p[0] / exponential_value(u[0], 1.0);
  for (int64_t i = 1; i < n && !std::isnan(best_v); ++i) {
    const float v = p[i] / exponential_value(u[i], 1.0);
    if (std::isnan(v) || v > best_v) best = i, best_v = v;
  }
  return best;
}

bool any_may_reach_scalar(const float* p, const double* u, int64_t m, double cut) {
  bool any = false;
  for (int64_t i = 0; i < m; ++i)
    any |= may_reach(p[i], u[i], cut);
  return any;
}

int64_t argmax_p_over_exp(const float* p, const double* u, int64_t n, bool avx2) {
  constexpr double kShrink = 1.0 - 1e-6;  // q >= u * kShrink (see rng_kernels.h)
  constexpr int64_t kBlock = 64;
  int64_t best = 0;
  float best_v = p[0] / exponential_value(u[0], 1.0);
  double cut = static_cast<double>(best_v) * kShrink;
  for (int64_t i0 = 1; i0 < n && !std::isnan(best_v); i0 += kBlock) {
    const int64_t m = std::min(kBlock, n - i0);
    if (!(avx2 ? any_may_reach_avx2 : any_may_reach_scalar)(p + i0, u + i0, m, cut)) continue;
    // The twin's steps over this block, leaving out the categories that cannot pass best_v.
    for (int64_t i = i0; i < i0 + m; ++i) {
      if (!may_reach(p[i], u[i], cut)) continue;
      const float v = p[i] / exponential_value(u[i], 1.0);
      if (std::isnan(v) || v > best_v) best = i, best_v = v, cut = static_cast<double>(v) * kShrink;
      if (std::isnan(best_v)) break;
    }
  }
  return best;
}

}  // namespace rng_detail

namespace {

constexpr double kPi = 3.14159265358979323846;

// ---- torch's vectorised Box-Muller (normal_fill_16_AVX2) for one lane, in scalar float. ----
// log256_ps / sincos256_ps are Cephes-style float polynomials (Pommier's avx_mathfun), not libm.

float cephes_logf(float x) {  // x in (0, 1]
  if (!(x > 0.0f)) return std::numeric_limits<float>::quiet_NaN();
  constexpr uint32_t kMinNormPos = 0x00800000u, kExpMask = 0x7f800000u;
  uint32_t bits = std::max(std::bit_cast<uint32_t>(x), kMinNormPos);  // x > 0: same order
  int32_t exponent = static_cast<int32_t>(bits >> 23) - 0x7f;
  bits = (bits & ~kExpMask) | std::bit_cast<uint32_t>(0.5f);  // mantissa, scaled into [0.5, 1)
  float m = std::bit_cast<float>(bits);
  float e = static_cast<float>(exponent) + 1.0f;
  const bool small = m < static_cast<float>(0.707106781186547524);
  float tmp = small ? m : 0.0f;
  m = m - 1.0f;
  e = e - (small ? 1.0f : 0.0f);
  m = m + tmp;
  const float z = m * m;
  float y = static_cast<float>(7.0376836292E-2);
  y = std::fma(y, m, static_cast<float>(-1.1514610310E-1));
  y = std::fma(y, m, static_cast<float>(1.1676998740E-1));
  y = std::fma(y, m, static_cast<float>(-1.2420140846E-1));
  y = std::fma(y, m, static_cast<float>(1.4249322787E-1));
  y = std::fma(y, m, static_cast<float>(-1.6668057665E-1));
  y = std::fma(y, m, static_cast<float>(2.0000714765E-1));
  y = std::fma(y, m, static_cast<float>(-2.4999993993E-1));
  y = std::fma(y, m, static_cast<float>(3.3333331174E-1));
  y = y * m;
  const float q1 = static_cast<float>(-2.12194440e-4), q2 = 0.693359375f;
  y = std::fma(y, z, e * q1);  // (y * z) + (e * q1): torch's binary fuses the first product
  y = y - z * 0.5f;  // z * 0.5 is exact (m is 0 or |m| >= 2^-24 here): fused or not, the same
  return std::fma(e, q2, m + y);
}

void cephes_sincosf(float x, float* s, float* c) {
  const uint32_t sign_in = std::bit_cast<uint32_t>(x) & 0x80000000u;
  x = std::fabs(x);
  float y = x * static_cast<float>(1.27323954473516);  // 4 / pi
  int32_t j = static_cast<int32_t>(y);                 // truncation, as cvttps
  j = (j + 1) & ~1;
  y = static_cast<float>(j);
  const uint32_t swap_sin = static_cast<uint32_t>(j & 4) << 29;
  const bool poly_mask = (j & 2) == 0;
  x = std::fma(y, static_cast<float>(-0.78515625), x);
  x = std::fma(y, static_cast<float>(-2.4187564849853515625e-4), x);
  x = std::fma(y, static_cast<float>(-3.77489497744594108e-8), x);
  const uint32_t sign_cos = static_cast<uint32_t>(~(j - 2) & 4) << 29;
  const uint32_t sign_sin = sign_in ^ swap_sin;
  const float z = x * x;
  float yc = static_cast<float>(2.443315711809948E-005);
  yc = std::fma(yc, z, static_cast<float>(-1.388731625493765E-003));
  yc = std::fma(yc, z, static_cast<float>(4.166664568298827E-002));
  yc = yc * z;
  yc = std::fma(yc, z, -(z * 0.5f));
  yc = yc + 1.0f;
  float ys = static_cast<float>(-1.9515295891E-4);
  ys = std::fma(ys, z, static_cast<float>(8.3321608736E-3));
  ys = std::fma(ys, z, static_cast<float>(-1.6666654611E-1));
  ys = ys * z;
  ys = std::fma(ys, x, x);
  // Both polynomials are evaluated; a mask picks one for sin and the other for cos.
  const float sin_pick2 = poly_mask ? ys : 0.0f, sin_pick1 = poly_mask ? 0.0f : yc;
  const float cos2 = ys - sin_pick2, cos1 = yc - sin_pick1;
  *s = std::bit_cast<float>(std::bit_cast<uint32_t>(sin_pick1 + sin_pick2) ^ sign_sin);
  *c = std::bit_cast<float>(std::bit_cast<uint32_t>(cos1 + cos2) ^ sign_cos);
}

// data[0..16) holds uniforms in [0, 1); turns them into 16 normals (pairs j, j + 8).
void normal_fill_16(float* data, float mean, float std) {
  const float two_pi = static_cast<float>(2.0 * kPi);
  for (int j = 0; j < 8; ++j) {
    const float u1 = 1.0f - data[j];  // [0, 1) -> (0, 1] for the log
    const float u2 = data[j + 8];
    const float radius = std::sqrt(-2.0f * cephes_logf(u1));
    const float theta = two_pi * u2;
    float s, c;
    cephes_sincosf(theta, &s, &c);
    data[j] = std::fma(radius * c, std, mean);
    data[j + 8] = std::fma(radius * s, std, mean);
  }
}

}  // namespace

Rng::Rng(uint64_t seed) {
  set_simd_level(default_simd_level());
  manual_seed(seed);
}

void Rng::set_simd_level(SimdLevel level) { avx2_ = cap_simd_level(level) >= SimdLevel::kAvx2; }

void Rng::manual_seed(uint64_t seed) {
  seed_ = seed;
  mt_[0] = static_cast<uint32_t>(seed & 0xffffffffULL);
  for (int j = 1; j < kN; ++j) mt_[j] = 1812433253u * (mt_[j - 1] ^ (mt_[j - 1] >> 30)) + j;
  left_ = 1;
  next_ = 0;
  has_next_normal_ = has_next_float_normal_ = false;
  next_normal_ = 0.0;
  next_float_normal_ = 0.0f;
}

void Rng::next_state() {
  static_assert(kN == rng_detail::kMtN);
  if (avx2_) {
    rng_detail::mt_twist_avx2(mt_);
  } else {
    rng_detail::mt_twist_scalar(mt_);
  }
  left_ = kN;
  next_ = 0;
}

uint32_t Rng::random() {
  if (--left_ <= 0) next_state();
  return rng_detail::temper(mt_[next_++]);
}

void Rng::fill_raw(uint32_t* out, int64_t n) {
  // random() keeps left_ - 1 untouched words at mt_[next_ ..]; when none is left it twists, and
  // the call that twists takes mt_[0] (left_ = kN, next_ = 1 afterwards). Here a twist sets
  // left_ = kN + 1, next_ = 0 (kN words waiting); it only happens when words are wanted, so at
  // least one is taken before returning and the state is always one random() can produce.
  const bool avx2 = avx2_;
  while (n > 0) {
    if (left_ <= 1) {
      next_state();
      left_ = kN + 1;
    }
    const int64_t take = std::min<int64_t>(n, left_ - 1);
    if (avx2) {
      rng_detail::mt_temper_avx2(out, mt_ + next_, take);
    } else {
      rng_detail::mt_temper_scalar(out, mt_ + next_, take);
    }
    next_ += static_cast<int>(take);
    left_ -= static_cast<int>(take);
    out += take;
    n -= take;
  }
}

uint64_t Rng::random64() {
  uint32_t hi = random();
  uint32_t lo = random();
  return (static_cast<uint64_t>(hi) << 32) | lo;
}

float Rng::uniform_float(float from, float to) {
  // 24 random bits -> [0, 1) exactly; then scaled in float, as one fused multiply-add.
  const float x = static_cast<float>(random() & ((1u << 24) - 1)) * (1.0f / (1u << 24));
  return std::fma(x, to - from, from);
}

double Rng::uniform_double() {
  // 53 random bits from two draws -> [0, 1) exactly.
  return static_cast<double>(random64() & ((1ULL << 53) - 1)) * (1.0 / (1ULL << 53));
}

double Rng::normal_double() {
  // Box-Muller in double; the second value of each pair is cached for the next scalar draw.
  if (has_next_normal_) {
    has_next_normal_ = false;
    return next_normal_;
  }
  const double u1 = uniform_double();
  const double u2 = uniform_double();
  const double r = std::sqrt(-2.0 * std::log(1.0 - u2));  // log(1 - u), not log1p(-u)
  const double theta = 2.0 * kPi * u1;
  next_normal_ = r * std::sin(theta);
  has_next_normal_ = true;
  return r * std::cos(theta);
}

void Rng::rand(float* out, int64_t n) { uniform(out, n, 0.0f, 1.0f); }

void Rng::uniform(float* out, int64_t n, float from, float to) {
  // uniform_float per element, in blocks: raw draws first, then the transform.
  const bool avx2 = avx2_;
  uint32_t words[kBlockWords];
  for (int64_t i = 0; i < n; i += kBlockWords) {
    const int64_t m = std::min(kBlockWords, n - i);
    fill_raw(words, m);
    if (avx2) {
      rng_detail::uniform24_avx2(out + i, words, m, from, to);
    } else {
      rng_detail::uniform24_scalar(out + i, words, m, from, to);
    }
  }
}

void Rng::randn(float* out, int64_t n) { normal(out, n, 0.0f, 1.0f); }

void Rng::normal(float* out, int64_t n, double mean, double std) {
  if (n < 16) {
    // Short tensors: one scalar double normal per element (using and refilling the cache).
    for (int64_t i = 0; i < n; ++i) {
      const double v = normal_double();
      out[i] = static_cast<float>(std::fma(v, std, mean));
    }
    return;
  }
  // Long tensors: all uniforms first, then Box-Muller in blocks of 16; a ragged tail is handled
  // by drawing 16 fresh uniforms over the last 16 slots and transforming those again.
  uniform(out, n, 0.0f, 1.0f);
  const float mean_f = static_cast<float>(mean), std_f = static_cast<float>(std);
  for (int64_t i = 0; i + 16 <= n; i += 16) normal_fill_16(out + i, mean_f, std_f);
  if (n % 16 != 0) {
    float* tail = out + n - 16;
    uniform(tail, 16, 0.0f, 1.0f);
    normal_fill_16(tail, mean_f, std_f);
  }
}

int64_t Rng::randint(int64_t low, int64_t high) {
  SG_CHECK(high > low, "randint: empty range [", low, ", ", high, "); need low < high");
  const uint64_t range = static_cast<uint64_t>(high) - static_cast<uint64_t>(low);
  // Ranges of 2^32 or more take a 64-bit draw, smaller ones a 32-bit draw.
  const uint64_t r = range >= (1ULL << 32) ? random64() : random();
  return static_cast<int64_t>(r % range + static_cast<uint64_t>(low));
}

void Rng::randint(int64_t* out, int64_t n, int64_t low, int64_t high) {
  for (int64_t i = 0; i < n; ++i) out[i] = randint(low, high);
}

void Rng::randperm(int64_t* out, int64_t n) {
  SG_CHECK(n >= 0, "randperm: n must be >= 0, got ", n);
  for (int64_t i = 0; i < n; ++i) out[i] = i;
  for (int64_t i = 0; i + 1 < n; ++i) {
    const int64_t z = static_cast<int64_t>(random() % static_cast<uint64_t>(n - i));
    std::swap(out[i], out[i + z]);
  }
}

void Rng::bernoulli(float* out, int64_t n, float p) {
  SG_CHECK(p >= 0.0f && p <= 1.0f, "bernoulli: p must be in [0, 1], got ", p);
  for (int64_t i = 0; i < n; ++i) out[i] = uniform_float(0.0f, 1.0f) < p ? 1.0f : 0.0f;
}

void Rng::bernoulli_double(float* out, int64_t n, double p, float one) {
  // uniform_double() < p with u = x * 2^-53 (x the 53-bit integer, the scaling exact) is
  // x < p * 2^53 (also exact), i.e. x < ceil(p * 2^53) for an integer x: an integer compare.
  const auto threshold = static_cast<uint64_t>(std::ceil(p * 9007199254740992.0));  // p * 2^53
  const bool avx2 = avx2_;
  constexpr int64_t kPerBlock = kBlockWords / 2;  // two raw draws per element
  uint32_t words[kBlockWords];
  for (int64_t i = 0; i < n; i += kPerBlock) {
    const int64_t m = std::min(kPerBlock, n - i);
    fill_raw(words, 2 * m);
    if (avx2) {
      rng_detail::bernoulli53_avx2(out + i, words, m, threshold, one);
    } else {
      rng_detail::bernoulli53_scalar(out + i, words, m, threshold, one);
    }
  }
}

void Rng::bernoulli_scalar(float* out, int64_t n, double p) {
  SG_CHECK(p >= 0.0 && p <= 1.0, "bernoulli: p must be in [0, 1], got ", p);
  bernoulli_double(out, n, p, 1.0f);  // uniform_double() < p ? 1 : 0 per element
}

void Rng::dropout_noise(float* out, int64_t n, double p) {
  SG_CHECK(p >= 0.0 && p <= 1.0, "dropout: p must be in [0, 1], got ", p);
  if (p == 0.0 || p == 1.0) {  // torch short-cuts both without drawing
    std::fill(out, out + n, p == 0.0 ? 1.0f : 0.0f);
    return;
  }
  // bernoulli_(1 - p) then div_(1 - p): each element 1.0f / keep or 0.0f / keep = +0.
  const float keep = static_cast<float>(1.0 - p);
  bernoulli_double(out, n, 1.0 - p, 1.0f / keep);
}

void Rng::exponential(float* out, int64_t n, double lambda) {
  for (int64_t i = 0; i < n; ++i) out[i] = rng_detail::exponential_value(uniform_double(), lambda);
}

void Rng::uniform_doubles(double* out, int64_t n) {
  constexpr int64_t kPerBlock = kBlockWords / 2;  // two raw draws per value
  uint32_t words[kBlockWords];
  for (int64_t i = 0; i < n; i += kPerBlock) {
    const int64_t m = std::min(kPerBlock, n - i);
    fill_raw(words, 2 * m);
    for (int64_t k = 0; k < m; ++k)
      out[i + k] = static_cast<double>(rng_detail::bits53(words[2 * k], words[2 * k + 1])) *
                   (1.0 / (uint64_t{1} << 53));
  }
}

void Rng::multinomial(int64_t* out, const float* probs, int64_t rows, int64_t n,
                      int64_t num_samples, bool replacement) {
  SG_CHECK(rows > 0 && n > 0, "multinomial: empty probability tensor (", rows, " x ", n, ")");
  SG_CHECK(num_samples > 0, "multinomial: num_samples must be positive, got ", num_samples);
  SG_CHECK(replacement || num_samples <= n, "multinomial: cannot draw ", num_samples,
           " samples without replacement from ", n, " categories");
  // Every p finite and >= 0 (NaN fails both tests), and a row sums to more than 0 exactly when
  // some p > 0: one branch-free pass, the error path looks for the index.
  for (int64_t r = 0; r < rows; ++r) {
    const float* row = probs + r * n;
    int invalid = 0, mass = 0;  // ints and | rather than bools and &&: the loop vectorises
    for (int64_t i = 0; i < n; ++i) {
      invalid |= !(row[i] >= 0.0f) | (row[i] > std::numeric_limits<float>::max());
      mass |= row[i] > 0.0f;
    }
    for (int64_t i = 0; i < n && invalid; ++i)
      SG_CHECK(std::isfinite(row[i]) && row[i] >= 0.0f,
               "multinomial: probabilities must be finite and >= 0 (row ", r, ", index ", i,
               " is ", row[i], ")");
    SG_CHECK(mass, "multinomial: row ", r, " sums to 0; give it some probability mass");
  }
  if (!replacement) {
    // Without replacement (the default, also for the lecture's num_samples=1) torch 1.13 uses
    // the exponential trick: q ~ Exp(1) for every element (row-major), then per row the
    // num_samples largest p / q: argmax for one sample, else topk's own selection, reproduced
    // step for step so that ties (zero-probability categories) come out in torch's order.
    if (num_samples == 1) {
      // The uniforms exponential(rows * n) would draw, then per row the largest p / q, the log
      // of q taken only where it can matter (rng_detail::argmax_p_over_exp).
      std::vector<double> u(static_cast<size_t>(rows * n));  // (rows, n)
      uniform_doubles(u.data(), rows * n);
      for (int64_t r = 0; r < rows; ++r)
        out[r] = rng_detail::argmax_p_over_exp(probs + r * n, u.data() + r * n, n, avx2_);
      return;
    }
    std::vector<float> q(static_cast<size_t>(rows * n));  // (rows, n)
    exponential(q.data(), rows * n, 1.0);
    using Entry = std::pair<double, int64_t>;  // (p / q, category), topk works in double
    std::vector<Entry> queue(static_cast<size_t>(n));
    auto first_is_larger = [](const Entry& a, const Entry& b) {  // NaN counts as the largest
      return (std::isnan(a.first) && !std::isnan(b.first)) || a.first > b.first;
    };
    for (int64_t r = 0; r < rows; ++r) {
      float* qr = q.data() + r * n;
      for (int64_t i = 0; i < n; ++i) qr[i] = probs[r * n + i] / qr[i];
      for (int64_t i = 0; i < n; ++i) queue[i] = {static_cast<double>(qr[i]), i};
      const auto k = static_cast<std::ptrdiff_t>(num_samples);
      if (num_samples * 64 <= n) {
        std::partial_sort(queue.begin(), queue.begin() + k, queue.end(), first_is_larger);
      } else {
        std::nth_element(queue.begin(), queue.begin() + k - 1, queue.end(), first_is_larger);
        std::sort(queue.begin(), queue.begin() + k - 1, first_is_larger);
      }
      for (int64_t s = 0; s < num_samples; ++s) out[r * num_samples + s] = queue[s].second;
    }
    return;
  }
  // With replacement (even for one sample, in 1.13): a float cumulative distribution normalised by
  // its sum, one double uniform per sample, and a binary search for the first bucket whose
  // cumulative value is >= it.
  std::vector<float> cdf(static_cast<size_t>(n));
  for (int64_t r = 0; r < rows; ++r) {
    float sum = 0.0f;
    for (int64_t i = 0; i < n; ++i) {
      sum += probs[r * n + i];
      cdf[i] = sum;
    }
    for (int64_t i = 0; i < n; ++i) cdf[i] /= sum;
    cdf[n - 1] = 1.0f;
    for (int64_t s = 0; s < num_samples; ++s) {
      const double u = uniform_double();
      int64_t left = 0, right = n;
      while (right - left > 0) {
        const int64_t mid = left + (right - left) / 2;
        if (static_cast<double>(cdf[mid]) < u) {
          left = mid + 1;
        } else {
          right = mid;
        }
      }
      out[r * num_samples + s] = left;
    }
  }
}

namespace {
constexpr uint32_t kStateMagic = 0x53475231u;  // "SGR1"
// magic, mt state, left, next, seed, cache flags, cached double normal, cached float normal
constexpr size_t kStateBytes = 4 + 624 * 4 + 4 + 4 + 8 + 1 + 8 + 4;
}  // namespace

std::vector<uint8_t> Rng::get_state() const {
  const uint8_t flags = (has_next_normal_ ? 1 : 0) | (has_next_float_normal_ ? 2 : 0);
  std::vector<uint8_t> s(kStateBytes);
  size_t off = 0;
  auto put = [&s, &off](const void* p, size_t bytes) {
    std::memcpy(s.data() + off, p, bytes);
    off += bytes;
  };
  put(&kStateMagic, sizeof(kStateMagic));
  put(mt_, sizeof(mt_));
  put(&left_, sizeof(left_));
  put(&next_, sizeof(next_));
  put(&seed_, sizeof(seed_));
  put(&flags, sizeof(flags));
  put(&next_normal_, sizeof(next_normal_));
  put(&next_float_normal_, sizeof(next_float_normal_));
  return s;
}

void Rng::set_state(const std::vector<uint8_t>& s) {
  static_assert(kStateBytes == sizeof(kStateMagic) + sizeof(mt_) + 2 * sizeof(int) + sizeof(seed_) +
                                   1 + sizeof(double) + sizeof(float));
  SG_CHECK(s.size() == kStateBytes, "bad RNG state: ", s.size(), " bytes, expected ", kStateBytes,
           "; the checkpoint was not written by this version of scratchgpt");
  size_t off = 0;
  auto get = [&](void* p, size_t bytes) {
    std::memcpy(p, s.data() + off, bytes);
    off += bytes;
  };
  uint32_t magic = 0;
  get(&magic, sizeof(magic));
  SG_CHECK(magic == kStateMagic, "bad RNG state: wrong magic number; not an Rng::get_state blob");
  uint32_t mt[kN];
  int left = 0, next = 0;
  uint64_t seed = 0;
  uint8_t flags = 0;
  double next_normal = 0.0;
  float next_float_normal = 0.0f;
  get(mt, sizeof(mt));
  get(&left, sizeof(left));
  get(&next, sizeof(next));
  get(&seed, sizeof(seed));
  get(&flags, sizeof(flags));
  get(&next_normal, sizeof(next_normal));
  get(&next_float_normal, sizeof(next_float_normal));
  SG_CHECK(left >= 1 && left <= kN && next >= 0 && next + left <= kN + 1 && flags < 4,
           "bad RNG state: position fields out of range (left ", left, ", next ", next, ")");
  std::memcpy(mt_, mt, sizeof(mt_));
  left_ = left;
  next_ = next;
  seed_ = seed;
  has_next_normal_ = (flags & 1) != 0;
  has_next_float_normal_ = (flags & 2) != 0;
  next_normal_ = next_normal;
  next_float_normal_ = next_float_normal;
}

}  // namespace scratchgpt
