// tensor.h: Tensor, a non-owning view of row-major contiguous floats with a small fixed-rank shape.
// Leaves out on purpose: ownership (see arena.h), broadcasting, strides, dtypes. Kernels take the
// raw pointer (t.data); tests and lessons use at() and the shape.
#pragma once

#include <array>
#include <cstdint>
#include <initializer_list>
#include <string>

#include "core/check.h"

namespace scratchgpt {

template <typename T>
struct TensorOf {
  static constexpr int kMaxRank = 4;
  T* data = nullptr;
  std::array<int64_t, kMaxRank> shape{};  // unused trailing dims are 1
  int rank = 0;

  TensorOf() = default;
  TensorOf(T* d, std::initializer_list<int64_t> dims) : data(d) {
    SG_CHECK(dims.size() <= kMaxRank, "Tensor rank ", dims.size(), " exceeds ", kMaxRank);
    shape.fill(1);
    for (int64_t s : dims) shape[rank++] = s;
  }

  int64_t numel() const {
    int64_t n = 1;
    for (int i = 0; i < rank; ++i) n *= shape[i];
    return n;
  }
  int64_t size(int dim) const { return shape[dim < 0 ? dim + rank : dim]; }

  T& at(int64_t i) const { return data[i]; }
  T& at(int64_t i, int64_t j) const { return data[i * shape[1] + j]; }
  T& at(int64_t i, int64_t j, int64_t k) const { return data[(i * shape[1] + j) * shape[2] + k]; }
  T& at(int64_t i, int64_t j, int64_t k, int64_t l) const {
    return data[((i * shape[1] + j) * shape[2] + k) * shape[3] + l];
  }
  T* begin() const { return data; }
  T* end() const { return data + numel(); }

  // "(4, 8, 32)"
  std::string shape_str() const {
    std::string s = "(";
    for (int i = 0; i < rank; ++i) s += (i ? ", " : "") + std::to_string(shape[i]);
    return s + (rank == 1 ? ",)" : ")");
  }
};

using Tensor = TensorOf<float>;

}  // namespace scratchgpt
