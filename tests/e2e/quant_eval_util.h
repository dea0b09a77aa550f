// quant_eval_util.h: issue 43's quality bar, shared by the quant_eval tests: a checkpoint's
// 'eval --text' loss at fp32, bf16 and int8 weights, and the check that bf16 stays within 0.2%
// of fp32 and int8 within 1%. Leaves out: training the model (each test trains its own).
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <string>

#include "train_cli_util.h"

namespace scratchgpt::test {

struct TextLosses {
  double fp32 = 0, bf16 = 0, int8 = 0;
};

// "text loss 6.3706 (perplexity 584.43) ...": the loss, printed to 4 decimals, or ln of the
// perplexity (to 2 decimals) where that is finer (perplexities over 100).
inline double text_loss(const std::string& checkpoint, const std::string& text,
                        const std::string& weights) {
  const CliResult r =
      run_cli("eval --checkpoint '" + checkpoint + "' --text '" + text + "' --weights " + weights);
  EXPECT_EQ(r.rc, 0) << r.err;
  const size_t at = r.out.find("(perplexity ");
  if (r.out.rfind("text loss ", 0) != 0 || at == std::string::npos) {
    ADD_FAILURE() << "unexpected eval output: [" << r.out << "]";
    return 0;
  }
  const double loss = std::stod(r.out.substr(10)), perplexity = std::stod(r.out.substr(at + 12));
  return perplexity > 100 ? std::log(perplexity) : loss;
}

// The three losses, printed with their ratios to fp32 and checked against the bars.
inline TextLosses expect_within_the_issues_bars(const std::string& checkpoint,
                                                const std::string& text) {
  const TextLosses l{text_loss(checkpoint, text, "fp32"), text_loss(checkpoint, text, "bf16"),
                     text_loss(checkpoint, text, "int8")};
  std::printf("text loss fp32 %.5f  bf16 %.5f (%+.4f%%)  int8 %.5f (%+.4f%%)\n", l.fp32, l.bf16,
              100 * (l.bf16 / l.fp32 - 1), l.int8, 100 * (l.int8 / l.fp32 - 1));
  EXPECT_LE(std::fabs(l.bf16 / l.fp32 - 1), 0.002) << "bf16 misses the 0.2% bar";
  EXPECT_LE(std::fabs(l.int8 / l.fp32 - 1), 0.01) << "int8 misses the 1% bar";
  return l;
}

}  // namespace scratchgpt::test
