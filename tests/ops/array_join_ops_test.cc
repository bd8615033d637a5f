// Tests of the joining, growing and shape-only array ops: ConcatV2,
// ConcatOffset, Pack, Unpack, Split, SplitV, Tile, Pad, PadV2, BroadcastTo,
// BroadcastGradientArgs, Squeeze, ExpandDims, Size, Rank, ShapeN, IdentityN,
// StopGradient, PreventGradient, Snapshot and InvertPermutation (kernels
// with TensorFlow's scenarios, shape functions, one error per op at least).
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "ops/standard_ops.h"
#include "runtime/graph.h"
#include "tests/testlib/kernel_runner.h"
#include "tests/testlib/run_op.h"

namespace minitf {
namespace {

using test::ExpectInvalid;
using test::ExpectTensorEqual;
using test::InferShapes;
using test::KernelRunner;
using test::MakeNodeDef;
using test::RunOp;
using ::testing::AllOf;
using ::testing::HasSubstr;

Tensor F(std::initializer_list<float> v, const TensorShape& s) {
  return Tensor::FromVector<float>(v, s);
}
Tensor I32(std::initializer_list<int32_t> v) { return Tensor::FromVector<int32_t>(v); }
Tensor I64(std::initializer_list<int64_t> v) { return Tensor::FromVector<int64_t>(v); }

// ---- ConcatV2 and ConcatOffset ----

TEST(ConcatV2Test, JoinsAlongPositiveAndNegativeAxes) {
  const Tensor a = F({1, 2, 3, 4, 5, 6}, {2, 3});
  const Tensor b = F({7, 8, 9, 10}, {2, 2});
  for (Tensor axis : {Tensor::Scalar<int32_t>(1), Tensor::Scalar<int32_t>(-1)}) {
    auto out = RunOp("ConcatV2", {{"N", 2}, {"T", DT_FLOAT}}, {a, b, axis});
    ASSERT_TRUE(out.ok()) << out.status();
    ExpectTensorEqual((*out)[0], F({1, 2, 3, 7, 8, 4, 5, 6, 9, 10}, {2, 5}));
  }
  auto rows = RunOp("ConcatV2", {{"N", 3}, {"T", DT_FLOAT}, {"Tidx", DT_INT64}},
                  {a, F({0, 0, 0}, {1, 3}), Tensor(DT_FLOAT, TensorShape({0, 3})),
                   Tensor::Scalar<int64_t>(0)});
  ASSERT_TRUE(rows.ok()) << rows.status();
  ExpectTensorEqual((*rows)[0], F({1, 2, 3, 4, 5, 6, 0, 0, 0}, {3, 3}));
  auto flags = RunOp("ConcatV2", {{"N", 2}, {"T", DT_BOOL}},
                   {Tensor::FromVector<bool>({true}), Tensor::FromVector<bool>({false, true}),
                    Tensor::Scalar<int32_t>(0)});
  ASSERT_TRUE(flags.ok()) << flags.status();
  ExpectTensorEqual((*flags)[0], Tensor::FromVector<bool>({true, false, true}));
}

TEST(ConcatV2Test, MismatchedShapesAxisOutOfRangeAndScalarsAreErrors) {
  const AttrValueMap attrs = {{"N", 2}, {"T", DT_FLOAT}};
  ExpectInvalid(RunOp("ConcatV2", attrs,
                    {F({1, 2, 3, 4, 5, 6}, {2, 3}), F({1, 2, 3}, {3, 1}),
                     Tensor::Scalar<int32_t>(1)}),
                "ConcatV2", "Dimension 0 in both shapes must be equal");
  ExpectInvalid(RunOp("ConcatV2", attrs,
                    {F({1, 2}, {2}), F({3}, {1}), Tensor::Scalar<int32_t>(1)}),
                "ConcatV2", "[-1, 1), but got 1");
  ExpectInvalid(RunOp("ConcatV2", attrs,
                    {Tensor::Scalar<float>(1), Tensor::Scalar<float>(2),
                     Tensor::Scalar<int32_t>(0)}),
                "ConcatV2", "Can't concatenate scalars");
}

TEST(ConcatV2Test, ShapeFunctionAddsTheAxisSizes) {
  const NodeDef def = MakeNodeDef("c", "ConcatV2", {{"N", 2}, {"T", DT_FLOAT}});
  const Tensor axis = Tensor::Scalar<int32_t>(-1);
  auto known = InferShapes(def, {PartialTensorShape({-1, 3}), PartialTensorShape({4, 2}),
                                 PartialTensorShape({})},
                           {nullptr, nullptr, &axis});
  ASSERT_TRUE(known.ok()) << known.status();
  EXPECT_EQ((*known)[0], PartialTensorShape({4, 5}));
  auto unknown_axis = InferShapes(def, {PartialTensorShape({2, 3}), PartialTensorShape({2, 2}),
                                        PartialTensorShape({})});
  ASSERT_TRUE(unknown_axis.ok());
  EXPECT_EQ((*unknown_axis)[0], PartialTensorShape({-1, -1}));
  const Tensor axis0 = Tensor::Scalar<int32_t>(0);
  EXPECT_FALSE(InferShapes(def, {PartialTensorShape({2, 3}), PartialTensorShape({2, 2}),
                                 PartialTensorShape({})},
                           {nullptr, nullptr, &axis0})
                   .ok());
}

TEST(ConcatOffsetTest, OffsetsAlongTheConcatDimension) {
  auto out = RunOp("ConcatOffset", {{"N", 3}},
                 {Tensor::Scalar<int32_t>(1), I32({2, 3, 5}), I32({2, 7, 5}), I32({2, 2, 5})});
  ASSERT_TRUE(out.ok()) << out.status();
  ExpectTensorEqual((*out)[0], I32({0, 0, 0}));
  ExpectTensorEqual((*out)[1], I32({0, 3, 0}));
  ExpectTensorEqual((*out)[2], I32({0, 10, 0}));
  auto negative = RunOp("ConcatOffset", {{"N", 2}, {"shape_type", DT_INT64}},
                      {Tensor::Scalar<int32_t>(-2), I64({2, 3}), I64({4, 3})});
  ASSERT_TRUE(negative.ok()) << negative.status();
  ExpectTensorEqual((*negative)[1], I64({2, 0}));
  ExpectInvalid(RunOp("ConcatOffset", {{"N", 2}},
                    {Tensor::Scalar<int32_t>(1), I32({2, 3}), I32({3, 3})}),
                "ConcatOffset", "All dimensions except 1 must match");
  ExpectInvalid(RunOp("ConcatOffset", {{"N", 2}},
                    {Tensor::Scalar<int32_t>(2), I32({2, 3}), I32({2, 3})}),
                "ConcatOffset", "Concat dim is out of range: 2 vs. 2");
}

// ---- Pack and Unpack ----

TEST(PackTest, StacksAlongANewAxis) {
  const Tensor a = F({1, 2, 3}, {3}), b = F({4, 5, 6}, {3});
  auto rows = RunOp("Pack", {{"N", 2}, {"T", DT_FLOAT}}, {a, b});
  ASSERT_TRUE(rows.ok()) << rows.status();
  ExpectTensorEqual((*rows)[0], F({1, 2, 3, 4, 5, 6}, {2, 3}));
  auto cols = RunOp("Pack", {{"N", 2}, {"T", DT_FLOAT}, {"axis", -1}}, {a, b});
  ASSERT_TRUE(cols.ok()) << cols.status();
  ExpectTensorEqual((*cols)[0], F({1, 4, 2, 5, 3, 6}, {3, 2}));
  auto scalars = RunOp("Pack", {{"N", 2}, {"T", DT_INT64}},
                     {Tensor::Scalar<int64_t>(7), Tensor::Scalar<int64_t>(8)});
  ASSERT_TRUE(scalars.ok()) << scalars.status();
  ExpectTensorEqual((*scalars)[0], I64({7, 8}));
  ExpectInvalid(RunOp("Pack", {{"N", 2}, {"T", DT_FLOAT}}, {a, F({1, 2}, {2})}), "Pack",
                "Shapes of all inputs must match");
  ExpectInvalid(RunOp("Pack", {{"N", 2}, {"T", DT_FLOAT}, {"axis", 2}}, {a, b}), "Pack",
                "axis = 2 not in [-2, 2)");
}

TEST(UnpackTest, UnstacksAlongAnAxis) {
  const Tensor x = F({1, 2, 3, 4, 5, 6}, {2, 3});
  auto cols = RunOp("Unpack", {{"num", 3}, {"T", DT_FLOAT}, {"axis", 1}}, {x});
  ASSERT_TRUE(cols.ok()) << cols.status();
  ASSERT_EQ(cols->size(), 3u);
  ExpectTensorEqual((*cols)[0], F({1, 4}, {2}));
  ExpectTensorEqual((*cols)[2], F({3, 6}, {2}));
  auto rows = RunOp("Unpack", {{"num", 2}, {"T", DT_FLOAT}}, {x});
  ASSERT_TRUE(rows.ok()) << rows.status();
  ExpectTensorEqual((*rows)[1], F({4, 5, 6}, {3}));
  ExpectInvalid(RunOp("Unpack", {{"num", 3}, {"T", DT_FLOAT}}, {x}), "Unpack",
                "Input shape axis 0 must equal 3");
  auto inferred = InferShapes(MakeNodeDef("u", "Unpack", {{"num", 3}, {"T", DT_FLOAT},
                                                          {"axis", -1}}),
                              {PartialTensorShape({-1, 3})});
  ASSERT_TRUE(inferred.ok()) << inferred.status();
  EXPECT_EQ((*inferred)[2], PartialTensorShape({-1}));
}

// ---- Split and SplitV ----

TEST(SplitTest, EqualPieces) {
  const Tensor x = F({1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}, {2, 6});
  auto out = RunOp("Split", {{"num_split", 3}, {"T", DT_FLOAT}}, {Tensor::Scalar<int32_t>(-1), x});
  ASSERT_TRUE(out.ok()) << out.status();
  ExpectTensorEqual((*out)[0], F({1, 2, 7, 8}, {2, 2}));
  ExpectTensorEqual((*out)[2], F({5, 6, 11, 12}, {2, 2}));
  auto one = RunOp("Split", {{"num_split", 1}, {"T", DT_FLOAT}}, {Tensor::Scalar<int32_t>(0), x});
  ASSERT_TRUE(one.ok());
  ExpectTensorEqual((*one)[0], x);
  ExpectInvalid(RunOp("Split", {{"num_split", 4}, {"T", DT_FLOAT}}, {Tensor::Scalar<int32_t>(1), x}),
                "Split", "evenly divide the split dimension");
  ExpectInvalid(RunOp("Split", {{"num_split", 2}, {"T", DT_FLOAT}}, {Tensor::Scalar<int32_t>(2), x}),
                "Split", "split_dim 2 is out of range");
}

TEST(SplitVTest, SizesWithOneInferred) {
  const Tensor x = F({1, 2, 3, 4, 5, 6, 7, 8, 9, 10}, {5, 2});
  auto out = RunOp("SplitV", {{"num_split", 3}, {"T", DT_FLOAT}},
                 {x, I64({1, -1, 2}), Tensor::Scalar<int32_t>(0)});
  ASSERT_TRUE(out.ok()) << out.status();
  ExpectTensorEqual((*out)[0], F({1, 2}, {1, 2}));
  ExpectTensorEqual((*out)[1], F({3, 4, 5, 6}, {2, 2}));
  ExpectTensorEqual((*out)[2], F({7, 8, 9, 10}, {2, 2}));
  const AttrValueMap attrs = {{"num_split", 2}, {"T", DT_FLOAT}, {"Tlen", DT_INT32}};
  ExpectInvalid(RunOp("SplitV", attrs, {x, I32({-1, -1}), Tensor::Scalar<int32_t>(0)}), "SplitV",
                "There can only be one -1 in the input.");
  ExpectInvalid(RunOp("SplitV", attrs, {x, I32({2, 2}), Tensor::Scalar<int32_t>(0)}), "SplitV",
                "Determined shape must either match input shape");
  const Tensor sizes = I32({3, -1});
  const Tensor dim = Tensor::Scalar<int32_t>(0);
  auto inferred = InferShapes(MakeNodeDef("s", "SplitV", attrs),
                              {PartialTensorShape({5, 2}), PartialTensorShape({2}),
                               PartialTensorShape({})},
                              {nullptr, &sizes, &dim});
  ASSERT_TRUE(inferred.ok()) << inferred.status();
  EXPECT_EQ((*inferred)[0], PartialTensorShape({3, 2}));
  EXPECT_EQ((*inferred)[1], PartialTensorShape({-1, 2}));
}

// ---- Tile, Pad, BroadcastTo ----

TEST(TileTest, RepeatsEachDimension) {
  const Tensor x = F({1, 2, 3, 4}, {2, 2});
  auto out = RunOp("Tile", {{"T", DT_FLOAT}}, {x, I32({2, 3})});
  ASSERT_TRUE(out.ok()) << out.status();
  ExpectTensorEqual((*out)[0], F({1, 2, 1, 2, 1, 2, 3, 4, 3, 4, 3, 4,  //
                                  1, 2, 1, 2, 1, 2, 3, 4, 3, 4, 3, 4},
                                 {4, 6}));
  auto zero = RunOp("Tile", {{"T", DT_FLOAT}, {"Tmultiples", DT_INT64}}, {x, I64({0, 1})});
  ASSERT_TRUE(zero.ok()) << zero.status();
  EXPECT_EQ((*zero)[0].shape(), TensorShape({0, 2}));
  ExpectInvalid(RunOp("Tile", {{"T", DT_FLOAT}}, {x, I32({2})}), "Tile",
                "Expected multiples argument to be a vector of length 2 but got length 1");
  ExpectInvalid(RunOp("Tile", {{"T", DT_FLOAT}}, {x, I32({1, -1})}), "Tile",
                "Expected multiples[1] >= 0, but got -1");
}

TEST(PadTest, ZerosOrAConstantAround) {
  const Tensor x = F({1, 2, 3, 4, 5, 6}, {2, 3});
  const Tensor paddings = Tensor::FromVector<int32_t>({1, 0, 0, 2}, TensorShape({2, 2}));
  auto out = RunOp("Pad", {{"T", DT_FLOAT}}, {x, paddings});
  ASSERT_TRUE(out.ok()) << out.status();
  ExpectTensorEqual((*out)[0],
                    F({0, 0, 0, 0, 0, 1, 2, 3, 0, 0, 4, 5, 6, 0, 0}, {3, 5}));
  auto v2 = RunOp("PadV2", {{"T", DT_INT64}},
                {I64({1, 2}), Tensor::FromVector<int32_t>({2, 1}, TensorShape({1, 2})),
                 Tensor::Scalar<int64_t>(-7)});
  ASSERT_TRUE(v2.ok()) << v2.status();
  ExpectTensorEqual((*v2)[0], I64({-7, -7, 1, 2, -7}));
  ExpectInvalid(RunOp("Pad", {{"T", DT_FLOAT}},
                    {x, Tensor::FromVector<int32_t>({1, 0, -1, 0}, TensorShape({2, 2}))}),
                "Pad", "Paddings must be non-negative: -1 0");
  ExpectInvalid(RunOp("Pad", {{"T", DT_FLOAT}},
                    {x, Tensor::FromVector<int32_t>({1, 0}, TensorShape({1, 2}))}),
                "Pad", "The first dimension of paddings must be the rank of inputs");
  auto inferred = InferShapes(MakeNodeDef("p", "Pad", {{"T", DT_FLOAT}}),
                              {PartialTensorShape({-1, 3}), PartialTensorShape({2, 2})},
                              {nullptr, &paddings});
  ASSERT_TRUE(inferred.ok()) << inferred.status();
  EXPECT_EQ((*inferred)[0], PartialTensorShape({-1, 5}));
}

TEST(BroadcastToTest, StretchesSizeOneAndMissingDimensions) {
  auto row = RunOp("BroadcastTo", {{"T", DT_FLOAT}}, {F({1, 2, 3}, {3}), I32({2, 3})});
  ASSERT_TRUE(row.ok()) << row.status();
  ExpectTensorEqual((*row)[0], F({1, 2, 3, 1, 2, 3}, {2, 3}));
  auto col = RunOp("BroadcastTo", {{"T", DT_FLOAT}, {"Tidx", DT_INT64}},
                 {F({1, 2}, {2, 1}), I64({2, 3})});
  ASSERT_TRUE(col.ok()) << col.status();
  ExpectTensorEqual((*col)[0], F({1, 1, 1, 2, 2, 2}, {2, 3}));
  ExpectInvalid(RunOp("BroadcastTo", {{"T", DT_FLOAT}}, {F({1, 2}, {2}), I32({2, 3})}),
                "BroadcastTo", "Incompatible shapes: [2] vs. [2,3]");
}

// ---- BroadcastGradientArgs ----

TEST(BroadcastGradientArgsTest, ReductionIndicesOfBothOperands) {
  struct Case {
    std::vector<int32_t> s0, s1, r0, r1;
  };
  const std::vector<Case> cases = {{{2, 3, 5}, {1}, {}, {0, 1, 2}},
                                   {{2, 3, 5}, {2, 3, 5}, {}, {}},
                                   {{2, 1}, {1, 3}, {1}, {0}},
                                   {{1, 1}, {1}, {0, 1}, {0, 1}},
                                   {{}, {4, 2}, {0, 1}, {}}};
  for (const Case& c : cases) {
    auto vec = [](const std::vector<int32_t>& v) {
      return Tensor::FromVector<int32_t>(v, TensorShape({static_cast<int64_t>(v.size())}));
    };
    auto out = RunOp("BroadcastGradientArgs", {}, {vec(c.s0), vec(c.s1)});
    ASSERT_TRUE(out.ok()) << out.status();
    ExpectTensorEqual((*out)[0], vec(c.r0));
    ExpectTensorEqual((*out)[1], vec(c.r1));
  }
  auto wide = RunOp("BroadcastGradientArgs", {{"T", DT_INT64}}, {I64({3, 1}), I64({4})});
  ASSERT_TRUE(wide.ok()) << wide.status();
  ExpectTensorEqual((*wide)[0], I64({1}));
  ExpectTensorEqual((*wide)[1], I64({0}));
  ExpectInvalid(RunOp("BroadcastGradientArgs", {}, {I32({2, 3}), I32({4})}),
                "BroadcastGradientArgs", "Incompatible shapes: [2,3] vs. [4]");
}

// ---- Squeeze, ExpandDims, Size, Rank ----

TEST(SqueezeTest, DropsSizeOneDimensionsAndSharesTheBuffer) {
  const Tensor x = F({1, 2, 3, 4, 5, 6}, {1, 2, 1, 3});
  auto all = RunOp("Squeeze", {{"T", DT_FLOAT}}, {x});
  ASSERT_TRUE(all.ok()) << all.status();
  EXPECT_EQ((*all)[0].shape(), TensorShape({2, 3}));
  auto some = RunOp("Squeeze", {{"T", DT_FLOAT}, {"squeeze_dims", std::vector<int64_t>{-2}}}, {x});
  ASSERT_TRUE(some.ok()) << some.status();
  EXPECT_EQ((*some)[0].shape(), TensorShape({1, 2, 3}));
  ExpectInvalid(RunOp("Squeeze", {{"T", DT_FLOAT}, {"squeeze_dims", std::vector<int64_t>{1}}}, {x}),
                "Squeeze", "Can not squeeze dim[1], expected a dimension of 1, got 2");
  auto inferred = InferShapes(
      MakeNodeDef("s", "Squeeze", {{"T", DT_FLOAT}, {"squeeze_dims", std::vector<int64_t>{0}}}),
      {PartialTensorShape({1, -1, 1})});
  ASSERT_TRUE(inferred.ok()) << inferred.status();
  EXPECT_EQ((*inferred)[0], PartialTensorShape({-1, 1}));
}

TEST(ExpandDimsTest, InsertsASizeOneDimension) {
  const Tensor x = F({1, 2, 3, 4, 5, 6}, {2, 3});
  auto front = RunOp("ExpandDims", {{"T", DT_FLOAT}}, {x, Tensor::Scalar<int32_t>(0)});
  ASSERT_TRUE(front.ok()) << front.status();
  EXPECT_EQ((*front)[0].shape(), TensorShape({1, 2, 3}));
  auto back = RunOp("ExpandDims", {{"T", DT_FLOAT}, {"Tdim", DT_INT64}},
                  {x, Tensor::Scalar<int64_t>(-1)});
  ASSERT_TRUE(back.ok()) << back.status();
  ExpectTensorEqual((*back)[0], F({1, 2, 3, 4, 5, 6}, {2, 3, 1}));
  ExpectInvalid(RunOp("ExpandDims", {{"T", DT_FLOAT}}, {x, Tensor::Scalar<int32_t>(4)}),
                "ExpandDims", "Tried to expand dim index 4 for tensor with 2 dimensions.");
}

TEST(SizeRankTest, CountElementsAndDimensions) {
  const Tensor x(DT_BOOL, TensorShape({2, 0, 3}));
  auto size = RunOp("Size", {{"T", DT_BOOL}, {"out_type", DT_INT64}}, {F({1, 2, 3, 4}, {2, 2})});
  ASSERT_TRUE(size.ok()) << size.status();
  ExpectTensorEqual((*size)[0], Tensor::Scalar<int64_t>(4));
  auto rank = RunOp("Rank", {{"T", DT_BOOL}}, {x});
  ASSERT_TRUE(rank.ok()) << rank.status();
  ExpectTensorEqual((*rank)[0], Tensor::Scalar<int32_t>(3));
  // An attr naming a type Size does not output is rejected when building.
  KernelRunner bad(MakeNodeDef("node_Size", "Size", {{"T", DT_FLOAT}, {"out_type", DT_FLOAT}}));
  EXPECT_EQ(bad.status().code(), absl::StatusCode::kInvalidArgument);
}

// ---- Forwarding ops and InvertPermutation ----

TEST(ForwardingOpsTest, StopAndPreventGradientShareSnapshotCopies) {
  const Tensor x = F({1, 2, 3}, {3});
  for (const char* op : {"StopGradient", "PreventGradient"}) {
    KernelRunner runner(MakeNodeDef(op, op, {{"T", DT_FLOAT}}));
    ASSERT_TRUE(runner.status().ok()) << runner.status();
    auto out = runner.Run({x});
    ASSERT_TRUE(out.ok()) << out.status();
    EXPECT_TRUE((*out)[0].SharesBufferWith(x)) << op;
  }
  auto snap = RunOp("Snapshot", {{"T", DT_FLOAT}}, {x});
  ASSERT_TRUE(snap.ok()) << snap.status();
  ExpectTensorEqual((*snap)[0], x);
  EXPECT_FALSE((*snap)[0].SharesBufferWith(x));
  // A wrong input count is the error an op without checks of its own has.
  EXPECT_FALSE(RunOp("Snapshot", {{"T", DT_FLOAT}}, {x, x}).ok());
}

TEST(InvertPermutationTest, InvertsAndRejectsNonPermutations) {
  auto out = RunOp("InvertPermutation", {}, {I32({3, 4, 0, 2, 1})});
  ASSERT_TRUE(out.ok()) << out.status();
  ExpectTensorEqual((*out)[0], I32({2, 4, 3, 0, 1}));
  auto wide = RunOp("InvertPermutation", {{"T", DT_INT64}}, {I64({1, 0})});
  ASSERT_TRUE(wide.ok()) << wide.status();
  ExpectTensorEqual((*wide)[0], I64({1, 0}));
  ExpectInvalid(RunOp("InvertPermutation", {}, {I32({0, 0})}), "InvertPermutation",
                "0 is duplicated in the input.");
  ExpectInvalid(RunOp("InvertPermutation", {}, {I32({0, 3})}), "InvertPermutation",
                "x[1] = 3 is not in [0, 2)");
}

// ---- IdentityN ----

TEST(IdentityNTest, ForwardsEveryInputWithItsOwnTypeAndShape) {
  const Tensor f = F({1, 2, 3, 4}, {2, 2});
  const Tensor i = I64({5, -6});
  auto out = RunOp("IdentityN", {{"T", std::vector<DataType>{DT_FLOAT, DT_INT64}}}, {f, i});
  ASSERT_TRUE(out.ok()) << out.status();
  ASSERT_EQ(out->size(), 2u);
  ExpectTensorEqual((*out)[0], f);
  ExpectTensorEqual((*out)[1], i);
  auto shapes = InferShapes(MakeNodeDef("n", "IdentityN",
                                        {{"T", std::vector<DataType>{DT_FLOAT, DT_INT64}}}),
                            {PartialTensorShape({2, -1}), PartialTensorShape({2})});
  ASSERT_TRUE(shapes.ok()) << shapes.status();
  EXPECT_EQ((*shapes)[0], PartialTensorShape({2, -1}));
  EXPECT_EQ((*shapes)[1], PartialTensorShape({2}));
}

// A graph whose `op` node (attrs `attrs`) reads a float and an int64
// constant: its creation fails when the node's types do not match them.
absl::Status BuildWithFloatAndInt64Inputs(const std::string& op, AttrValueMap attrs) {
  GraphDef g;
  g.node.push_back(MakeNodeDef("f", "Const", {{"dtype", DT_FLOAT}, {"value", F({1}, {1})}}));
  g.node.push_back(MakeNodeDef("i", "Const", {{"dtype", DT_INT64}, {"value", I64({2})}}));
  NodeDef n = MakeNodeDef("n", op, std::move(attrs));
  n.input = {"f", "i"};
  g.node.push_back(n);
  return ConvertGraphDefToGraph(g).status();
}

TEST(IdentityNTest, AnInputOfAnotherTypeThanTIsAnError) {
  absl::Status s =
      BuildWithFloatAndInt64Inputs("IdentityN", {{"T", std::vector<DataType>{DT_FLOAT, DT_FLOAT}}});
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << s;
  EXPECT_THAT(s.message(), HasSubstr("input 1 ('i') has type int64, expected float"));
  EXPECT_TRUE(BuildWithFloatAndInt64Inputs(
                  "IdentityN", {{"T", std::vector<DataType>{DT_FLOAT, DT_INT64}}})
                  .ok());
}

// ---- ShapeN ----

TEST(ShapeNTest, GivesEveryInputsShape) {
  auto out = RunOp("ShapeN", {{"N", 2}, {"T", DT_FLOAT}, {"out_type", DT_INT64}},
                   {F({1, 2, 3, 4, 5, 6}, {2, 3}), F({7}, {1})});
  ASSERT_TRUE(out.ok()) << out.status();
  ASSERT_EQ(out->size(), 2u);
  ExpectTensorEqual((*out)[0], I64({2, 3}));
  ExpectTensorEqual((*out)[1], I64({1}));
}

TEST(ShapeNTest, InputsOfSeveralTypesAreAnError) {
  absl::Status s = BuildWithFloatAndInt64Inputs("ShapeN", {{"N", 2}, {"T", DT_FLOAT}});
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << s;
  EXPECT_THAT(s.message(), HasSubstr("has type int64, expected float"));
}

}  // namespace
}  // namespace minitf
