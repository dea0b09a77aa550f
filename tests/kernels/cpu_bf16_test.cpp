// cpu_bf16_test.cpp: --dtype bf16's kernels (ExecContext::dtype = kBf16): cpu::matmul and
// cpu::attention against their ref:: twins (kernels/ref/bf16.h, ref::attention_* with bf16) run
// in double, at every SIMD level and on both matmul backends, bitwise identical on 1, 2 and 3
// threads; and proof that the rounding happens (the results sit far from fp32's, further than the
// twin's tolerance). Also the rounding itself: nearest even, NaN, infinity, overflow.
#include <gtest/gtest.h>
#include <immintrin.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>

#include "core/simd_target.h"
#include "cpu_test_util.h"
#include "kernels/cpu/attention.h"
#include "kernels/cpu/gemm.h"
#include "kernels/cpu/matmul.h"
#include "kernels/cpu/matmul_backend.h"
#include "kernels/cpu/simd/gemm_bf16_simd.h"
#include "kernels/ref/attention.h"
#include "kernels/ref/bf16.h"
#include "kernels/ref/matmul.h"
#include "test_util.h"

// The AVX-512 unit's gemm_bf16 with vdpbf16ps's sums emulated in 16 plain lanes (PairsPlain<16>,
// the portable unit's pair operations at the AVX-512 unit's width), for a CPU
// without AVX512_BF16: its two blockings (8 x 48 and 12 x 32 tiles, chosen by N; K slices of 512,
// column blocks of 768) and its packers, compiled for AVX2 as the generated units compile them
// (SG_ISA_AVX512 defined: the vector packing). Run only where the CPU has AVX2.
#define SG_ISA_AVX512 0
SG_TARGET_BEGIN("avx2,fma")
namespace scratchgpt::cpu::detail {
namespace {

#include "kernels/cpu/simd/gemm_bf16_impl.h"

void gemm_bf16_emulated_avx512(const GemmArgs& g, ThreadPool& pool) {
  gemm_bf16_avx512_blocked<PairsPlain<16>>(g, pool);
}
void pack_b_emulated_avx512(const GemmArgs& g, uint32_t* out, ThreadPool& pool) {
  pack_b_avx512<PairsPlain<16>>(g, out, 0, g.K, 0, g.N, pool);
}
// The stored attention's head products (attention_bf16_impl.h) on the same stand-in.
void head_scores_emulated(float* s, const float* a, int64_t lda, const float* b, int64_t ldb, int T,
                          int HS) {
  head_scores_bf16<PairsPlain<16>>(s, a, lda, b, ldb, T, HS);
}
void head_mix_emulated(bool upper, float* c, int64_t ldc, const float* A, int64_t rs_a,
                       int64_t cs_a, const float* b, int64_t ldb, int T, int HS) {
  head_mix_bf16<PairsPlain<16>>(upper, c, ldc, A, rs_a, cs_a, b, ldb, T, HS);
}
size_t packed_words_emulated_avx512(int K, int N) {
  const int nr = avx512_nr(N);
  return (size_t(K) + 1) / 2 * ((size_t(N) + nr - 1) / nr * nr);
}

}  // namespace
}  // namespace scratchgpt::cpu::detail
SG_TARGET_END
#undef SG_ISA_AVX512

namespace scratchgpt {
namespace {

using namespace test;  // cpu_test_util.h

float from_bits(uint32_t u) {
  float f;
  std::memcpy(&f, &u, sizeof f);
  return f;
}

TEST(Bf16, RoundsToNearestEven) {
  using ref::round_bf16;
  // bf16 keeps 8 significant bits: its step at 1 is 2^-7.
  EXPECT_EQ(round_bf16(1.0f + 0x1p-8f), 1.0f);                           // tie: down to even
  EXPECT_EQ(round_bf16(1.0f + 0x1p-7f + 0x1p-8f), 1.0f + 0x1p-6f);       // tie: up to even
  EXPECT_EQ(round_bf16(1.0f + 0x1p-8f + 0x1p-20f), 1.0f + 0x1p-7f);      // past the tie
  EXPECT_EQ(round_bf16(1.0f + 0x1p-8f - 0x1p-20f), 1.0f);                // short of it
  EXPECT_EQ(round_bf16(-(1.0f + 0x1p-7f + 0x1p-8f)), -(1.0f + 0x1p-6f));  // sign apart
  EXPECT_EQ(round_bf16(3.0f), 3.0f);                                      // exact stays
  EXPECT_EQ(round_bf16(std::numeric_limits<float>::max()),
            std::numeric_limits<float>::infinity());  // past bf16's largest: infinity
  EXPECT_EQ(round_bf16(-std::numeric_limits<float>::infinity()),
            -std::numeric_limits<float>::infinity());
  EXPECT_TRUE(std::isnan(round_bf16(std::numeric_limits<float>::quiet_NaN())));
  EXPECT_TRUE(std::isnan(round_bf16(from_bits(0x7f800001u))));  // a NaN whose payload would
                                                                 // round to infinity
  EXPECT_EQ(round_bf16(from_bits(0x00018000u)), from_bits(0x00020000u));  // denormal tie: even
}

struct Shape {
  int N, C, OC;
};
// Small and odd shapes, one past the GEMM's blocks, one of a few rows (the matvec path), one of
// many rows over a small layer (the weight gradient by row halves) and a square weight (whose
// two packed layouts have the same size).
const Shape kShapes[] = {{7, 33, 65},   {300, 260, 800}, {5, 300, 3},
                         {600, 40, 150}, {64, 96, 31},    {20, 48, 48}};

// The products' results: out (N, OC), dinp (N, C), dweight (OC, C), dbias (OC), each filled.
template <typename F>
struct MatmulResults {
  std::vector<F> out, dinp, dweight, dbias;
  MatmulResults(const Shape& s, F fill)
      : out(size_t(s.N) * s.OC, fill),
        dinp(size_t(s.N) * s.C, fill),
        dweight(size_t(s.OC) * s.C, fill),
        dbias(s.OC, fill) {}
};
using MatmulOut = MatmulResults<float>;
using MatmulRef = MatmulResults<double>;

// The operands of a shape: inp (N, C), w (OC, C), bias (OC), dout (N, OC).
struct MatmulIn {
  std::vector<float> inp, w, bias, dout;
  explicit MatmulIn(const Shape& s)
      : inp(random_floats(size_t(s.N) * s.C, 1)),
        w(random_floats(size_t(s.OC) * s.C, 2)),
        bias(random_floats(s.OC, 3)),
        dout(random_floats(size_t(s.N) * s.OC, 4)) {}
};

// Forward and backward with dtype bf16 (the backward writes, the grads start as garbage).
// packed: the weight packed ahead (cpu::WeightPairs), its floats then NaN, so a read shows.
// packed_for: the backend the weight is packed for (default: the context's); packed for another,
// the products must not read it (its floats then stay).
MatmulOut run_matmul(const Shape& s, Dtype dtype, bool packed = false,
                     MatmulBackend packed_for = MatmulBackend::kAuto) {
  ExecContext ex = test::ctx();
  ex.dtype = dtype;
  const MatmulIn in(s);
  const auto &inp = in.inp, &bias = in.bias, &dout = in.dout;
  std::vector<float> w = in.w;
  std::vector<uint32_t> words;
  cpu::WeightPairs pairs;
  if (packed) {
    ExecContext pack_ex = ex;
    if (packed_for != MatmulBackend::kAuto) pack_ex.matmul = packed_for;
    words.assign(cpu::matmul_weight_pairs_words(pack_ex, s.C, s.OC), 0xdeadbeefu);
    pairs = cpu::matmul_pack_weight_bf16(pack_ex, w.data(), s.C, s.OC, words.data());
    if (packed_for == MatmulBackend::kAuto)
      std::fill(w.begin(), w.end(), std::numeric_limits<float>::quiet_NaN());
  }
  const cpu::WeightPairs* p = packed ? &pairs : nullptr;
  MatmulOut o(s, 123.0f);
  cpu::matmul_forward(ex, o.out.data(), inp.data(), w.data(), bias.data(), s.N, s.C, s.OC, p);
  cpu::matmul_backward(ex, o.dinp.data(), o.dweight.data(), o.dbias.data(), dout.data(),
                       inp.data(), w.data(), s.N, s.C, s.OC, /*accumulate_dinp=*/false,
                       /*accumulate_dparams=*/false, p);
  return o;
}

// The twin (bf16 = true) or plain fp32's products in double (bf16 = false).
MatmulRef run_matmul_ref(const Shape& s, bool bf16) {
  const MatmulIn in(s);
  const auto &inp = in.inp, &w = in.w, &bias = in.bias, &dout = in.dout;
  MatmulRef r(s, 0.0);
  if (bf16) {
    ref::matmul_forward_bf16(r.out.data(), inp.data(), w.data(), bias.data(), s.N, s.C, s.OC);
    ref::matmul_backward_bf16(r.dinp.data(), r.dweight.data(), r.dbias.data(), dout.data(),
                              inp.data(), w.data(), s.N, s.C, s.OC);
  } else {
    const auto d = [](const std::vector<float>& v) { return to_double(v); };
    ref::matmul_forward(r.out.data(), d(inp).data(), d(w).data(), d(bias).data(), s.N, s.C,
                        s.OC);
    ref::matmul_backward(r.dinp.data(), r.dweight.data(), r.dbias.data(), d(dout).data(),
                         d(inp).data(), d(w).data(), s.N, s.C, s.OC, false, false);
  }
  return r;
}

// The largest |got - want| over the elements.
double max_err(const std::vector<float>& got, const std::vector<double>& want) {
  double m = 0;
  for (size_t i = 0; i < got.size(); ++i) m = std::fmax(m, std::fabs(got[i] - want[i]));
  return m;
}

// Exact products of rounded values and fp32 sums: within fp32's summation error of the twin.
double atol_for(int K) { return 1e-6 * K + 1e-6; }

// Under a sanitizer (as cpu_matmul_test's): products over 32M multiply-adds are left out, and the
// scalar level, several times slower than the SIMD ones there, leaves out those over 4M (the same
// templates at every level, which the SIMD levels still run there). This test took 36 s there.
bool affordable(int64_t macs, SimdLevel level) {
  if (!test::kSanitized) return true;
  return macs < (int64_t{1} << 25) && (level != SimdLevel::kScalar || macs < (int64_t{1} << 22));
}
int64_t macs_of(const Shape& s) { return int64_t{s.N} * s.C * s.OC; }

// Every matmul backend's products in bf16: ours, and where the build and the CPU have it (AVX-512)
// oneDNN's bf16 matmul (matmul_backend.h's bf16_on_onednn), which --matmul onednn runs.
std::vector<MatmulBackend> bf16_backends() {
  std::vector<MatmulBackend> b = {MatmulBackend::kOwn};
  if (cpu::onednn_has_bf16()) b.push_back(MatmulBackend::kOneDnn);
  return b;
}

TEST(CpuBf16, MatmulMatchesItsTwinAndNotFp32) {
  KernelEnv env;
  const std::vector<MatmulBackend> backends = bf16_backends();
  for (const Shape& s : kShapes) {
    if (!affordable(macs_of(s), SimdLevel::kAvx2)) continue;
    const MatmulRef twin = run_matmul_ref(s, true), fp32 = run_matmul_ref(s, false);
    for (MatmulBackend backend : backends)
      for (SimdLevel level : simd_levels()) {
        if (!affordable(macs_of(s), level)) continue;
        set_level(level);
        test_context().ctx.matmul = backend;
        SCOPED_TRACE(std::string(simd_level_name(level)) + " " +
                     cpu::matmul_backend_name(backend) + " N=" + std::to_string(s.N) +
                     " C=" + std::to_string(s.C) + " OC=" + std::to_string(s.OC));
        const MatmulOut o = run_matmul(s, Dtype::kBf16);
        EXPECT_TRUE(all_close(o.out, twin.out, atol_for(s.C), 1e-5)) << "out";
        EXPECT_TRUE(all_close(o.dinp, twin.dinp, atol_for(s.OC), 1e-5)) << "dinp";
        EXPECT_TRUE(all_close(o.dweight, twin.dweight, atol_for(s.N), 1e-5)) << "dweight";
        // The bias gradient sums dout unrounded: fp32's.
        EXPECT_TRUE(all_close(o.dbias, fp32.dbias, atol_for(s.N), 1e-5)) << "dbias";
        // The inputs were rounded: the products sit further from fp32's than the twin's tolerance
        // by far (a rounded operand is off by up to 2^-9 of itself).
        EXPECT_GT(max_err(o.out, fp32.out), 20 * atol_for(s.C)) << "out looks unrounded";
        EXPECT_GT(max_err(o.dinp, fp32.dinp), 20 * atol_for(s.OC)) << "dinp looks unrounded";
        EXPECT_GT(max_err(o.dweight, fp32.dweight), 20 * atol_for(s.N))
            << "dweight looks unrounded";
      }
  }
}

// fn(s) for each shape affordable at each bf16 backend and level, the context set to them.
template <class Fn>
void each_backend_level_shape(Fn fn) {
  for (MatmulBackend backend : bf16_backends())
    for (SimdLevel level : simd_levels()) {
      set_level(level);
      test_context().ctx.matmul = backend;
      for (const Shape& s : kShapes) {
        if (!affordable(macs_of(s), level)) continue;
        SCOPED_TRACE(std::string(simd_level_name(level)) + " " + cpu::matmul_backend_name(backend) +
                     " N=" + std::to_string(s.N) + " C=" + std::to_string(s.C) +
                     " OC=" + std::to_string(s.OC));
        fn(s);
      }
    }
}

// All four results of two runs bitwise equal.
void expect_same_bits(const MatmulOut& got, const MatmulOut& want) {
  EXPECT_TRUE(bitwise_equal(got.out, want.out)) << "out";
  EXPECT_TRUE(bitwise_equal(got.dinp, want.dinp)) << "dinp";
  EXPECT_TRUE(bitwise_equal(got.dweight, want.dweight)) << "dweight";
  EXPECT_TRUE(bitwise_equal(got.dbias, want.dbias)) << "dbias";
}

// The weight packed ahead (once per AdamW step, by AdamW: adamw.h) gives the bits of the
// products packing it themselves, each product reading its own layout (the square weight would
// pass its size checks with the other's).
TEST(CpuBf16, MatmulWithItsWeightPackedAheadGivesTheSameBits) {
  KernelEnv env;
  each_backend_level_shape([](const Shape& s) {
    for (int threads : {1, 2}) {
      set_threads(threads);
      SCOPED_TRACE(std::to_string(threads) + " threads");
      expect_same_bits(run_matmul(s, Dtype::kBf16, true), run_matmul(s, Dtype::kBf16));
    }
  });
}

// Rows of a weight packed again after they changed (what AdamW does block by block,
// matmul_pack_weight_bf16_rows) give the words of packing the changed weight whole; ranges that
// are not whole blocks are an error. Row blocks inside and at the end, K slices crossed (OC and
// C past 512), odd sizes, at every level and on both backends' layouts.
TEST(CpuBf16, RowsPackedAgainGiveTheWholePacksWords) {
  KernelEnv env;
  struct WeightShape {
    int C, OC;
  };
  for (MatmulBackend backend : bf16_backends())
    for (SimdLevel level : simd_levels())
      for (const WeightShape s : {WeightShape{70, 100}, {33, 211}, {1030, 97}, {40, 1100}}) {
        set_level(level);
        test_context().ctx.matmul = backend;
        ExecContext ex = ctx();
        ex.dtype = Dtype::kBf16;
        const int block = cpu::matmul_weight_row_block(ex, s.OC);
        SCOPED_TRACE(std::string(simd_level_name(level)) + " " + cpu::matmul_backend_name(backend) +
                     " C=" + std::to_string(s.C) + " OC=" + std::to_string(s.OC) + " block " +
                     std::to_string(block));
        ASSERT_EQ(block % 2, 0);
        std::vector<float> w = random_floats(size_t(s.OC) * s.C, 71);
        std::vector<uint32_t> words(cpu::matmul_weight_pairs_words(ex, s.C, s.OC));
        cpu::matmul_pack_weight_bf16(ex, w.data(), s.C, s.OC, words.data());
        const int last = (s.OC - 1) / block * block;
        for (auto [r0, r1] :
             {std::pair{0, block}, {block, std::min(3 * block, s.OC)}, {last, s.OC}}) {
          if (r0 >= s.OC) continue;
          for (int64_t i = int64_t{r0} * s.C; i < int64_t{r1} * s.C; ++i) w[size_t(i)] *= -1.5f;
          cpu::matmul_pack_weight_bf16_rows(ex, w.data(), s.C, s.OC, words.data(), r0, r1);
          std::vector<uint32_t> want(words.size());
          cpu::matmul_pack_weight_bf16(ex, w.data(), s.C, s.OC, want.data());
          EXPECT_EQ(words, want) << "rows [" << r0 << ", " << r1 << ")";
        }
        const std::vector<uint32_t> before = words;
        for (auto [r0, r1] : {std::pair{1, block}, {0, block + 1}, {block, 0}, {0, s.OC + 1}}) {
          if (r1 == s.OC) continue;  // {0, block + 1} is whole when OC = block + 1
          EXPECT_THROW(
              cpu::matmul_pack_weight_bf16_rows(ex, w.data(), s.C, s.OC, words.data(), r0, r1),
              Error)
              << "rows [" << r0 << ", " << r1 << ")";
        }
        EXPECT_EQ(words, before) << "a refused range wrote";
      }
}

// A weight packed for the other backend (a context changed after packing) is not read: the
// products round it themselves, with their own bits.
TEST(CpuBf16, MatmulIgnoresAWeightPackedForTheOtherBackend) {
  if (!cpu::onednn_has_bf16()) GTEST_SKIP() << "no oneDNN bf16 matmul here";
  KernelEnv env;
  const Shape s{300, 260, 800};
  for (auto [use, packed_for] : {std::pair{MatmulBackend::kOwn, MatmulBackend::kOneDnn},
                                 std::pair{MatmulBackend::kOneDnn, MatmulBackend::kOwn}}) {
    SCOPED_TRACE(std::string(cpu::matmul_backend_name(use)) + ", packed for " +
                 cpu::matmul_backend_name(packed_for));
    test_context().ctx.matmul = use;
    const MatmulOut want = run_matmul(s, Dtype::kBf16),
                    got = run_matmul(s, Dtype::kBf16, true, packed_for);
    EXPECT_TRUE(bitwise_equal(got.out, want.out)) << "out";
    EXPECT_TRUE(bitwise_equal(got.dinp, want.dinp)) << "dinp";
  }
}

TEST(CpuBf16, MatmulIsBitwiseTheSameOnOneTwoAndThreeThreads) {
  KernelEnv env;
  each_backend_level_shape([](const Shape& s) {
    set_threads(1);
    const MatmulOut one = run_matmul(s, Dtype::kBf16);
    for (int threads : {2, 3}) {
      set_threads(threads);
      SCOPED_TRACE(std::to_string(threads) + " threads");
      expect_same_bits(run_matmul(s, Dtype::kBf16), one);
    }
  });
}

// oneDNN's bf16 matmul (--matmul onednn in bf16; mixed takes it only where oneDNN drives AMX
// tiles): its own sums, not our GEMM's bits over a long K (so the backend really is the
// library's), within fp32
// summation error of the twin also when it adds into C (its sum post-op) and over tiles narrower
// than C (N past 1024: copied out of a dense buffer, the bias added there).
TEST(CpuBf16, OneDnnMatmulIsTheLibrarysAndAddsIntoWhatIsThere) {
  if (!cpu::onednn_available()) GTEST_SKIP() << "built without oneDNN (SCRATCHGPT_DNNL)";
  if (!cpu::onednn_has_bf16()) GTEST_SKIP() << "oneDNN has no bf16 matmul on this CPU (AVX2)";
  KernelEnv env;
  EXPECT_TRUE(cpu::bf16_on_onednn(MatmulBackend::kOneDnn));
  EXPECT_FALSE(cpu::bf16_on_onednn(MatmulBackend::kOwn));
  EXPECT_EQ(cpu::bf16_on_onednn(MatmulBackend::kMixed), cpu::onednn_has_amx());
  for (const Shape& s : {Shape{300, 260, 800}, Shape{37, 520, 2100}}) {
    if (!affordable(macs_of(s), SimdLevel::kAvx2)) continue;
    SCOPED_TRACE("N=" + std::to_string(s.N) + " C=" + std::to_string(s.C) +
                 " OC=" + std::to_string(s.OC));
    const MatmulRef twin = run_matmul_ref(s, true);
    const MatmulOut own = run_matmul(s, Dtype::kBf16);
    test_context().ctx.matmul = MatmulBackend::kOneDnn;
    const MatmulOut lib = run_matmul(s, Dtype::kBf16);
    EXPECT_TRUE(all_close(lib.out, twin.out, atol_for(s.C), 1e-5)) << "out";
    // Over a short K its brgemm sums as vdpbf16ps defines (pairs in k order into one fp32 sum):
    // our bits (out and dweight here); over K = 800 and 2100 (dinp) its K blocks sum apart.
    EXPECT_FALSE(bitwise_equal(lib.dinp, own.dinp)) << "our GEMM's sums: not oneDNN's";
    // Added into: dinp and dweight start from the results of a first backward.
    ExecContext ex = test::ctx();
    ex.dtype = Dtype::kBf16;
    const MatmulIn in(s);
    std::vector<float> dinp = lib.dinp, dweight = lib.dweight;
    cpu::matmul_backward(ex, dinp.data(), dweight.data(), nullptr, in.dout.data(), in.inp.data(),
                         in.w.data(), s.N, s.C, s.OC, /*accumulate_dinp=*/true,
                         /*accumulate_dparams=*/true);
    std::vector<double> twice_dinp = twin.dinp, twice_dweight = twin.dweight;
    for (double& v : twice_dinp) v *= 2;
    for (double& v : twice_dweight) v *= 2;
    EXPECT_TRUE(all_close(dinp, twice_dinp, 2 * atol_for(s.OC), 1e-5)) << "dinp added into";
    EXPECT_TRUE(all_close(dweight, twice_dweight, 2 * atol_for(s.N), 1e-5)) << "dweight added into";
    test_context().ctx.matmul = MatmulBackend::kOwn;
  }
}

// The operands of a library's bf16 product rounded as gemm_bf16 and the twin round them
// (ref::bf16_from_float): ties to even, NaN, infinity, the largest float, -0 (not denormals,
// which the AVX-512 path's vcvtneps2bf16 flushes to zero, as vdpbf16ps and AMX read them), in
// order and transposed, at every level and thread count, over tails of the vector widths and of
// the 64 x 64 blocks, with rows further apart than the columns they hold.
TEST(CpuBf16, RoundingForTheLibraryIsTheScalars) {
  KernelEnv env;
  const float special[] = {1.0f + 0x1p-8f,
                           1.0f + 0x1p-7f + 0x1p-8f,
                           -(1.0f + 0x1p-8f),
                           std::numeric_limits<float>::infinity(),
                           std::numeric_limits<float>::max(),
                           from_bits(0x7fc00001u),
                           -0.0f};
  auto values = [&](size_t n, uint64_t seed) {
    std::vector<float> v = random_floats(n, seed);
    for (size_t i = 0; i < n; i += 5) v[i] = special[(i / 5) % std::size(special)];
    return v;
  };
  auto same = [](uint16_t got, float x) {
    const uint16_t want = ref::bf16_from_float(x);
    return std::isnan(x) ? (got & 0x7fffu) > 0x7f80u : got == want;
  };
  for (SimdLevel level : simd_levels())
    for (int threads : {1, 2, 3}) {
      set_level(level);
      set_threads(threads);
      SCOPED_TRACE(std::string(simd_level_name(level)) + " " + std::to_string(threads) +
                   " threads");
      for (int64_t n : {1, 2, 7, 16, 17, 33, 40003}) {
        const std::vector<float> x = values(size_t(n), 61);
        std::vector<uint16_t> out(size_t(n) + 1, 0xabcd);
        cpu::detail::round_bf16(ctx().isa, out.data(), x.data(), n, ctx().workers());
        for (int64_t i = 0; i < n; ++i)
          ASSERT_TRUE(same(out[size_t(i)], x[size_t(i)])) << "n " << n << " at " << i;
        EXPECT_EQ(out[size_t(n)], 0xabcd) << "written past n = " << n;
      }
      for (auto [rows, cols] : {std::pair{1, 1}, {8, 8}, {7, 9}, {64, 65}, {130, 70}, {9, 200}}) {
        const int64_t ld = cols + 3, ld_out = rows + 5;  // out's rows apart, the gaps untouched
        const std::vector<float> x = values(size_t(rows) * ld, 62);
        std::vector<uint16_t> out(size_t(cols) * ld_out, 0xabcd);
        cpu::detail::round_bf16_transposed(ctx().isa, out.data(), ld_out, x.data(), rows, cols, ld,
                                           ctx().workers());
        for (int c = 0; c < cols; ++c) {
          for (int r = 0; r < rows; ++r)
            ASSERT_TRUE(same(out[size_t(c * ld_out + r)], x[size_t(r * ld + c)]))
                << rows << " x " << cols << " at row " << r << " column " << c;
          for (int64_t r = rows; r < ld_out; ++r)
            ASSERT_EQ(out[size_t(c * ld_out + r)], 0xabcd)
                << "written in the gap after column " << c;
        }
      }
    }
}

// detail::gemm_bf16, the GEMM under the bf16 products, against its plain loop ref::gemm_bf16 (the
// order of sums vdpbf16ps defines): the same bits at every level whose path computes each pair
// with two roundings (scalar, AVX2), on 1, 2 and 3 threads, at any blocking: K past two K slices
// of every path (128, 256, 512) and odd (a half pair), N past a column block (256, 512, 768) and
// not a whole panel, M not a whole strip; A row- and column-major (the dweight product), B
// row-major and transposed (the forward); C written with and without a bias and added to. Where
// the CPU has AVX512_BF16 the vdpbf16ps path is held to the loop within fp32's rounding instead
// (the instruction's documented order gives the same bits; a CPU's own may round once a pair).
// And with B packed ahead (gemm_bf16_pack_b), at every level: the bits of B packed in the call.
struct GemmCase {
  int M, N, K;
  bool a_cols, b_trans, init, bias;
};
const GemmCase kGemmCases[] = {{13, 800, 1101, false, true, true, true},
                               {130, 70, 777, true, false, false, false},
                               {9, 33, 5, false, false, true, false},
                               {64, 48, 512, true, true, true, true},
                               {3, 1, 1, false, false, false, false}};

// How run_gemm_bf16 computes: the loop, gemm_bf16 packing B itself, or B packed ahead; or the
// AVX-512 unit's blocking with emulated lanes, packing B itself or reading it packed ahead.
enum class GemmWay { kTwin, kGemm, kPackedB, kAvx512Emulated, kAvx512EmulatedPackedB };

std::vector<float> run_gemm_bf16(const GemmCase& c, GemmWay way) {
  const auto A = random_floats(size_t(c.M) * c.K, 31), B = random_floats(size_t(c.K) * c.N, 32);
  const auto bias = random_floats(c.N, 33);
  std::vector<float> C = random_floats(size_t(c.M) * c.N, 34);  // added to when !init
  const int64_t rs_a = c.a_cols ? 1 : c.K, cs_a = c.a_cols ? c.M : 1;
  const int64_t rs_b = c.b_trans ? 1 : c.N, cs_b = c.b_trans ? c.K : 1;
  const float* bp = c.bias ? bias.data() : nullptr;
  if (way == GemmWay::kTwin) {
    ref::gemm_bf16(c.M, c.N, c.K, A.data(), rs_a, cs_a, B.data(), rs_b, cs_b, C.data(), c.N,
                   c.init, bp);
    return C;
  }
  cpu::detail::GemmArgs g{.M = c.M, .N = c.N, .K = c.K,
                          .A = A.data(), .rs_a = rs_a, .cs_a = cs_a,
                          .B = B.data(), .rs_b = rs_b, .cs_b = cs_b,
                          .C = C.data(), .ldc = c.N, .init = c.init, .bias = bp};
  // Packed ahead: B's words only, its floats then overwritten so that a read of them shows.
  const bool emulated = way == GemmWay::kAvx512Emulated || way == GemmWay::kAvx512EmulatedPackedB;
  std::vector<uint32_t> words;
  cpu::detail::PackedPairs packed;
  std::vector<float> junk;
  if (way == GemmWay::kPackedB || way == GemmWay::kAvx512EmulatedPackedB) {
    if (emulated) {
      words.assign(cpu::detail::packed_words_emulated_avx512(c.K, c.N), 0xdeadbeefu);
      cpu::detail::pack_b_emulated_avx512(g, words.data(), ctx().workers());
      packed = {words.data(), SimdLevel::kAvx512, c.K, c.N};
    } else {
      words.assign(cpu::detail::gemm_bf16_packed_words(ctx().isa, c.K, c.N), 0xdeadbeefu);
      packed = cpu::detail::gemm_bf16_pack_b(ctx().isa, g, words.data(), ctx().workers());
    }
    junk.assign(B.size(), std::numeric_limits<float>::quiet_NaN());
    g.B = junk.data();
    g.Bp = &packed;
  }
  if (emulated)
    cpu::detail::gemm_bf16_emulated_avx512(g, ctx().workers());
  else
    cpu::detail::gemm_bf16(ctx().isa, g, ctx().workers());
  return C;
}

TEST(CpuBf16, GemmGivesItsTwinsBitsOnAnyThreads) {
  KernelEnv env;
  for (const GemmCase& c : kGemmCases) {
    const std::vector<float> want = run_gemm_bf16(c, GemmWay::kTwin);
    std::vector<double> want_d(want.begin(), want.end());
    for (SimdLevel level : simd_levels()) {
      if (!affordable(int64_t{c.M} * c.N * c.K, level)) continue;
      set_level(level);
      const bool native = level == SimdLevel::kAvx512 && cpu_has_avx512_bf16();
      for (int threads : {1, 2, 3}) {
        set_threads(threads);
        SCOPED_TRACE(std::string(simd_level_name(level)) + (native ? " (vdpbf16ps)" : "") + " " +
                     std::to_string(threads) + " threads, M=" + std::to_string(c.M) +
                     " N=" + std::to_string(c.N) + " K=" + std::to_string(c.K));
        const std::vector<float> got = run_gemm_bf16(c, GemmWay::kGemm);
        if (native)
          EXPECT_TRUE(all_close(got, want_d, atol_for(c.K), 1e-5));
        else
          EXPECT_TRUE(bitwise_equal(got, want));
        // B packed ahead (a weight between two AdamW steps) gives the bits of B packed here.
        EXPECT_TRUE(bitwise_equal(run_gemm_bf16(c, GemmWay::kPackedB), got)) << "B packed ahead";
      }
    }
  }
}

// The AVX-512 unit's blockings and packers (8 x 48 tiles for N = 70, 33, 48; 12 x 32 for N = 800
// and 1: gemm_bf16_impl.h's avx512_tall; K slices of 512, column blocks of 768; B packed ahead at
// the tile's width) with vdpbf16ps's sums emulated in 16 lanes: the twin's bits on 1 and 3
// threads, B packed in the call and ahead. What only a CPU with AVX512_BF16 can check is left:
// the three intrinsics of PairsAvx512Bf16 (gemm_bf16_isa.inc).
TEST(CpuBf16, Avx512BlockingsGiveTheTwinsBits) {
  using cpu::detail::avx512_tall;
  ASSERT_TRUE(avx512_tall(800) && avx512_tall(1) && avx512_tall(128) && avx512_tall(512));
  ASSERT_FALSE(avx512_tall(70) || avx512_tall(33) || avx512_tall(48) || avx512_tall(384));
  if (detected_simd_level() == SimdLevel::kScalar) GTEST_SKIP() << "the packers need AVX2";
  KernelEnv env;
  set_level(SimdLevel::kAvx2);
  for (const GemmCase& c : kGemmCases) {
    if (!affordable(int64_t{c.M} * c.N * c.K, SimdLevel::kScalar)) continue;  // plain lanes
    const std::vector<float> want = run_gemm_bf16(c, GemmWay::kTwin);
    for (int threads : {1, 3}) {
      set_threads(threads);
      SCOPED_TRACE(std::to_string(threads) + " threads, M=" + std::to_string(c.M) +
                   " N=" + std::to_string(c.N) + " K=" + std::to_string(c.K));
      EXPECT_TRUE(bitwise_equal(run_gemm_bf16(c, GemmWay::kAvx512Emulated), want));
      EXPECT_TRUE(bitwise_equal(run_gemm_bf16(c, GemmWay::kAvx512EmulatedPackedB), want))
          << "B packed ahead";
    }
  }
}

// The packing's rounding (vectorised in the AVX2 and AVX-512 units) on the hard cases: ties to
// even either way, a float past bf16's largest (infinity), a NaN (stays one), a denormal tie. Row
// r of A holds one value at k = r (even and odd k), B is ones, so C's row r is that value rounded,
// in each layout of A and B the packers read. Not at the vdpbf16ps level: it flushes denormals.
// The attention's triangular products: scores with only C's lower triangle wanted (lower_c), and
// the (T, T) x (T, HS) ones with A zero above (kLower) or below (kUpper) its diagonal, whose
// skipped pairs hold zeros only: the loop's bits where C is written, at every K slice (T = 299
// crosses the AVX2 path's 256 and the portable one's 128) and thread count.
TEST(CpuBf16, GemmTrianglesGiveTheLoopsBits) {
  KernelEnv env;
  constexpr int T = 299, HS = 40;
  using Tri = cpu::detail::GemmArgs::Tri;
  for (SimdLevel level : simd_levels()) {
    if (set_level(level) == SimdLevel::kAvx512 && cpu_has_avx512_bf16()) continue;
    for (int threads : {1, 2}) {
      set_threads(threads);
      SCOPED_TRACE(std::string(simd_level_name(level)) + " " + std::to_string(threads));
      // scores (T, T) = a (T, HS) b^T, lower triangle.
      const auto a = random_floats(size_t(T) * HS, 41), b = random_floats(size_t(T) * HS, 42);
      std::vector<float> s(size_t(T) * T, 5.0f), want(s.size(), 5.0f);
      ref::gemm_bf16(T, T, HS, a.data(), HS, 1, b.data(), 1, HS, want.data(), T, true, nullptr);
      cpu::detail::gemm_bf16(ctx().isa, {.M = T, .N = T, .K = HS,
                                         .A = a.data(), .rs_a = HS, .cs_a = 1,
                                         .B = b.data(), .rs_b = 1, .cs_b = HS,
                                         .C = s.data(), .ldc = T, .init = true, .lower_c = true},
                             ctx().workers());
      for (int i = 0; i < T; ++i)
        for (int j = 0; j <= i; ++j)
          ASSERT_EQ(std::memcmp(&s[i * T + j], &want[i * T + j], sizeof(float)), 0)
              << "scores (" << i << ", " << j << ")";
      // c (T, HS) = A (T, K) v (K, HS), A zero above or below its diagonal, read by rows or by
      // columns; K past T, so that a strip ending at an odd k is not the last.
      constexpr int K = T + 11;
      const auto v = random_floats(size_t(K) * HS, 44);
      for (Tri tri : {Tri::kLower, Tri::kUpper})
        for (bool by_cols : {false, true}) {
          std::vector<float> A = random_floats(size_t(T) * K, 43);
          for (int i = 0; i < T; ++i)
            for (int k = 0; k < K; ++k)
              if (tri == Tri::kLower ? k > i : k < i)
                A[by_cols ? int64_t{k} * T + i : int64_t{i} * K + k] = 0.0f;  // A(i, k)
          const int64_t rs = by_cols ? 1 : K, cs = by_cols ? T : 1;
          std::vector<float> c(size_t(T) * HS), c_want(c.size());
          ref::gemm_bf16(T, HS, K, A.data(), rs, cs, v.data(), HS, 1, c_want.data(), HS, true,
                         nullptr);
          cpu::detail::gemm_bf16(ctx().isa, {.M = T, .N = HS, .K = K,
                                             .A = A.data(), .rs_a = rs, .cs_a = cs,
                                             .B = v.data(), .rs_b = HS, .cs_b = 1,
                                             .C = c.data(), .ldc = HS, .init = true, .a_tri = tri},
                                 ctx().workers());
          EXPECT_TRUE(bitwise_equal(c, c_want)) << (tri == Tri::kLower ? "lower" : "upper")
                                                << (by_cols ? " by columns" : " by rows");
        }
    }
  }
}

// The stored attention's head products in bf16 (attention_bf16_impl.h; the model's path where T
// and HS are multiples of 16 on a CPU with AVX512_BF16): each of its three kinds of product gives
// the twin's bits (ref::gemm_bf16) with vdpbf16ps's sums emulated in 16 lanes, and the GEMM's bits
// with vdpbf16ps itself (where the CPU has it), over the shapes of its tilings: HS = 16 and 32
// (8-row tiles of up to 2 vectors), 48 (4 rows by 3), 64 (4 by 4), 128 (two tiles of 4), T from 16
// to 256. The (T, T) operand holds NaN from 16 past its diagonal on (attention.cpp keeps 15 zero),
// so a read beyond its band shows.
TEST(CpuBf16, HeadProductsGiveTheTwinsAndTheGemmsBits) {
  if (detected_simd_level() == SimdLevel::kScalar) GTEST_SKIP() << "the packers need AVX2";
  KernelEnv env;
  set_level(SimdLevel::kAvx2);
  set_threads(1);
  const bool native = cpu_has_avx512_bf16();
  constexpr float kNan = std::numeric_limits<float>::quiet_NaN();
  for (const auto& shape : {std::pair{64, 32}, {16, 16}, {32, 48}, {256, 64}, {48, 128}}) {
    const int T = shape.first, HS = shape.second;  // (a lambda below takes them: no bindings)
    SCOPED_TRACE("T=" + std::to_string(T) + " HS=" + std::to_string(HS));
    const int64_t lda = HS + 5, ldb = 3 * HS;  // rows of q and of k inside qkv-like arrays
    const auto a = random_floats(size_t(T) * lda, 51), b = random_floats(size_t(T) * ldb, 52);
    // A weights-like (T, T): rows summing over their lower triangle, zero 15 past the diagonal,
    // NaN beyond (poisoned); clean: zero beyond instead (the twin multiplies every entry).
    std::vector<float> poisoned = random_floats(size_t(T) * T, 53), clean(poisoned);
    for (int t = 0; t < T; ++t)
      for (int j = t + 1; j < T; ++j) {
        poisoned[size_t(t) * T + j] = j - t < 16 ? 0.0f : kNan;
        clean[size_t(t) * T + j] = 0.0f;
      }
    auto check = [&](const char* what, const std::vector<float>& want,
                     const std::vector<float>& emulated, const std::vector<float>& vdp,
                     const std::vector<float>& gemm, bool lower_only, int N) {
      SCOPED_TRACE(what);
      for (int i = 0; i < T; ++i)
        for (int j = 0; j < (lower_only ? i + 1 : N); ++j) {
          const size_t at = size_t(i) * N + j;
          ASSERT_EQ(std::memcmp(&emulated[at], &want[at], sizeof(float)), 0)
              << "emulated vs twin at (" << i << ", " << j << ")";
          if (native) {
            ASSERT_EQ(std::memcmp(&vdp[at], &gemm[at], sizeof(float)), 0)
                << "vdpbf16ps vs its GEMM at (" << i << ", " << j << ")";
          }
        }
    };
    // Before each call: the scratch the head products convert into (gemm.h's thread buffers 0
    // and 1) full of NaN, so a word they read but did not write this call shows.
    auto poison_scratch = [&] {
      for (int slot : {0, 1}) {
        const size_t n = size_t(T) * (T > HS ? T : HS);
        std::fill_n(cpu::detail::thread_buffer(slot, n), n, kNan);
      }
    };
    using cpu::detail::GemmArgs;
    auto gemm_native = [&](GemmArgs g) {
      if (native) cpu::detail::gemm_bf16(SimdLevel::kAvx512, g, ctx().workers());
    };
    {  // scores (T, T) = a b^T, lower triangle
      std::vector<float> want(size_t(T) * T), emu(want.size(), 5.0f), vdp(emu), gemm(emu);
      ref::gemm_bf16(T, T, HS, a.data(), lda, 1, b.data(), 1, ldb, want.data(), T, true, nullptr);
      poison_scratch();
      cpu::detail::head_scores_emulated(emu.data(), a.data(), lda, b.data(), ldb, T, HS);
      poison_scratch();
      if (native) {
        cpu::detail::attention_scores_bf16_avx512(vdp.data(), a.data(), lda, b.data(), ldb, T, HS);
      }
      gemm_native({.M = T,
                   .N = T,
                   .K = HS,
                   .A = a.data(),
                   .rs_a = lda,
                   .cs_a = 1,
                   .B = b.data(),
                   .rs_b = 1,
                   .cs_b = ldb,
                   .C = gemm.data(),
                   .ldc = T,
                   .init = true,
                   .lower_c = true});
      check("scores", want, emu, vdp, gemm, true, T);
    }
    for (bool upper : {false, true}) {  // c (T, HS) = A b: A by rows (lower) or by columns (upper)
      const int64_t rs = upper ? 1 : T, cs = upper ? T : 1;
      std::vector<float> want(size_t(T) * HS), emu(want.size(), 5.0f), vdp(emu), gemm(emu);
      ref::gemm_bf16(T, HS, T, clean.data(), rs, cs, b.data(), ldb, 1, want.data(), HS, true,
                     nullptr);
      poison_scratch();
      cpu::detail::head_mix_emulated(upper, emu.data(), HS, poisoned.data(), rs, cs, b.data(), ldb,
                                     T, HS);
      poison_scratch();
      if (native) {
        cpu::detail::attention_mix_bf16_avx512(upper, vdp.data(), HS, poisoned.data(), rs, cs,
                                               b.data(), ldb, T, HS);
      }
      gemm_native({.M = T,
                   .N = HS,
                   .K = T,
                   .A = clean.data(),
                   .rs_a = rs,
                   .cs_a = cs,
                   .B = b.data(),
                   .rs_b = ldb,
                   .cs_b = 1,
                   .C = gemm.data(),
                   .ldc = HS,
                   .init = true,
                   .a_tri = upper ? GemmArgs::kUpper : GemmArgs::kLower});
      check(upper ? "mix, A by columns" : "mix, A by rows", want, emu, vdp, gemm, false, HS);
    }
  }
}

TEST(CpuBf16, GemmRoundsTiesInfinityNanAndDenormalsAsTheScalarDoes) {
  KernelEnv env;
  const float values[8] = {1.0f + 0x1p-8f,          1.0f + 0x1p-7f + 0x1p-8f,
                           -(1.0f + 0x1p-8f + 0x1p-20f), 3.0f,
                           std::numeric_limits<float>::max(), from_bits(0x7fc00001u),
                           from_bits(0x00018000u),  -0.0f};
  constexpr int M = 8, K = 16, N = 16;
  for (SimdLevel level : simd_levels()) {
    if (set_level(level) == SimdLevel::kAvx512 && cpu_has_avx512_bf16()) continue;
    for (bool a_cols : {false, true})
      for (bool b_trans : {false, true}) {
        SCOPED_TRACE(std::string(simd_level_name(level)) + (a_cols ? " A columns" : " A rows") +
                     (b_trans ? ", B transposed" : ", B rows"));
        std::vector<float> A(M * K, 0.0f), B(K * N, 1.0f), C(M * N, 7.0f);
        for (int r = 0; r < M; ++r) A[a_cols ? r + r * M : r * K + r] = values[r];
        cpu::detail::gemm_bf16(ctx().isa, {.M = M, .N = N, .K = K,
                                           .A = A.data(), .rs_a = a_cols ? 1 : K,
                                           .cs_a = a_cols ? M : 1,
                                           .B = B.data(), .rs_b = b_trans ? 1 : N,
                                           .cs_b = b_trans ? K : 1,
                                           .C = C.data(), .ldc = N, .init = true},
                               ctx().workers());
        for (int r = 0; r < M; ++r)
          for (int j = 0; j < N; ++j) {
            const float want = ref::round_bf16(values[r]), got = C[r * N + j];
            if (std::isnan(want))
              EXPECT_TRUE(std::isnan(got)) << "row " << r;
            else
              EXPECT_EQ(got, want) << "row " << r << " column " << j;
          }
      }
  }
}

TEST(CpuBf16, GemmTwinRoundsItsInputsAndPairsInOrder) {
  // The loop itself, on numbers worked by hand: one row of A (1, K) against a column of ones.
  const float ones[3] = {1.0f, 1.0f, 1.0f};
  // Rounding: 1 + 2^-9 is 1 in bf16 (its step at 1 is 2^-7); K = 3 leaves half a pair (a 0).
  const float A[3] = {1.0f + 0x1p-9f, 3.0f, 0.25f};
  float C = 100.0f;
  ref::gemm_bf16(1, 1, 3, A, 3, 1, ones, 1, 1, &C, 1, /*init=*/false, nullptr);
  EXPECT_EQ(C, 104.25f);  // added to C: 100 + 3 + 1 + 0 + 0.25
  const float bias = 0.5f;
  ref::gemm_bf16(1, 1, 3, A, 3, 1, ones, 1, 1, &C, 1, /*init=*/true, &bias);
  EXPECT_EQ(C, 4.75f);
  // Odd first: from s = 2^24, the pair (1, -2^24) gives (2^24 - 2^24) + 1 = 1; even first it
  // would give (2^24 + 1 -> 2^24, a tie to even) - 2^24 = 0.
  const float A2[2] = {1.0f, -0x1p24f};
  C = 0x1p24f;
  ref::gemm_bf16(1, 1, 2, A2, 2, 1, ones, 1, 1, &C, 1, /*init=*/false, nullptr);
  EXPECT_EQ(C, 1.0f);
}

struct AttShape {
  int B, T, C, NH;
};
// The GEMM's products (T = 37, 70) and the per-ISA tile products (T = 64, HS = 32).
const AttShape kAttShapes[] = {{2, 37, 48, 3}, {1, 70, 64, 2}, {2, 64, 64, 2}};

std::vector<float> dropout_mask(size_t n) {
  auto u = random_floats(n, 23, 0.0f, 1.0f);
  for (float& x : u) x = x < 0.25f ? 0.0f : 1.0f / 0.75f;
  return u;
}

struct AttOut {
  std::vector<float> out, att, dqkv;
};

AttOut run_attention(const AttShape& s, bool with_drop) {
  ExecContext ex = test::ctx();
  ex.dtype = Dtype::kBf16;
  const size_t BT = size_t(s.B) * s.T, TT = size_t(s.B) * s.NH * s.T * s.T;
  const auto qkv = random_floats(BT * 3 * s.C, 21);
  const auto dout = random_floats(BT * s.C, 22);
  const auto drop = dropout_mask(TT);
  AttOut o;
  o.out.assign(BT * s.C, 7.0f);
  o.att.assign(TT, 7.0f);
  o.dqkv.assign(BT * 3 * s.C, 7.0f);
  std::vector<float> preatt(TT, 7.0f), dpreatt(TT, 7.0f), datt(TT, 7.0f);
  cpu::attention_forward(ex, o.out.data(), preatt.data(), o.att.data(), qkv.data(),
                         with_drop ? drop.data() : nullptr, s.B, s.T, s.C, s.NH);
  cpu::attention_backward(ex, o.dqkv.data(), dpreatt.data(), datt.data(), dout.data(), qkv.data(),
                          o.att.data(), with_drop ? drop.data() : nullptr, s.B, s.T, s.C, s.NH);
  return o;
}

struct AttRef {
  std::vector<double> out, att, dqkv;
};

AttRef run_attention_ref(const AttShape& s, bool with_drop, bool bf16) {
  const size_t BT = size_t(s.B) * s.T, TT = size_t(s.B) * s.NH * s.T * s.T;
  const auto qkv = to_double(random_floats(BT * 3 * s.C, 21));
  const auto dout = to_double(random_floats(BT * s.C, 22));
  const auto drop = to_double(dropout_mask(TT));
  AttRef r;
  r.out.assign(BT * s.C, 0.0);
  r.att.assign(TT, 0.0);
  r.dqkv.assign(BT * 3 * s.C, 0.0);
  std::vector<double> preatt(TT), dpreatt(TT), datt(TT);
  ref::attention_forward(r.out.data(), preatt.data(), r.att.data(), qkv.data(),
                         with_drop ? drop.data() : nullptr, s.B, s.T, s.C, s.NH, bf16);
  ref::attention_backward(r.dqkv.data(), dpreatt.data(), datt.data(), dout.data(), qkv.data(),
                          r.att.data(), with_drop ? drop.data() : nullptr, s.B, s.T, s.C, s.NH,
                          bf16);
  return r;
}

// The weights (softmax in fp32 here, in double in the twin) can land on either side of a bf16
// rounding boundary where the two differ in their last float bit: a rare element then differs by
// one bf16 step of its weight. So: nearly every element within fp32's tolerance of the twin, and
// every one within a few bf16 steps; while against fp32 attention most elements are off.
TEST(CpuBf16, AttentionMatchesItsTwinAndNotFp32) {
  KernelEnv env;
  for (const AttShape& s : kAttShapes)
    for (bool with_drop : {false, true}) {
      const AttRef twin = run_attention_ref(s, with_drop, true);
      const AttRef fp32 = run_attention_ref(s, with_drop, false);
      for (SimdLevel level : simd_levels()) {
        set_level(level);
        SCOPED_TRACE(std::string(simd_level_name(level)) + " T=" + std::to_string(s.T) +
                     " C=" + std::to_string(s.C) + (with_drop ? " dropout" : ""));
        const AttOut o = run_attention(s, with_drop);
        const double atol = 1e-6 * s.T + 1e-5;
        EXPECT_TRUE(all_close(o.att, twin.att, 1e-5, 1e-3)) << "att (from rounded q, k)";
        for (const auto& [got, want, fp, name] :
             {std::tuple{&o.out, &twin.out, &fp32.out, "out"},
              std::tuple{&o.dqkv, &twin.dqkv, &fp32.dqkv, "dqkv"}}) {
          EXPECT_LE(share_off(*got, *want, atol), 0.01) << name;
          EXPECT_TRUE(all_close(*got, *want, 2e-2, 2e-2)) << name;
          // Unrounded, next to none would be off (fp32's own tolerance); rounded, 43-90% are
          // (dqkv's small elements sit within the tolerance either way).
          EXPECT_GE(share_off(*got, *fp, atol), 0.25) << name << " looks unrounded";
        }
      }
    }
}

TEST(CpuBf16, AttentionIsBitwiseTheSameOnOneTwoAndThreeThreads) {
  KernelEnv env;
  for (SimdLevel level : simd_levels()) {
    set_level(level);
    for (const AttShape& s : kAttShapes) {
      SCOPED_TRACE(std::string(simd_level_name(level)) + " T=" + std::to_string(s.T));
      set_threads(1);
      const AttOut one = run_attention(s, true);
      for (int threads : {2, 3}) {
        set_threads(threads);
        const AttOut o = run_attention(s, true);
        EXPECT_TRUE(bitwise_equal(one.out, o.out)) << threads << " threads";
        EXPECT_TRUE(bitwise_equal(one.dqkv, o.dqkv)) << threads << " threads";
      }
    }
  }
}

}  // namespace
}  // namespace scratchgpt
