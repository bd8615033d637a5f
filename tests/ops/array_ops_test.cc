// Tests of the shape ops: Reshape, Shape, Fill, ZerosLike, OnesLike (kernels,
// shape functions, errors, graph builders).
#include <memory>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "ops/standard_ops.h"
#include "session/session.h"
#include "tests/testlib/kernel_runner.h"

namespace minitf {
namespace {

using test::ExpectTensorEqual;
using test::InferShapes;
using test::KernelRunner;
using test::MakeNodeDef;
using ::testing::AllOf;
using ::testing::HasSubstr;

// ---- Reshape ----

TEST(ReshapeTest, SharesTheInputBuffer) {
  const Tensor input = Tensor::FromVector<float>({1, 2, 3, 4, 5, 6}, TensorShape({2, 3}));
  KernelRunner runner(MakeNodeDef("r", "Reshape", {{"T", DT_FLOAT}}));
  auto out = runner.Run({input, Tensor::FromVector<int32_t>({3, 2})});
  ASSERT_TRUE(out.ok()) << out.status();
  ExpectTensorEqual((*out)[0], Tensor::FromVector<float>({1, 2, 3, 4, 5, 6}, TensorShape({3, 2})));
  EXPECT_TRUE((*out)[0].SharesBufferWith(input));
  EXPECT_FALSE(runner.kernel()->IsExpensive());
}

TEST(ReshapeTest, InfersOneDimension) {
  const Tensor input = Tensor::FromVector<int64_t>({1, 2, 3, 4, 5, 6, 7, 8}, TensorShape({8}));
  KernelRunner runner(MakeNodeDef("r", "Reshape", {{"T", DT_INT64}, {"Tshape", DT_INT64}}));
  auto out = runner.Run({input, Tensor::FromVector<int64_t>({2, -1, 2})});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ((*out)[0].shape(), TensorShape({2, 2, 2}));
  auto scalar = runner.Run({Tensor::FromVector<int64_t>({5}), Tensor::FromVector<int64_t>({})});
  ASSERT_TRUE(scalar.ok()) << scalar.status();
  EXPECT_EQ((*scalar)[0].shape(), TensorShape());
  auto empty =
      runner.Run({Tensor(DT_INT64, TensorShape({0, 3})), Tensor::FromVector<int64_t>({-1, 0})});
  ASSERT_TRUE(empty.ok()) << empty.status();
  EXPECT_EQ((*empty)[0].shape(), TensorShape({0, 0}));
}

TEST(ReshapeTest, ElementCountMismatchIsAnError) {
  KernelRunner runner(MakeNodeDef("my_reshape", "Reshape", {{"T", DT_FLOAT}}));
  const Tensor input(DT_FLOAT, TensorShape({2, 3}));
  auto out = runner.Run({input, Tensor::FromVector<int32_t>({4, 2})});
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(out.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(out.status().message(), AllOf(HasSubstr("my_reshape"), HasSubstr("6 values")));
  EXPECT_FALSE(runner.Run({input, Tensor::FromVector<int32_t>({4, -1})}).ok());
  auto two_unknown = runner.Run({input, Tensor::FromVector<int32_t>({-1, -1})});
  ASSERT_FALSE(two_unknown.ok());
  EXPECT_THAT(two_unknown.status().message(), HasSubstr("one dimension"));
  EXPECT_FALSE(runner.Run({input, Tensor::FromVector<int32_t>({-2, -3})}).ok());
}

TEST(ReshapeTest, ShapeFunctionUsesAConstantShape) {
  NodeDef def = MakeNodeDef("my_reshape", "Reshape", {{"T", DT_FLOAT}});
  const Tensor shape = Tensor::FromVector<int32_t>({-1, 4});
  auto inferred =
      InferShapes(def, {PartialTensorShape({2, 6}), PartialTensorShape({2})}, {nullptr, &shape});
  ASSERT_TRUE(inferred.ok()) << inferred.status();
  EXPECT_EQ((*inferred)[0], PartialTensorShape({3, 4}));
  auto partial =
      InferShapes(def, {PartialTensorShape({-1, 6}), PartialTensorShape({2})}, {nullptr, &shape});
  ASSERT_TRUE(partial.ok());
  EXPECT_EQ((*partial)[0], PartialTensorShape({-1, 4}));
  auto not_constant = InferShapes(def, {PartialTensorShape({2, 6}), PartialTensorShape({3})});
  ASSERT_TRUE(not_constant.ok());
  EXPECT_EQ((*not_constant)[0], PartialTensorShape({-1, -1, -1}));
  const Tensor bad = Tensor::FromVector<int32_t>({5, 5});
  auto mismatch =
      InferShapes(def, {PartialTensorShape({2, 6}), PartialTensorShape({2})}, {nullptr, &bad});
  ASSERT_FALSE(mismatch.ok());
  EXPECT_THAT(mismatch.status().message(), AllOf(HasSubstr("my_reshape"), HasSubstr("[5,5]")));
}

// ---- Shape ----

TEST(ShapeTest, ReturnsTheDimensions) {
  KernelRunner runner(MakeNodeDef("s", "Shape", {{"T", DT_FLOAT}}));
  auto out = runner.Run({Tensor(DT_FLOAT, TensorShape({2, 3, 4}))});
  ASSERT_TRUE(out.ok()) << out.status();
  ExpectTensorEqual((*out)[0], Tensor::FromVector<int32_t>({2, 3, 4}));
  EXPECT_FALSE(runner.kernel()->IsExpensive());
  auto scalar = runner.Run({Tensor::Scalar<float>(1)});
  ASSERT_TRUE(scalar.ok());
  EXPECT_EQ((*scalar)[0].shape(), TensorShape({0}));

  KernelRunner wide(MakeNodeDef("s", "Shape", {{"T", DT_BOOL}, {"out_type", DT_INT64}}));
  auto out64 = wide.Run({Tensor(DT_BOOL, TensorShape({int64_t{1} << 33, 0}))});
  ASSERT_TRUE(out64.ok()) << out64.status();
  ExpectTensorEqual((*out64)[0], Tensor::FromVector<int64_t>({int64_t{1} << 33, 0}));
}

TEST(ShapeTest, DimensionTooLargeForInt32IsAnError) {
  KernelRunner runner(MakeNodeDef("my_shape", "Shape", {{"T", DT_FLOAT}}));
  auto out = runner.Run({Tensor(DT_FLOAT, TensorShape({int64_t{1} << 33, 0}))});
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(out.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(out.status().message(), AllOf(HasSubstr("my_shape"), HasSubstr("int64")));
}

TEST(ShapeTest, ShapeFunctionGivesTheRank) {
  NodeDef def = MakeNodeDef("s", "Shape", {{"T", DT_FLOAT}});
  auto known = InferShapes(def, {PartialTensorShape({-1, 3})});
  ASSERT_TRUE(known.ok());
  EXPECT_EQ((*known)[0], PartialTensorShape({2}));
  auto unknown = InferShapes(def, {PartialTensorShape()});
  ASSERT_TRUE(unknown.ok());
  EXPECT_EQ((*unknown)[0], PartialTensorShape({-1}));
}

// ---- Fill ----

TEST(FillTest, FillsTheShapeWithTheValue) {
  KernelRunner runner(MakeNodeDef("f", "Fill", {{"T", DT_FLOAT}}));
  auto out = runner.Run({Tensor::FromVector<int32_t>({2, 3}), Tensor::Scalar<float>(7)});
  ASSERT_TRUE(out.ok()) << out.status();
  ExpectTensorEqual((*out)[0], Tensor::FromVector<float>({7, 7, 7, 7, 7, 7}, TensorShape({2, 3})));
  EXPECT_FALSE(runner.kernel()->IsExpensive());

  KernelRunner wide(MakeNodeDef("f", "Fill", {{"T", DT_INT64}, {"index_type", DT_INT64}}));
  auto ints = wide.Run({Tensor::FromVector<int64_t>({3}), Tensor::Scalar<int64_t>(-4)});
  ASSERT_TRUE(ints.ok()) << ints.status();
  ExpectTensorEqual((*ints)[0], Tensor::FromVector<int64_t>({-4, -4, -4}));
}

TEST(FillTest, RejectsNegativeDimsAndNonScalarValues) {
  KernelRunner runner(MakeNodeDef("my_fill", "Fill", {{"T", DT_DOUBLE}}));
  auto negative = runner.Run({Tensor::FromVector<int32_t>({2, -3}), Tensor::Scalar<double>(1)});
  ASSERT_FALSE(negative.ok());
  EXPECT_EQ(negative.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(negative.status().message(), AllOf(HasSubstr("my_fill"), HasSubstr("negative")));
  auto vector_value =
      runner.Run({Tensor::FromVector<int32_t>({2}), Tensor::FromVector<double>({1, 2})});
  ASSERT_FALSE(vector_value.ok());
  EXPECT_THAT(vector_value.status().message(), HasSubstr("scalar"));
  EXPECT_FALSE(InferShapes(MakeNodeDef("my_fill", "Fill", {{"T", DT_DOUBLE}}),
                           {PartialTensorShape({2}), PartialTensorShape({2})})
                   .ok());
}

TEST(FillTest, ShapeFunctionReadsConstantDims) {
  const Tensor dims = Tensor::FromVector<int32_t>({4, 5});
  auto shapes = InferShapes(MakeNodeDef("f", "Fill", {{"T", DT_FLOAT}}),
                            {PartialTensorShape({2}), PartialTensorShape(TensorShape())}, {&dims});
  ASSERT_TRUE(shapes.ok()) << shapes.status();
  EXPECT_EQ((*shapes)[0], PartialTensorShape({4, 5}));
}

// ---- ZerosLike / OnesLike ----

TEST(ConstantLikeTest, ZerosAndOnesOfTheInputShape) {
  const Tensor x = Tensor::FromVector<float>({3, -1, 2, 8}, TensorShape({2, 2}));
  KernelRunner zeros(MakeNodeDef("z", "ZerosLike", {{"T", DT_FLOAT}}));
  auto z = zeros.Run({x});
  ASSERT_TRUE(z.ok());
  ExpectTensorEqual((*z)[0], Tensor::FromVector<float>({0, 0, 0, 0}, TensorShape({2, 2})));
  KernelRunner ones(MakeNodeDef("o", "OnesLike", {{"T", DT_INT32}}));
  auto o = ones.Run({Tensor::FromVector<int32_t>({5, 6, 7})});
  ASSERT_TRUE(o.ok());
  ExpectTensorEqual((*o)[0], Tensor::FromVector<int32_t>({1, 1, 1}));
  // The caller's tensor is untouched even when the kernel reuses buffers.
  ExpectTensorEqual(x, Tensor::FromVector<float>({3, -1, 2, 8}, TensorShape({2, 2})));
}

TEST(ConstantLikeTest, RejectsBool) {
  KernelRunner runner(MakeNodeDef("my_ones", "OnesLike", {{"T", DT_BOOL}}));
  ASSERT_FALSE(runner.status().ok());
  EXPECT_EQ(runner.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(runner.status().message(), HasSubstr("my_ones"));
}

// ---- Graph builders ----

TEST(ArrayOpsBuilderTest, ShapeOpsComposeInASession) {
  Scope root = Scope::NewRootScope();
  auto x = ops::Placeholder(root.WithOpName("x"), DT_FLOAT);
  auto r = ops::Reshape(root.WithOpName("r"), x, {-1, 2});
  auto s = ops::Shape(root.WithOpName("s"), r, {.out_type = DT_INT64});
  auto f = ops::Fill(root.WithOpName("f"), ops::Shape(root, r), 2.5f);
  auto z = ops::ZerosLike(root.WithOpName("z"), x);
  auto o = ops::OnesLike(root.WithOpName("o"), r);
  ASSERT_TRUE(root.ok()) << root.status();
  EXPECT_EQ(s.type(), DT_INT64);

  GraphDef def;
  ASSERT_TRUE(root.ToGraphDef(&def).ok());
  auto session = NewSession(SessionOptions());
  ASSERT_TRUE(session.ok());
  ASSERT_TRUE((*session)->Create(def).ok());
  std::vector<Tensor> out;
  const Tensor x_value = Tensor::FromVector<float>({1, 2, 3, 4, 5, 6});
  absl::Status status = (*session)->Run({{"x", x_value}}, {"r", "s", "f", "z", "o"}, {}, &out);
  ASSERT_TRUE(status.ok()) << status;
  ExpectTensorEqual(out[0], Tensor::FromVector<float>({1, 2, 3, 4, 5, 6}, TensorShape({3, 2})));
  ExpectTensorEqual(out[1], Tensor::FromVector<int64_t>({3, 2}));
  ExpectTensorEqual(
      out[2], Tensor::FromVector<float>({2.5f, 2.5f, 2.5f, 2.5f, 2.5f, 2.5f}, TensorShape({3, 2})));
  ExpectTensorEqual(out[3], Tensor::FromVector<float>({0, 0, 0, 0, 0, 0}));
  ExpectTensorEqual(out[4], Tensor::FromVector<float>({1, 1, 1, 1, 1, 1}, TensorShape({3, 2})));
}

}  // namespace
}  // namespace minitf
