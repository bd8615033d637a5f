// Output shapes whose element count would overflow int64_t are
// InvalidArgument naming the node, in the kernels (on the CPU and in SimGPU's
// timing mode) and in the shape functions, never a wrapped-around count.
// The inputs are empty (a 0-size dimension), so nothing is allocated: the
// sizes beside the 0 still multiply out in the output.
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "ops/standard_ops.h"
#include "ops/util/bcast.h"
#include "session/session.h"
#include "tests/testlib/kernel_runner.h"

namespace minitf {
namespace {

using test::InferShapes;
using test::KernelRunner;
using test::MakeNodeDef;
using ::testing::AllOf;
using ::testing::HasSubstr;

constexpr int64_t kHuge = int64_t{1} << 40;  // kHuge * kHuge overflows int64_t

Tensor Empty(std::initializer_list<int64_t> dims) { return Tensor(DT_FLOAT, TensorShape(dims)); }

void ExpectOverflow(const absl::Status& status, const std::string& node) {
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument) << status;
  EXPECT_THAT(status.message(), AllOf(HasSubstr("'" + node + "'"), HasSubstr("2^63-1")));
}

TEST(ShapeOverflowTest, BroadcastingToTooManyElementsIsAnError) {
  auto b = BCast::Make(TensorShape({kHuge, 1, 0}), TensorShape({1, kHuge, 0}));
  ASSERT_FALSE(b.ok());
  EXPECT_EQ(b.status().code(), absl::StatusCode::kInvalidArgument);
  // Beside a leading 0 the output is empty and its count fits.
  auto empty = BCast::Make(TensorShape({0, kHuge, kHuge}), TensorShape({0, 1, 1}));
  ASSERT_TRUE(empty.ok()) << empty.status();
  EXPECT_EQ(empty->output_shape().num_elements(), 0);

  KernelRunner add(MakeNodeDef("add", "Add", {{"T", DT_FLOAT}}));
  ExpectOverflow(add.Run({Empty({kHuge, 1, 0}), Empty({1, kHuge, 0})}).status(), "add");
}

TEST(ShapeOverflowTest, MatMulAndBatchMatMulProductsTooBigAreErrors) {
  KernelRunner matmul(MakeNodeDef("mm", "MatMul", {{"T", DT_FLOAT}}));
  ExpectOverflow(matmul.Run({Empty({kHuge, 0}), Empty({0, kHuge})}).status(), "mm");
  KernelRunner bmm(MakeNodeDef("bmm", "BatchMatMul", {{"T", DT_FLOAT}}));
  ExpectOverflow(bmm.Run({Empty({2, kHuge, 0}), Empty({2, 0, kHuge})}).status(), "bmm");
}

TEST(ShapeOverflowTest, ConvolutionOutputsAndInputSizesTooBigAreErrors) {
  const AttrValueMap attrs = {
      {"T", DT_FLOAT}, {"strides", std::vector<int64_t>{1, 1, 1, 1}}, {"padding", "VALID"}};
  KernelRunner conv(MakeNodeDef("conv", "Conv2D", attrs));
  ExpectOverflow(conv.Run({Empty({kHuge, 1, 1, 0}), Empty({1, 1, 0, kHuge})}).status(), "conv");

  constexpr int32_t kMax = 2147483647;
  KernelRunner backprop(MakeNodeDef("backprop", "Conv2DBackpropInput", attrs));
  auto out = backprop.Run({Tensor::FromVector<int32_t>({kMax, kMax, kMax, 0}), Empty({1, 1, 0, 1}),
                           Empty({0, 1, 1, 1})});
  EXPECT_THAT(out.status().message(), HasSubstr("input_sizes"));
  ExpectOverflow(out.status(), "backprop");
}

TEST(ShapeOverflowTest, ReshapeShapeFunctionRejectsARequestedShapeTooBig) {
  Tensor sizes = Tensor::FromVector<int64_t>({kHuge, kHuge, -1});
  auto shapes =
      InferShapes(MakeNodeDef("reshape", "Reshape", {{"T", DT_FLOAT}, {"Tshape", DT_INT64}}),
                  {PartialTensorShape({0}), PartialTensorShape({3})}, {nullptr, &sizes});
  ASSERT_FALSE(shapes.ok());
  EXPECT_THAT(shapes.status().message(), HasSubstr("2^63-1"));
}

// In timing mode SimGPU allocates the outputs its shape function gives,
// without running the kernel: the overflow must be caught there too.
TEST(ShapeOverflowTest, SimGpuTimingModeRejectsAnOverflowingOutputNamingTheNode) {
  Scope root = Scope::NewRootScope().WithDevice("/device:GPU:0");
  auto a = ops::Fill(root.WithOpName("a"), Input(Tensor::FromVector<int64_t>({kHuge, 0})), 1.0f);
  auto b = ops::Fill(root.WithOpName("b"), Input(Tensor::FromVector<int64_t>({0, kHuge})), 1.0f);
  auto product = ops::MatMul(root.WithOpName("product"), a, b);
  GraphDef graph;
  ASSERT_TRUE(root.ToGraphDef(&graph).ok()) << root.status();
  SessionOptions options;
  options.config.gpu_options.platform = "SimGPU";
  options.config.gpu_options.simgpu_options = "memory=64MiB,mode=timing";
  auto session = NewSession(options);
  ASSERT_TRUE(session.ok()) << session.status();
  ASSERT_TRUE((*session)->Create(graph).ok());
  std::vector<Tensor> out;
  absl::Status s = (*session)->Run({}, {"product"}, {}, &out);
  ExpectOverflow(s, "product");
}

}  // namespace
}  // namespace minitf
