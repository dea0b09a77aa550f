// slab_planner.h: SlabPlanner hands out float buffers from one slab in two passes: first with no
// slab to count the floats a layout needs, then over the real slab to carve it identically.
// Two planners started at the same base and offset hand out the same addresses, which is how
// every Block shares one set of backward scratch buffers. Leaves out: freeing and growth.
#pragma once

#include <cstddef>
#include <cstdint>

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
  // n bf16 values (uint16_t bits) in (n + 1) / 2 floats' room.
  uint16_t* take_bf16(int64_t n) { return reinterpret_cast<uint16_t*>(take((n + 1) / 2)); }
  size_t used() const { return used_; }
  bool counting() const { return base_ == nullptr; }

 private:
  float* base_ = nullptr;
  size_t used_ = 0;
};

}  // namespace scratchgpt
