// cpu_matmul_test.cpp: cpu::matmul_forward/backward against ref:: run in double, on shapes that
// are not multiples of any block size (and ones that cross the K and N block edges, and small
// layers over many rows, whose weight gradient goes by row halves), at every
// SIMD level this CPU has, plus bitwise identity between 1, 2 and 3 threads. The same checks for
// the oneDNN backend (matmul_backend.h) where the build has it, and the backend-name errors.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <string>

#include "core/check.h"
#include "cpu_test_util.h"
#include "kernels/cpu/matmul.h"
#include "kernels/cpu/matmul_backend.h"
#include "kernels/ref/matmul.h"
#include "test_util.h"

namespace scratchgpt {
namespace {

using namespace test;  // cpu_test_util.h

struct Shape {
  int N, C, OC;
};

// The last three: a dweight whose dout^T columns lie more than a page apart (OC >= 1024: strips
// packed in groups, the last group and strip partial, two K slices), a wide dweight of few rows
// (C >= 1024, OC >= 256: each column task packs every strip of dout^T), and a dweight by row
// halves whose B (inp, rows 512 floats apart) fits every L2 we run on: packed at AVX2, read in
// place at AVX-512 (gemm_impl.h's direct_b).
const Shape kShapes[] = {{1, 1, 1},       {7, 33, 65},     {33, 7, 129},   {65, 129, 7},
                         {129, 65, 33},   {12, 1, 300},    {5, 300, 3},    {300, 260, 800},
                         {257, 770, 31},  {256, 96, 240},  {513, 37, 100}, {600, 40, 150},
                         {520, 24, 1030}, {64, 1030, 300}, {512, 512, 24}};
// More than oneDNN's largest tile (256 x 1024) in both directions.
constexpr Shape kOneDnnTiles{600, 40, 2100};

// Error bound for a K-term float dot product of values in [-1, 1].
double atol_for(int K) { return 1e-6 * K + 1e-6; }
constexpr double kRtol = 1e-5;

struct Outputs {
  std::vector<float> out, dinp, dweight, dbias;
};

// Runs forward and backward (grads start from nonzero values: they must accumulate).
Outputs run_cpu(const Shape& s, bool with_bias, bool with_dinp, bool with_dweight) {
  auto inp = random_floats(size_t(s.N) * s.C, 1);
  auto w = random_floats(size_t(s.OC) * s.C, 2);
  auto bias = random_floats(s.OC, 3);
  auto dout = random_floats(size_t(s.N) * s.OC, 4);
  Outputs o;
  o.out.assign(size_t(s.N) * s.OC, 123.0f);
  o.dinp = random_floats(size_t(s.N) * s.C, 5);
  o.dweight = random_floats(size_t(s.OC) * s.C, 6);
  o.dbias = random_floats(s.OC, 7);
  cpu::matmul_forward(test::ctx(), o.out.data(), inp.data(), w.data(),
                      with_bias ? bias.data() : nullptr, s.N, s.C, s.OC);
  cpu::matmul_backward(
      test::ctx(), with_dinp ? o.dinp.data() : nullptr, with_dweight ? o.dweight.data() : nullptr,
      with_bias ? o.dbias.data() : nullptr, dout.data(), inp.data(), w.data(), s.N, s.C, s.OC);
  return o;
}

struct RefOutputs {
  std::vector<double> out, dinp, dweight, dbias;
};

RefOutputs run_ref(const Shape& s, bool with_bias, bool with_dinp, bool with_dweight) {
  auto inp = to_double(random_floats(size_t(s.N) * s.C, 1));
  auto w = to_double(random_floats(size_t(s.OC) * s.C, 2));
  auto bias = to_double(random_floats(s.OC, 3));
  auto dout = to_double(random_floats(size_t(s.N) * s.OC, 4));
  RefOutputs o;
  o.out.assign(size_t(s.N) * s.OC, 0.0);
  o.dinp = to_double(random_floats(size_t(s.N) * s.C, 5));
  o.dweight = to_double(random_floats(size_t(s.OC) * s.C, 6));
  o.dbias = to_double(random_floats(s.OC, 7));
  ref::matmul_forward(o.out.data(), inp.data(), w.data(), with_bias ? bias.data() : nullptr, s.N,
                      s.C, s.OC);
  ref::matmul_backward(
      with_dinp ? o.dinp.data() : nullptr, with_dweight ? o.dweight.data() : nullptr,
      with_bias ? o.dbias.data() : nullptr, dout.data(), inp.data(), w.data(), s.N, s.C, s.OC);
  return o;
}

std::string shape_name(const Shape& s) {
  return "N=" + std::to_string(s.N) + " C=" + std::to_string(s.C) + " OC=" + std::to_string(s.OC);
}

// variant 0: every output; 1: no bias, no dweight; 2: no dinp.
RefOutputs run_ref(const Shape& s, int variant) {
  return run_ref(s, variant != 1, variant != 2, variant != 1);
}

void expect_matches_reference(const Shape& s, int variant, const RefOutputs& r) {
  const bool with_bias = variant != 1, with_dinp = variant != 2, with_dweight = variant != 1;
  const Outputs o = run_cpu(s, with_bias, with_dinp, with_dweight);
  EXPECT_TRUE(all_close(o.out, r.out, atol_for(s.C), kRtol)) << "out";
  EXPECT_TRUE(all_close(o.dinp, r.dinp, atol_for(s.OC), kRtol)) << "dinp";
  EXPECT_TRUE(all_close(o.dweight, r.dweight, atol_for(s.N), kRtol)) << "dweight";
  EXPECT_TRUE(all_close(o.dbias, r.dbias, atol_for(s.N), kRtol)) << "dbias";
}

void expect_same_bits_for_1_2_3_threads(const Shape& s) {
  test::set_threads(1);
  const Outputs one = run_cpu(s, true, true, true);
  for (int threads : {2, 3}) {
    test::set_threads(threads);
    const Outputs many = run_cpu(s, true, true, true);
    EXPECT_TRUE(bitwise_equal(one.out, many.out)) << "out, threads " << threads;
    EXPECT_TRUE(bitwise_equal(one.dinp, many.dinp)) << "dinp, threads " << threads;
    EXPECT_TRUE(bitwise_equal(one.dweight, many.dweight)) << "dweight, threads " << threads;
    EXPECT_TRUE(bitwise_equal(one.dbias, many.dbias)) << "dbias, threads " << threads;
  }
}

// Under a sanitizer the largest product (62M multiply-adds, the general path every smaller shape
// also takes) is left out: it alone cost half the test's two and a half minutes there. The scalar
// level, 4 x 2 tiles of plain floats, five times slower than AVX2's there, also leaves out the
// shapes over 4M multiply-adds (their packing paths are the same template at every level, which
// the SIMD levels still run there): half of what remained.
bool affordable(const Shape& s, SimdLevel level) {
  const int64_t macs = int64_t{s.N} * s.C * s.OC;
  if (!test::kSanitized) return true;
  return macs < (int64_t{1} << 25) && (level != SimdLevel::kScalar || macs < (int64_t{1} << 22));
}

TEST(CpuMatmul, MatchesReferenceAtEveryLevel) {
  test::KernelEnv env;  // our own GEMM
  for (const Shape& s : kShapes)
    for (int variant = 0; affordable(s, SimdLevel::kAvx512) && variant < 3; ++variant) {
      const RefOutputs r = run_ref(s, variant);  // once for every level (in double: slow)
      for (SimdLevel level : test::simd_levels()) {
        if (!affordable(s, level)) continue;
        test::set_level(level);
        SCOPED_TRACE(std::string(simd_level_name(level)) + " " + shape_name(s) +
                     " variant=" + std::to_string(variant));
        expect_matches_reference(s, variant, r);
      }
    }
}

TEST(CpuMatmul, OneTwoAndThreeThreadsAreBitwiseIdentical) {
  test::KernelEnv env;
  for (SimdLevel level : test::simd_levels()) {
    test::set_level(level);
    for (const Shape& s : kShapes) {
      if (!affordable(s, level)) continue;
      SCOPED_TRACE(std::string(simd_level_name(level)) + " " + shape_name(s));
      expect_same_bits_for_1_2_3_threads(s);
    }
  }
}

// Each C element is the same chain of fused multiply-adds over k whatever the tile shape, so with
// one K slice (K <= 256) the AVX2 GEMM (6 x 16 tiles) and the AVX-512 one (12 x 32 or 8 x 48,
// gemm_avx512.cpp) give the same bits. N > 8: fewer rows go to the matrix-vector kernel, whose
// sums differ by ISA. The first two shapes take 8 x 48 tiles in the forward (256 rows are 32
// strips of 8 but 21.3 of 12; 31 rows, 250 columns), the others 12 x 32.
TEST(CpuMatmul, TileShapesGiveTheSameBits) {
  if (detected_simd_level() < SimdLevel::kAvx512) GTEST_SKIP() << "needs AVX-512 and AVX2";
  test::KernelEnv env;
  for (const Shape& s : {Shape{256, 96, 240}, Shape{31, 200, 250}, Shape{9, 33, 65}}) {
    SCOPED_TRACE(shape_name(s));
    test::set_level(SimdLevel::kAvx2);
    const Outputs avx2 = run_cpu(s, true, true, true);
    test::set_level(SimdLevel::kAvx512);
    const Outputs avx512 = run_cpu(s, true, true, true);
    EXPECT_TRUE(bitwise_equal(avx2.out, avx512.out)) << "out";
    EXPECT_TRUE(bitwise_equal(avx2.dinp, avx512.dinp)) << "dinp";
    EXPECT_TRUE(bitwise_equal(avx2.dweight, avx512.dweight)) << "dweight";
  }
}

// Which B the GEMM packs and which it reads in place never changes the bits: the weight gradient
// of {512, 512, 24} goes by row halves of 256 rows (one K slice each), and its B, inp's rows 512
// floats apart, is packed at AVX2 (one cache line a panel row) and read in place at AVX-512.
TEST(CpuMatmul, WeightGradientBitsWhetherBIsPackedOrReadInPlace) {
  if (detected_simd_level() < SimdLevel::kAvx512) GTEST_SKIP() << "needs AVX-512 and AVX2";
  test::KernelEnv env;
  const Shape s{512, 512, 24};
  test::set_level(SimdLevel::kAvx2);
  const Outputs avx2 = run_cpu(s, true, true, true);
  test::set_level(SimdLevel::kAvx512);
  const Outputs avx512 = run_cpu(s, true, true, true);
  EXPECT_TRUE(bitwise_equal(avx2.dweight, avx512.dweight));
  EXPECT_TRUE(bitwise_equal(avx2.dbias, avx512.dbias));
}

// The oneDNN backend: one dnnl_sgemm per output tile sized by the shape only, so the same checks
// hold (the SIMD level does not apply to it).
TEST(CpuMatmul, OneDnnBackendMatchesReferenceAndKeepsBitsAcrossThreads) {
  if (!cpu::onednn_available()) GTEST_SKIP() << "built without oneDNN (SCRATCHGPT_DNNL)";
  test::KernelEnv env;
  test::test_context().ctx.matmul = cpu::MatmulBackend::kOneDnn;
  std::vector<Shape> shapes(std::begin(kShapes), std::end(kShapes));
  shapes.push_back(kOneDnnTiles);
  for (const Shape& s : shapes) {
    SCOPED_TRACE("onednn " + shape_name(s));
    for (int variant = 0; variant < 3; ++variant)
      expect_matches_reference(s, variant, run_ref(s, variant));
    expect_same_bits_for_1_2_3_threads(s);
  }
}

// The mixed backend (each product on the backend that measured faster for it, matmul_backend.h):
// the same checks at each level, and each product's bits equal to those of the backend it names,
// so the split is what the header says: the forward and the weight gradient ours, the input
// gradient oneDNN's, except ours for C >= 512 where oneDNN runs its AVX2 kernels.
void expect_mixed_split(const Shape& s) {
  const bool dinp_onednn = s.C < 512 || !cpu::onednn_below_avx512();
  EXPECT_EQ(cpu::mixed_dinp_on_onednn(s.C), dinp_onednn);
  test::KernelEnv env;
  RefOutputs refs[3];
  for (int variant = 0; variant < 3; ++variant) refs[variant] = run_ref(s, variant);
  for (SimdLevel level : test::simd_levels()) {
    if (level == SimdLevel::kScalar) continue;
    test::set_level(level);
    SCOPED_TRACE(std::string(simd_level_name(level)) + " " + shape_name(s));
    test::test_context().ctx.matmul = cpu::MatmulBackend::kOwn;
    const Outputs own = run_cpu(s, true, true, true);
    test::test_context().ctx.matmul = cpu::MatmulBackend::kOneDnn;
    const Outputs onednn = run_cpu(s, true, true, true);
    test::test_context().ctx.matmul = cpu::MatmulBackend::kMixed;
    for (int variant = 0; variant < 3; ++variant)
      expect_matches_reference(s, variant, refs[variant]);
    expect_same_bits_for_1_2_3_threads(s);
    const Outputs mixed = run_cpu(s, true, true, true);
    ASSERT_FALSE(bitwise_equal(own.out, onednn.out)) << "the backends must differ to tell";
    ASSERT_FALSE(bitwise_equal(own.dinp, onednn.dinp));
    ASSERT_FALSE(bitwise_equal(own.dweight, onednn.dweight));
    EXPECT_TRUE(bitwise_equal(mixed.out, own.out)) << "forward: ours";
    const Outputs& dinp_from = dinp_onednn ? onednn : own;
    EXPECT_TRUE(bitwise_equal(mixed.dinp, dinp_from.dinp))
        << "dinp: " << (dinp_onednn ? "oneDNN's" : "ours (C >= 512, oneDNN at AVX2)");
    EXPECT_TRUE(bitwise_equal(mixed.dweight, own.dweight)) << "dweight: ours";
  }
}

TEST(CpuMatmul, MixedBackendTakesEachProductFromTheBackendItNames) {
  if (!cpu::onednn_available()) GTEST_SKIP() << "built without oneDNN (SCRATCHGPT_DNNL)";
  // CMakeLists.txt runs this test a second time with oneDNN capped at AVX2, so that both sides of
  // the input gradient's rule run on every CPU.
  const char* cap = std::getenv("DNNL_MAX_CPU_ISA");
  if (cap != nullptr && std::string(cap) == "AVX2") {
    EXPECT_TRUE(cpu::onednn_below_avx512());
  }
  // Every product deeper than our K slices, so the backends' bits differ; C = 600 >= 512 (the
  // input gradient ours where oneDNN runs AVX2).
  expect_mixed_split(Shape{700, 600, 650});
  // A layer that fits in L2 over many rows (N >= 512, N x (C + OC) <= 512 Ki: the small model's),
  // whose weight gradient goes by row halves; dinp deeper than our K slice of 512.
  expect_mixed_split(Shape{513, 300, 700});
}

// accumulate_dinp = false writes dinp without reading it: a dinp full of NaN comes out as the
// reference's dout @ W (the other gradients still accumulate), on every backend and level, and
// with 1, 2 and 3 threads the same bits.
TEST(CpuMatmul, InputGradientWrittenWithoutReadingIt) {
  test::KernelEnv env;
  std::vector<cpu::MatmulBackend> backends = {cpu::MatmulBackend::kOwn};
  if (cpu::onednn_available())
    backends.insert(backends.end(), {cpu::MatmulBackend::kOneDnn, cpu::MatmulBackend::kMixed});
  for (const Shape& s : {Shape{300, 260, 800}, Shape{7, 33, 65}, Shape{257, 770, 31}}) {
    if (!affordable(s, SimdLevel::kAvx512)) continue;
    auto inp = random_floats(size_t(s.N) * s.C, 1), w = random_floats(size_t(s.OC) * s.C, 2);
    auto dout = random_floats(size_t(s.N) * s.OC, 4);
    std::vector<double> ref(size_t(s.N) * s.C, 1e30);  // overwritten by the reference too
    ref::matmul_backward<double>(ref.data(), nullptr, nullptr, to_double(dout).data(),
                                 to_double(inp).data(), to_double(w).data(), s.N, s.C, s.OC,
                                 /*accumulate_dinp=*/false);
    for (cpu::MatmulBackend b : backends)
      for (SimdLevel level : test::simd_levels()) {
        SCOPED_TRACE(std::string(cpu::matmul_backend_name(b)) + " " + simd_level_name(level) + " " +
                     shape_name(s));
        test::set_level(level);
        test::test_context().ctx.matmul = b;
        std::vector<float> first;
        for (int threads : {1, 2, 3}) {
          test::set_threads(threads);
          std::vector<float> dinp(size_t(s.N) * s.C, std::nanf(""));
          cpu::matmul_backward(test::ctx(), dinp.data(), nullptr, nullptr, dout.data(), inp.data(),
                               w.data(), s.N, s.C, s.OC, /*accumulate_dinp=*/false);
          EXPECT_TRUE(all_close(dinp, ref, atol_for(s.OC), kRtol)) << threads << " threads";
          if (first.empty()) first = dinp;
          EXPECT_TRUE(bitwise_equal(first, dinp)) << "1 vs " << threads << " threads";
        }
        test::test_context().ctx.matmul = cpu::MatmulBackend::kOwn;
      }
  }
}

// accumulate_dparams = false writes dweight and dbias without reading them (a layer's first
// backward after zero_grad): arrays full of NaN come out with the bits that accumulating into
// zeroed arrays gives, close to the reference's, on every backend and level, for 1, 2 and 3
// threads; shapes with the weight gradient whole and by row halves (N >= 512, small layers).
TEST(CpuMatmul, ParameterGradientsWrittenWithoutReadingThem) {
  test::KernelEnv env;
  std::vector<cpu::MatmulBackend> backends = {cpu::MatmulBackend::kOwn};
  if (cpu::onednn_available())
    backends.insert(backends.end(), {cpu::MatmulBackend::kOneDnn, cpu::MatmulBackend::kMixed});
  for (const Shape& s :
       {Shape{300, 260, 800}, Shape{7, 33, 65}, Shape{600, 40, 150}, Shape{513, 37, 100}}) {
    if (!affordable(s, SimdLevel::kAvx512)) continue;
    auto inp = random_floats(size_t(s.N) * s.C, 1), w = random_floats(size_t(s.OC) * s.C, 2);
    auto dout = random_floats(size_t(s.N) * s.OC, 4);
    std::vector<double> ref_dw(size_t(s.OC) * s.C, 1e30), ref_db(size_t(s.OC), 1e30);
    ref::matmul_backward<double>(nullptr, ref_dw.data(), ref_db.data(), to_double(dout).data(),
                                 to_double(inp).data(), to_double(w).data(), s.N, s.C, s.OC,
                                 /*accumulate_dinp=*/true, /*accumulate_dparams=*/false);
    for (cpu::MatmulBackend b : backends)
      for (SimdLevel level : test::simd_levels()) {
        SCOPED_TRACE(std::string(cpu::matmul_backend_name(b)) + " " + simd_level_name(level) + " " +
                     shape_name(s));
        test::set_level(level);
        test::test_context().ctx.matmul = b;
        for (int threads : {1, 2, 3}) {
          test::set_threads(threads);
          std::vector<float> dw(size_t(s.OC) * s.C, std::nanf("")), db(size_t(s.OC), std::nanf(""));
          std::vector<float> dw0(dw.size(), 0.0f), db0(db.size(), 0.0f);
          cpu::matmul_backward(test::ctx(), nullptr, dw.data(), db.data(), dout.data(), inp.data(),
                               w.data(), s.N, s.C, s.OC, true, /*accumulate_dparams=*/false);
          cpu::matmul_backward(test::ctx(), nullptr, dw0.data(), db0.data(), dout.data(),
                               inp.data(), w.data(), s.N, s.C, s.OC);
          EXPECT_TRUE(bitwise_equal(dw, dw0)) << "dweight, " << threads << " threads";
          EXPECT_TRUE(bitwise_equal(db, db0)) << "dbias, " << threads << " threads";
          EXPECT_TRUE(all_close(dw, ref_dw, atol_for(s.N), kRtol)) << threads << " threads";
          EXPECT_TRUE(all_close(db, ref_db, atol_for(s.N), kRtol)) << threads << " threads";
        }
        test::test_context().ctx.matmul = cpu::MatmulBackend::kOwn;
      }
  }
}

TEST(CpuMatmul, BackendNamesAndErrors) {
  test::KernelEnv env;
  EXPECT_EQ(cpu::parse_matmul_backend("own"), cpu::MatmulBackend::kOwn);
  EXPECT_EQ(cpu::parse_matmul_backend("auto"), cpu::default_matmul_backend());
  EXPECT_EQ(cpu::resolve_matmul_backend(cpu::MatmulBackend::kAuto), cpu::default_matmul_backend());
  EXPECT_EQ(cpu::resolve_matmul_backend(cpu::MatmulBackend::kOwn), cpu::MatmulBackend::kOwn);
  EXPECT_EQ(cpu::default_matmul_backend(),
            cpu::onednn_available() ? cpu::MatmulBackend::kMixed : cpu::MatmulBackend::kOwn);
  try {
    cpu::parse_matmul_backend("cuda");
    FAIL() << "no error for an unknown backend";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("choose auto, own, onednn or mixed"), std::string::npos)
        << e.what();
  }
  if (cpu::onednn_available()) {
    EXPECT_EQ(cpu::parse_matmul_backend("onednn"), cpu::MatmulBackend::kOneDnn);
    EXPECT_EQ(cpu::parse_matmul_backend("mixed"), cpu::MatmulBackend::kMixed);
  } else {
    EXPECT_THROW(cpu::parse_matmul_backend("onednn"), Error);
    EXPECT_THROW(cpu::parse_matmul_backend("mixed"), Error);
    EXPECT_THROW(cpu::resolve_matmul_backend(cpu::MatmulBackend::kOneDnn), Error);
    EXPECT_THROW(cpu::resolve_matmul_backend(cpu::MatmulBackend::kMixed), Error);
  }
}

TEST(CpuMatmul, BiasGradientMatchesReferenceBitForBit) {
  // The column sum runs in the reference's order, so float results agree exactly.
  test::KernelEnv env;
  const int N = 77, C = 5, OC = 131;
  auto dout = random_floats(size_t(N) * OC, 11);
  auto inp = random_floats(size_t(N) * C, 12);
  auto w = random_floats(size_t(OC) * C, 13);
  std::vector<float> a = random_floats(OC, 14), b = a;
  cpu::matmul_backward(test::ctx(), nullptr, nullptr, a.data(), dout.data(), inp.data(), w.data(),
                       N, C, OC);
  ref::matmul_backward<float>(nullptr, nullptr, b.data(), dout.data(), inp.data(), w.data(), N, C,
                              OC);
  EXPECT_TRUE(bitwise_equal(a, b));
}

}  // namespace
}  // namespace scratchgpt
