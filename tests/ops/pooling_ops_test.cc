// Tests of MaxPool and MaxPoolGrad: kernels against hand-computed values
// (ties, overlapping windows, SAME padding with negative inputs) and against
// the direct-loop reference of conv_reference.h on random inputs, and the
// shape functions.
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "tests/ops/conv_reference.h"
#include "tests/testlib/kernel_runner.h"

namespace minitf {
namespace {

using test::ExpectTensorEqual;
using test::InferShapes;
using test::KernelRunner;
using test::MakeNodeDef;
using test::PoolSpec;
using test::RandomTensor;

NodeDef PoolNode(const std::string& op, const PoolSpec& s, DataType dtype = DT_FLOAT) {
  return MakeNodeDef("pool", op,
                     {{"T", dtype},
                      {"ksize", std::vector<int64_t>{1, s.window_rows, s.window_cols, 1}},
                      {"strides", std::vector<int64_t>{1, s.stride_rows, s.stride_cols, 1}},
                      {"padding", s.same ? "SAME" : "VALID"}});
}

Tensor Image(std::initializer_list<float> values, int64_t rows, int64_t cols, int64_t depth = 1) {
  return Tensor::FromVector<float>(values, TensorShape({1, rows, cols, depth}));
}

Tensor RunOne(NodeDef def, const std::vector<Tensor>& inputs, int threads = 2) {
  KernelRunner runner(std::move(def), threads);
  auto out = runner.Run(inputs);
  EXPECT_TRUE(out.ok()) << out.status();
  return out.ok() ? (*out)[0] : Tensor();
}

// MaxPool then MaxPoolGrad of `x` with output gradient `dy`.
Tensor RunGrad(const PoolSpec& s, const Tensor& x, const Tensor& dy, int threads = 2) {
  const Tensor y = RunOne(PoolNode("MaxPool", s), {x}, threads);
  return RunOne(PoolNode("MaxPoolGrad", s), {x, y, dy}, threads);
}

constexpr PoolSpec k2x2Stride2 = {
    .window_rows = 2, .window_cols = 2, .stride_rows = 2, .stride_cols = 2};

// x = [-1 -2 -3; -4 -5 -6; -7 -8 -9]: if padding counted as 0 it would win.
const Tensor& NegativeImage() {
  static const Tensor* x = new Tensor(Image({-1, -2, -3, -4, -5, -6, -7, -8, -9}, 3, 3));
  return *x;
}

// ---- MaxPool ----

TEST(MaxPoolTest, TakesTheMaximumOfEachWindow) {
  const Tensor x = Image({1, 5, 2, 0, 3, 4, 8, 6, -1, -2, 0, 9, -3, -4, 7, 1}, 4, 4);
  ExpectTensorEqual(RunOne(PoolNode("MaxPool", k2x2Stride2), {x}), Image({5, 8, -1, 9}, 2, 2));
}

TEST(MaxPoolTest, PoolsEachChannelSeparately) {
  const Tensor x = Image({1, 8, 4, 5, 3, 6, 2, 7}, 2, 2, 2);
  ExpectTensorEqual(RunOne(PoolNode("MaxPool", k2x2Stride2), {x}), Image({4, 8}, 1, 1, 2));
}

TEST(MaxPoolTest, SamePaddingNeverWins) {
  // 2x2 stride 2: one padding row and column after; the clipped windows are
  // [-3; -6], [-7 -8] and [-9].
  PoolSpec same = k2x2Stride2;
  same.same = true;
  ExpectTensorEqual(RunOne(PoolNode("MaxPool", same), {NegativeImage()}),
                    Image({-1, -3, -7, -9}, 2, 2));
  // 3x3 stride 1: one padding row and column on every side.
  ExpectTensorEqual(RunOne(PoolNode("MaxPool", {.window_rows = 3, .window_cols = 3, .same = true}),
                           {NegativeImage()}),
                    Image({-1, -1, -2, -1, -1, -2, -4, -4, -5}, 3, 3));
}

// ---- MaxPoolGrad ----

TEST(MaxPoolGradTest, TiesSendTheGradientToTheFirstMaximum) {
  const Tensor g = Image({7}, 1, 1);
  ExpectTensorEqual(RunGrad(k2x2Stride2, Image({3, 3, 3, 3}, 2, 2), g), Image({7, 0, 0, 0}, 2, 2));
  // Row-major order: (0, 1) comes before (1, 0).
  ExpectTensorEqual(RunGrad(k2x2Stride2, Image({1, 5, 5, 2}, 2, 2), g), Image({0, 7, 0, 0}, 2, 2));
}

TEST(MaxPoolGradTest, OverlappingWindowsAddUp) {
  const PoolSpec overlapping = {.window_rows = 2, .window_cols = 2};
  const Tensor g = Image({1, 2, 3, 4}, 2, 2);
  // The centre is the maximum of all four windows.
  ExpectTensorEqual(RunGrad(overlapping, Image({1, 2, 3, 4, 9, 5, 6, 7, 8}, 3, 3), g),
                    Image({0, 0, 0, 0, 10, 0, 0, 0, 0}, 3, 3));
  // Maxima 9, 5, 7 and 8, one per window.
  ExpectTensorEqual(RunGrad(overlapping, Image({9, 2, 3, 4, 1, 5, 6, 7, 8}, 3, 3), g),
                    Image({1, 0, 0, 0, 0, 2, 0, 3, 4}, 3, 3));
}

TEST(MaxPoolGradTest, SamePaddingRoutesToTheClippedWindowsFirstMaximum) {
  PoolSpec same = k2x2Stride2;
  same.same = true;
  ExpectTensorEqual(RunGrad(same, NegativeImage(), Image({1, 2, 3, 4}, 2, 2)),
                    Image({1, 0, 2, 0, 0, 0, 3, 0, 4}, 3, 3));
  // All equal, 3x3 SAME: each window's first element inside the input wins.
  const Tensor flat = Image({-5, -5, -5, -5, -5, -5, -5, -5, -5}, 3, 3);
  ExpectTensorEqual(RunGrad({.window_rows = 3, .window_cols = 3, .same = true}, flat,
                            Image({1, 1, 1, 1, 1, 1, 1, 1, 1}, 3, 3)),
                    Image({4, 2, 0, 2, 1, 0, 0, 0, 0}, 3, 3));
}

// ---- Against the direct-loop reference ----

struct PoolCase {
  TensorShape input;
  PoolSpec spec;
};

std::vector<PoolCase> ReferenceCases() {
  return {
      {{2, 7, 7, 3}, k2x2Stride2},
      {{1, 9, 8, 4},
       {.window_rows = 3, .window_cols = 3, .stride_rows = 2, .stride_cols = 2, .same = true}},
      {{3, 5, 6, 2}, {.window_rows = 3, .window_cols = 2, .stride_cols = 2, .same = true}},
      {{2, 6, 6, 1}, {}},
      {{1, 4, 4, 2}, {.window_rows = 4, .window_cols = 4}},
      {{1, 3, 3, 2}, {.window_rows = 5, .window_cols = 5, .same = true}},
      {{5, 12, 12, 8},
       {.window_rows = 2, .window_cols = 2, .stride_rows = 2, .stride_cols = 2, .same = true}},
  };
}

std::string Describe(const PoolCase& c) {
  return absl::StrCat("input ", c.input.DebugString(), " window ", c.spec.window_rows, "x",
                      c.spec.window_cols, " strides ", c.spec.stride_rows, "x", c.spec.stride_cols,
                      c.spec.same ? " SAME" : " VALID");
}

TEST(MaxPoolTest, MatchesDirectLoopReference) {
  uint32_t seed = 1;
  for (const PoolCase& c : ReferenceCases()) {
    SCOPED_TRACE(Describe(c));
    const Tensor x = RandomTensor<float>(c.input, seed++);
    const Tensor dy = RandomTensor<float>(test::RefPoolOutputShape(c.input, c.spec), seed++);
    for (int threads : {1, 4}) {
      // Maxima are copied and each input gets at most a few gradients, so
      // the results are exact.
      ExpectTensorEqual(RunOne(PoolNode("MaxPool", c.spec), {x}, threads),
                        test::RefMaxPool<float>(x, c.spec));
      test::ExpectTensorNear(RunGrad(c.spec, x, dy, threads),
                             test::RefMaxPoolGrad<float>(x, dy, c.spec), 1e-6, 1e-6);
    }
  }
}

TEST(MaxPoolTest, DoubleKernels) {
  const Tensor x = RandomTensor<double>(TensorShape({2, 5, 5, 3}), 9);
  const PoolSpec s = {.window_rows = 3, .window_cols = 3, .stride_rows = 2, .stride_cols = 2};
  const Tensor y = RunOne(PoolNode("MaxPool", s, DT_DOUBLE), {x});
  ExpectTensorEqual(y, test::RefMaxPool<double>(x, s));
  const Tensor dy = RandomTensor<double>(y.shape(), 10);
  ExpectTensorEqual(RunOne(PoolNode("MaxPoolGrad", s, DT_DOUBLE), {x, y, dy}),
                    test::RefMaxPoolGrad<double>(x, dy, s));
}

TEST(MaxPoolTest, EmptyBatch) {
  const Tensor x(DT_FLOAT, TensorShape({0, 4, 4, 3}));
  const Tensor y = RunOne(PoolNode("MaxPool", k2x2Stride2), {x});
  EXPECT_EQ(y.shape(), TensorShape({0, 2, 2, 3}));
  EXPECT_EQ(RunOne(PoolNode("MaxPoolGrad", k2x2Stride2), {x, y, y}).shape(), x.shape());
}

// ---- Shape functions ----

TEST(MaxPoolShapeTest, OutputFollowsPaddingArithmetic) {
  auto valid = InferShapes(PoolNode("MaxPool", k2x2Stride2), {PartialTensorShape({2, 7, 7, 3})});
  ASSERT_TRUE(valid.ok()) << valid.status();
  EXPECT_EQ((*valid)[0], PartialTensorShape({2, 3, 3, 3}));
  PoolSpec same = k2x2Stride2;
  same.same = true;
  auto partial = InferShapes(PoolNode("MaxPool", same), {PartialTensorShape({-1, 7, -1, 3})});
  ASSERT_TRUE(partial.ok()) << partial.status();
  EXPECT_EQ((*partial)[0], PartialTensorShape({-1, 4, -1, 3}));
  auto unknown = InferShapes(PoolNode("MaxPool", same), {PartialTensorShape()});
  ASSERT_TRUE(unknown.ok()) << unknown.status();
  EXPECT_EQ((*unknown)[0], PartialTensorShape::UnknownOfRank(4));
  auto grad =
      InferShapes(PoolNode("MaxPoolGrad", same),
                  {PartialTensorShape({2, 7, -1, 3}), PartialTensorShape(), PartialTensorShape()});
  ASSERT_TRUE(grad.ok()) << grad.status();
  EXPECT_EQ((*grad)[0], PartialTensorShape({2, 7, -1, 3}));
}

}  // namespace
}  // namespace minitf
