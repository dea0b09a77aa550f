// rng_fixture_replay.h: replays a call sequence recorded by tools/make_rng_fixtures.py (PyTorch
// 1.13) on scratchgpt::Rng and compares every output bit for bit. Shared by rng_test and init_test.
// Leaves out: tolerance-based comparison (the generator must be exact or it is wrong).
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "core/rng.h"
#include "core/safetensors.h"
#include "nn/init.h"

namespace scratchgpt::rng_fixture {

inline std::string rng_fixture_dir() { return std::string(SCRATCHGPT_FIXTURES) + "/rng"; }

// Fixture files in tests/fixtures/rng whose name starts with prefix, sorted.
inline std::vector<std::string> rng_fixtures(const std::string& prefix) {
  std::vector<std::string> out;
  for (const auto& e : std::filesystem::directory_iterator(rng_fixture_dir())) {
    const std::string name = e.path().filename().string();
    if (name.rfind(prefix, 0) == 0 && e.path().extension() == ".safetensors") {
      out.push_back(e.path().string());
    }
  }
  std::sort(out.begin(), out.end());
  return out;
}

// Bitwise comparison; returns "" or a description of the first mismatch.
template <typename T>
std::string first_mismatch(const std::vector<T>& ours, const std::vector<T>& torch) {
  if (ours.size() != torch.size()) {
    return "size " + std::to_string(ours.size()) + " vs torch " + std::to_string(torch.size());
  }
  size_t bad = 0, first = 0;
  for (size_t i = 0; i < ours.size(); ++i) {
    if (std::memcmp(&ours[i], &torch[i], sizeof(T)) != 0) {
      if (bad++ == 0) first = i;
    }
  }
  if (bad == 0) return "";
  std::ostringstream os;
  os.precision(9);
  os << bad << " of " << ours.size() << " differ; first at [" << first << "]: ours " << ours[first]
     << ", torch " << torch[first];
  return os.str();
}

struct ReplayReport {
  int calls = 0;                      // calls replayed
  int64_t values = 0;                 // values compared
  std::vector<std::string> failures;  // one line per mismatching call
};

// Seeds rng like the fixture, replays its calls in order, and compares each output.
inline ReplayReport replay_rng_fixture(const std::string& path, Rng& rng) {
  const SafeTensors st = load_safetensors(path);
  const auto ops = nlohmann::json::parse(st.meta("ops"));
  rng.manual_seed(std::stoull(st.meta("seed")));
  ReplayReport rep;
  auto check = [&](const std::string& what, const auto& ours, const auto& torch) {
    rep.values += static_cast<int64_t>(torch.size());
    const std::string m = first_mismatch(ours, torch);
    if (!m.empty()) rep.failures.push_back(path + ": " + what + ": " + m);
  };
  for (size_t k = 0; k < ops.size(); ++k) {
    const auto& op = ops[k];
    char key[32];
    std::snprintf(key, sizeof(key), "%03zu", k);
    const std::string out = std::string("out_") + key, in = std::string("in_") + key;
    const std::string name = op.at("op").get<std::string>();
    const std::string what = "call " + std::to_string(k) + " " + op.dump();
    const int64_t n = op.contains("n") ? op.at("n").get<int64_t>() : 0;
    std::vector<float> f(static_cast<size_t>(n));
    if (name == "rand") {
      rng.rand(f.data(), n);
    } else if (name == "uniform") {
      rng.uniform(f.data(), n, op.at("from").get<float>(), op.at("to").get<float>());
    } else if (name == "randn") {
      rng.randn(f.data(), n);
    } else if (name == "normal") {
      rng.normal(f.data(), n, op.at("mean").get<double>(), op.at("std").get<double>());
    } else if (name == "bernoulli") {
      rng.bernoulli(f.data(), n, op.at("p").get<float>());  // torch.full((n,), p): float32 p
    } else if (name == "bernoulli_scalar") {
      rng.bernoulli_scalar(f.data(), n, op.at("p").get<double>());
    } else if (name == "dropout") {
      const std::vector<float> x = st.f32(in);  // (n)
      rng.dropout_noise(f.data(), n, op.at("p").get<double>());
      for (int64_t i = 0; i < n; ++i) f[i] = x[i] * f[i];
    } else if (name == "exponential") {
      rng.exponential(f.data(), n, op.at("lambda").get<double>());
    } else if (name == "randint") {
      std::vector<int64_t> v(static_cast<size_t>(n));
      rng.randint(v.data(), n, op.at("low").get<int64_t>(), op.at("high").get<int64_t>());
      check(what, v, st.i64(out));
      ++rep.calls;
      continue;
    } else if (name == "randperm") {
      std::vector<int64_t> v(static_cast<size_t>(n));
      rng.randperm(v.data(), n);
      check(what, v, st.i64(out));
      ++rep.calls;
      continue;
    } else if (name == "multinomial") {
      const int64_t rows = std::max<int64_t>(1, op.at("rows").get<int64_t>());
      const int64_t cats = op.at("n").get<int64_t>();
      const int64_t samples = op.at("num_samples").get<int64_t>();
      const std::vector<float> probs = st.f32(in);  // (rows, cats)
      std::vector<int64_t> v(static_cast<size_t>(rows * samples));
      rng.multinomial(v.data(), probs.data(), rows, cats, samples,
                      op.at("replacement").get<bool>());
      check(what, v, st.i64(out));
      ++rep.calls;
      continue;
    } else if (name == "linear") {
      const int OC = op.at("OC").get<int>(), C = op.at("C").get<int>();
      const bool has_bias = op.at("bias").get<bool>();
      std::vector<float> w(static_cast<size_t>(OC) * C), b(has_bias ? OC : 0);  // (OC, C), (OC)
      init_linear(rng, w.data(), has_bias ? b.data() : nullptr, OC, C);
      check(what + " weight", w, st.f32(out));
      if (has_bias) check(what + " bias", b, st.f32(out + "_b"));
      ++rep.calls;
      continue;
    } else if (name == "embedding") {
      const int V = op.at("V").get<int>(), C = op.at("C").get<int>();
      std::vector<float> w(static_cast<size_t>(V) * C);  // (V, C)
      init_embedding(rng, w.data(), V, C);
      check(what, w, st.f32(out));
      ++rep.calls;
      continue;
    } else {
      rep.failures.push_back(path + ": unknown call '" + name + "'");
      continue;
    }
    check(what, f, st.f32(out));
    ++rep.calls;
  }
  return rep;
}

}  // namespace scratchgpt::rng_fixture
