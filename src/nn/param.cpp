// param.cpp: see param.h.
#include "nn/param.h"

#include <algorithm>

#include "core/check.h"
#include "kernels/kernels.h"

namespace scratchgpt {

namespace {

int64_t numel_of(const std::vector<int64_t>& shape) {
  int64_t n = 1;
  for (int64_t s : shape) n *= s;
  return n;
}

// First pass over the parameters: names, shapes and decay flags, no memory yet.
struct CollectParams : ParamVisitor {
  std::vector<Param>* out;
  explicit CollectParams(std::vector<Param>* p) : out(p) {}
  void visit(const std::string& name, Tensor&, Tensor&, const std::vector<int64_t>& shape,
             bool decay) override {
    Param p;
    p.name = name;
    p.value = tensor_view(nullptr, shape);
    p.decay = decay;
    out->push_back(p);
  }
};

// Second pass, in the same order: points each module's views at its Param's slab memory.
struct BindParams : ParamVisitor {
  std::vector<Param>* params;
  size_t next = 0;
  explicit BindParams(std::vector<Param>* p) : params(p) {}
  void visit(const std::string& name, Tensor& value, Tensor& grad, const std::vector<int64_t>&,
             bool) override {
    Param& p = (*params)[next++];
    SG_CHECK(p.name == name, "parameter walk changed order: ", p.name, " vs ", name);
    value = p.value;
    grad = p.grad;
  }
};

// [lo, hi) of the visited gradients, in floats from base.
struct GradExtent : ParamVisitor {
  const float* base;
  size_t lo = SIZE_MAX, hi = 0;
  explicit GradExtent(const float* b) : base(b) {}
  void visit(const std::string&, Tensor&, Tensor& grad, const std::vector<int64_t>&,
             bool) override {
    const size_t at = static_cast<size_t>(grad.data - base);
    lo = std::min(lo, at);
    hi = std::max(hi, at + static_cast<size_t>(grad.numel()));
  }
};

}  // namespace

Tensor tensor_view(float* data, const std::vector<int64_t>& shape) {
  Tensor t;
  SG_CHECK(shape.size() <= static_cast<size_t>(Tensor::kMaxRank), "rank ", shape.size(),
           " exceeds ", Tensor::kMaxRank);
  t.data = data;
  t.shape.fill(1);
  for (int64_t s : shape) t.shape[t.rank++] = s;
  return t;
}

void ParamStore::build(const Walk& walk, Device device) {
  SG_CHECK(params_.empty(), "ParamStore::build called twice");
  CollectParams collect(&params_);
  walk(collect);
  size_t total = 0;
  for (const Param& p : params_) total += Arena::round_up(static_cast<size_t>(p.value.numel()));
  values_.reserve(total, device);
  grads_.reserve(total, device);
  moments_m_.reserve(total, device);
  moments_v_.reserve(total, device);
  for (Param& p : params_) {
    const std::vector<int64_t> shape(p.value.shape.begin(), p.value.shape.begin() + p.value.rank);
    const size_t n = static_cast<size_t>(numel_of(shape));
    p.value = tensor_view(values_.alloc(n), shape);
    p.grad = tensor_view(grads_.alloc(n), shape);
    p.m = tensor_view(moments_m_.alloc(n), shape);
    p.v = tensor_view(moments_v_.alloc(n), shape);
  }
  BindParams bind(&params_);
  walk(bind);
  leave_to_backward({});
}

std::vector<size_t> ParamStore::grad_cuts(const std::vector<Group>& groups) const {
  std::vector<size_t> cuts;
  size_t end_before = 0;
  for (size_t i = 0; i < groups.size(); ++i) {
    GradExtent group(grads_.base());
    groups[i].walk(group);
    SG_CHECK(group.lo >= end_before, "the gradients of ", groups[i].name,
             " do not follow the earlier ones in the slab");
    if (i > 0) cuts.push_back(group.lo);
    end_before = group.hi;
  }
  return cuts;
}

void ParamStore::leave_to_backward(const std::vector<const float*>& written) {
  const float* base = grads_.base();
  cleared_.clear();
  bool open = false;  // the last Param's gradient is cleared: a run is open
  for (const Param& p : params_) {
    const size_t lo = static_cast<size_t>(p.grad.data - base);
    const size_t hi = lo + static_cast<size_t>(p.grad.numel());
    if (std::find(written.begin(), written.end(), p.grad.data) != written.end()) {
      open = false;
    } else if (open) {
      cleared_.back().second = hi;
    } else {
      cleared_.emplace_back(lo, hi);
      open = true;
    }
  }
}

void ParamStore::zero_grads(const ExecContext& ctx) {
  float* base = grads_.base();
  for (const auto& [lo, hi] : cleared_)
    kernels::zero(ctx, base + lo, static_cast<int64_t>(hi - lo));
}

Param* ParamStore::find(const std::string& name) {
  ++writes_;
  for (Param& p : params_)
    if (p.name == name) return &p;
  return nullptr;
}

Param& ParamStore::get(const std::string& name) {
  Param* p = find(name);
  if (p == nullptr) fail("no parameter named '", name, "'");
  return *p;
}

}  // namespace scratchgpt
