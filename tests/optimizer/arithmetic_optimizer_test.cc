// SimplifyArithmetic (optimizer/arithmetic_optimizer.h) on the cases of
// Grappler's arithmetic_optimizer_test and constant_folding_test: identity
// Transpose, cancelling Transposes, Reshape/Sum/Tile to the same known shape,
// Cast to its own type and StopGradient become Identity nodes of the same
// name (the dropped inputs' Consts removed); a Reshape to another shape, a
// Sum that reduces, an unknown shape and non-cancelling Transposes stay.
#include "optimizer/arithmetic_optimizer.h"

#include <memory>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "ops/cc/scope.h"
#include "ops/standard_ops.h"
#include "tests/testlib/graph_testing.h"

namespace minitf {
namespace {

using test::ToGraph;
using test::CountOps;
using test::InputOf;
using test::OpOf;

Output Known(const Scope& root, const std::string& name, PartialTensorShape shape) {
  return ops::Placeholder(root.WithOpName(name), DT_FLOAT, {.shape = std::move(shape)});
}

TEST(ArithmeticOptimizerTest, NodesThatPassTheirInputOnBecomeIdentities) {
  Scope root = Scope::NewRootScope();
  auto x = Known(root, "x", PartialTensorShape({2, 3}));
  auto t = ops::Transpose(root.WithOpName("t"), x, ops::Const(root.WithOpName("perm"), {0, 1}));
  auto r = ops::Reshape(root.WithOpName("r"), t, ops::Const(root, {2, 3}));
  auto s = ops::Sum(root.WithOpName("s"), r, ops::Const(root, {1}),
                    {.keep_dims = true});  // Over a size-3 axis: reduces.
  auto one = ops::Sum(root.WithOpName("one"), ops::Reshape(root.WithOpName("r13"), x,
                                                            ops::Const(root, {1, 6})),
                      ops::Const(root, {0}), {.keep_dims = true});  // Over a size-1 axis.
  auto tile = ops::Tile(root.WithOpName("tile"), x, ops::Const(root, {1, 1}));
  auto cast = ops::Cast(root.WithOpName("cast"), tile, DT_FLOAT);
  auto stop = ops::StopGradient(root.WithOpName("stop"), cast);
  ops::AddN(root.WithOpName("out"), {stop, r});
  ops::Identity(root.WithOpName("out_s"), s);
  ops::Identity(root.WithOpName("out_one"), one);
  std::unique_ptr<Graph> g = ToGraph(root);
  EXPECT_TRUE(SimplifyArithmetic(g.get(), nullptr));
  for (const char* name : {"t", "r", "one", "tile", "cast", "stop"}) {
    EXPECT_EQ(OpOf(*g, name), "Identity") << name;
  }
  EXPECT_EQ(OpOf(*g, "s"), "Sum");
  EXPECT_EQ(OpOf(*g, "r13"), "Reshape");  // [2,3] -> [1,6] is a real reshape.
  EXPECT_EQ(g->FindNode("perm"), nullptr);  // Nothing reads it any more.
  EXPECT_EQ(InputOf(*g, "t", 0)->name(), "x");
  EXPECT_FALSE(SimplifyArithmetic(g.get(), nullptr));
}

TEST(ArithmeticOptimizerTest, TransposesThatCancelReadTheInnerInput) {
  Scope root = Scope::NewRootScope();
  auto x = ops::Placeholder(root.WithOpName("x"), DT_FLOAT);
  auto inner = ops::Transpose(root.WithOpName("inner"), x, ops::Const(root, {1, 2, 0}));
  auto back = ops::Transpose(root.WithOpName("back"), inner, ops::Const(root, {2, 0, 1}));
  auto again = ops::Transpose(root.WithOpName("again"), inner, ops::Const(root, {1, 2, 0}));
  ops::Neg(root.WithOpName("use_back"), back);
  ops::Neg(root.WithOpName("use_again"), again);
  std::unique_ptr<Graph> g = ToGraph(root);
  EXPECT_TRUE(SimplifyArithmetic(g.get(), nullptr));
  EXPECT_EQ(OpOf(*g, "back"), "Identity");
  EXPECT_EQ(InputOf(*g, "back", 0)->name(), "x");
  EXPECT_EQ(OpOf(*g, "again"), "Transpose");  // Twice the same rotation: not the identity.
  EXPECT_EQ(OpOf(*g, "inner"), "Transpose");  // `again` still reads it.
}

TEST(ArithmeticOptimizerTest, UnknownShapesAndCastsToAnotherTypeStay) {
  Scope root = Scope::NewRootScope();
  auto x = ops::Placeholder(root.WithOpName("x"), DT_FLOAT);
  auto r = ops::Reshape(root.WithOpName("r"), x, ops::Const(root, {-1}));
  auto c = ops::Cast(root.WithOpName("c"), r, DT_INT32);
  ops::Identity(root.WithOpName("out"), c);
  std::unique_ptr<Graph> g = ToGraph(root);
  EXPECT_FALSE(SimplifyArithmetic(g.get(), nullptr));
  EXPECT_EQ(CountOps(*g, "Reshape"), 1);
  EXPECT_EQ(CountOps(*g, "Cast"), 1);
}

}  // namespace
}  // namespace minitf
