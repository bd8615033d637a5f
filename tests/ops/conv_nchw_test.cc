// Conv2D, its two gradients and _FusedConv2D under data_format NCHW, as
// TensorFlow's conv_ops_test runs each case in both layouts: every NCHW
// result is the NHWC result (the direct-loop reference of conv_reference.h)
// with the channels moved to dimension 1. Also the NCHW shape function,
// the strides' order and the errors that name the layout.
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
using test::NhwcToNchw;
using test::RandomTensor;
using test::SizesOf;
using ::testing::HasSubstr;

constexpr double kFloatTolerance = 1e-4;
constexpr double kDoubleTolerance = 1e-9;

AttrValueMap NchwAttrs(const ConvSpec& s, DataType dtype) {
  return {{"T", dtype},
          {"strides", std::vector<int64_t>{1, 1, s.stride_rows, s.stride_cols}},
          {"dilations", std::vector<int64_t>{1, 1, s.dilation_rows, s.dilation_cols}},
          {"padding", s.same ? "SAME" : "VALID"},
          {"data_format", "NCHW"}};
}

NodeDef NchwNode(const std::string& op, const ConvSpec& s, DataType dtype) {
  return MakeNodeDef("conv", op, NchwAttrs(s, dtype));
}

Tensor RunOne(NodeDef def, const std::vector<Tensor>& inputs, int threads = 2) {
  KernelRunner runner(std::move(def), threads);
  auto out = runner.Run(inputs);
  EXPECT_TRUE(out.ok()) << out.status();
  return out.ok() ? (*out)[0] : Tensor();
}

struct ConvCase {
  TensorShape input;   // NHWC
  TensorShape filter;  // HWIO
  ConvSpec spec;
};

std::vector<ConvCase> Cases() {
  return {
      {{1, 3, 3, 1}, {2, 2, 1, 1}, {}},
      {{2, 7, 6, 3}, {3, 3, 3, 4}, {.stride_rows = 2, .stride_cols = 2, .same = true}},
      {{1, 8, 9, 2}, {2, 2, 2, 5}, {.stride_rows = 2, .same = true}},
      {{2, 9, 8, 3}, {3, 3, 3, 2}, {.stride_cols = 2, .dilation_rows = 2}},
      {{3, 5, 5, 6}, {1, 1, 6, 5}, {}},
  };
}

std::string Describe(const ConvCase& c) {
  return absl::StrCat(c.input.DebugString(), " * ", c.filter.DebugString(), " stride ",
                      c.spec.stride_rows, "x", c.spec.stride_cols, " dilation ",
                      c.spec.dilation_rows, "x", c.spec.dilation_cols,
                      c.spec.same ? " SAME" : " VALID");
}

template <typename T>
void ExpectEveryOpMatchesTheNhwcReference(double tolerance) {
  uint32_t seed = 1;
  const DataType dtype = DataTypeToEnum<T>::value;
  for (const ConvCase& c : Cases()) {
    SCOPED_TRACE(Describe(c));
    const Tensor x = RandomTensor<T>(c.input, seed++);
    const Tensor f = RandomTensor<T>(c.filter, seed++);
    const TensorShape out_shape = test::RefConvOutputShape(c.input, c.filter, c.spec);
    const Tensor dy = RandomTensor<T>(out_shape, seed++);
    const Tensor x_nchw = NhwcToNchw<T>(x);
    const Tensor dy_nchw = NhwcToNchw<T>(dy);
    for (int threads : {1, 2}) {
      ExpectTensorNear(RunOne(NchwNode("Conv2D", c.spec, dtype), {x_nchw, f}, threads),
                       NhwcToNchw<T>(test::RefConv2D<T>(x, f, c.spec)), tolerance, tolerance);
      ExpectTensorNear(RunOne(NchwNode("Conv2DBackpropInput", c.spec, dtype),
                              {SizesOf(x_nchw.shape()), f, dy_nchw}, threads),
                       NhwcToNchw<T>(test::RefConv2DBackpropInput<T>(c.input, f, dy, c.spec)),
                       tolerance, tolerance);
      // The filter's gradient is HWIO in both layouts.
      ExpectTensorNear(RunOne(NchwNode("Conv2DBackpropFilter", c.spec, dtype),
                              {x_nchw, SizesOf(c.filter), dy_nchw}, threads),
                       test::RefConv2DBackpropFilter<T>(x, c.filter, dy, c.spec), tolerance,
                       tolerance);
    }
  }
}

TEST(ConvNchwTest, FloatMatchesTheNhwcReference) {
  ExpectEveryOpMatchesTheNhwcReference<float>(kFloatTolerance);
}

TEST(ConvNchwTest, DoubleMatchesTheNhwcReference) {
  ExpectEveryOpMatchesTheNhwcReference<double>(kDoubleTolerance);
}

// _FusedConv2D (TensorFlow's GPU graphs carry NCHW ones): the NHWC fused
// result with the channels moved.
TEST(ConvNchwTest, FusedConv2DWithBiasAndRelu) {
  const ConvSpec spec = {.stride_rows = 2, .stride_cols = 2, .same = true};
  const Tensor x = RandomTensor<float>(TensorShape({2, 7, 6, 3}), 11);
  const Tensor f = RandomTensor<float>(TensorShape({3, 3, 3, 4}), 12);
  const Tensor bias = RandomTensor<float>(TensorShape({4}), 13);
  AttrValueMap nchw = NchwAttrs(spec, DT_FLOAT);
  nchw["fused_ops"] = std::vector<std::string>{"BiasAdd", "Relu"};
  nchw["num_args"] = int64_t{1};
  AttrValueMap nhwc = nchw;
  nhwc["data_format"] = "NHWC";
  nhwc["strides"] = std::vector<int64_t>{1, 2, 2, 1};
  nhwc["dilations"] = std::vector<int64_t>{1, 1, 1, 1};
  const Tensor expected = RunOne(MakeNodeDef("fused", "_FusedConv2D", nhwc), {x, f, bias});
  ExpectTensorNear(
      RunOne(MakeNodeDef("fused", "_FusedConv2D", nchw), {NhwcToNchw<float>(x), f, bias}),
      NhwcToNchw<float>(expected), kFloatTolerance, kFloatTolerance);
}

TEST(ConvNchwTest, EmptyBatchAndNoPositions) {
  const Tensor no_images(DT_FLOAT, TensorShape({0, 2, 4, 4}));
  const Tensor f = RandomTensor<float>(TensorShape({3, 3, 2, 5}), 7);
  const ConvSpec same = {.same = true};
  EXPECT_EQ(RunOne(NchwNode("Conv2D", same, DT_FLOAT), {no_images, f}).shape(),
            TensorShape({0, 5, 4, 4}));
  // No positions: the filter gradient is zero.
  Tensor zeros(DT_FLOAT, f.shape());
  zeros.flat<float>().setZero();
  ExpectTensorNear(
      RunOne(NchwNode("Conv2DBackpropFilter", same, DT_FLOAT),
             {no_images, SizesOf(f.shape()), Tensor(DT_FLOAT, TensorShape({0, 5, 4, 4}))}),
      zeros);
}

TEST(ConvNchwTest, ShapeFunctionKeepsTheLayout) {
  auto shapes = InferShapes(NchwNode("Conv2D", {.stride_rows = 2, .same = true}, DT_FLOAT),
                            {PartialTensorShape({2, 3, 7, 6}), PartialTensorShape({3, 2, 3, 4})});
  ASSERT_TRUE(shapes.ok()) << shapes.status();
  EXPECT_EQ((*shapes)[0], PartialTensorShape({2, 4, 4, 6}));
  auto unknown = InferShapes(NchwNode("Conv2D", {}, DT_FLOAT),
                             {PartialTensorShape(), PartialTensorShape({3, 3, 1, 8})});
  ASSERT_TRUE(unknown.ok()) << unknown.status();
  EXPECT_EQ((*unknown)[0], PartialTensorShape({-1, 8, -1, -1}));
  // The input's depth is dimension 1.
  auto mismatch = InferShapes(NchwNode("Conv2D", {}, DT_FLOAT),
                              {PartialTensorShape({1, 4, 5, 5}), PartialTensorShape({2, 2, 5, 1})});
  ASSERT_FALSE(mismatch.ok());
  EXPECT_THAT(mismatch.status().message(), HasSubstr("input depth 4 does not match filter"));
}

TEST(ConvNchwTest, StridesAndErrorsFollowTheLayout) {
  // Under NCHW the depth stride is entry 1: [1, 2, 1, 1] strides the depth.
  AttrValueMap depth_stride = NchwAttrs({}, DT_FLOAT);
  depth_stride["strides"] = std::vector<int64_t>{1, 2, 1, 1};
  KernelRunner bad(MakeNodeDef("deep", "Conv2D", depth_stride));
  ASSERT_FALSE(bad.status().ok());
  EXPECT_EQ(bad.status().code(), absl::StatusCode::kUnimplemented);
  EXPECT_THAT(bad.status().message(), HasSubstr("batch and depth"));
  AttrValueMap three = NchwAttrs({}, DT_FLOAT);
  three["strides"] = std::vector<int64_t>{1, 1, 2};
  KernelRunner short_strides(MakeNodeDef("short", "Conv2D", three));
  EXPECT_THAT(short_strides.status().message(), HasSubstr("4 elements (NCHW)"));
  // Errors print the tensors as they are, NCHW.
  KernelRunner conv(NchwNode("Conv2D", {}, DT_FLOAT));
  auto wrong_depth = conv.Run(
      {Tensor(DT_FLOAT, TensorShape({1, 3, 4, 4})), Tensor(DT_FLOAT, TensorShape({2, 2, 2, 1}))});
  ASSERT_FALSE(wrong_depth.ok());
  EXPECT_THAT(wrong_depth.status().message(),
              HasSubstr("input depth 3 does not match filter in_depth 2 (input shape [1,3,4,4]"));
  auto rank3 = conv.Run(
      {Tensor(DT_FLOAT, TensorShape({3, 4, 4})), Tensor(DT_FLOAT, TensorShape({2, 2, 3, 1}))});
  EXPECT_THAT(rank3.status().message(), HasSubstr("[batch, depth, rows, cols]"));
  // out_backprop must have the NCHW output shape.
  KernelRunner backprop(NchwNode("Conv2DBackpropInput", {}, DT_FLOAT));
  auto nhwc_dy =
      backprop.Run({SizesOf(TensorShape({1, 2, 4, 4})), Tensor(DT_FLOAT, TensorShape({2, 2, 2, 5})),
                    Tensor(DT_FLOAT, TensorShape({1, 3, 3, 5}))});
  ASSERT_FALSE(nhwc_dy.ok());
  EXPECT_THAT(nhwc_dy.status().message(),
              HasSubstr("the convolution's output has shape [1,5,3,3]"));
}

}  // namespace
}  // namespace minitf
