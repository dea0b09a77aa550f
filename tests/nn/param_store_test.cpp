// param_store_test.cpp: ParamStore's books of the gradient slab on three lone tensors: grad_cuts
// gives where each group begins and names a group that does not follow the one before it;
// zero_grads clears every gradient (with the padding between) except those left to backward.
#include <gtest/gtest.h>

#include <span>
#include <string>
#include <vector>

#include "core/check.h"
#include "nn/param.h"

namespace scratchgpt {
namespace {

struct Three {
  Tensor a, da, b, db, c, dc;  // (3), (2, 5), (4)
  void visit(ParamVisitor& v, int which) {
    if (which == 0 || which < 0) v.visit("a", a, da, {3}, false);
    if (which == 1 || which < 0) v.visit("b", b, db, {2, 5}, true);
    if (which == 2 || which < 0) v.visit("c", c, dc, {4}, false);
  }
  ParamStore::Walk walk(int which) {
    return [this, which](ParamVisitor& v) { visit(v, which); };
  }
};

TEST(ParamStore, GradCutsAreWhereEachGroupBegins) {
  Three m;
  ParamStore store;
  store.build(m.walk(-1));
  const float* base = store.grad_slab().data();
  const std::vector<size_t> cuts =
      store.grad_cuts({{"a", m.walk(0)}, {"b", m.walk(1)}, {"c", m.walk(2)}});
  ASSERT_EQ(cuts.size(), 2u);
  EXPECT_EQ(cuts[0], static_cast<size_t>(m.db.data - base));
  EXPECT_EQ(cuts[1], static_cast<size_t>(m.dc.data - base));
  EXPECT_GT(cuts[0], 0u);
  EXPECT_GT(cuts[1], cuts[0]);
  try {
    store.grad_cuts({{"c", m.walk(2)}, {"group b", m.walk(1)}});
    FAIL() << "groups out of slab order were accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("group b"), std::string::npos) << e.what();
  }
}

TEST(ParamStore, ZeroGradsSkipsWhatBackwardWrites) {
  Three m;
  ParamStore store;
  store.build(m.walk(-1));
  const std::span<float> slab = store.grad_slab();
  ExecContext ctx;
  for (float& g : slab) g = 7.0f;
  store.zero_grads(ctx);  // nothing left to backward yet: every gradient
  for (const Tensor* g : {&m.da, &m.db, &m.dc})
    for (int64_t i = 0; i < g->numel(); ++i) EXPECT_EQ(g->data[i], 0.0f) << i;

  for (float& g : slab) g = 7.0f;
  store.leave_to_backward({m.db.data});
  store.zero_grads(ctx);
  for (int64_t i = 0; i < m.da.numel(); ++i) EXPECT_EQ(m.da.data[i], 0.0f) << i;
  for (int64_t i = 0; i < m.db.numel(); ++i) EXPECT_EQ(m.db.data[i], 7.0f) << i;
  for (int64_t i = 0; i < m.dc.numel(); ++i) EXPECT_EQ(m.dc.data[i], 0.0f) << i;
}

}  // namespace
}  // namespace scratchgpt
