// export.h: what 'scratchgpt export' does: a GPT checkpoint's weights (no optimizer state) in the
// files other tools read: hf, nanogpt, llmc (io/gpt2_write.h writes them) or scratchgpt, a
// weights-only scratchgpt checkpoint (a third of a training checkpoint's size). This file handles
// the request: the flags, the output rule, a checkpoint of finite, well-shaped tensors.
// An existing --out is replaced only with overwrite, and never when it is the checkpoint read;
// the hf directory appears complete or not at all (core/atomic_file.h: UserOutput, AtomicDir).
// Leaves out: PyTorch's pickled formats, half precision.
#pragma once

#include <cstdio>
#include <string>

namespace scratchgpt {

struct ExportRequest {
  std::string format;      // hf, nanogpt, llmc or scratchgpt
  std::string checkpoint;  // a scratchgpt checkpoint of a GPT
  std::string out;         // hf: a directory; the others: a file
  bool overwrite = false;  // replace an existing --out (core/atomic_file.h has the rule)
};

void run_export(const ExportRequest& req, std::FILE* out);

}  // namespace scratchgpt
