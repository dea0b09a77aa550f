// test_util.h: helpers shared by every test: array comparison with a readable failure report,
// fixture paths and fixture loading, seeded random fills, and numerical gradients for gradchecks;
// scratch folders (scratch_dir.h).
// Leaves out: anything a test could not also do by hand; these are conveniences, not oracles.
#pragma once

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <functional>
#include <limits>
#include <memory>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "core/check.h"
#include "core/exec_context.h"
#include "core/safetensors.h"
#include "nn/gpt_config.h"
#include "scratch_dir.h"
#include "uniform_draw.h"

namespace scratchgpt::test {

// An ExecContext with its own pool of `threads` workers (0: all cores): for tests that compare
// thread counts. The pool lives as long as this object.
struct OwnExec {
  explicit OwnExec(int threads) : pool(std::make_unique<ThreadPool>(threads)) {
    ctx.pool = pool.get();
  }
  std::unique_ptr<ThreadPool> pool;
  ExecContext ctx;
};

// Built with a sanitizer (ASan, UBSan's CI build, TSan): tests that run large inputs for speed's
// sake use smaller ones there, where every access costs 5-20 times more (the same code paths).
// SCRATCHGPT_SANITIZED: set by CMake for a sanitizer build, whose tests' own files may be compiled
// without the instrumentation (SCRATCHGPT_SANITIZE_TESTS=OFF) while the library has it.
#if defined(SCRATCHGPT_SANITIZED) || defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
inline constexpr bool kSanitized = true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer) || \
    __has_feature(memory_sanitizer)
inline constexpr bool kSanitized = true;
#else
inline constexpr bool kSanitized = false;
#endif
#else
inline constexpr bool kSanitized = false;
#endif

// The message of the scratchgpt::Error that f() throws, or "" when it throws none.
inline std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

// Whether p itself (not what a link points to) is a FIFO.
inline bool is_fifo(const std::string& p) {
  struct stat st {};
  return ::lstat(p.c_str(), &st) == 0 && S_ISFIFO(st.st_mode);
}

// How many writers' temporaries (".<name>.tmp.*", core/atomic_file.h) dir holds.
inline size_t temporaries(const std::string& dir) {
  size_t n = 0;
  for (const auto& e : std::filesystem::directory_iterator(dir))
    n += e.path().filename().string().find(".tmp.") != std::string::npos;
  return n;
}

// Absolute path of a file under tests/fixtures, e.g. fixture_path("kernels/gelu.safetensors").
inline std::string fixture_path(const std::string& relative) {
  return std::string(SCRATCHGPT_FIXTURES) + "/" + relative;
}

// Loads tests/fixtures/<relative> (an Error naming the path if it is missing or damaged).
// Use .f32(name), .f64(name), .i32(name), .shape(name) on the result.
inline SafeTensors load_fixture(const std::string& relative) {
  return load_safetensors(fixture_path(relative));
}

// The GPTConfig a model fixture's metadata gives (V, block_size, n_layer, n_head, n_embd,
// activation, bias, tied: what tools/make_gpt_fixtures.py and make_sample_fixtures.py write).
inline GPTConfig gpt_config_of_fixture(const SafeTensors& st) {
  GPTConfig c;
  c.vocab_size = std::stoi(st.meta("V"));
  c.block_size = std::stoi(st.meta("block_size"));
  c.n_layer = std::stoi(st.meta("n_layer"));
  c.n_head = std::stoi(st.meta("n_head"));
  c.n_embd = std::stoi(st.meta("n_embd"));
  c.activation = parse_activation(st.meta("activation"));
  c.bias = st.meta("bias") == "1";
  c.tied = st.meta("tied") == "1";
  c.dropout = 0.0f;
  return c;
}

// Result of comparing two arrays element-wise with |a - r| <= atol + rtol * |r|.
struct CloseReport {
  bool ok = true;
  int64_t mismatches = 0;
  int64_t first_bad = -1;
  double max_abs_diff = 0;
  std::string text;  // the first mismatches side by side, empty when ok
};

template <typename A, typename R>
CloseReport compare_close(const A* actual, const R* expected, int64_t n, double atol, double rtol,
                          const std::string& what, int show = 5) {
  CloseReport rep;
  std::ostringstream os;
  os.precision(9);
  for (int64_t i = 0; i < n; ++i) {
    const double a = static_cast<double>(actual[i]);
    const double r = static_cast<double>(expected[i]);
    const double diff = std::fabs(a - r);
    // Equal infinities (e.g. masked scores) match; a NaN never matches.
    const bool same_inf = std::isinf(a) && std::isinf(r) && (a > 0) == (r > 0);
    const bool finite = std::isfinite(a) && std::isfinite(r);
    const bool good = same_inf || (finite && diff <= atol + rtol * std::fabs(r));
    if (!same_inf && !std::isnan(diff) && diff > rep.max_abs_diff) rep.max_abs_diff = diff;
    if (!good) {
      if (rep.mismatches == 0) {
        rep.first_bad = i;
        os << what << ": mismatches with atol=" << atol << " rtol=" << rtol << "\n"
           << "  index          got                  want                 diff\n";
      }
      if (rep.mismatches < show) {
        char line[160];
        std::snprintf(line, sizeof(line), "  [%6lld]  %-19.9g  %-19.9g  %.3g\n",
                      static_cast<long long>(i), a, r, diff);
        os << line;
      }
      ++rep.mismatches;
    }
  }
  if (rep.mismatches > 0) {
    rep.ok = false;
    os << "  " << rep.mismatches << " of " << n << " elements differ; max |diff| "
       << rep.max_abs_diff;
    rep.text = os.str();
  }
  return rep;
}

// Fails the current test (non-fatally) when any element differs, printing the first ~5
// mismatches as "index, got, want, diff". Returns true when all elements match.
template <typename A, typename R>
bool expect_close(const A* actual, const R* expected, int64_t n, double atol, double rtol,
                  const std::string& what) {
  CloseReport rep = compare_close(actual, expected, n, atol, rtol, what);
  if (!rep.ok) ADD_FAILURE() << rep.text;
  return rep.ok;
}

template <typename A, typename R>
bool expect_close(const std::vector<A>& actual, const std::vector<R>& expected, double atol,
                  double rtol, const std::string& what) {
  if (actual.size() != expected.size()) {
    ADD_FAILURE() << what << ": size " << actual.size() << " but expected " << expected.size();
    return false;
  }
  return expect_close(actual.data(), expected.data(), static_cast<int64_t>(actual.size()), atol,
                      rtol, what);
}

// Fills v with uniform numbers in [lo, hi) from a seeded std::mt19937 (test data only).
template <typename F>
void fill_uniform(std::vector<F>& v, uint32_t seed, double lo = -1.0, double hi = 1.0) {
  std::mt19937 gen(seed);
  for (auto& x : v) x = static_cast<F>(uniform_draw(gen, lo, hi));
}

template <typename F>
std::vector<F> random_vector(int64_t n, uint32_t seed, double lo = -1.0, double hi = 1.0) {
  std::vector<F> v(static_cast<size_t>(n));
  fill_uniform(v, seed, lo, hi);
  return v;
}

// Numerical gradient of loss() with respect to every element of x by the 5-point central
// difference (-L(x+2h) + 8 L(x+h) - 8 L(x-h) + L(x-2h)) / 12h (error O(h^4)); x is restored.
// Use in double with h around 1e-3, and keep inputs more than 2h away from kinks (ReLU at 0).
inline std::vector<double> numeric_grad(std::vector<double>& x, const std::function<double()>& loss,
                                        double h = 1e-3) {
  std::vector<double> g(x.size());
  for (size_t i = 0; i < x.size(); ++i) {
    const double x0 = x[i];
    x[i] = x0 + 2 * h;
    const double lp2 = loss();
    x[i] = x0 + h;
    const double lp1 = loss();
    x[i] = x0 - h;
    const double lm1 = loss();
    x[i] = x0 - 2 * h;
    const double lm2 = loss();
    x[i] = x0;
    g[i] = (-lp2 + 8 * lp1 - 8 * lm1 + lm2) / (12 * h);
  }
  return g;
}

// Fails the test where |a - n| / max(|a| + |n|, tiny) > max_rel, printing the first ~5 as
// "index, analytic, numeric, relative error". Below `tiny`, |a| + |n| counts as tiny, so
// near-zero gradients are held to an absolute error of max_rel * tiny.
inline bool expect_gradients(const std::vector<double>& analytic,
                             const std::vector<double>& numeric, const std::string& what,
                             double max_rel = 1e-6, double tiny = 1e-5) {
  if (analytic.size() != numeric.size()) {
    ADD_FAILURE() << what << ": " << analytic.size() << " analytic vs " << numeric.size()
                  << " numeric gradients";
    return false;
  }
  int64_t bad = 0;
  double worst = 0;
  std::ostringstream os;
  for (size_t i = 0; i < numeric.size(); ++i) {
    const double a = analytic[i], n = numeric[i];
    double rel = std::fabs(a - n) / std::max(std::fabs(a) + std::fabs(n), tiny);
    if (std::isnan(rel)) rel = std::numeric_limits<double>::infinity();
    worst = std::max(worst, rel);
    if (!(rel <= max_rel)) {
      if (bad < 5) {
        char line[160];
        std::snprintf(line, sizeof(line), "  [%6zu]  analytic %-16.9g numeric %-16.9g rel %.2g\n",
                      i, a, n, rel);
        os << line;
      }
      ++bad;
    }
  }
  if (bad > 0) {
    char head[160];
    std::snprintf(head, sizeof(head), " gradients off (worst relative error %.3g, allowed %.3g)\n",
                  worst, max_rel);
    ADD_FAILURE() << what << ": " << bad << " of " << numeric.size() << head << os.str();
  }
  return bad == 0;
}

}  // namespace scratchgpt::test
