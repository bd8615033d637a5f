// Tests of Transpose: the kernel against hand-computed values for every
// element size and ranks 0 to 4, buffer sharing for an identity perm, the
// shape function, every bad perm (an InvalidArgument naming the node, from
// the kernel and from the shape function), and the graph builder.
#include <cstdint>
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

NodeDef TransposeDef(DataType t, DataType tperm = DT_INT32, const char* name = "tr") {
  return MakeNodeDef(name, "Transpose", {{"T", t}, {"Tperm", tperm}});
}

// 0, 1, 2, ... in `shape`.
template <typename T>
Tensor Iota(const TensorShape& shape) {
  Tensor t(DataTypeToEnum<T>::value, shape);
  auto flat = t.flat<T>();
  for (int64_t i = 0; i < flat.size(); ++i) flat(i) = static_cast<T>(i);
  return t;
}

Tensor Perm(std::vector<int32_t> values) {
  return Tensor::FromVector<int32_t>(absl::Span<const int32_t>(values),
                                     TensorShape({static_cast<int64_t>(values.size())}));
}

TEST(TransposeTest, TransposesAMatrix) {
  KernelRunner runner(TransposeDef(DT_FLOAT));
  auto out = runner.Run(
      {Tensor::FromVector<float>({1, 2, 3, 4, 5, 6}, TensorShape({2, 3})), Perm({1, 0})});
  ASSERT_TRUE(out.ok()) << out.status();
  ExpectTensorEqual((*out)[0], Tensor::FromVector<float>({1, 4, 2, 5, 3, 6}, TensorShape({3, 2})));
}

TEST(TransposeTest, PermutesThreeDimensions) {
  // x[c, a, b] = 6c + 3a + b, shape [2, 2, 3]; perm {1, 2, 0} gives
  // y[a, b, c] = x[c, a, b], shape [2, 3, 2].
  KernelRunner runner(TransposeDef(DT_DOUBLE));
  auto out = runner.Run({Iota<double>({2, 2, 3}), Perm({1, 2, 0})});
  ASSERT_TRUE(out.ok()) << out.status();
  ExpectTensorEqual((*out)[0], Tensor::FromVector<double>({0, 6, 1, 7, 2, 8, 3, 9, 4, 10, 5, 11},
                                                          TensorShape({2, 3, 2})));
}

TEST(TransposeTest, SplitsHeadsOfARank4Tensor) {
  // [B, T, H, D] -> [B, H, T, D], as attention splits its heads.
  const int64_t b = 2, t = 3, h = 4, d = 5;
  const Tensor x = Iota<float>({b, t, h, d});
  KernelRunner runner(TransposeDef(DT_FLOAT, DT_INT64));
  auto out = runner.Run({x, Tensor::FromVector<int64_t>({0, 2, 1, 3})});
  ASSERT_TRUE(out.ok()) << out.status();
  Tensor expected(DT_FLOAT, TensorShape({b, h, t, d}));
  auto in = x.tensor<float, 4>();
  auto want = expected.tensor<float, 4>();
  for (int64_t i = 0; i < b; ++i) {
    for (int64_t j = 0; j < h; ++j) {
      for (int64_t k = 0; k < t; ++k) {
        for (int64_t l = 0; l < d; ++l) want(i, j, k, l) = in(i, k, j, l);
      }
    }
  }
  ExpectTensorEqual((*out)[0], expected);
}

TEST(TransposeTest, MovesElementsOfEverySize) {
  KernelRunner bools(TransposeDef(DT_BOOL));
  auto b = bools.Run(
      {Tensor::FromVector<bool>({true, false, false, false, true, true}, TensorShape({3, 2})),
       Perm({1, 0})});
  ASSERT_TRUE(b.ok()) << b.status();
  ExpectTensorEqual((*b)[0], Tensor::FromVector<bool>({true, false, true, false, false, true},
                                                      TensorShape({2, 3})));
  KernelRunner ints(TransposeDef(DT_INT32));
  auto i = ints.Run({Iota<int32_t>({2, 3}), Perm({1, 0})});
  ASSERT_TRUE(i.ok()) << i.status();
  ExpectTensorEqual((*i)[0], Tensor::FromVector<int32_t>({0, 3, 1, 4, 2, 5}, TensorShape({3, 2})));
  KernelRunner longs(TransposeDef(DT_INT64, DT_INT64));
  auto l = longs.Run({Iota<int64_t>({1, 2, 2}), Tensor::FromVector<int64_t>({2, 1, 0})});
  ASSERT_TRUE(l.ok()) << l.status();
  ExpectTensorEqual((*l)[0], Tensor::FromVector<int64_t>({0, 2, 1, 3}, TensorShape({2, 2, 1})));
}

TEST(TransposeTest, IdentityPermSharesTheBufferAndEmptyTensorsWork) {
  KernelRunner runner(TransposeDef(DT_FLOAT));
  const Tensor x = Iota<float>({2, 3});
  auto same = runner.Run({x, Perm({0, 1})});
  ASSERT_TRUE(same.ok()) << same.status();
  EXPECT_TRUE((*same)[0].SharesBufferWith(x));
  auto scalar = runner.Run({Tensor::Scalar<float>(4), Perm({})});
  ASSERT_TRUE(scalar.ok()) << scalar.status();
  ExpectTensorEqual((*scalar)[0], Tensor::Scalar<float>(4));
  auto empty = runner.Run({Tensor(DT_FLOAT, TensorShape({0, 3})), Perm({1, 0})});
  ASSERT_TRUE(empty.ok()) << empty.status();
  EXPECT_EQ((*empty)[0].shape(), TensorShape({3, 0}));
}

// Every bad perm fails the kernel with InvalidArgument naming the node and
// saying what is wrong.
TEST(TransposeTest, BadPermsAreInvalidArgumentsNamingTheNode) {
  KernelRunner runner(TransposeDef(DT_FLOAT, DT_INT32, "my_transpose"));
  const Tensor x = Iota<float>({2, 3, 4});
  struct Bad {
    Tensor perm;
    const char* says;
  };
  const std::vector<Bad> bad = {
      {Perm({1, 0}), "2 entries, but x has rank 3"},
      {Perm({0, 1, 2, 3}), "4 entries, but x has rank 3"},
      {Perm({0, 1, 1}), "dimension 1 appears more than once"},
      {Perm({0, 3, 1}), "entry 3 is out of range [0, 3)"},
      {Perm({-1, 0, 1}), "entry -1 is out of range"},
      {Tensor::FromVector<int32_t>({0, 1, 2}, TensorShape({1, 3})), "perm must be a vector"},
  };
  for (const Bad& b : bad) {
    SCOPED_TRACE(b.perm.DebugString());
    auto out = runner.Run({x, b.perm});
    ASSERT_FALSE(out.ok());
    EXPECT_EQ(out.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_THAT(out.status().message(),
                AllOf(HasSubstr("Node 'my_transpose'"), HasSubstr(b.says), HasSubstr("[2,3,4]")));
  }
}

TEST(TransposeTest, RanksAboveEightAreUnimplemented) {
  KernelRunner runner(TransposeDef(DT_FLOAT, DT_INT32, "deep"));
  auto out =
      runner.Run({Iota<float>({1, 1, 1, 1, 1, 1, 1, 2, 2}), Perm({0, 1, 2, 3, 4, 5, 6, 8, 7})});
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(out.status().code(), absl::StatusCode::kUnimplemented);
  EXPECT_THAT(out.status().message(), AllOf(HasSubstr("Node 'deep'"), HasSubstr("rank 9")));
}

TEST(TransposeTest, ShapeFunctionPermutesAConstantPermAndKeepsTheRankOtherwise) {
  const NodeDef def = TransposeDef(DT_FLOAT);
  const Tensor perm = Perm({2, 0, 1});
  auto exact =
      InferShapes(def, {PartialTensorShape({2, -1, 4}), PartialTensorShape({3})}, {nullptr, &perm});
  ASSERT_TRUE(exact.ok()) << exact.status();
  EXPECT_EQ((*exact)[0], PartialTensorShape({4, 2, -1}));
  auto unknown_x =
      InferShapes(def, {PartialTensorShape(), PartialTensorShape({3})}, {nullptr, &perm});
  ASSERT_TRUE(unknown_x.ok()) << unknown_x.status();
  EXPECT_EQ((*unknown_x)[0], PartialTensorShape({-1, -1, -1}));
  auto unknown_perm = InferShapes(def, {PartialTensorShape({2, 3}), PartialTensorShape({-1})});
  ASSERT_TRUE(unknown_perm.ok()) << unknown_perm.status();
  EXPECT_EQ((*unknown_perm)[0], PartialTensorShape({-1, -1}));
  auto nothing_known = InferShapes(def, {PartialTensorShape(), PartialTensorShape({-1})});
  ASSERT_TRUE(nothing_known.ok()) << nothing_known.status();
  EXPECT_TRUE((*nothing_known)[0].unknown_rank());
}

TEST(TransposeTest, ShapeFunctionRejectsBadPermsNamingTheNode) {
  const NodeDef def = TransposeDef(DT_FLOAT, DT_INT32, "my_transpose");
  auto wrong_length = InferShapes(def, {PartialTensorShape({2, 3}), PartialTensorShape({3})});
  ASSERT_FALSE(wrong_length.ok());
  EXPECT_EQ(wrong_length.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(wrong_length.status().message(),
              AllOf(HasSubstr("Node 'my_transpose'"), HasSubstr("3 entries, but x has rank 2")));
  for (const Tensor& perm : {Perm({1, 1}), Perm({0, 2}), Perm({-2, 0})}) {
    SCOPED_TRACE(perm.DebugString());
    auto bad =
        InferShapes(def, {PartialTensorShape({2, 3}), PartialTensorShape({2})}, {nullptr, &perm});
    ASSERT_FALSE(bad.ok());
    EXPECT_EQ(bad.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_THAT(bad.status().message(), HasSubstr("Node 'my_transpose'"));
  }
  auto matrix_perm = InferShapes(def, {PartialTensorShape({2, 3}), PartialTensorShape({2, 1})});
  ASSERT_FALSE(matrix_perm.ok());
  EXPECT_THAT(matrix_perm.status().message(), HasSubstr("Node 'my_transpose'"));
}

TEST(TransposeBuilderTest, TransposesInASessionAndRejectsABadConstantPermAtCreate) {
  Scope root = Scope::NewRootScope();
  auto x = ops::Placeholder(root.WithOpName("x"), DT_FLOAT, {.shape = {2, 3}});
  auto y = ops::Transpose(root.WithOpName("y"), x, {1, 0});
  ASSERT_TRUE(root.ok()) << root.status();
  GraphDef def;
  ASSERT_TRUE(root.ToGraphDef(&def).ok());
  auto session = NewSession(SessionOptions());
  ASSERT_TRUE(session.ok());
  ASSERT_TRUE((*session)->Create(def).ok());
  std::vector<Tensor> out;
  absl::Status status = (*session)->Run({{"x", Iota<float>({2, 3})}}, {"y"}, {}, &out);
  ASSERT_TRUE(status.ok()) << status;
  ExpectTensorEqual(out[0], Tensor::FromVector<float>({0, 3, 1, 4, 2, 5}, TensorShape({3, 2})));

  // A constant perm is checked when the graph is created.
  Scope bad = Scope::NewRootScope();
  auto z = ops::Placeholder(bad.WithOpName("z"), DT_FLOAT, {.shape = {2, 3}});
  ops::Transpose(bad.WithOpName("bad_transpose"), z, {0, 0});
  GraphDef bad_def;
  ASSERT_TRUE(bad.ToGraphDef(&bad_def).ok());
  auto bad_session = NewSession(SessionOptions());
  ASSERT_TRUE(bad_session.ok());
  const absl::Status created = (*bad_session)->Create(bad_def);
  EXPECT_EQ(created.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(created.message(),
              AllOf(HasSubstr("Node 'bad_transpose'"), HasSubstr("appears more than once")));
}

}  // namespace
}  // namespace minitf
