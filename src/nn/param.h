// param.h: the parameter concept in one place. A Param is a named weight with its gradient and
// AdamW moments side by side; modules describe theirs by walking a ParamVisitor
// (visit_params(prefix, v)); a ParamStore walks a module, owns one slab each for values,
// gradients and both moments, and points the module's views into them. It also keeps the books
// of the gradient slab: where backward's groups of Params begin (grad_cuts) and which stretches
// zero_grads clears. A GPT keeps its parameters in one ParamStore; a lesson or a test can give a
// lone Block its own the same way.
// Leaves out: dtypes other than float32, parameters that change shape after construction.
#pragma once

#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "core/arena.h"
#include "core/exec_context.h"
#include "core/tensor.h"

namespace scratchgpt {

struct Param {
  std::string name;  // e.g. "blocks.0.attn.c_attn.weight", the key in checkpoints
  Tensor value;      // the weights, shape as in PyTorch (Linear weight (OC, C))
  Tensor grad;       // same shape, accumulated by backward()
  Tensor m, v;       // AdamW first and second moments, same shape
  bool decay;        // weight decay applies (2-D weights only, as nanoGPT)
};

// Visits one parameter of a module: its checkpoint name, the module's value and grad views (set by
// the owner once the slabs exist), its PyTorch shape, and whether weight decay applies.
struct ParamVisitor {
  virtual ~ParamVisitor() = default;
  virtual void visit(const std::string& name, Tensor& value, Tensor& grad,
                     const std::vector<int64_t>& shape, bool decay) = 0;
};

// A Tensor view of data with a runtime shape (Tensor's constructor takes an initializer list).
Tensor tensor_view(float* data, const std::vector<int64_t>& shape);

class ParamStore {
 public:
  using Walk = std::function<void(ParamVisitor&)>;
  ParamStore() = default;
  ParamStore(const ParamStore&) = delete;
  ParamStore& operator=(const ParamStore&) = delete;

  // Walks the module twice: first to collect names, shapes and decay flags and size the four
  // slabs (zero-filled), then, in the same order, to point its value and grad views at them.
  // The slabs live where `device` computes (core/device.h).
  void build(const Walk& walk, Device device = Device::kCpu);
  std::vector<Param>& params() {
    ++writes_;
    return params_;
  }
  // How many times the values may have been written: every non-const way to them (params, find,
  // get) counts one. A copy made from the values (GPT's packed bf16 weights) is stale when this
  // has moved since it was made.
  uint64_t writes() const { return writes_; }
  // Every gradient at once, as one flat array (the Params' grads in order, with zero padding
  // between them): what a data-parallel all-reduce sums.
  std::span<float> grad_slab() { return {grads_.base(), grads_.used()}; }
  // The Param with this checkpoint name: null (find) or an Error naming it (get) if there is none.
  Param* find(const std::string& name);
  Param& get(const std::string& name);

  // Params that backward finishes together (a model's embeddings, one block, its tail), named
  // for errors. Each group must fill one stretch of the grad slab, the stretches in the groups'
  // order (the store lays Params out in walk order), so that a range of the slab holds exactly
  // the gradients backward has finished; an Error names the group that breaks this.
  struct Group {
    std::string name;
    Walk walk;
  };
  // Where the groups cut the grad slab, in floats: groups.size() - 1 offsets, entry i where
  // group i + 1 begins (group 0 begins at 0, the last ends at the slab's end).
  std::vector<size_t> grad_cuts(const std::vector<Group>& groups) const;

  // The gradients (by their data pointer) that their module's backward writes instead of adding
  // to (a Linear's: Linear::dparams_unset): zero_grads() leaves them alone from now on.
  void leave_to_backward(const std::vector<const float*>& written);
  // Clears every gradient not left to backward, runs of neighbours (with the padding between
  // them) at once, in slab order. Until leave_to_backward, that is every gradient.
  void zero_grads(const ExecContext& ctx);

 private:
  std::vector<Param> params_;
  uint64_t writes_ = 0;
  Arena values_, grads_, moments_m_, moments_v_;
  // What zero_grads() clears: [offset, end) of grad_slab().
  std::vector<std::pair<size_t, size_t>> cleared_;
};

}  // namespace scratchgpt
