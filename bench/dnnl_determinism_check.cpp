// dnnl_determinism_check.cpp: does oneDNN's sgemm give the same bits with 1 and 2 OpenMP threads?
// Runs the model's product shapes, including the weight-gradient ones with a long reduction
// (K = B*T tokens), in three layouts, and counts the output elements that differ. cpu::matmul's
// products in row-major sgemm terms: forward out = inp W^T is "NT", dinp = dout W is "NN", dweight
// = dout^T inp is "TN" (the other layouts at each shape are there to show the library's behaviour).
// scratchgpt requires 1 and N threads to agree bit for bit, so a library that does not cannot be
// the default backend whatever its speed (docs/bench-log.md, "### matmul").
// Not part of the build (it needs libdnnl-dev and OpenMP):
//   g++ -O2 bench/dnnl_determinism_check.cpp -o /tmp/dnnl_check -ldnnl -fopenmp && /tmp/dnnl_check
#include <dnnl.h>
#include <omp.h>

#include <cstdio>
#include <cstring>
#include <random>
#include <vector>

int main() {
  struct Shape {
    const char* what;
    int M, N, K;
  };
  const Shape shapes[] = {
      {"small dweight C->C", 128, 128, 768},     {"shakespeare dweight MLP", 384, 1536, 16384},
      {"shakespeare dweight head", 65, 384, 16384}, {"gpt2 forward qkv", 256, 2304, 768},
      {"gpt2 dinp MLP", 256, 768, 3072},
  };
  int differing_shapes = 0;
  for (const Shape& s : shapes) {
    std::mt19937 gen(1);
    std::uniform_real_distribution<float> u(-1.0f, 1.0f);
    std::vector<float> a(size_t(s.M) * s.K), b(size_t(s.K) * s.N), c1(size_t(s.M) * s.N),
        c2(c1.size());
    for (float& x : a) x = u(gen);
    for (float& x : b) x = u(gen);
    for (const char* layout : {"NT", "NN", "TN"}) {
      const char ta = layout[0], tb = layout[1];
      const int lda = ta == 'T' ? s.M : s.K, ldb = tb == 'T' ? s.K : s.N;
      omp_set_num_threads(1);
      dnnl_sgemm(ta, tb, s.M, s.N, s.K, 1.0f, a.data(), lda, b.data(), ldb, 0.0f, c1.data(), s.N);
      omp_set_num_threads(2);
      dnnl_sgemm(ta, tb, s.M, s.N, s.K, 1.0f, a.data(), lda, b.data(), ldb, 0.0f, c2.data(), s.N);
      size_t diff = 0;
      for (size_t i = 0; i < c1.size(); ++i) diff += std::memcmp(&c1[i], &c2[i], sizeof(float)) != 0;
      std::printf("%-26s M=%-4d N=%-5d K=%-6d %s: %zu of %zu elements differ (1 vs 2 threads)\n",
                  s.what, s.M, s.N, s.K, layout, diff, c1.size());
      differing_shapes += diff != 0;
    }
  }
  std::printf("%d of %zu products differ\n", differing_shapes, 3 * std::size(shapes));
  return 0;
}
