// The array ops' gradients against central differences, after TensorFlow's
// cc/gradients/array_grad_test.cc.
#include "gtest/gtest.h"
#include "ops/cc/array_ops.h"
#include "ops/cc/math_ops.h"
#include "ops/cc/resource_variable_ops.h"
#include "ops/cc/gradients.h"
#include "tests/testlib/grad_check.h"

namespace minitf {
namespace {

using test::GradientError;
using Xs = std::vector<Output>;

constexpr double kTolerance = 1e-6;

Tensor Ints(std::vector<int32_t> v, TensorShape shape) {
  return Tensor::FromVector<int32_t>(absl::Span<const int32_t>(v), shape);
}

TEST(ArrayGradTest, IdentityLike) {
  for (auto op : {ops::Identity, ops::Snapshot}) {
    EXPECT_LT(GradientError({{2, 3}}, {2, 3}, [&](const Scope& s, const Xs& x) { return op(s, x[0]); }),
              kTolerance);
  }
}

TEST(ArrayGradTest, ReshapeSqueezeExpandDims) {
  EXPECT_LT(GradientError({{2, 3}}, {3, 2},
                          [](const Scope& s, const Xs& x) { return ops::Reshape(s, x[0], {3, 2}); }),
            kTolerance);
  EXPECT_LT(GradientError({{2, 1, 3}}, {2, 3},
                          [](const Scope& s, const Xs& x) { return ops::Squeeze(s, x[0]); }),
            kTolerance);
  EXPECT_LT(GradientError({{2, 3}}, {2, 1, 3},
                          [](const Scope& s, const Xs& x) { return ops::ExpandDims(s, x[0], 1); }),
            kTolerance);
}

TEST(ArrayGradTest, Transpose) {
  EXPECT_LT(GradientError({{2, 3, 4}}, {4, 2, 3},
                          [](const Scope& s, const Xs& x) {
                            return ops::Transpose(s, x[0], {2, 0, 1});
                          }),
            kTolerance);
}

TEST(ArrayGradTest, ConcatAlongEachAxisIncludingNegative) {
  EXPECT_LT(GradientError({{2, 3}, {1, 3}, {2, 3}}, {5, 3},
                          [](const Scope& s, const Xs& x) { return ops::Concat(s, x, 0); }),
            kTolerance);
  EXPECT_LT(GradientError({{2, 1}, {2, 3}}, {2, 4},
                          [](const Scope& s, const Xs& x) { return ops::Concat(s, x, -1); }),
            kTolerance);
}

TEST(ArrayGradTest, StackAndUnstack) {
  EXPECT_LT(GradientError({{2, 3}, {2, 3}}, {2, 2, 3},
                          [](const Scope& s, const Xs& x) { return ops::Stack(s, x, {.axis = 1}); }),
            kTolerance);
  // Only the second piece reaches y: the others get zeros.
  EXPECT_LT(GradientError({{3, 2}}, {2},
                          [](const Scope& s, const Xs& x) {
                            return ops::Unstack(s, x[0], 3)[1];
                          }),
            kTolerance);
}

TEST(ArrayGradTest, SplitAndSplitV) {
  EXPECT_LT(GradientError({{2, 4}}, {2, 2},
                          [](const Scope& s, const Xs& x) {
                            auto parts = ops::Split(s, 1, x[0], 2);
                            return ops::Mul(s, parts[0], parts[1]);
                          }),
            kTolerance);
  EXPECT_LT(GradientError({{5, 2}}, {3, 2},
                          [](const Scope& s, const Xs& x) {
                            return ops::SplitV(s, x[0], {2, 3}, 0, 2)[1];
                          }),
            kTolerance);
}

TEST(ArrayGradTest, SliceAndStridedSlice) {
  EXPECT_LT(GradientError({{3, 4}}, {2, 2},
                          [](const Scope& s, const Xs& x) {
                            return ops::Slice(s, x[0], {1, 1}, {2, 2});
                          }),
            kTolerance);
  EXPECT_LT(GradientError({{4, 5}}, {2, 2},
                          [](const Scope& s, const Xs& x) {
                            return ops::StridedSlice(s, x[0], {0, 4}, {4, 0}, {2, -2});
                          }),
            kTolerance);
  // Masks: x[1, ::2] with shrink_axis on the first dimension.
  EXPECT_LT(GradientError({{3, 4}}, {2},
                          [](const Scope& s, const Xs& x) {
                            return ops::StridedSlice(s, x[0], {1, 0}, {2, 0}, {1, 2},
                                                     {.end_mask = 2, .shrink_axis_mask = 1});
                          }),
            kTolerance);
}

TEST(ArrayGradTest, StridedSliceGradIsLinearInDy) {
  EXPECT_LT(GradientError({{2, 2}}, {3, 4},
                          [](const Scope& s, const Xs& x) {
                            return ops::StridedSliceGrad(s, {3, 4}, {1, 0}, {3, 4}, {1, 2}, x[0]);
                          }),
            kTolerance);
}

TEST(ArrayGradTest, PadAndPadV2) {
  EXPECT_LT(GradientError({{2, 3}}, {5, 4},
                          [](const Scope& s, const Xs& x) {
                            return ops::Pad(s, x[0], Input(Ints({1, 2, 0, 1}, {2, 2})));
                          }),
            kTolerance);
  EXPECT_LT(GradientError({{2, 3}}, {3, 3},
                          [](const Scope& s, const Xs& x) {
                            return ops::PadV2(s, x[0], Input(Ints({0, 1, 0, 0}, {2, 2})), 7.0);
                          }),
            kTolerance);
}

TEST(ArrayGradTest, TileSumsTheCopies) {
  EXPECT_LT(GradientError({{2, 3}}, {4, 9},
                          [](const Scope& s, const Xs& x) { return ops::Tile(s, x[0], {2, 3}); }),
            kTolerance);
}

TEST(ArrayGradTest, BroadcastToAndFill) {
  EXPECT_LT(GradientError({{1, 3}}, {2, 2, 3},
                          [](const Scope& s, const Xs& x) {
                            return ops::BroadcastTo(s, x[0], {2, 2, 3});
                          }),
            kTolerance);
  EXPECT_LT(GradientError({{}}, {2, 3},
                          [](const Scope& s, const Xs& x) { return ops::Fill(s, {2, 3}, x[0]); }),
            kTolerance);
}

TEST(ArrayGradTest, GatherV2AlongEachAxisWithRepeatedIndices) {
  EXPECT_LT(GradientError({{4, 2}}, {3, 2},
                          [](const Scope& s, const Xs& x) {
                            return ops::GatherV2(s, x[0], {2, 0, 2}, 0);
                          }),
            kTolerance);
  EXPECT_LT(GradientError({{2, 3, 2}}, {2, 2, 2, 2},
                          [](const Scope& s, const Xs& x) {
                            return ops::GatherV2(s, x[0], Input(Ints({1, 1, 0, 2}, {2, 2})), -2);
                          }),
            kTolerance);
  // A scalar index drops the axis.
  EXPECT_LT(GradientError({{3, 2}}, {3},
                          [](const Scope& s, const Xs& x) { return ops::GatherV2(s, x[0], 1, 1); }),
            kTolerance);
}

TEST(ArrayGradTest, GatherV2WithBatchDims) {
  // Per batch row, indices into axis 1, then into axis 2 (an outer dimension
  // between the batch and the axis).
  EXPECT_LT(GradientError({{2, 3, 4}}, {2, 2, 4},
                          [](const Scope& s, const Xs& x) {
                            return ops::GatherV2(s, x[0], Input(Ints({2, 2, 0, 1}, {2, 2})), 1,
                                                 {.batch_dims = 1});
                          }),
            kTolerance);
  EXPECT_LT(GradientError({{2, 3, 4}}, {2, 3, 3},
                          [](const Scope& s, const Xs& x) {
                            return ops::GatherV2(s, x[0], Input(Ints({3, 0, 3, 1, 1, 2}, {2, 3})),
                                                 2, {.batch_dims = 1});
                          }),
            kTolerance);
}

TEST(ArrayGradTest, UnsortedSegmentSumDropsNegativeIds) {
  EXPECT_LT(GradientError({{4, 2}}, {3, 2},
                          [](const Scope& s, const Xs& x) {
                            return ops::UnsortedSegmentSum(s, x[0], {2, -1, 0, 2}, 3);
                          }),
            kTolerance);
}

TEST(ArrayGradTest, ReadVariableOpPassesTheGradientToTheHandle) {
  // The gradient of a resource variable's reads reaches its handle: summed
  // over the two reads.
  Scope root = Scope::NewRootScope();
  auto v = ops::VarHandleOp(root.WithOpName("v"), DT_DOUBLE, {2});
  auto read1 = ops::ReadVariableOp(root, v, DT_DOUBLE);
  auto read2 = ops::ReadVariableOp(root, v, DT_DOUBLE);
  auto y = ops::Mul(root, read1, ops::Square(root, read2));  // v^3
  std::vector<Output> dv;
  ASSERT_TRUE(AddSymbolicGradients(root, {y}, {v}, &dv).ok()) << root.status();
  ASSERT_TRUE(dv[0].valid());
  EXPECT_EQ(dv[0].type(), DT_DOUBLE);
  const NodeDef* sum = root.FindNode(dv[0].node_name());
  ASSERT_NE(sum, nullptr);
  EXPECT_EQ(sum->op, "AddN");
}

}  // namespace
}  // namespace minitf
