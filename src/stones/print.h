// print.h: format a tensor exactly as PyTorch's print(tensor) / str(tensor) does with the default
// print options (precision 4, linewidth 80, threshold 1000, edgeitems 3), so the lessons print the
// same text as the Python of the lecture and the book. Follows torch/_tensor_str.py: fixed, integer
// ("1.") or scientific notation chosen from the nonzero finite values, one common width, summaries
// with "..." above 1000 elements. Leaves out: the dtype=/requires_grad=/grad_fn= suffixes (the
// lessons print detached float32 and int64 tensors, for which PyTorch prints no dtype), complex
// and half dtypes, named tensors, custom print options.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/tensor.h"

namespace scratchgpt {

// "tensor([[0.4300, 0.1500, 0.8900],\n        [...]])"; an empty shape is a scalar:
// "tensor(4.8786)".
std::string format_tensor(const float* data, const std::vector<int64_t>& shape);
// int64 (torch.long) tensors: "tensor([[24, 43, 58,  5]])".
std::string format_tensor(const int64_t* data, const std::vector<int64_t>& shape);
std::string format_tensor(const Tensor& t);
// A 0-d float tensor: "tensor(4.8786)".
std::string format_scalar(float value);
// "torch.Size([4, 8, 32])"
std::string format_size(const std::vector<int64_t>& shape);

}  // namespace scratchgpt
