// attention.h: what 'scratchgpt attention' does: runs a prompt through a trained GPT and writes one
// self-contained page of its attention (core/page.h: nothing fetched; assets/attention.js draws
// it as SVG from the page's JSON data): for every layer and head, the weights as a heatmap over
// the prompt's tokens (rows: query position, columns: key position, the future drawn as masked)
// and as lines from each query to the keys it attends to (thickness and opacity by weight);
// hovering or clicking a token highlights its row in every panel. Each panel is an element with
// data-layer="L" data-head="H" (0-based); the page also shows the model's config and the prompt's
// tokens as the tokenizer split them, and holds the numbers as JSON in <script
// id="attention-data"> (weights[l][h]: the T x T matrix row by row, each float32 exactly; ids,
// tokens).
// Leaves out: batches of prompts, the bigram model (it has no attention).
#pragma once

#include <cstdio>
#include <string>

namespace scratchgpt {

struct AttentionRequest {
  std::string checkpoint;  // a GPT checkpoint (training or weights-only)
  std::string prompt;      // UTF-8 text, tokenized by the checkpoint's tokenizer
  std::string out;         // the .html file to write
  bool overwrite = false;  // replace an existing --out (core/atomic_file.h has the rule)
};

void run_attention(const AttentionRequest& req, std::FILE* out);

}  // namespace scratchgpt
