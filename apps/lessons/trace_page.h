// trace_page.h: the intermediates of a lesson's --trace, and `--html FILE`: the same trace as one
// self-contained page (core/page.h; its CSS and static markup in assets/trace*; no script,
// nothing fetched). Each matrix is a grid of its numbers as PyTorch prints them, each cell
// coloured by its magnitude (red positive, blue negative), masked cells hatched grey; an arrow
// before each matrix names the operation that made it. Leaves out: interaction, several heads,
// large matrices beyond a readable size.
#pragma once

#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

#include "lessons/lesson_out.h"
#include "stones/causal_attention.h"
#include "stones/head.h"
#include "stones/multi_head_attention.h"

namespace scratchgpt::lessons {

struct TraceMatrix {
  std::string name;         // the label printed before the tensor, e.g. "k[0]:"
  std::string op;           // how it was made, for the page's arrow, e.g. "k = key(x)"
  std::vector<float> data;  // (rows, cols), row-major; a scalar has shape {}
  std::vector<int64_t> shape;
  std::vector<bool> masked;  // per element: shown as masked (empty: none)
  // Each row's and column's label ("Your", "t=0", "i=1") and what the axes are ("t (query)",
  // "s (key)"); empty: none (a vector's labels are cols).
  std::vector<std::string> rows = {}, cols = {};
  std::string row_axis = {}, col_axis = {};
  // Lines printed after the matrix: a worked example of how one of its numbers is made.
  std::vector<std::string> notes = {};
};

// The traces (trace_steps.cpp) label the token axis with `tokens` (T of them; otherwise "t=0",
// "t=1", ...), label every matrix's axes (the (T, T) ones: query t on the rows, key s on the
// columns), and note under the scores a worked dot product and under the weights a worked
// softmax row, both for the last query t = T-1, in fixed decimals.

// The lecture's Head (gpt.py, scaled) on batch element 0 of x (B, T, C): x, key.weight,
// query.weight, value.weight, k, q, v, wei = q @ k^T, the scale, the scaled scores, tril, the
// masked scores, softmax, out; runs head.forward (sets head.scaled). x_op says where x came from.
std::vector<TraceMatrix> trace_head(stones::Head<float>& head, const std::vector<float>& x, int B,
                                    int T, int C, const std::string& x_op,
                                    const std::vector<std::string>& tokens = {});
// Its one line of code, as the trace prints it.
extern const char* const kHeadTraceCode;

// Raschka's CausalAttention (ch. 3.5, no dropout) on batch element 0 of x (B, T, d_in), in the
// book's order: x, W_query.weight, W_key.weight, W_value.weight, keys, queries, values,
// attn_scores, mask (triu), the masked scores, the scale sqrt(d_k), the scaled scores,
// attn_weights, context_vec. Runs ca.forward.
std::vector<TraceMatrix> trace_causal_attention(stones::CausalAttention<float>& ca,
                                                const std::vector<float>& x, int B, int T,
                                                const std::vector<std::string>& tokens = {});
extern const char* const kCausalAttentionTraceCode;

// Raschka's MultiHeadAttention (ch. 3.6.2, no dropout) on batch element 0 of x (B, T, d_in): x,
// the weights (W_query, W_key, W_value, out_proj and its bias), keys, queries, values
// (T, d_out), every head h's keys, queries, values after view/transpose (T, head_dim), head 0's
// attn_scores, mask, masked scores, scale, scaled scores, attn_weights, the other heads'
// attn_weights, each head's context, the heads concatenated (T, d_out), and the output after
// out_proj. Runs mha.forward.
std::vector<TraceMatrix> trace_multi_head_attention(stones::MultiHeadAttention<float>& mha,
                                                    const std::vector<float>& x, int B, int T,
                                                    const std::vector<std::string>& tokens = {});
extern const char* const kMultiHeadTraceCode;

// The sentence before a trace: which axis of a (T, T) matrix is the query and which the key,
// and how the weights are read, e.g. ("wei", "key.weight, ...", "(head_size, C)",
// "k = x @ key.weight.T").
std::string trace_axes_sentence(const std::string& scores, const std::string& weights,
                                const std::string& weight_shape, const std::string& example);

// "name tensor(...)" per matrix, in order, as the text trace prints it (and recorded with its op
// and mask).
void print_trace(LessonOut& out, const std::vector<TraceMatrix>& trace);

// The page: a title, one sentence, the code, then one grid per matrix, in order. Written under
// the rule for user outputs (core/atomic_file.h): an existing file only with overwrite. Fails
// naming --html when the file cannot be written.
void write_trace_page(const std::string& path, bool overwrite, const std::string& title,
                      const std::string& sentence, const std::string& code,
                      const std::vector<TraceMatrix>& trace);

// The elements of a tensor as PyTorch prints them (shared width and precision), in order:
// "0.3796", "-inf", "1.". Summarised tensors (over 1000 elements) print each element alone.
std::vector<std::string> element_texts(const float* data, const std::vector<int64_t>& shape);

}  // namespace scratchgpt::lessons
