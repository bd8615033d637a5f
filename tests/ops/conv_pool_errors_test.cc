// Tests that Conv2D, MaxPool and their gradients reject bad attrs and shapes,
// both in their kernels and in their shape functions, with errors that name
// the node and what is wrong; and that they, AvgPool and BiasAdd accept
// every attr TensorFlow 2.x writes on these nodes, with its default values.
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "runtime/op_registry.h"
#include "tests/testlib/kernel_runner.h"

namespace minitf {
namespace {

using test::InferShapes;
using test::KernelRunner;
using test::MakeNodeDef;
using ::testing::AllOf;
using ::testing::HasSubstr;

AttrValueMap ConvAttrs() {
  return {{"T", DT_FLOAT}, {"strides", std::vector<int64_t>{1, 1, 1, 1}}, {"padding", "VALID"}};
}

AttrValueMap PoolAttrs() {
  return {{"T", DT_FLOAT},
          {"ksize", std::vector<int64_t>{1, 2, 2, 1}},
          {"strides", std::vector<int64_t>{1, 2, 2, 1}},
          {"padding", "VALID"}};
}

// `attrs` with `name` set to `value`.
AttrValueMap With(AttrValueMap attrs, const std::string& name, AttrValue value) {
  attrs[name] = std::move(value);
  return attrs;
}

Tensor Zeros(std::initializer_list<int64_t> dims) {
  Tensor t(DT_FLOAT, TensorShape(dims));
  t.flat<float>().setZero();
  return t;
}

Tensor Sizes(std::initializer_list<int32_t> sizes) { return Tensor::FromVector<int32_t>(sizes); }

// Expects `status` to fail with `code` and a message naming node "bad" and
// holding `detail`.
void ExpectNodeError(const absl::Status& status, absl::StatusCode code, const std::string& detail) {
  EXPECT_EQ(status.code(), code) << status;
  EXPECT_THAT(status.message(), AllOf(HasSubstr("'bad'"), HasSubstr(detail)));
}

// A bad attr fails the kernel's construction and the shape function (given
// inputs of unknown shape) alike.
void ExpectAttrError(const std::string& op, AttrValueMap attrs, absl::StatusCode code,
                     const std::string& detail) {
  SCOPED_TRACE(op + ": " + detail);
  KernelRunner runner(MakeNodeDef("bad", op, attrs));
  ExpectNodeError(runner.status(), code, detail);
  const OpDef* op_def = OpRegistry::Global()->LookUp(op);
  ASSERT_NE(op_def, nullptr);
  auto shapes = InferShapes(MakeNodeDef("bad", op, attrs),
                            std::vector<PartialTensorShape>(op_def->input_arg.size()));
  ExpectNodeError(shapes.status(), code, detail);
}

TEST(ConvPoolErrorsTest, AnUnknownDataFormatIsInvalid) {
  // NHWC and NCHW run (conv_nchw_test.cc, pool_nchw_test.cc).
  ExpectAttrError("Conv2D", With(ConvAttrs(), "data_format", "HWCN"),
                  absl::StatusCode::kInvalidArgument, "HWCN");
  ExpectAttrError("MaxPool", With(PoolAttrs(), "data_format", "NCHW_VECT_C"),
                  absl::StatusCode::kInvalidArgument, "'NCHW_VECT_C'");
}

TEST(ConvPoolErrorsTest, BadStrides) {
  ExpectAttrError("Conv2D", With(ConvAttrs(), "strides", std::vector<int64_t>{1, 2, 2}),
                  absl::StatusCode::kInvalidArgument, "strides must have 4");
  ExpectAttrError("Conv2D", With(ConvAttrs(), "strides", std::vector<int64_t>{1, 0, 1, 1}),
                  absl::StatusCode::kInvalidArgument, "strides must be positive");
  ExpectAttrError("Conv2D", With(ConvAttrs(), "strides", std::vector<int64_t>{2, 1, 1, 1}),
                  absl::StatusCode::kUnimplemented, "batch and depth");
  ExpectAttrError("MaxPool", With(PoolAttrs(), "strides", std::vector<int64_t>{1, 2, 2, 2}),
                  absl::StatusCode::kUnimplemented, "batch and depth");
  ExpectAttrError("MaxPool", With(PoolAttrs(), "ksize", std::vector<int64_t>{2, 2, 2, 1}),
                  absl::StatusCode::kUnimplemented, "ksize");
  ExpectAttrError("Conv2D", With(ConvAttrs(), "dilations", std::vector<int64_t>{1, 1, 1, 2}),
                  absl::StatusCode::kUnimplemented, "dilations");
}

TEST(ConvPoolErrorsTest, BadPadding) {
  ExpectAttrError("Conv2D", With(ConvAttrs(), "padding", "FULL"),
                  absl::StatusCode::kInvalidArgument, "'FULL'");
  ExpectAttrError("Conv2D", With(ConvAttrs(), "padding", "EXPLICIT"),
                  absl::StatusCode::kUnimplemented, "EXPLICIT");
  ExpectAttrError("Conv2D",
                  With(ConvAttrs(), "explicit_paddings", std::vector<int64_t>{0, 0, 1, 1}),
                  absl::StatusCode::kInvalidArgument, "explicit_paddings");
  ExpectAttrError("MaxPoolGrad", With(PoolAttrs(), "padding", "same"),
                  absl::StatusCode::kInvalidArgument, "'same'");
}

// The attrs a tf.compat.v1 graph from TensorFlow 2.x carries, every one
// with TensorFlow's default: the kernels build and run, the shapes infer.
TEST(ConvPoolErrorsTest, TensorFlow2AttrsWithTheirDefaultsAreAccepted) {
  AttrValueMap conv = ConvAttrs();
  conv["use_cudnn_on_gpu"] = true;
  conv["explicit_paddings"] = std::vector<int64_t>{};
  conv["data_format"] = "NHWC";
  conv["dilations"] = std::vector<int64_t>{1, 1, 1, 1};
  AttrValueMap pool = PoolAttrs();
  pool["explicit_paddings"] = std::vector<int64_t>{};
  pool["data_format"] = "NHWC";
  struct Node {
    std::string op;
    AttrValueMap attrs;
    std::vector<Tensor> inputs;
  };
  const std::vector<Node> nodes = {
      {"Conv2D", conv, {Zeros({1, 4, 4, 1}), Zeros({2, 2, 1, 1})}},
      {"Conv2DBackpropInput", conv, {Sizes({1, 4, 4, 1}), Zeros({2, 2, 1, 1}), Zeros({1, 3, 3, 1})}},
      {"Conv2DBackpropFilter",
       conv,
       {Zeros({1, 4, 4, 1}), Sizes({2, 2, 1, 1}), Zeros({1, 3, 3, 1})}},
      {"MaxPool", pool, {Zeros({1, 4, 4, 1})}},
      {"MaxPoolGrad", pool, {Zeros({1, 4, 4, 1}), Zeros({1, 2, 2, 1}), Zeros({1, 2, 2, 1})}},
      {"AvgPool", With(PoolAttrs(), "data_format", "NHWC"), {Zeros({1, 4, 4, 1})}},
      {"AvgPoolGrad", With(PoolAttrs(), "data_format", "NHWC"),
       {Sizes({1, 4, 4, 1}), Zeros({1, 2, 2, 1})}},
      {"BiasAdd", {{"T", DT_FLOAT}, {"data_format", "NHWC"}}, {Zeros({1, 2, 2, 3}), Zeros({3})}},
  };
  for (const Node& n : nodes) {
    SCOPED_TRACE(n.op);
    KernelRunner runner(MakeNodeDef("tf2", n.op, n.attrs));
    auto out = runner.Run(n.inputs);
    EXPECT_TRUE(out.ok()) << out.status();
    std::vector<PartialTensorShape> shapes;
    std::vector<const Tensor*> constants;
    for (const Tensor& t : n.inputs) {
      shapes.emplace_back(t.shape());
      constants.push_back(t.dtype() == DT_INT32 ? &t : nullptr);
    }
    auto inferred = InferShapes(MakeNodeDef("tf2", n.op, n.attrs), shapes, constants);
    ASSERT_TRUE(inferred.ok()) << inferred.status();
    if (out.ok()) {
      EXPECT_TRUE((*inferred)[0].IsCompatibleWith((*out)[0].shape()));
    }
  }
}

TEST(ConvPoolErrorsTest, UnsupportedValuesOfTensorFlow2AttrsNameNodeAttrAndValue) {
  ExpectAttrError("MaxPool",
                  With(PoolAttrs(), "explicit_paddings", std::vector<int64_t>{0, 0, 1, 1}),
                  absl::StatusCode::kInvalidArgument, "explicit_paddings");
  ExpectAttrError("MaxPoolGrad", With(PoolAttrs(), "padding", "EXPLICIT"),
                  absl::StatusCode::kUnimplemented, "padding 'EXPLICIT'");
  ExpectAttrError("Conv2DBackpropFilter",
                  With(ConvAttrs(), "dilations", std::vector<int64_t>{2, 1, 1, 1}),
                  absl::StatusCode::kUnimplemented, "dilations");
  ExpectAttrError("BiasAdd", {{"T", DT_FLOAT}, {"data_format", "NCDHW"}},
                  absl::StatusCode::kInvalidArgument, "data_format 'NCDHW'");
}

TEST(ConvPoolErrorsTest, ChannelMismatchBetweenInputAndFilter) {
  KernelRunner runner(MakeNodeDef("bad", "Conv2D", ConvAttrs()));
  auto out = runner.Run({Zeros({1, 4, 4, 3}), Zeros({2, 2, 2, 5})});
  ExpectNodeError(out.status(), absl::StatusCode::kInvalidArgument,
                  "input depth 3 does not match filter in_depth 2");
  auto shapes = InferShapes(MakeNodeDef("bad", "Conv2D", ConvAttrs()),
                            {PartialTensorShape({-1, 4, 4, 3}), PartialTensorShape({2, 2, 2, 5})});
  ExpectNodeError(shapes.status(), absl::StatusCode::kInvalidArgument,
                  "input depth 3 does not match filter in_depth 2");
  KernelRunner backprop(MakeNodeDef("bad", "Conv2DBackpropInput", ConvAttrs()));
  ExpectNodeError(
      backprop.Run({Sizes({1, 4, 4, 3}), Zeros({2, 2, 2, 5}), Zeros({1, 3, 3, 5})}).status(),
      absl::StatusCode::kInvalidArgument, "does not match filter in_depth");
}

TEST(ConvPoolErrorsTest, BadRanksAndWindowsLargerThanValidInput) {
  KernelRunner conv(MakeNodeDef("bad", "Conv2D", ConvAttrs()));
  ExpectNodeError(conv.Run({Zeros({4, 4, 1}), Zeros({2, 2, 1, 1})}).status(),
                  absl::StatusCode::kInvalidArgument, "4-dimensional");
  ExpectNodeError(conv.Run({Zeros({1, 4, 4, 1}), Zeros({2, 2, 1})}).status(),
                  absl::StatusCode::kInvalidArgument, "filter must be 4-dimensional");
  // VALID: a 3-row filter does not fit a 1-row input.
  ExpectNodeError(conv.Run({Zeros({1, 1, 4, 1}), Zeros({3, 1, 1, 1})}).status(),
                  absl::StatusCode::kInvalidArgument, "rows: computed output size");
  ExpectNodeError(InferShapes(MakeNodeDef("bad", "Conv2D", ConvAttrs()),
                              {PartialTensorShape({1, 1, 4, 1}), PartialTensorShape({3, 1, 1, 1})})
                      .status(),
                  absl::StatusCode::kInvalidArgument, "rows: computed output size");
  ExpectNodeError(InferShapes(MakeNodeDef("bad", "Conv2D", ConvAttrs()),
                              {PartialTensorShape({4, 4}), PartialTensorShape({3, 1, 1, 1})})
                      .status(),
                  absl::StatusCode::kInvalidArgument, "rank 4");
  KernelRunner pool(MakeNodeDef("bad", "MaxPool", PoolAttrs()));
  ExpectNodeError(pool.Run({Zeros({4, 4})}).status(), absl::StatusCode::kInvalidArgument,
                  "4-dimensional");
}

TEST(ConvPoolErrorsTest, BackpropShapesMustMatchTheConvolution) {
  KernelRunner input_grad(MakeNodeDef("bad", "Conv2DBackpropInput", ConvAttrs()));
  // The convolution of [1,4,4,1] by [2,2,1,1] has output [1,3,3,1].
  ExpectNodeError(
      input_grad.Run({Sizes({1, 4, 4, 1}), Zeros({2, 2, 1, 1}), Zeros({1, 2, 2, 1})}).status(),
      absl::StatusCode::kInvalidArgument, "out_backprop has shape [1,2,2,1]");
  ExpectNodeError(
      input_grad.Run({Sizes({4, 4, 1}), Zeros({2, 2, 1, 1}), Zeros({1, 3, 3, 1})}).status(),
      absl::StatusCode::kInvalidArgument, "input_sizes must be a vector of 4");
  ExpectNodeError(
      input_grad.Run({Sizes({1, -4, 4, 1}), Zeros({2, 2, 1, 1}), Zeros({1, 3, 3, 1})}).status(),
      absl::StatusCode::kInvalidArgument, "must not be negative");
  KernelRunner filter_grad(MakeNodeDef("bad", "Conv2DBackpropFilter", ConvAttrs()));
  ExpectNodeError(
      filter_grad.Run({Zeros({1, 4, 4, 1}), Sizes({2, 2, 1, 1}), Zeros({1, 3, 3, 2})}).status(),
      absl::StatusCode::kInvalidArgument, "out_backprop has shape [1,3,3,2]");
  const Tensor three = Sizes({2, 2, 1});
  ExpectNodeError(InferShapes(MakeNodeDef("bad", "Conv2DBackpropFilter", ConvAttrs()),
                              {PartialTensorShape({1, 4, 4, 1}), PartialTensorShape({3}),
                               PartialTensorShape({1, 3, 3, 1})},
                              {nullptr, &three})
                      .status(),
                  absl::StatusCode::kInvalidArgument, "rank 4");
}

TEST(ConvPoolErrorsTest, MaxPoolGradShapesMustMatchThePooling) {
  KernelRunner grad(MakeNodeDef("bad", "MaxPoolGrad", PoolAttrs()));
  // Pooling [1,4,4,1] 2x2 stride 2 gives [1,2,2,1].
  ExpectNodeError(
      grad.Run({Zeros({1, 4, 4, 1}), Zeros({1, 3, 3, 1}), Zeros({1, 2, 2, 1})}).status(),
      absl::StatusCode::kInvalidArgument, "orig_output has shape [1,3,3,1]");
  ExpectNodeError(
      grad.Run({Zeros({1, 4, 4, 1}), Zeros({1, 2, 2, 1}), Zeros({1, 2, 2, 2})}).status(),
      absl::StatusCode::kInvalidArgument, "grad has shape [1,2,2,2]");
}

}  // namespace
}  // namespace minitf
