// Tests of the ops that take parts of tensors or index into them: Slice,
// StridedSlice (TensorFlow's masks: begin/end, ellipsis, new axis, shrink,
// negative strides), StridedSliceGrad, GatherV2, OneHot, Range,
// UnsortedSegmentSum and Unique (kernels, shape functions, errors).
#include <numeric>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "ops/standard_ops.h"
#include "ops/util/strided_slice.h"
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

// 0, 1, 2, ... as floats of `shape`.
Tensor Iota(const TensorShape& shape) {
  Tensor t(DT_FLOAT, shape);
  auto v = t.flat<float>();
  for (int64_t i = 0; i < v.size(); ++i) v(i) = static_cast<float>(i);
  return t;
}

// ---- Slice ----

TEST(SliceTest, BlockWithSizeToTheEnd) {
  const Tensor x = Iota({3, 4});
  auto out = RunOp("Slice", {{"T", DT_FLOAT}, {"Index", DT_INT32}}, {x, I32({1, 1}), I32({2, -1})});
  ASSERT_TRUE(out.ok()) << out.status();
  ExpectTensorEqual((*out)[0], F({5, 6, 7, 9, 10, 11}, {2, 3}));
  auto whole = RunOp("Slice", {{"T", DT_FLOAT}, {"Index", DT_INT64}}, {x, I64({0, 0}), I64({-1, 4})});
  ASSERT_TRUE(whole.ok()) << whole.status();
  ExpectTensorEqual((*whole)[0], x);
  const AttrValueMap attrs = {{"T", DT_FLOAT}, {"Index", DT_INT32}};
  ExpectInvalid(RunOp("Slice", attrs, {x, I32({4, 0}), I32({0, 1})}), "Slice",
                "Expected begin[0] in [0, 3], but got 4");
  ExpectInvalid(RunOp("Slice", attrs, {x, I32({0, 1}), I32({1, 4})}), "Slice",
                "Expected size[1] in [0, 3], but got 4");
  ExpectInvalid(RunOp("Slice", attrs, {x, I32({0}), I32({1})}), "Slice",
                "Expected begin and size arguments to be 1-D tensors of size 2");
}

// ---- StridedSlice ----

struct SliceSpec {
  std::vector<int64_t> begin, end, strides;
  StridedSliceMasks masks;
};

AttrValueMap SliceAttrs(const SliceSpec& s, DataType index = DT_INT64) {
  return {{"T", DT_FLOAT},
          {"Index", index},
          {"begin_mask", s.masks.begin_mask},
          {"end_mask", s.masks.end_mask},
          {"ellipsis_mask", s.masks.ellipsis_mask},
          {"new_axis_mask", s.masks.new_axis_mask},
          {"shrink_axis_mask", s.masks.shrink_axis_mask}};
}

Tensor Vec(const std::vector<int64_t>& v) {
  return Tensor::FromVector<int64_t>(v, TensorShape({static_cast<int64_t>(v.size())}));
}

absl::StatusOr<std::vector<Tensor>> Slice(const Tensor& x, const SliceSpec& s) {
  return RunOp("StridedSlice", SliceAttrs(s), {x, Vec(s.begin), Vec(s.end), Vec(s.strides)});
}

TEST(StridedSliceTest, ShrinkAndStep) {
  // x[1, :, ::2] of a [2, 3, 4] iota.
  auto out = Slice(Iota({2, 3, 4}), {{1, 0, 0}, {2, 0, 0}, {1, 1, 2},
                                     {.begin_mask = 6, .end_mask = 6, .shrink_axis_mask = 1}});
  ASSERT_TRUE(out.ok()) << out.status();
  ExpectTensorEqual((*out)[0], F({12, 14, 16, 18, 20, 22}, {3, 2}));
}

TEST(StridedSliceTest, NegativeStridesReverse) {
  // x[:, ::-1, -1]
  auto out = Slice(Iota({2, 3, 4}), {{0, 0, -1}, {0, 0, 0}, {1, -1, 1},
                                     {.begin_mask = 3, .end_mask = 3, .shrink_axis_mask = 4}});
  ASSERT_TRUE(out.ok()) << out.status();
  ExpectTensorEqual((*out)[0], F({11, 7, 3, 23, 19, 15}, {2, 3}));
  const Tensor v = Iota({6});
  struct Case {
    SliceSpec spec;
    Tensor expected;
  };
  const std::vector<Case> cases = {
      {{{0}, {0}, {-1}, {.begin_mask = 1, .end_mask = 1}}, F({5, 4, 3, 2, 1, 0}, {6})},  // v[::-1]
      {{{4}, {1}, {-2}, {}}, F({4, 2}, {2})},                                           // v[4:1:-2]
      {{{-2}, {0}, {1}, {.end_mask = 1}}, F({4, 5}, {2})},                              // v[-2:]
      {{{10}, {0}, {1}, {.end_mask = 1}}, Tensor(DT_FLOAT, TensorShape({0}))},          // v[10:]
      {{{-1}, {-10}, {-1}, {}}, F({5, 4, 3, 2, 1, 0}, {6})},                            // v[-1:-10:-1]
      {{{1}, {4}, {1}, {}}, F({1, 2, 3}, {3})},                                         // v[1:4]
  };
  for (const Case& c : cases) {
    auto got = Slice(v, c.spec);
    ASSERT_TRUE(got.ok()) << got.status();
    ExpectTensorEqual((*got)[0], c.expected);
  }
}

TEST(StridedSliceTest, EllipsisAndNewAxis) {
  // x[tf.newaxis, ..., 1:3]
  auto out = Slice(Iota({2, 3, 4}), {{0, 0, 1}, {0, 0, 3}, {1, 1, 1},
                                     {.ellipsis_mask = 2, .new_axis_mask = 1}});
  ASSERT_TRUE(out.ok()) << out.status();
  ExpectTensorEqual((*out)[0], F({1, 2, 5, 6, 9, 10, 13, 14, 17, 18, 21, 22}, {1, 2, 3, 2}));
  // x[..., 0, tf.newaxis]: the ellipsis covers the first two dimensions.
  auto last = Slice(Iota({2, 3, 4}), {{0, 0, 0}, {0, 1, 0}, {1, 1, 1},
                                      {.ellipsis_mask = 1, .new_axis_mask = 4,
                                       .shrink_axis_mask = 2}});
  ASSERT_TRUE(last.ok()) << last.status();
  ExpectTensorEqual((*last)[0], F({0, 4, 8, 12, 16, 20}, {2, 3, 1}));
}

TEST(StridedSliceTest, WholeInputSharesTheBuffer) {
  const Tensor x = Iota({2, 3});
  auto out = RunOp("StridedSlice", SliceAttrs({{0}, {0}, {1}, {.begin_mask = 1, .end_mask = 1}}, DT_INT32),
                 {x, I32({0}), I32({0}), I32({1})});
  ASSERT_TRUE(out.ok()) << out.status();
  ExpectTensorEqual((*out)[0], x);
  EXPECT_TRUE((*out)[0].SharesBufferWith(x));
}

TEST(StridedSliceTest, BadSpecsAreInvalidArgument) {
  const Tensor v = Iota({6});
  ExpectInvalid(Slice(v, {{7}, {8}, {1}, {.shrink_axis_mask = 1}}), "StridedSlice",
                "slice index 7 of dimension 0 out of bounds.");
  ExpectInvalid(Slice(v, {{0}, {6}, {0}, {}}), "StridedSlice", "strides[0] must be non-zero");
  ExpectInvalid(Slice(v, {{0, 0}, {1, 1}, {1, 1}, {}}), "StridedSlice",
                "Index out of range using input dim 1; input has only 1 dims");
  ExpectInvalid(Slice(v, {{0, 0}, {1, 1}, {1, 1}, {.ellipsis_mask = 3}}), "StridedSlice",
                "Multiple ellipses in slice spec not allowed");
  ExpectInvalid(RunOp("StridedSlice", SliceAttrs({}), {v, Vec({0}), Vec({1, 2}), Vec({1})}),
                "StridedSlice", "Expected begin, end, and strides to be 1D equal size tensors");
}

TEST(StridedSliceTest, ShapeFunctionWithConstantSpec) {
  const NodeDef def = MakeNodeDef(
      "s", "StridedSlice",
      SliceAttrs({{}, {}, {}, {.begin_mask = 6, .end_mask = 6, .shrink_axis_mask = 1}}));
  const Tensor b = Vec({1, 0, 0}), e = Vec({2, 0, 0}), s = Vec({1, 1, 2});
  auto inferred = InferShapes(def,
                              {PartialTensorShape({-1, 3, 4}), PartialTensorShape({3}),
                               PartialTensorShape({3}), PartialTensorShape({3})},
                              {nullptr, &b, &e, &s});
  ASSERT_TRUE(inferred.ok()) << inferred.status();
  EXPECT_EQ((*inferred)[0], PartialTensorShape({3, 2}));
}

TEST(StridedSliceGradTest, ScattersDyIntoZeros) {
  // The gradient of v[4:1:-2] for a [6] input.
  auto out = RunOp("StridedSliceGrad", SliceAttrs({}),
                 {Vec({6}), Vec({4}), Vec({1}), Vec({-2}), F({10, 20}, {2})});
  ASSERT_TRUE(out.ok()) << out.status();
  ExpectTensorEqual((*out)[0], F({0, 0, 20, 0, 10, 0}, {6}));
  // The gradient of x[1, :, ::2] for a [2, 2, 3] input.
  auto grad = RunOp("StridedSliceGrad",
                  SliceAttrs({{}, {}, {}, {.begin_mask = 6, .end_mask = 6, .shrink_axis_mask = 1}}),
                  {Vec({2, 2, 3}), Vec({1, 0, 0}), Vec({2, 0, 0}), Vec({1, 1, 2}),
                   F({1, 2, 3, 4}, {2, 2})});
  ASSERT_TRUE(grad.ok()) << grad.status();
  ExpectTensorEqual((*grad)[0], F({0, 0, 0, 0, 0, 0, 1, 0, 2, 3, 0, 4}, {2, 2, 3}));
  ExpectInvalid(RunOp("StridedSliceGrad", SliceAttrs({}),
                    {Vec({6}), Vec({4}), Vec({1}), Vec({-2}), F({1, 2, 3}, {3})}),
                "StridedSliceGrad", "shape of dy was [3] instead of [2]");
}

// ---- GatherV2 ----

TEST(GatherV2Test, AlongAnyAxisWithBatchDims) {
  const Tensor params = F({1, 2, 3, 4, 5, 6}, {3, 2});
  const AttrValueMap attrs = {{"Tparams", DT_FLOAT}, {"Tindices", DT_INT32}, {"Taxis", DT_INT32}};
  auto rows = RunOp("GatherV2", attrs, {params, I32({2, 0}), Tensor::Scalar<int32_t>(0)});
  ASSERT_TRUE(rows.ok()) << rows.status();
  ExpectTensorEqual((*rows)[0], F({5, 6, 1, 2}, {2, 2}));
  auto cols = RunOp("GatherV2", attrs, {params, I32({1, 1, 0}), Tensor::Scalar<int32_t>(-1)});
  ASSERT_TRUE(cols.ok()) << cols.status();
  ExpectTensorEqual((*cols)[0], F({2, 2, 1, 4, 4, 3, 6, 6, 5}, {3, 3}));
  auto batched = RunOp("GatherV2",
                     {{"Tparams", DT_FLOAT}, {"Tindices", DT_INT64}, {"Taxis", DT_INT64},
                      {"batch_dims", 1}},
                     {F({1, 2, 3, 4, 5, 6}, {2, 3}),
                      Tensor::FromVector<int64_t>({2, 0, 1, 1}, TensorShape({2, 2})),
                      Tensor::Scalar<int64_t>(1)});
  ASSERT_TRUE(batched.ok()) << batched.status();
  ExpectTensorEqual((*batched)[0], F({3, 1, 5, 5}, {2, 2}));
  ExpectInvalid(RunOp("GatherV2", attrs, {params, I32({0, 3}), Tensor::Scalar<int32_t>(0)}),
                "GatherV2", "indices[1] = 3 is not in [0, 3)");
  const Tensor axis = Tensor::Scalar<int32_t>(1);
  auto inferred = InferShapes(MakeNodeDef("g", "GatherV2", attrs),
                              {PartialTensorShape({-1, 5}), PartialTensorShape({2, 3}),
                               PartialTensorShape({})},
                              {nullptr, nullptr, &axis});
  ASSERT_TRUE(inferred.ok()) << inferred.status();
  EXPECT_EQ((*inferred)[0], PartialTensorShape({-1, 2, 3}));
}

// ---- OneHot ----

TEST(OneHotTest, RowsOfOnAndOffValues) {
  const Tensor indices = I64({0, 2, -1, 1});
  auto last = RunOp("OneHot", {{"T", DT_FLOAT}},
                  {indices, Tensor::Scalar<int32_t>(3), Tensor::Scalar<float>(5),
                   Tensor::Scalar<float>(0)});
  ASSERT_TRUE(last.ok()) << last.status();
  ExpectTensorEqual((*last)[0], F({5, 0, 0, 0, 0, 5, 0, 0, 0, 0, 5, 0}, {4, 3}));
  auto first = RunOp("OneHot", {{"T", DT_INT32}, {"TI", DT_INT32}, {"axis", 0}},
                   {I32({0, 2, -1, 1}), Tensor::Scalar<int32_t>(3), Tensor::Scalar<int32_t>(1),
                    Tensor::Scalar<int32_t>(-1)});
  ASSERT_TRUE(first.ok()) << first.status();
  ExpectTensorEqual((*first)[0],
                    Tensor::FromVector<int32_t>({1, -1, -1, -1, -1, -1, -1, 1, -1, 1, -1, -1},
                                                TensorShape({3, 4})));
  const std::vector<Tensor> inputs = {indices, Tensor::Scalar<int32_t>(-1),
                                      Tensor::Scalar<float>(1), Tensor::Scalar<float>(0)};
  ExpectInvalid(RunOp("OneHot", {{"T", DT_FLOAT}}, inputs), "OneHot",
                "depth must be non-negative, got: -1");
  ExpectInvalid(RunOp("OneHot", {{"T", DT_FLOAT}, {"axis", 5}},
                    {indices, Tensor::Scalar<int32_t>(3), Tensor::Scalar<float>(1),
                     Tensor::Scalar<float>(0)}),
                "OneHot", "Expected axis to be -1 or between [0, 2).  But received: 5");
}

// ---- Range ----

TEST(RangeTest, IntegerAndFloatSequences) {
  auto ints = RunOp("Range", {}, {Tensor::Scalar<int32_t>(0), Tensor::Scalar<int32_t>(10),
                                Tensor::Scalar<int32_t>(3)});
  ASSERT_TRUE(ints.ok()) << ints.status();
  ExpectTensorEqual((*ints)[0], I32({0, 3, 6, 9}));
  auto down = RunOp("Range", {{"Tidx", DT_INT64}},
                  {Tensor::Scalar<int64_t>(5), Tensor::Scalar<int64_t>(1),
                   Tensor::Scalar<int64_t>(-2)});
  ASSERT_TRUE(down.ok()) << down.status();
  ExpectTensorEqual((*down)[0], I64({5, 3}));
  auto floats = RunOp("Range", {{"Tidx", DT_FLOAT}},
                    {Tensor::Scalar<float>(0), Tensor::Scalar<float>(1),
                     Tensor::Scalar<float>(0.25f)});
  ASSERT_TRUE(floats.ok()) << floats.status();
  ExpectTensorEqual((*floats)[0], F({0, 0.25f, 0.5f, 0.75f}, {4}));
  ExpectInvalid(RunOp("Range", {}, {Tensor::Scalar<int32_t>(0), Tensor::Scalar<int32_t>(3),
                                  Tensor::Scalar<int32_t>(0)}),
                "Range", "Requires delta != 0: 0");
  ExpectInvalid(RunOp("Range", {}, {Tensor::Scalar<int32_t>(5), Tensor::Scalar<int32_t>(1),
                                  Tensor::Scalar<int32_t>(1)}),
                "Range", "Requires start <= limit when delta > 0: 5/1");
  const Tensor s = Tensor::Scalar<int32_t>(0), l = Tensor::Scalar<int32_t>(10),
               d = Tensor::Scalar<int32_t>(3);
  auto inferred = InferShapes(MakeNodeDef("r", "Range"),
                              {PartialTensorShape({}), PartialTensorShape({}),
                               PartialTensorShape({})},
                              {&s, &l, &d});
  ASSERT_TRUE(inferred.ok()) << inferred.status();
  EXPECT_EQ((*inferred)[0], PartialTensorShape({4}));
}

// ---- UnsortedSegmentSum ----

TEST(UnsortedSegmentSumTest, SumsRowsBySegment) {
  const Tensor data = F({1, 2, 3, 4, 5, 6}, {3, 2});
  const AttrValueMap attrs = {{"T", DT_FLOAT}, {"Tindices", DT_INT32}};
  auto out = RunOp("UnsortedSegmentSum", attrs, {data, I32({1, 0, 1}), Tensor::Scalar<int32_t>(3)});
  ASSERT_TRUE(out.ok()) << out.status();
  ExpectTensorEqual((*out)[0], F({3, 4, 6, 8, 0, 0}, {3, 2}));
  auto dropped =
      RunOp("UnsortedSegmentSum", attrs, {data, I32({0, -1, 0}), Tensor::Scalar<int32_t>(1)});
  ASSERT_TRUE(dropped.ok()) << dropped.status();
  ExpectTensorEqual((*dropped)[0], F({6, 8}, {1, 2}));
  auto matrix_ids = RunOp("UnsortedSegmentSum",
                        {{"T", DT_INT64}, {"Tindices", DT_INT64}, {"Tnumsegments", DT_INT64}},
                        {Tensor::FromVector<int64_t>({1, 2, 3, 4}, TensorShape({2, 2})),
                         Tensor::FromVector<int64_t>({0, 1, 1, 1}, TensorShape({2, 2})),
                         Tensor::Scalar<int64_t>(2)});
  ASSERT_TRUE(matrix_ids.ok()) << matrix_ids.status();
  ExpectTensorEqual((*matrix_ids)[0], I64({1, 9}));
  ExpectInvalid(RunOp("UnsortedSegmentSum", attrs,
                    {data, I32({0, 1, 5}), Tensor::Scalar<int32_t>(3)}),
                "UnsortedSegmentSum", "segment_ids[2] = 5 is out of range [0, 3)");
  ExpectInvalid(RunOp("UnsortedSegmentSum", attrs,
                    {data, I32({0, 1}), Tensor::Scalar<int32_t>(3)}),
                "UnsortedSegmentSum", "does not start with segment_ids.shape");
}

// ---- Unique ----

// TensorFlow's unique_op_test: x == y[idx] for every element, y in the
// order values first appear, idx of either index type.
TEST(UniqueTest, FirstAppearanceOrderAndPositions) {
  auto out = RunOp("Unique", {{"T", DT_INT32}, {"out_idx", DT_INT32}},
                   {I32({7, 3, 7, 7, -2, 3, 0})});
  ASSERT_TRUE(out.ok()) << out.status();
  ExpectTensorEqual((*out)[0], I32({7, 3, -2, 0}));
  ExpectTensorEqual((*out)[1], I32({0, 1, 0, 0, 2, 1, 3}));
  auto wide = RunOp("Unique", {{"T", DT_FLOAT}, {"out_idx", DT_INT64}},
                    {Tensor::FromVector<float>({0.5f, -0.0f, 0.5f, 0.0f})});
  ASSERT_TRUE(wide.ok()) << wide.status();
  // -0 and 0 compare equal: one value.
  ASSERT_EQ((*wide)[0].NumElements(), 2);
  EXPECT_EQ((*wide)[0].flat<float>()(0), 0.5f);
  ExpectTensorEqual((*wide)[1], I64({0, 1, 0, 1}));
  auto empty = RunOp("Unique", {{"T", DT_INT64}, {"out_idx", DT_INT32}},
                     {Tensor(DT_INT64, TensorShape({0}))});
  ASSERT_TRUE(empty.ok()) << empty.status();
  EXPECT_EQ((*empty)[0].shape(), TensorShape({0}));
  EXPECT_EQ((*empty)[1].shape(), TensorShape({0}));
}

TEST(UniqueTest, MatrixIsInvalidArgumentAndShapeFunctionSaysSo) {
  ExpectInvalid(RunOp("Unique", {{"T", DT_INT32}, {"out_idx", DT_INT32}},
                      {Tensor::FromVector<int32_t>({1, 2, 3, 4}, TensorShape({2, 2}))}),
                "Unique", "unique expects a 1D vector, got shape [2,2]");
  const NodeDef def = MakeNodeDef("u", "Unique", {{"T", DT_FLOAT}, {"out_idx", DT_INT32}});
  auto shapes = InferShapes(def, {PartialTensorShape({5})});
  ASSERT_TRUE(shapes.ok()) << shapes.status();
  EXPECT_EQ((*shapes)[0], PartialTensorShape({-1}));
  EXPECT_EQ((*shapes)[1], PartialTensorShape({5}));
  EXPECT_EQ(InferShapes(def, {PartialTensorShape({5, 2})}).status().code(),
            absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace minitf
