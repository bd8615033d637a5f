// Tests of Cast: the conversions between float, double, int32, int64 and
// bool, the same-type shortcut, bad attrs, the shape function and wrapper.
#include <cstdint>
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
using test::KernelRunner;
using test::MakeNodeDef;

absl::StatusOr<Tensor> RunCast(const Tensor& x, DataType dst) {
  KernelRunner runner(MakeNodeDef("cast", "Cast", {{"SrcT", x.dtype()}, {"DstT", dst}}));
  absl::StatusOr<std::vector<Tensor>> out = runner.Run({x});
  if (!out.ok()) return out.status();
  return (*out)[0];
}

void ExpectCast(const Tensor& x, const Tensor& expected) {
  absl::StatusOr<Tensor> y = RunCast(x, expected.dtype());
  ASSERT_TRUE(y.ok()) << y.status();
  ExpectTensorEqual(*y, expected);
}

TEST(CastOpTest, FloatingToIntegerTruncatesTowardZero) {
  ExpectCast(Tensor::FromVector<float>({1.7f, -1.7f, 2.0f, -0.5f}, TensorShape({2, 2})),
             Tensor::FromVector<int32_t>({1, -1, 2, 0}, TensorShape({2, 2})));
  ExpectCast(Tensor::FromVector<double>({1e12 + 0.9, -3.99}),
             Tensor::FromVector<int64_t>({1000000000000, -3}));
}

TEST(CastOpTest, IntegerToFloatingIsExactWhereRepresentable) {
  ExpectCast(Tensor::FromVector<int32_t>({-7, 0, 16777216}),
             Tensor::FromVector<float>({-7, 0, 16777216.0f}));
  const int64_t big = (int64_t{1} << 40) + 3;
  ExpectCast(Tensor::FromVector<int64_t>({big}), Tensor::FromVector<double>({1099511627779.0}));
}

TEST(CastOpTest, BetweenIntegerWidthsAndFloatingWidths) {
  ExpectCast(Tensor::FromVector<int32_t>({-2147483647 - 1, 5}),
             Tensor::FromVector<int64_t>({-2147483648LL, 5}));
  ExpectCast(Tensor::FromVector<int64_t>({-9, 123456}), Tensor::FromVector<int32_t>({-9, 123456}));
  ExpectCast(Tensor::FromVector<double>({0.1, -2.5}), Tensor::FromVector<float>({0.1f, -2.5f}));
  ExpectCast(Tensor::FromVector<float>({0.5f}), Tensor::FromVector<double>({0.5}));
}

TEST(CastOpTest, NumbersToBoolAreTrueWhenNonZero) {
  ExpectCast(Tensor::FromVector<float>({0.0f, 2.5f, -1.0f, -0.0f}),
             Tensor::FromVector<bool>({false, true, true, false}));
  ExpectCast(Tensor::FromVector<int64_t>({0, 7, -1}),
             Tensor::FromVector<bool>({false, true, true}));
}

TEST(CastOpTest, BoolToNumbersIsZeroOrOne) {
  const Tensor b = Tensor::FromVector<bool>({true, false, true});
  ExpectCast(b, Tensor::FromVector<float>({1, 0, 1}));
  ExpectCast(b, Tensor::FromVector<int32_t>({1, 0, 1}));
  ExpectCast(b, Tensor::FromVector<double>({1, 0, 1}));
}

TEST(CastOpTest, CastToTheSameTypeForwardsTheInput) {
  const Tensor x = Tensor::FromVector<int32_t>({4, 5});
  absl::StatusOr<Tensor> y = RunCast(x, DT_INT32);
  ASSERT_TRUE(y.ok()) << y.status();
  EXPECT_TRUE(y->SharesBufferWith(x));
  ExpectTensorEqual(*y, x);
}

TEST(CastOpTest, EmptyInputGivesAnEmptyOutputOfTheNewType) {
  absl::StatusOr<Tensor> y = RunCast(Tensor(DT_FLOAT, TensorShape({3, 0})), DT_INT64);
  ASSERT_TRUE(y.ok()) << y.status();
  EXPECT_EQ(y->dtype(), DT_INT64);
  EXPECT_EQ(y->shape(), TensorShape({3, 0}));
}

TEST(CastOpTest, MissingDstTIsAnErrorNamingNodeAndAttr) {
  KernelRunner runner(MakeNodeDef("no_dst", "Cast", {{"SrcT", DT_FLOAT}}));
  ASSERT_FALSE(runner.status().ok());
  EXPECT_NE(runner.status().message().find("no_dst"), absl::string_view::npos) << runner.status();
  EXPECT_NE(runner.status().message().find("DstT"), absl::string_view::npos) << runner.status();
}

TEST(CastOpTest, ShapeFunctionKeepsTheInputShape) {
  auto s = test::InferShapes(MakeNodeDef("n", "Cast", {{"SrcT", DT_BOOL}, {"DstT", DT_FLOAT}}),
                             {PartialTensorShape({-1, 3})});
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_EQ((*s)[0].DebugString(), "[?,3]");
}

TEST(CastOpTest, WrapperInfersSrcTAndSetsDstT) {
  Scope root = Scope::NewRootScope();
  auto x = ops::Placeholder(root.WithOpName("x"), DT_DOUBLE, {.shape = {2, -1}});
  auto y = ops::Cast(root.WithOpName("y"), x, DT_BOOL);
  EXPECT_EQ(y.type(), DT_BOOL);
  GraphDef def;
  ASSERT_TRUE(root.ToGraphDef(&def).ok()) << root.status();
  absl::StatusOr<std::unique_ptr<Graph>> g = ConvertGraphDefToGraph(def);
  ASSERT_TRUE(g.ok()) << g.status();
  const Node* n = (*g)->FindNode("y");
  ASSERT_NE(n, nullptr);
  DataType src = DT_INVALID, dst = DT_INVALID;
  ASSERT_TRUE(GetNodeAttr(n->def(), "SrcT", &src).ok());
  ASSERT_TRUE(GetNodeAttr(n->def(), "DstT", &dst).ok());
  EXPECT_EQ(src, DT_DOUBLE);
  EXPECT_EQ(dst, DT_BOOL);
  EXPECT_EQ(n->output_type(0), DT_BOOL);
  EXPECT_EQ(n->output_shapes()[0].DebugString(), "[2,?]");
}

}  // namespace
}  // namespace minitf
