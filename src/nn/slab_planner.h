// slab_planner.h: SlabPlanner hands out float buffers from one slab in two passes: first with no
// slab to count the floats a layout needs, then over the real slab to carve it identically.
// Two planners started at the same base and offset hand out the same addresses, which is how
// every Block shares one set of backward scratch buffers. Leaves out: freeing and growth.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "core/arena.h"
#include "core/tensor.h"

namespace scratchgpt {

class SlabPlanner {
 public:
  SlabPlanner() = default;  // counting pass: take() returns nullptr and only adds up sizes
  SlabPlanner(float* base, size_t offset) : base_(base), used_(offset) {}

  // n floats, aligned like an Arena allocation (nullptr in the counting pass).
  float* take(int64_t n) {
    float* p = base_ ? base_ + used_ : nullptr;
    used_ += Arena::round_up(static_cast<size_t>(n));
    return p;
  }
  size_t used() const { return used_; }
  bool counting() const { return base_ == nullptr; }

 private:
  float* base_ = nullptr;
  size_t used_ = 0;
};

// Visits one parameter of a module: its checkpoint name, the module's value and grad views (set by
// the model once the slabs exist), its PyTorch shape, and whether weight decay applies.
struct ParamVisitor {
  virtual ~ParamVisitor() = default;
  virtual void visit(const std::string& name, Tensor& value, Tensor& grad,
                     const std::vector<int64_t>& shape, bool decay) = 0;
};

// A Tensor view of data with a runtime shape (Tensor's constructor takes an initializer list).
inline Tensor tensor_view(float* data, const std::vector<int64_t>& shape) {
  Tensor t;
  SG_CHECK(shape.size() <= static_cast<size_t>(Tensor::kMaxRank), "rank ", shape.size(),
           " exceeds ", Tensor::kMaxRank);
  t.data = data;
  t.shape.fill(1);
  for (int64_t s : shape) t.shape[t.rank++] = s;
  return t;
}

}  // namespace scratchgpt
