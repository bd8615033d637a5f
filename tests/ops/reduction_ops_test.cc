// Tests of Sum, Mean and Max: kernels over every axis pattern, bad axes,
// empty inputs, the shape function and the graph-builder wrappers.
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "ops/cc/array_ops.h"
#include "ops/cc/math_ops.h"
#include "runtime/graph.h"
#include "runtime/node_def_util.h"
#include "tests/testlib/kernel_runner.h"

namespace minitf {
namespace {

using test::ExpectTensorEqual;
using test::ExpectTensorNear;
using test::KernelRunner;
using test::MakeNodeDef;

NodeDef ReductionNode(const std::string& op, DataType t, DataType tidx, bool keep_dims,
                      const std::string& name = "reduce") {
  return MakeNodeDef(name, op, {{"T", t}, {"Tidx", tidx}, {"keep_dims", keep_dims}});
}

// Runs `op` over `axes` (its Tidx is the axes' type).
absl::StatusOr<Tensor> Reduce(const std::string& op, const Tensor& input, const Tensor& axes,
                              bool keep_dims = false, const std::string& name = "reduce") {
  KernelRunner runner(ReductionNode(op, input.dtype(), axes.dtype(), keep_dims, name));
  absl::StatusOr<std::vector<Tensor>> out = runner.Run({input, axes});
  if (!out.ok()) return out.status();
  return (*out)[0];
}

void ExpectReduce(const std::string& op, const Tensor& input, const Tensor& axes,
                  const Tensor& expected, bool keep_dims = false) {
  absl::StatusOr<Tensor> out = Reduce(op, input, axes, keep_dims);
  ASSERT_TRUE(out.ok()) << op << ": " << out.status();
  ExpectTensorNear(*out, expected);
}

Tensor Axes(std::initializer_list<int32_t> axes) { return Tensor::FromVector<int32_t>(axes); }

// [[1 2 3] [4 5 6]]
Tensor Matrix23() { return Tensor::FromVector<float>({1, 2, 3, 4, 5, 6}, TensorShape({2, 3})); }

TEST(ReductionOpsTest, SumMeanMaxOverEachAxisOfAMatrix) {
  ExpectReduce("Sum", Matrix23(), Axes({0}), Tensor::FromVector<float>({5, 7, 9}));
  ExpectReduce("Sum", Matrix23(), Axes({1}), Tensor::FromVector<float>({6, 15}));
  ExpectReduce("Sum", Matrix23(), Axes({0, 1}), Tensor::Scalar<float>(21));
  ExpectReduce("Mean", Matrix23(), Axes({0}), Tensor::FromVector<float>({2.5f, 3.5f, 4.5f}));
  ExpectReduce("Mean", Matrix23(), Axes({1}), Tensor::FromVector<float>({2, 5}));
  ExpectReduce("Mean", Matrix23(), Axes({1, 0}), Tensor::Scalar<float>(3.5f));
  ExpectReduce("Max", Matrix23(), Axes({0}), Tensor::FromVector<float>({4, 5, 6}));
  ExpectReduce("Max", Matrix23(), Axes({1}), Tensor::FromVector<float>({3, 6}));
}

TEST(ReductionOpsTest, NegativeAxesCountFromTheEnd) {
  ExpectReduce("Sum", Matrix23(), Axes({-1}), Tensor::FromVector<float>({6, 15}));
  ExpectReduce("Sum", Matrix23(), Axes({-2}), Tensor::FromVector<float>({5, 7, 9}));
  ExpectReduce("Max", Matrix23(), Axes({-2, 1}), Tensor::Scalar<float>(6));
}

TEST(ReductionOpsTest, ScalarAxisAndInt64AxesAreAccepted) {
  ExpectReduce("Sum", Matrix23(), Tensor::Scalar<int32_t>(1), Tensor::FromVector<float>({6, 15}));
  ExpectReduce("Sum", Matrix23(), Tensor::Scalar<int64_t>(-2),
               Tensor::FromVector<float>({5, 7, 9}));
  ExpectReduce("Mean", Matrix23(), Tensor::FromVector<int64_t>({0, 1}),
               Tensor::Scalar<float>(3.5f));
}

TEST(ReductionOpsTest, KeepDimsLeavesReducedDimensionsWithSizeOne) {
  ExpectReduce("Sum", Matrix23(), Axes({1}),
               Tensor::FromVector<float>({6, 15}, TensorShape({2, 1})), /*keep_dims=*/true);
  ExpectReduce("Max", Matrix23(), Axes({0, 1}), Tensor::FromVector<float>({6}, TensorShape({1, 1})),
               /*keep_dims=*/true);
}

TEST(ReductionOpsTest, IntegerMeanTruncatesTheQuotientTowardZero) {
  const Tensor x = Tensor::FromVector<int32_t>({1, 2, 4, 7, -1, -2}, TensorShape({3, 2}));
  absl::StatusOr<Tensor> mean = Reduce("Mean", x, Axes({1}));
  ASSERT_TRUE(mean.ok()) << mean.status();
  ExpectTensorEqual(*mean, Tensor::FromVector<int32_t>({1, 5, -1}));
  absl::StatusOr<Tensor> mean64 = Reduce("Mean", Tensor::FromVector<int64_t>({3, 4, 4}), Axes({0}));
  ASSERT_TRUE(mean64.ok()) << mean64.status();
  ExpectTensorEqual(*mean64, Tensor::Scalar<int64_t>(3));
}

TEST(ReductionOpsTest, IntegerSumAndMaxAreExact) {
  const int64_t big = int64_t{1} << 40;
  absl::StatusOr<Tensor> sum =
      Reduce("Sum", Tensor::FromVector<int64_t>({big, big, -1, 5}, TensorShape({2, 2})), Axes({0}));
  ASSERT_TRUE(sum.ok()) << sum.status();
  ExpectTensorEqual(*sum, Tensor::FromVector<int64_t>({big - 1, big + 5}));
  absl::StatusOr<Tensor> max =
      Reduce("Max", Tensor::FromVector<int32_t>({-5, -3, -9}), Tensor::Scalar<int32_t>(0));
  ASSERT_TRUE(max.ok()) << max.status();
  ExpectTensorEqual(*max, Tensor::Scalar<int32_t>(-3));
}

// x[i,j,k] = 6i + 2j + k, shape [2,3,2].
Tensor Rank3() {
  std::vector<double> v(12);
  for (int i = 0; i < 12; ++i) v[i] = i;
  return Tensor::FromVector<double>(absl::MakeConstSpan(v), TensorShape({2, 3, 2}));
}

TEST(ReductionOpsTest, OuterAndInnerAxesReducedTogether) {
  // Over i and k: sum = 14 + 8j, max = 7 + 2j, mean = (14 + 8j) / 4.
  ExpectReduce("Sum", Rank3(), Axes({0, 2}), Tensor::FromVector<double>({14, 22, 30}));
  ExpectReduce("Max", Rank3(), Axes({2, 0}), Tensor::FromVector<double>({7, 9, 11}));
  ExpectReduce("Mean", Rank3(), Axes({0, -1}), Tensor::FromVector<double>({3.5, 5.5, 7.5}));
  ExpectReduce("Sum", Rank3(), Axes({0, 2}),
               Tensor::FromVector<double>({14, 22, 30}, TensorShape({1, 3, 1})),
               /*keep_dims=*/true);
}

TEST(ReductionOpsTest, MiddleAxisReduced) {
  // Over j: sum = 3(6i + k) + 6, max = 6i + k + 4.
  ExpectReduce("Sum", Rank3(), Axes({1}),
               Tensor::FromVector<double>({6, 9, 24, 27}, TensorShape({2, 2})));
  ExpectReduce("Max", Rank3(), Axes({1}),
               Tensor::FromVector<double>({4, 5, 10, 11}, TensorShape({2, 2})));
}

TEST(ReductionOpsTest, ThreeSeparateReducedRunsOfARank5Input) {
  // x[i,j,k,l,m] = 16i + 8j + 4k + 2l + m over [2,2,2,2,2]; summing i, k and m
  // leaves 84 + 64j + 16l.
  std::vector<float> v(32);
  for (int i = 0; i < 32; ++i) v[i] = static_cast<float>(i);
  const Tensor x = Tensor::FromVector<float>(absl::MakeConstSpan(v), TensorShape({2, 2, 2, 2, 2}));
  ExpectReduce("Sum", x, Axes({0, 2, 4}),
               Tensor::FromVector<float>({84, 100, 148, 164}, TensorShape({2, 2})));
  ExpectReduce("Mean", x, Axes({4, 0, 2}),
               Tensor::FromVector<float>({10.5f, 12.5f, 18.5f, 20.5f}, TensorShape({2, 2})));
  // Max: i = k = m = 1 gives 21 + 8j + 2l.
  ExpectReduce("Max", x, Axes({0, 2, 4}),
               Tensor::FromVector<float>({21, 23, 29, 31}, TensorShape({1, 2, 1, 2, 1})),
               /*keep_dims=*/true);
}

TEST(ReductionOpsTest, ReducingOnlySizeOneDimensionsKeepsTheValues) {
  const Tensor x = Tensor::FromVector<int32_t>({1, 2, 3, 4, 5, 6}, TensorShape({2, 1, 3}));
  absl::StatusOr<Tensor> out = Reduce("Mean", x, Axes({1}));
  ASSERT_TRUE(out.ok()) << out.status();
  ExpectTensorEqual(*out, Tensor::FromVector<int32_t>({1, 2, 3, 4, 5, 6}, TensorShape({2, 3})));
}

TEST(ReductionOpsTest, NoAxesReturnsTheInputItself) {
  const Tensor x = Matrix23();
  for (const char* op : {"Sum", "Mean", "Max"}) {
    absl::StatusOr<Tensor> out = Reduce(op, x, Tensor(DT_INT32, TensorShape({0})));
    ASSERT_TRUE(out.ok()) << op << ": " << out.status();
    EXPECT_TRUE(out->SharesBufferWith(x)) << op;
    ExpectTensorEqual(*out, Matrix23());
  }
}

TEST(ReductionOpsTest, ReducingAnEmptyDimensionGivesTheIdentity) {
  const Tensor empty_rows(DT_FLOAT, TensorShape({0, 3}));
  ExpectReduce("Sum", empty_rows, Axes({0}), Tensor::FromVector<float>({0, 0, 0}));
  const float inf = std::numeric_limits<float>::infinity();
  absl::StatusOr<Tensor> max = Reduce("Max", empty_rows, Axes({0}));
  ASSERT_TRUE(max.ok()) << max.status();
  ExpectTensorEqual(*max, Tensor::FromVector<float>({-inf, -inf, -inf}));
  // TensorFlow's identities: Min of nothing is +inf, Prod of nothing is 1.
  absl::StatusOr<Tensor> min = Reduce("Min", empty_rows, Axes({0}));
  ASSERT_TRUE(min.ok()) << min.status();
  ExpectTensorEqual(*min, Tensor::FromVector<float>({inf, inf, inf}));
  ExpectReduce("Prod", empty_rows, Axes({0}), Tensor::FromVector<float>({1, 1, 1}));
  ExpectReduce("Mean", empty_rows, Axes({0}),
               Tensor::FromVector<float>({std::nanf(""), std::nanf(""), std::nanf("")}));
  // An integer mean of nothing is the empty sum, 0, not a division trap.
  absl::StatusOr<Tensor> int_mean =
      Reduce("Mean", Tensor(DT_INT32, TensorShape({2, 0})), Axes({1}));
  ASSERT_TRUE(int_mean.ok()) << int_mean.status();
  ExpectTensorEqual(*int_mean, Tensor::FromVector<int32_t>({0, 0}));
}

TEST(ReductionOpsTest, KeptEmptyDimensionGivesAnEmptyOutput) {
  absl::StatusOr<Tensor> out = Reduce("Sum", Tensor(DT_FLOAT, TensorShape({0, 3})), Axes({1}));
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(out->shape(), TensorShape({0}));
}

TEST(ReductionOpsTest, LargeReductionsMatchTheClosedForm) {
  // Big enough that Eigen splits the work over the intra-op threads.
  const int64_t rows = 400, cols = 700;
  Tensor x(DT_DOUBLE, TensorShape({rows, cols}));
  auto m = x.matrix<double>();
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t c = 0; c < cols; ++c) m(r, c) = static_cast<double>(r + c);
  absl::StatusOr<Tensor> row_sums = Reduce("Sum", x, Axes({1}));
  ASSERT_TRUE(row_sums.ok()) << row_sums.status();
  for (int64_t r = 0; r < rows; ++r) {
    ASSERT_EQ(row_sums->flat<double>()(r), cols * r + cols * (cols - 1) / 2.0) << r;
  }
  absl::StatusOr<Tensor> col_max = Reduce("Max", x, Axes({0}));
  ASSERT_TRUE(col_max.ok()) << col_max.status();
  for (int64_t c = 0; c < cols; ++c) ASSERT_EQ(col_max->flat<double>()(c), rows - 1 + c) << c;
}

void ExpectBadAxes(const Tensor& axes, absl::string_view expected_fragment) {
  for (const char* op : {"Sum", "Mean", "Max"}) {
    absl::StatusOr<Tensor> out = Reduce(op, Matrix23(), axes, false, "bad_axes_node");
    ASSERT_FALSE(out.ok()) << op << " with axes " << axes.DebugString();
    EXPECT_EQ(out.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_NE(out.status().message().find("bad_axes_node"), absl::string_view::npos)
        << out.status();
    EXPECT_NE(out.status().message().find(expected_fragment), absl::string_view::npos)
        << out.status();
  }
}

TEST(ReductionOpsTest, DuplicateAxesAreInvalidArgumentNamingTheNode) {
  ExpectBadAxes(Axes({1, 1}), "twice");
  ExpectBadAxes(Axes({0, -2}), "twice");  // -2 is 0 for a matrix.
}

TEST(ReductionOpsTest, OutOfRangeAxesAreInvalidArgumentNamingTheNode) {
  ExpectBadAxes(Axes({2}), "out of range");
  ExpectBadAxes(Tensor::FromVector<int64_t>({-3}), "out of range");
}

TEST(ReductionOpsTest, AxesOfRankTwoAreInvalidArgumentNamingTheNode) {
  ExpectBadAxes(Tensor::FromVector<int32_t>({0, 1}, TensorShape({1, 2})), "scalar or a vector");
}

absl::StatusOr<PartialTensorShape> InferReductionShape(const PartialTensorShape& input,
                                                       const PartialTensorShape& axes_shape,
                                                       const Tensor* axes, bool keep_dims) {
  absl::StatusOr<std::vector<PartialTensorShape>> out =
      test::InferShapes(ReductionNode("Sum", DT_FLOAT, DT_INT32, keep_dims, "shape_node"),
                        {input, axes_shape}, {nullptr, axes});
  if (!out.ok()) return out.status();
  return (*out)[0];
}

TEST(ReductionShapeTest, ConstantAxesGiveTheExactShape) {
  const Tensor axes = Axes({0, -1});
  auto s = InferReductionShape(PartialTensorShape({2, -1, 4}), axes.shape(), &axes, false);
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_EQ(s->DebugString(), "[?]");
  s = InferReductionShape(PartialTensorShape({2, -1, 4}), axes.shape(), &axes, true);
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_EQ(s->DebugString(), "[1,?,1]");
  const Tensor scalar_axis = Tensor::Scalar<int32_t>(1);
  s = InferReductionShape(PartialTensorShape({2, 3}), scalar_axis.shape(), &scalar_axis, false);
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_EQ(s->DebugString(), "[2]");
}

TEST(ReductionShapeTest, EmptyAxesGiveTheInputShape) {
  const Tensor none(DT_INT32, TensorShape({0}));
  auto s = InferReductionShape(PartialTensorShape({2, -1}), none.shape(), &none, false);
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_EQ(s->DebugString(), "[2,?]");
  // Known to be empty even when the (empty) value is not known.
  s = InferReductionShape(PartialTensorShape({5}), PartialTensorShape({0}), nullptr, false);
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_EQ(s->DebugString(), "[5]");
}

TEST(ReductionShapeTest, UnknownAxesStillGiveTheRankWhenItIsDetermined) {
  // keep_dims: the rank is the input's.
  auto s =
      InferReductionShape(PartialTensorShape({2, 3, 4}), PartialTensorShape({-1}), nullptr, true);
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_EQ(s->DebugString(), "[?,?,?]");
  // Two distinct axes remove two dimensions.
  s = InferReductionShape(PartialTensorShape({2, 3, 4}), PartialTensorShape({2}), nullptr, false);
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_EQ(s->DebugString(), "[?]");
  // A scalar axis removes one.
  s = InferReductionShape(PartialTensorShape({2, 3}), PartialTensorShape({}), nullptr, false);
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_EQ(s->DebugString(), "[?]");
  // An unknown number of axes leaves the rank unknown.
  s = InferReductionShape(PartialTensorShape({2, 3}), PartialTensorShape({-1}), nullptr, false);
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_TRUE(s->unknown_rank());
  // So does an input of unknown rank.
  const Tensor axes = Axes({0});
  s = InferReductionShape(PartialTensorShape(), axes.shape(), &axes, true);
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_TRUE(s->unknown_rank());
}

void ExpectShapeError(const PartialTensorShape& input, const PartialTensorShape& axes_shape,
                      const Tensor* axes, absl::string_view fragment) {
  auto s = InferReductionShape(input, axes_shape, axes, false);
  ASSERT_FALSE(s.ok()) << s->DebugString();
  EXPECT_EQ(s.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(s.status().message().find("shape_node"), absl::string_view::npos) << s.status();
  EXPECT_NE(s.status().message().find(fragment), absl::string_view::npos) << s.status();
}

TEST(ReductionShapeTest, BadAxesAreRejectedNamingTheNode) {
  const Tensor duplicate = Axes({1, -1});
  ExpectShapeError(PartialTensorShape({2, 3}), duplicate.shape(), &duplicate, "twice");
  const Tensor out_of_range = Axes({3});
  ExpectShapeError(PartialTensorShape({2, 3, 4}), out_of_range.shape(), &out_of_range,
                   "out of range");
  ExpectShapeError(PartialTensorShape({2, 3}), PartialTensorShape({3}), nullptr, "3 distinct");
  ExpectShapeError(PartialTensorShape({2, 3}), PartialTensorShape({1, 1}), nullptr,
                   "scalar or a vector");
}

TEST(ReductionWrapperTest, WrappersBuildNodesWithInferredShapes) {
  Scope root = Scope::NewRootScope();
  auto x = ops::Placeholder(root.WithOpName("x"), DT_FLOAT, {.shape = {2, 3, 4}});
  auto kept = ops::Sum(root.WithOpName("kept"), x, {0, 2}, {.keep_dims = true});
  auto last = ops::Mean(root.WithOpName("last"), x, -1);
  auto top = ops::Max(root.WithOpName("top"), x, Tensor::FromVector<int64_t>({1}));
  auto all = ops::Sum(root.WithOpName("all"), x, {0, 1, 2});
  EXPECT_EQ(kept.type(), DT_FLOAT);
  GraphDef def;
  ASSERT_TRUE(root.ToGraphDef(&def).ok()) << root.status();
  absl::StatusOr<std::unique_ptr<Graph>> g = ConvertGraphDefToGraph(def);
  ASSERT_TRUE(g.ok()) << g.status();
  EXPECT_EQ((*g)->FindNode("kept")->output_shapes()[0].DebugString(), "[1,3,1]");
  EXPECT_EQ((*g)->FindNode("last")->output_shapes()[0].DebugString(), "[2,3]");
  EXPECT_EQ((*g)->FindNode("top")->output_shapes()[0].DebugString(), "[2,4]");
  EXPECT_EQ((*g)->FindNode("all")->output_shapes()[0].DebugString(), "[]");
  DataType tidx = DT_INVALID;
  ASSERT_TRUE(GetNodeAttr((*g)->FindNode("top")->def(), "Tidx", &tidx).ok());
  EXPECT_EQ(tidx, DT_INT64);
}

TEST(ReductionWrapperTest, ConstantBadAxesFailGraphConstructionNamingTheNode) {
  Scope root = Scope::NewRootScope();
  auto x = ops::Placeholder(root.WithOpName("x"), DT_INT32, {.shape = {2, 3}});
  ops::Sum(root.WithOpName("bad_sum"), x, {0, 2});
  GraphDef def;
  ASSERT_TRUE(root.ToGraphDef(&def).ok()) << root.status();
  absl::StatusOr<std::unique_ptr<Graph>> g = ConvertGraphDefToGraph(def);
  ASSERT_FALSE(g.ok());
  EXPECT_NE(g.status().message().find("bad_sum"), absl::string_view::npos) << g.status();
}

}  // namespace
}  // namespace minitf
