// attention.h: what 'scratchgpt attention' does: runs a prompt through a trained GPT and writes one
// self-contained page of its attention (core/page.h: nothing fetched). attention_page_data gathers
// the numbers; assets/attention.js (renderAttention(root, data)) draws them: one layer and head at
// a time (a picker and a small-multiples overview of every layer x head), the weights as a heatmap
// (rows: query, columns: key, the masked future hatched apart, shaded per row or absolutely) and as
// lines query -> key, and for a clicked query token the whole computation of that head traced.
// Leaves out: batches of prompts, the bigram model (it has no attention).
//
// The data (one JSON object; every float array is a string: float32 little-endian, base64, the
// exact values the engine computed, so the page is ~5.3 characters a number):
//   checkpoint   string  the checkpoint's path (or name)
//   n_layer, n_head, n_embd, block_size   ints: L, NH, C, the context
//   head_size    int     HS = C / NH
//   scale        number  HS ** -0.5, the factor on q.k
//   tokenizer    string  the tokenizer's description
//   ids          [T] ints, the prompt's token ids (its last block_size tokens)
//   tokens       [T] strings, each token as shown (a space as U+00B7, a newline as "\n")
//   weights      [L][NH] base64: the softmax weights' lower triangle, row by row: query i's row
//                holds keys 0..i and starts at i*(i+1)/2 (T*(T+1)/2 floats; the future is masked)
//   qkv          [L] base64: (T, 3C) the layer's c_attn output: q in columns [0, C), k in
//                [C, 2C), v in [2C, 3C); head h's part of each is columns h*HS .. h*HS+HS-1
// Head h's output for query i, sum_j weights[i][j] v_j, is left for the page to compute: it is
// what the engine's y holds (GPT::attention_heads; the test compares them), and would add a third.
#pragma once

#include <cstdint>
#include <cstdio>
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <vector>

namespace scratchgpt {

struct Checkpoint;
class GPT;

struct AttentionRequest {
  std::string checkpoint;  // a GPT checkpoint (training or weights-only)
  std::string prompt;      // UTF-8 text, tokenized by the checkpoint's tokenizer
  std::string out;         // the .html file to write
  bool overwrite = false;  // replace an existing --out (core/atomic_file.h has the rule)
  std::string weights;     // --weights: "" (fp32), fp32, bf16 or int8 for the matrix products
};

void run_attention(const AttentionRequest& req, std::FILE* out);

// The page's data (the fields above) for ids (1 to block_size of them) through gpt, whose
// parameters are ck's (restore_params) and whose ExecContext keeps the weights
// (its fused_attention_min_T above T; run_attention sets INT_MAX). Runs one forward; no file I/O
// (attention_data.cpp, which needs only the model, the checkpoint and the tokenizer).
nlohmann::json attention_page_data(const Checkpoint& ck, GPT& gpt, const std::vector<int32_t>& ids);

}  // namespace scratchgpt
