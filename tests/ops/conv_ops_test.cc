// Tests of Conv2D, Conv2DBackpropInput and Conv2DBackpropFilter: kernels
// against hand-computed values and against the direct-loop reference of
// conv_reference.h on random inputs, gradients against finite differences,
// empty tensors, and the shape functions.
//
// Tolerances: float results are compared with atol = rtol = 1e-4 (sums of at
// most 800 products of values in [-1, 1] accumulate float rounding of about
// 1e-5); double results with 1e-9.
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/ops/conv_reference.h"
#include "tests/testlib/kernel_runner.h"

namespace minitf {
namespace {

using test::ConvSpec;
using test::ExpectTensorNear;
using test::InferShapes;
using test::KernelRunner;
using test::MakeNodeDef;
using test::RandomTensor;
using test::SizesOf;

constexpr double kFloatTolerance = 1e-4;
constexpr double kDoubleTolerance = 1e-9;

NodeDef ConvNode(const std::string& op, const ConvSpec& s, DataType dtype = DT_FLOAT) {
  return MakeNodeDef("conv", op,
                     {{"T", dtype},
                      {"strides", std::vector<int64_t>{1, s.stride_rows, s.stride_cols, 1}},
                      {"dilations", std::vector<int64_t>{1, s.dilation_rows, s.dilation_cols, 1}},
                      {"padding", s.same ? "SAME" : "VALID"}});
}

Tensor Image(std::initializer_list<float> values, int64_t rows, int64_t cols, int64_t depth = 1) {
  return Tensor::FromVector<float>(values, TensorShape({1, rows, cols, depth}));
}

Tensor Zeros(const TensorShape& shape) {
  Tensor t(DT_FLOAT, shape);
  t.flat<float>().setZero();
  return t;
}

// Runs a one-output kernel on `threads` intra-op threads; fails the test on error.
Tensor RunOne(NodeDef def, const std::vector<Tensor>& inputs, int threads = 2) {
  KernelRunner runner(std::move(def), threads);
  auto out = runner.Run(inputs);
  EXPECT_TRUE(out.ok()) << out.status();
  return out.ok() ? (*out)[0] : Tensor();
}

// ---- Hand-computed cases ----

// x = [1 2 3; 4 5 6; 7 8 9], f = [1 2; 3 4] (one channel in and out).
const Tensor& HandInput() {
  static const Tensor* x = new Tensor(Image({1, 2, 3, 4, 5, 6, 7, 8, 9}, 3, 3));
  return *x;
}
const Tensor& HandFilter() {
  static const Tensor* f =
      new Tensor(Tensor::FromVector<float>({1, 2, 3, 4}, TensorShape({2, 2, 1, 1})));
  return *f;
}

TEST(Conv2DTest, ValidStrideOneMatchesHandComputation) {
  // 1*1 + 2*2 + 4*3 + 5*4 = 37, and so on for each 2x2 window.
  ExpectTensorNear(RunOne(ConvNode("Conv2D", {}), {HandInput(), HandFilter()}),
                   Image({37, 47, 67, 77}, 2, 2));
}

TEST(Conv2DTest, SamePadsOnlyAfterWhenThePaddingIsOdd) {
  // One row and one column of zeros go below and right: windows on the
  // last column see [3 0; 6 0] -> 3 + 18 = 21 and [6 0; 9 0] -> 6 + 27 = 33.
  ExpectTensorNear(RunOne(ConvNode("Conv2D", {.same = true}), {HandInput(), HandFilter()}),
                   Image({37, 47, 21, 67, 77, 33, 23, 26, 9}, 3, 3));
}

TEST(Conv2DTest, StrideTwo) {
  ExpectTensorNear(
      RunOne(ConvNode("Conv2D", {.stride_rows = 2, .stride_cols = 2}), {HandInput(), HandFilter()}),
      Image({37}, 1, 1));
  ExpectTensorNear(RunOne(ConvNode("Conv2D", {.stride_rows = 2, .stride_cols = 2, .same = true}),
                          {HandInput(), HandFilter()}),
                   Image({37, 21, 23, 9}, 2, 2));
}

TEST(Conv2DTest, SumsOverInputChannelsForEachOutputChannel) {
  // x = [1, 2] at one pixel; f = [[1 2 3]; [4 5 6]] maps 2 channels to 3.
  const Tensor f = Tensor::FromVector<float>({1, 2, 3, 4, 5, 6}, TensorShape({1, 1, 2, 3}));
  ExpectTensorNear(RunOne(ConvNode("Conv2D", {}), {Image({1, 2}, 1, 1, 2), f}),
                   Image({9, 12, 15}, 1, 1, 3));
}

TEST(Conv2DBackpropTest, GradientsMatchHandComputation) {
  const Tensor ones = Image({1, 1, 1, 1}, 2, 2);
  // Each input pixel collects the filter taps of the windows that cover it.
  ExpectTensorNear(RunOne(ConvNode("Conv2DBackpropInput", {}),
                          {SizesOf(TensorShape({1, 3, 3, 1})), HandFilter(), ones}),
                   Image({1, 3, 2, 4, 10, 6, 3, 7, 4}, 3, 3));
  // Each tap collects the inputs it multiplied: f[0,0] saw 1 + 2 + 4 + 5.
  ExpectTensorNear(RunOne(ConvNode("Conv2DBackpropFilter", {}),
                          {HandInput(), SizesOf(TensorShape({2, 2, 1, 1})), ones}),
                   Tensor::FromVector<float>({12, 16, 24, 28}, TensorShape({2, 2, 1, 1})));
}

// ---- Against the direct-loop reference ----

struct ConvCase {
  TensorShape input;
  TensorShape filter;
  ConvSpec spec;
};

std::string Describe(const ConvCase& c) {
  return absl::StrCat("input ", c.input.DebugString(), " filter ", c.filter.DebugString(),
                      " strides ", c.spec.stride_rows, "x", c.spec.stride_cols, " dilations ",
                      c.spec.dilation_rows, "x", c.spec.dilation_cols,
                      c.spec.same ? " SAME" : " VALID");
}

// Odd sizes, strides, dilations, filters larger than the input (SAME), 1x1
// filters (strided, and at stride 1), and cases big enough that the kernels split the positions
// into several tiles (one of them several tiles per image).
std::vector<ConvCase> ReferenceCases() {
  return {
      {{1, 5, 5, 1}, {3, 3, 1, 1}, {}},
      {{2, 7, 6, 3}, {3, 2, 3, 4}, {.stride_rows = 2, .same = true}},
      {{3, 8, 9, 2}, {2, 3, 2, 5}, {.stride_rows = 3, .stride_cols = 2}},
      {{2, 9, 9, 3}, {3, 3, 3, 2}, {.dilation_rows = 2, .dilation_cols = 2, .same = true}},
      {{1, 10, 7, 2}, {3, 2, 2, 3}, {.stride_rows = 2, .stride_cols = 3, .dilation_rows = 2}},
      {{2, 4, 4, 3}, {4, 4, 3, 2}, {}},
      {{1, 3, 3, 2}, {5, 5, 2, 2}, {.same = true}},
      {{2, 6, 6, 1}, {1, 1, 1, 3}, {.stride_rows = 2, .stride_cols = 2, .same = true}},
      {{4, 24, 24, 8}, {3, 3, 8, 6}, {.same = true}},
      {{2, 16, 16, 32}, {5, 5, 32, 4}, {.same = true}},
      // 1x1 at stride 1 (one matrix product with no im2col), VALID and SAME,
      // one big enough that the product is split over the pool.
      {{2, 5, 7, 3}, {1, 1, 3, 4}, {}},
      {{3, 4, 4, 6}, {1, 1, 6, 5}, {.same = true}},
      {{4, 28, 28, 16}, {1, 1, 16, 24}, {}},
  };
}

TEST(Conv2DTest, MatchesDirectLoopReference) {
  uint32_t seed = 1;
  for (const ConvCase& c : ReferenceCases()) {
    SCOPED_TRACE(Describe(c));
    const Tensor x = RandomTensor<float>(c.input, seed++);
    const Tensor f = RandomTensor<float>(c.filter, seed++);
    const Tensor expected = test::RefConv2D<float>(x, f, c.spec);
    for (int threads : {1, 4}) {
      ExpectTensorNear(RunOne(ConvNode("Conv2D", c.spec), {x, f}, threads), expected,
                       kFloatTolerance, kFloatTolerance);
    }
  }
}

TEST(Conv2DBackpropTest, MatchesTheReferenceGradients) {
  uint32_t seed = 100;
  for (const ConvCase& c : ReferenceCases()) {
    SCOPED_TRACE(Describe(c));
    const Tensor x = RandomTensor<float>(c.input, seed++);
    const Tensor f = RandomTensor<float>(c.filter, seed++);
    const Tensor dy =
        RandomTensor<float>(test::RefConvOutputShape(c.input, c.filter, c.spec), seed++);
    const Tensor dx = test::RefConv2DBackpropInput<float>(c.input, f, dy, c.spec);
    const Tensor df = test::RefConv2DBackpropFilter<float>(x, c.filter, dy, c.spec);
    for (int threads : {1, 4}) {
      ExpectTensorNear(
          RunOne(ConvNode("Conv2DBackpropInput", c.spec), {SizesOf(c.input), f, dy}, threads), dx,
          kFloatTolerance, kFloatTolerance);
      ExpectTensorNear(
          RunOne(ConvNode("Conv2DBackpropFilter", c.spec), {x, SizesOf(c.filter), dy}, threads), df,
          kFloatTolerance, kFloatTolerance);
    }
  }
}

// loss(x, f) = sum(Conv2D(x, f) * dy); its gradients are the backprop ops'
// outputs. Central differences of a loss linear in each argument are exact
// up to rounding, so the comparison is tight.
TEST(Conv2DBackpropTest, MatchesFiniteDifferencesOfAScalarLoss) {
  const std::vector<ConvCase> cases = {
      {{1, 4, 5, 2}, {2, 3, 2, 2}, {.stride_rows = 2, .same = true}},
      {{2, 5, 5, 1}, {2, 2, 1, 3}, {.stride_cols = 2, .dilation_rows = 2}},
  };
  uint32_t seed = 200;
  for (const ConvCase& c : cases) {
    SCOPED_TRACE(Describe(c));
    Tensor x = RandomTensor<double>(c.input, seed++);
    Tensor f = RandomTensor<double>(c.filter, seed++);
    const Tensor dy =
        RandomTensor<double>(test::RefConvOutputShape(c.input, c.filter, c.spec), seed++);
    KernelRunner conv(ConvNode("Conv2D", c.spec, DT_DOUBLE));
    auto loss = [&]() {
      auto y = conv.Run({x, f});
      EXPECT_TRUE(y.ok()) << y.status();
      double sum = 0;
      for (int64_t i = 0; i < dy.NumElements(); ++i) {
        sum += (*y)[0].flat<double>()(i) * dy.flat<double>()(i);
      }
      return sum;
    };
    // d(loss)/d(t[i]) for every element of t (x or f), by central differences.
    auto numeric_gradient = [&](Tensor& t) {
      constexpr double kStep = 1e-3;
      Tensor grad(DT_DOUBLE, t.shape());
      for (int64_t i = 0; i < t.NumElements(); ++i) {
        const double saved = t.flat<double>()(i);
        t.flat<double>()(i) = saved + kStep;
        const double up = loss();
        t.flat<double>()(i) = saved - kStep;
        const double down = loss();
        t.flat<double>()(i) = saved;
        grad.flat<double>()(i) = (up - down) / (2 * kStep);
      }
      return grad;
    };
    ExpectTensorNear(
        RunOne(ConvNode("Conv2DBackpropInput", c.spec, DT_DOUBLE), {SizesOf(c.input), f, dy}),
        numeric_gradient(x), kDoubleTolerance, kDoubleTolerance);
    ExpectTensorNear(
        RunOne(ConvNode("Conv2DBackpropFilter", c.spec, DT_DOUBLE), {x, SizesOf(c.filter), dy}),
        numeric_gradient(f), kDoubleTolerance, kDoubleTolerance);
  }
}

// ---- Empty tensors ----

TEST(Conv2DTest, EmptyBatchAndEmptyDepth) {
  const Tensor no_images(DT_FLOAT, TensorShape({0, 4, 4, 2}));
  const Tensor f = RandomTensor<float>(TensorShape({3, 3, 2, 5}), 7);
  Tensor y = RunOne(ConvNode("Conv2D", {.same = true}), {no_images, f});
  EXPECT_EQ(y.shape(), TensorShape({0, 4, 4, 5}));
  // No input channels: every output is an empty sum.
  Tensor zeros = RunOne(ConvNode("Conv2D", {}), {Tensor(DT_FLOAT, TensorShape({1, 3, 3, 0})),
                                                 Tensor(DT_FLOAT, TensorShape({2, 2, 0, 2}))});
  ExpectTensorNear(zeros, Zeros(TensorShape({1, 2, 2, 2})));
  // No positions: the filter gradient is zero.
  Tensor df = RunOne(ConvNode("Conv2DBackpropFilter", {.same = true}),
                     {no_images, SizesOf(f.shape()), Tensor(DT_FLOAT, TensorShape({0, 4, 4, 5}))});
  ExpectTensorNear(df, Zeros(f.shape()));
}

// ---- Shape functions ----

TEST(Conv2DShapeTest, OutputFollowsPaddingArithmetic) {
  auto shapes = InferShapes(ConvNode("Conv2D", {.stride_rows = 2, .same = true}),
                            {PartialTensorShape({2, 7, 6, 3}), PartialTensorShape({3, 2, 3, 4})});
  ASSERT_TRUE(shapes.ok()) << shapes.status();
  EXPECT_EQ((*shapes)[0], PartialTensorShape({2, 4, 6, 4}));
  auto valid = InferShapes(ConvNode("Conv2D", {.stride_cols = 2, .dilation_rows = 2}),
                           {PartialTensorShape({-1, 9, 8, 3}), PartialTensorShape({3, 3, -1, 5})});
  ASSERT_TRUE(valid.ok()) << valid.status();
  // Rows: effective filter 5, (9 - 5) / 1 + 1 = 5; cols: (8 - 3) / 2 + 1 = 3.
  EXPECT_EQ((*valid)[0], PartialTensorShape({-1, 5, 3, 5}));
  auto unknown =
      InferShapes(ConvNode("Conv2D", {}), {PartialTensorShape(), PartialTensorShape({3, 3, 1, 8})});
  ASSERT_TRUE(unknown.ok()) << unknown.status();
  EXPECT_EQ((*unknown)[0], PartialTensorShape({-1, -1, -1, 8}));
}

TEST(Conv2DShapeTest, BackpropShapesComeFromConstantSizes) {
  const Tensor input_sizes = SizesOf(TensorShape({2, 7, 6, 3}));
  auto known = InferShapes(
      ConvNode("Conv2DBackpropInput", {.same = true}),
      {PartialTensorShape({4}), PartialTensorShape({3, 2, 3, 4}), PartialTensorShape({2, 7, 6, 4})},
      {&input_sizes});
  ASSERT_TRUE(known.ok()) << known.status();
  EXPECT_EQ((*known)[0], PartialTensorShape({2, 7, 6, 3}));
  const Tensor filter_sizes = SizesOf(TensorShape({3, 2, 3, 4}));
  auto filter = InferShapes(
      ConvNode("Conv2DBackpropFilter", {.same = true}),
      {PartialTensorShape({2, 7, 6, 3}), PartialTensorShape({4}), PartialTensorShape({2, 7, 6, 4})},
      {nullptr, &filter_sizes});
  ASSERT_TRUE(filter.ok()) << filter.status();
  EXPECT_EQ((*filter)[0], PartialTensorShape({3, 2, 3, 4}));
  // Sizes computed at run time: only the rank is known.
  for (const PartialTensorShape& sizes_shape : {PartialTensorShape({4}), PartialTensorShape()}) {
    auto unknown =
        InferShapes(ConvNode("Conv2DBackpropInput", {}),
                    {sizes_shape, PartialTensorShape({3, 2, 3, 4}), PartialTensorShape()});
    ASSERT_TRUE(unknown.ok()) << unknown.status();
    EXPECT_EQ((*unknown)[0], PartialTensorShape::UnknownOfRank(4));
  }
}

}  // namespace
}  // namespace minitf
