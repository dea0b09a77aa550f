// print_test.cpp: format_tensor against PyTorch's own str(tensor) for tensors of every
// format rule (fixed, integer, scientific, inf/nan, wrapping, summaries, int64, 1-4 dims).
// Oracle: tests/fixtures/lessons/print_cases.{safetensors,json} from tools/make_lesson_fixtures.py.
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>

#include "stones/print.h"
#include "test_util.h"

namespace scratchgpt {
namespace {

nlohmann::json load_json(const std::string& path) {
  std::ifstream in(path);
  EXPECT_TRUE(in.good()) << "missing " << path;
  return nlohmann::json::parse(in);
}

TEST(TensorPrint, MatchesPyTorchStrForEveryCase) {
  SafeTensors st = test::load_fixture("lessons/print_cases.safetensors");
  nlohmann::json want = load_json(test::fixture_path("lessons/print_cases.json"));
  int checked = 0;
  for (const auto& [name, t] : st.tensors) {
    ASSERT_TRUE(want.contains(name)) << name;
    ASSERT_TRUE(want["__shapes__"].contains(name)) << name;
    const std::vector<int64_t> shape = want["__shapes__"][name].get<std::vector<int64_t>>();
    std::string got;
    if (t.dtype == "I64") {
      std::vector<int64_t> v = st.i64(name);
      got = format_tensor(v.data(), shape);
    } else {
      std::vector<float> v = st.f32(name);
      got = format_tensor(v.data(), shape);
    }
    EXPECT_EQ(got, want[name].get<std::string>()) << "case " << name;
    ++checked;
  }
  EXPECT_GE(checked, 30);
}

TEST(TensorPrint, SizeMatchesPyTorch) {
  nlohmann::json want = load_json(test::fixture_path("lessons/print_cases.json"));
  EXPECT_EQ(format_size({4, 8, 32}), want["size_3"].get<std::string>());
  EXPECT_EQ(format_size({6}), want["size_1"].get<std::string>());
  EXPECT_EQ(format_size({}), want["size_0"].get<std::string>());
}

TEST(TensorPrint, ScalarAndTensorView) {
  EXPECT_EQ(format_scalar(4.878632f), "tensor(4.8786)");
  float d[6] = {0.43f, 0.15f, 0.89f, 0.55f, 0.87f, 0.66f};
  Tensor t(d, {2, 3});
  EXPECT_EQ(format_tensor(t),
            "tensor([[0.4300, 0.1500, 0.8900],\n        [0.5500, 0.8700, 0.6600]])");
}

}  // namespace
}  // namespace scratchgpt
