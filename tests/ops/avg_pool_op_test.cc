// Tests of AvgPool and AvgPoolGrad: hand-computed values (SAME windows
// clipped by the padding divide by the elements they cover, as TensorFlow's
// CPU kernel), a direct-loop reference on random inputs, the gradient
// against finite differences of the forward op, the shape functions, and
// the errors (bad attrs, shapes and orig_input_shape values).
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/ops/conv_reference.h"
#include "tests/testlib/kernel_runner.h"

namespace minitf {
namespace {

using test::ExpectTensorNear;
using test::InferShapes;
using test::KernelRunner;
using test::MakeNodeDef;
using test::PoolSpec;
using test::RandomTensor;
using test::SizesOf;
using ::testing::AllOf;
using ::testing::HasSubstr;

AttrValueMap PoolAttrs(const PoolSpec& s, DataType dtype) {
  return {{"T", dtype},
          {"ksize", std::vector<int64_t>{1, s.window_rows, s.window_cols, 1}},
          {"strides", std::vector<int64_t>{1, s.stride_rows, s.stride_cols, 1}},
          {"padding", s.same ? "SAME" : "VALID"}};
}

NodeDef PoolNode(const std::string& op, const PoolSpec& s, DataType dtype = DT_FLOAT) {
  return MakeNodeDef("pool", op, PoolAttrs(s, dtype));
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

// The mean of each window over the elements it covers.
template <typename T>
Tensor RefAvgPool(const Tensor& x, const PoolSpec& s) {
  const TensorShape y_shape = test::RefPoolOutputShape(x.shape(), s);
  std::vector<double> y(y_shape.num_elements(), 0.0);
  auto xv = x.flat<T>();
  test::ForEachPoolWindow(x.shape(), s, [&](int64_t yi, const std::vector<int64_t>& window) {
    for (int64_t i : window) y[yi] += xv(i);
    y[yi] /= static_cast<double>(window.size());
  });
  return test::FromDoubles<T>(y, y_shape);
}

// Each output's gradient shared equally by the elements its window covers.
template <typename T>
Tensor RefAvgPoolGrad(const TensorShape& x_shape, const Tensor& dy, const PoolSpec& s) {
  std::vector<double> dx(x_shape.num_elements(), 0.0);
  auto dyv = dy.flat<T>();
  test::ForEachPoolWindow(x_shape, s, [&](int64_t yi, const std::vector<int64_t>& window) {
    for (int64_t i : window) dx[i] += dyv(yi) / static_cast<double>(window.size());
  });
  return test::FromDoubles<T>(dx, x_shape);
}

constexpr PoolSpec k2x2Stride2 = {
    .window_rows = 2, .window_cols = 2, .stride_rows = 2, .stride_cols = 2};

TEST(AvgPoolTest, AveragesEachWindowPerChannel) {
  const Tensor x = Image({1, 5, 2, 0, 3, 4, 8, 6, -1, -2, 0, 9, -3, -4, 7, 1}, 4, 4);
  ExpectTensorNear(RunOne(PoolNode("AvgPool", k2x2Stride2), {x}),
                   Image({13.0f / 4, 16.0f / 4, -10.0f / 4, 17.0f / 4}, 2, 2));
  const Tensor two_channels = Image({1, 8, 4, 5, 3, 6, 2, 7}, 2, 2, 2);
  ExpectTensorNear(RunOne(PoolNode("AvgPool", k2x2Stride2), {two_channels}),
                   Image({2.5f, 6.5f}, 1, 1, 2));
}

TEST(AvgPoolTest, SameWindowsDivideByTheElementsInsideTheInput) {
  // 3x3 input, 2x2 stride 2 SAME: one padding row and column after, so the
  // windows cover 4, 2, 2 and 1 elements.
  PoolSpec same = k2x2Stride2;
  same.same = true;
  const Tensor x = Image({1, 2, 3, 4, 5, 6, 7, 8, 9}, 3, 3);
  ExpectTensorNear(RunOne(PoolNode("AvgPool", same), {x}),
                   Image({12.0f / 4, 9.0f / 2, 15.0f / 2, 9.0f}, 2, 2));
  // 3x3 stride 1 SAME: the corner windows cover 4 elements, the edges 6.
  ExpectTensorNear(RunOne(PoolNode("AvgPool", {.window_rows = 3, .window_cols = 3, .same = true}),
                          {x}),
                   Image({12.0f / 4, 21.0f / 6, 16.0f / 4, 27.0f / 6, 45.0f / 9, 33.0f / 6,
                          24.0f / 4, 39.0f / 6, 28.0f / 4},
                         3, 3));
}

TEST(AvgPoolGradTest, SharesEachGradientAmongTheWindowsElements) {
  PoolSpec same = k2x2Stride2;
  same.same = true;
  const Tensor dy = Image({4, 2, 6, 5}, 2, 2);
  // Windows of 4, 2, 2 and 1 elements: 1 each, 1 each, 3 each, 5.
  ExpectTensorNear(RunOne(PoolNode("AvgPoolGrad", same), {SizesOf({1, 3, 3, 1}), dy}),
                   Image({1, 1, 1, 1, 1, 1, 3, 3, 5}, 3, 3));
  // Overlapping 2x2 stride 1 VALID windows add up.
  ExpectTensorNear(
      RunOne(PoolNode("AvgPoolGrad", {.window_rows = 2, .window_cols = 2}),
             {SizesOf({1, 3, 3, 1}), Image({4, 8, 12, 16}, 2, 2)}),
      Image({1, 3, 2, 4, 10, 6, 3, 7, 4}, 3, 3));
}

struct RandomCase {
  TensorShape x;
  PoolSpec spec;
};

std::vector<RandomCase> RandomCases() {
  return {{{2, 7, 7, 3}, {.window_rows = 3, .window_cols = 3, .stride_rows = 2, .stride_cols = 2}},
          {{2, 7, 7, 3}, {.window_rows = 3, .window_cols = 3, .stride_rows = 2, .stride_cols = 2,
                          .same = true}},
          {{1, 6, 5, 4}, {.window_rows = 2, .window_cols = 3, .stride_rows = 1, .stride_cols = 2,
                          .same = true}},
          {{3, 5, 8, 2}, {.window_rows = 5, .window_cols = 1, .stride_rows = 3, .stride_cols = 1}},
          // Global average pooling, as at the end of a ResNet.
          {{2, 4, 4, 8}, {.window_rows = 4, .window_cols = 4, .stride_rows = 1, .stride_cols = 1}}};
}

template <typename T>
void ExpectMatchesReference(DataType dtype, double tolerance) {
  uint32_t seed = 1;
  for (const RandomCase& c : RandomCases()) {
    for (int threads : {1, 3}) {
      SCOPED_TRACE(absl::StrCat(c.x.DebugString(), " same=", c.spec.same, " threads=", threads));
      const Tensor x = RandomTensor<T>(c.x, seed++);
      ExpectTensorNear(RunOne(PoolNode("AvgPool", c.spec, dtype), {x}, threads),
                       RefAvgPool<T>(x, c.spec), tolerance, tolerance);
      const Tensor dy = RandomTensor<T>(test::RefPoolOutputShape(c.x, c.spec), seed++);
      ExpectTensorNear(
          RunOne(PoolNode("AvgPoolGrad", c.spec, dtype), {SizesOf(c.x), dy}, threads),
          RefAvgPoolGrad<T>(c.x, dy, c.spec), tolerance, tolerance);
    }
  }
}

TEST(AvgPoolTest, MatchesTheDirectLoopReferenceFloat) { ExpectMatchesReference<float>(DT_FLOAT, 1e-5); }
TEST(AvgPoolTest, MatchesTheDirectLoopReferenceDouble) {
  ExpectMatchesReference<double>(DT_DOUBLE, 1e-12);
}

// d/dx sum(AvgPool(x) * w), by central differences, equals AvgPoolGrad(w).
TEST(AvgPoolGradTest, MatchesFiniteDifferencesOfAvgPool) {
  const PoolSpec spec = {
      .window_rows = 3, .window_cols = 2, .stride_rows = 2, .stride_cols = 1, .same = true};
  const TensorShape x_shape({2, 5, 4, 2});
  Tensor x = RandomTensor<double>(x_shape, 7);
  const Tensor w = RandomTensor<double>(test::RefPoolOutputShape(x_shape, spec), 8);
  auto loss = [&](const Tensor& input) {
    const Tensor y = RunOne(PoolNode("AvgPool", spec, DT_DOUBLE), {input});
    double sum = 0;
    for (int64_t i = 0; i < y.NumElements(); ++i) sum += y.flat<double>()(i) * w.flat<double>()(i);
    return sum;
  };
  const Tensor grad = RunOne(PoolNode("AvgPoolGrad", spec, DT_DOUBLE), {SizesOf(x_shape), w});
  const double h = 1e-4;
  for (int64_t i = 0; i < x.NumElements(); ++i) {
    const double saved = x.flat<double>()(i);
    x.flat<double>()(i) = saved + h;
    const double up = loss(x);
    x.flat<double>()(i) = saved - h;
    const double down = loss(x);
    x.flat<double>()(i) = saved;
    EXPECT_NEAR(grad.flat<double>()(i), (up - down) / (2 * h), 1e-8) << "element " << i;
  }
}

TEST(AvgPoolTest, ShapeFunctions) {
  auto pooled = InferShapes(PoolNode("AvgPool", {.window_rows = 3, .window_cols = 3,
                                                 .stride_rows = 2, .stride_cols = 2}),
                            {PartialTensorShape({-1, 7, 8, 3})});
  ASSERT_TRUE(pooled.ok()) << pooled.status();
  EXPECT_EQ((*pooled)[0].DebugString(), PartialTensorShape({-1, 3, 3, 3}).DebugString());
  const Tensor sizes = SizesOf({2, 7, 8, 3});
  auto grad = InferShapes(PoolNode("AvgPoolGrad", k2x2Stride2),
                          {PartialTensorShape({4}), PartialTensorShape({2, 3, 4, 3})},
                          {&sizes});
  ASSERT_TRUE(grad.ok()) << grad.status();
  EXPECT_EQ((*grad)[0].DebugString(), PartialTensorShape({2, 7, 8, 3}).DebugString());
  auto unknown = InferShapes(PoolNode("AvgPoolGrad", k2x2Stride2),
                             {PartialTensorShape({4}), PartialTensorShape({2, 3, 4, 3})});
  ASSERT_TRUE(unknown.ok()) << unknown.status();
  EXPECT_EQ((*unknown)[0].dims(), 4);
}

// ---- Errors: the node, the attr or input, and the value are named ----

void ExpectNodeError(const absl::Status& status, absl::StatusCode code, const std::string& detail) {
  EXPECT_EQ(status.code(), code) << status;
  EXPECT_THAT(status.message(), AllOf(HasSubstr("'pool'"), HasSubstr(detail)));
}

TEST(AvgPoolErrorsTest, PoolingAcrossBatchOrDepthIsUnimplemented) {
  AttrValueMap attrs = PoolAttrs(k2x2Stride2, DT_FLOAT);
  attrs["ksize"] = std::vector<int64_t>{1, 2, 2, 2};
  KernelRunner runner(MakeNodeDef("pool", "AvgPool", attrs));
  ExpectNodeError(runner.status(), absl::StatusCode::kUnimplemented, "ksize");
  attrs["ksize"] = std::vector<int64_t>{1, 2, 2};
  KernelRunner three(MakeNodeDef("pool", "AvgPool", attrs));
  ExpectNodeError(three.status(), absl::StatusCode::kInvalidArgument, "ksize must have 4");
}

TEST(AvgPoolErrorsTest, BadShapes) {
  KernelRunner pool(PoolNode("AvgPool", k2x2Stride2));
  ExpectNodeError(pool.Run({Tensor(DT_FLOAT, TensorShape({4, 4}))}).status(),
                  absl::StatusCode::kInvalidArgument, "4-dimensional");
  KernelRunner grad(PoolNode("AvgPoolGrad", k2x2Stride2));
  ExpectNodeError(grad.Run({SizesOf({1, 4, 4}), Tensor(DT_FLOAT, TensorShape({1, 2, 2, 1}))})
                      .status(),
                  absl::StatusCode::kInvalidArgument, "orig_input_shape must be a vector of 4");
  ExpectNodeError(grad.Run({Tensor::FromVector<int32_t>({1, -4, 4, 1}),
                            Tensor(DT_FLOAT, TensorShape({1, 2, 2, 1}))})
                      .status(),
                  absl::StatusCode::kInvalidArgument, "must not be negative");
  ExpectNodeError(grad.Run({SizesOf({1, 4, 4, 1}), Tensor(DT_FLOAT, TensorShape({1, 3, 3, 1}))})
                      .status(),
                  absl::StatusCode::kInvalidArgument, "grad has shape [1,3,3,1]");
  auto shapes = InferShapes(PoolNode("AvgPool", k2x2Stride2), {PartialTensorShape({4, 4})});
  ExpectNodeError(shapes.status(), absl::StatusCode::kInvalidArgument, "rank 4");
}

}  // namespace
}  // namespace minitf
