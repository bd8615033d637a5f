// CPU/CUDA parity of Conv2D, its two gradients (cuDNN; NHWC and NCHW), MaxPool and
// MaxPoolGrad over VALID and SAME padding, strides 1 and 2, and odd sizes
// whose SAME padding is asymmetric; shape errors match the CPU's, and
// dilations are Unimplemented on CUDA. cuDNN computes in NHWC here; ctest
// runs the binary again with it computing in NCHW
// (MINITF_CUDNN_COMPUTE_FORMAT=nchw). Skipped without a GPU.
#include <cstdlib>
#include <string>
#include <vector>

#include "absl/strings/ascii.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/cuda/cuda_test_device.h"

namespace minitf {
namespace {

using test::ExpectCudaMatchesCpu;
using test::MakeNodeDef;
using test::RandomTensor;
using test::VisibleCudaDevices;

struct ConvCase {
  TensorShape input;   // NHWC
  TensorShape filter;  // HWIO
  int64_t stride;
  std::string padding;
};

std::vector<ConvCase> ConvCases() {
  return {
      {TensorShape({2, 7, 7, 3}), TensorShape({3, 3, 3, 4}), 1, "VALID"},
      {TensorShape({2, 7, 7, 3}), TensorShape({3, 3, 3, 4}), 1, "SAME"},
      {TensorShape({1, 8, 9, 2}), TensorShape({2, 2, 2, 5}), 2, "SAME"},  // asymmetric
      {TensorShape({1, 10, 6, 4}), TensorShape({4, 3, 4, 2}), 2, "SAME"},
      {TensorShape({3, 9, 9, 1}), TensorShape({5, 5, 1, 3}), 2, "VALID"},
  };
}

NodeDef ConvNode(const std::string& op, const ConvCase& c) {
  return MakeNodeDef("c", op,
                     {{"T", DT_FLOAT},
                      {"strides", std::vector<int64_t>{1, c.stride, c.stride, 1}},
                      {"padding", c.padding}});
}

// The shape of the convolution's output, from the CPU kernel.
TensorShape ConvOutputShape(const ConvCase& c) {
  test::KernelRunner cpu(ConvNode("Conv2D", c));
  return (*cpu.Run({RandomTensor(c.input), RandomTensor(c.filter)}))[0].shape();
}

Tensor SizesOf(const TensorShape& shape) {
  std::vector<int32_t> sizes;
  for (int d = 0; d < shape.dims(); ++d) sizes.push_back(static_cast<int32_t>(shape.dim_size(d)));
  return Tensor::FromVector<int32_t>(absl::Span<const int32_t>(sizes), TensorShape({4}));
}

class ConvPoolCudaTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (VisibleCudaDevices() == 0) GTEST_SKIP() << "no CUDA device visible";
  }
};

TEST_F(ConvPoolCudaTest, Conv2DMatchesCpu) {
  for (const ConvCase& c : ConvCases()) {
    SCOPED_TRACE(c.input.DebugString() + " " + c.filter.DebugString() + " " + c.padding);
    ExpectCudaMatchesCpu(ConvNode("Conv2D", c),
                         {RandomTensor(c.input, -1, 1, 1), RandomTensor(c.filter, -1, 1, 2)},
                         1e-4, 1e-4);
  }
}

TEST_F(ConvPoolCudaTest, Conv2DBackpropInputMatchesCpu) {
  for (const ConvCase& c : ConvCases()) {
    SCOPED_TRACE(c.input.DebugString() + " " + c.filter.DebugString() + " " + c.padding);
    ExpectCudaMatchesCpu(ConvNode("Conv2DBackpropInput", c),
                         {SizesOf(c.input), RandomTensor(c.filter, -1, 1, 3),
                          RandomTensor(ConvOutputShape(c), -1, 1, 4)},
                         1e-4, 1e-4);
  }
}

TEST_F(ConvPoolCudaTest, Conv2DBackpropFilterMatchesCpu) {
  for (const ConvCase& c : ConvCases()) {
    SCOPED_TRACE(c.input.DebugString() + " " + c.filter.DebugString() + " " + c.padding);
    ExpectCudaMatchesCpu(ConvNode("Conv2DBackpropFilter", c),
                         {RandomTensor(c.input, -1, 1, 5), SizesOf(c.filter),
                          RandomTensor(ConvOutputShape(c), -1, 1, 6)},
                         1e-4, 1e-4);
  }
}

// NCHW: the transposes around cuDNN's NHWC convolution (conv_ops.cc).
TEST_F(ConvPoolCudaTest, NchwMatchesCpu) {
  const auto nchw = [](const TensorShape& nhwc) {
    return TensorShape({nhwc.dim_size(0), nhwc.dim_size(3), nhwc.dim_size(1), nhwc.dim_size(2)});
  };
  for (const ConvCase& c : ConvCases()) {
    SCOPED_TRACE(c.input.DebugString() + " " + c.filter.DebugString() + " " + c.padding);
    const auto node = [&](const std::string& op) {
      NodeDef def = ConvNode(op, c);
      def.attr["strides"] = std::vector<int64_t>{1, 1, c.stride, c.stride};
      def.attr["data_format"] = "NCHW";
      return def;
    };
    const TensorShape out = nchw(ConvOutputShape(c));
    ExpectCudaMatchesCpu(node("Conv2D"),
                         {RandomTensor(nchw(c.input), -1, 1, 7), RandomTensor(c.filter, -1, 1, 8)},
                         1e-4, 1e-4);
    ExpectCudaMatchesCpu(node("Conv2DBackpropInput"),
                         {SizesOf(nchw(c.input)), RandomTensor(c.filter, -1, 1, 9),
                          RandomTensor(out, -1, 1, 10)},
                         1e-4, 1e-4);
    ExpectCudaMatchesCpu(node("Conv2DBackpropFilter"),
                         {RandomTensor(nchw(c.input), -1, 1, 11), SizesOf(c.filter),
                          RandomTensor(out, -1, 1, 12)},
                         1e-4, 1e-4);
  }
}

TEST_F(ConvPoolCudaTest, ConvShapeErrorsMatchCpu) {
  const ConvCase c = ConvCases()[0];
  ExpectCudaMatchesCpu(ConvNode("Conv2D", c), {RandomTensor(TensorShape({2, 7, 7, 2})),
                                               RandomTensor(c.filter)});
  ExpectCudaMatchesCpu(ConvNode("Conv2DBackpropInput", c),
                       {SizesOf(c.input), RandomTensor(c.filter),
                        RandomTensor(TensorShape({2, 4, 4, 4}))});
}

TEST_F(ConvPoolCudaTest, DilatedConvolutionIsUnimplemented) {
  const ConvCase c = ConvCases()[0];
  NodeDef def = ConvNode("Conv2D", c);
  def.attr["dilations"] = std::vector<int64_t>{1, 2, 2, 1};
  absl::StatusOr<std::unique_ptr<test::CudaTestDevice>> created = test::CudaTestDevice::Create();
  ASSERT_TRUE(created.ok()) << created.status();
  test::CudaTestDevice* device = created->get();
  absl::StatusOr<std::vector<Tensor>> out =
      test::RunOnCuda(device, def, {RandomTensor(c.input), RandomTensor(c.filter)});
  EXPECT_EQ(out.status().code(), absl::StatusCode::kUnimplemented) << out.status();
}

// An invalid MINITF_CUDNN_COMPUTE_FORMAT fails the convolution, naming it.
// ctest runs this under MINITF_CUDNN_COMPUTE_FORMAT=bogus (tests/CMakeLists.txt);
// it skips under a valid value, which the other tests run with.
TEST_F(ConvPoolCudaTest, AnUnknownComputeFormatIsAnErrorNamingTheVariable) {
  const char* format = std::getenv("MINITF_CUDNN_COMPUTE_FORMAT");
  const std::string value = format == nullptr ? "" : absl::AsciiStrToLower(format);
  if (value.empty() || value == "auto" || value == "nhwc" || value == "nchw") {
    GTEST_SKIP() << "needs an invalid MINITF_CUDNN_COMPUTE_FORMAT (ctest's =bogus variant)";
  }
  const ConvCase c = ConvCases()[0];
  absl::StatusOr<std::unique_ptr<test::CudaTestDevice>> created = test::CudaTestDevice::Create();
  ASSERT_TRUE(created.ok()) << created.status();
  absl::StatusOr<std::vector<Tensor>> out = test::RunOnCuda(
      created->get(), ConvNode("Conv2D", c), {RandomTensor(c.input), RandomTensor(c.filter)});
  EXPECT_EQ(out.status().code(), absl::StatusCode::kInvalidArgument) << out.status();
  EXPECT_THAT(std::string(out.status().message()),
              ::testing::HasSubstr("MINITF_CUDNN_COMPUTE_FORMAT='" + value + "'"));
}

struct PoolCase {
  TensorShape input;
  int64_t window;
  int64_t stride;
  std::string padding;
};

NodeDef PoolNode(const std::string& op, const PoolCase& p) {
  return MakeNodeDef("p", op,
                     {{"T", DT_FLOAT},
                      {"ksize", std::vector<int64_t>{1, p.window, p.window, 1}},
                      {"strides", std::vector<int64_t>{1, p.stride, p.stride, 1}},
                      {"padding", p.padding}});
}

TEST_F(ConvPoolCudaTest, MaxPoolAndGradMatchCpu) {
  const std::vector<PoolCase> cases = {
      {TensorShape({2, 8, 8, 3}), 2, 2, "VALID"},
      {TensorShape({2, 7, 9, 3}), 3, 2, "SAME"},
      {TensorShape({1, 5, 5, 4}), 3, 1, "SAME"},  // overlapping windows
      {TensorShape({1, 6, 6, 2}), 3, 2, "VALID"},
  };
  for (const PoolCase& p : cases) {
    SCOPED_TRACE(p.input.DebugString() + " " + p.padding);
    const Tensor input = RandomTensor(p.input, -1, 1, 7);
    ExpectCudaMatchesCpu(PoolNode("MaxPool", p), {input});
    test::KernelRunner cpu(PoolNode("MaxPool", p));
    const Tensor output = (*cpu.Run({input}))[0];
    ExpectCudaMatchesCpu(PoolNode("MaxPoolGrad", p),
                         {input, output, RandomTensor(output.shape(), -1, 1, 8)}, 1e-5, 1e-5);
  }
}

// NCHW: cuDNN's NHWC pooling between transposes (image_layout.h).
TEST_F(ConvPoolCudaTest, NchwMaxPoolAndGradMatchCpu) {
  NodeDef pool = MakeNodeDef("p", "MaxPool",
                             {{"T", DT_FLOAT},
                              {"ksize", std::vector<int64_t>{1, 1, 3, 3}},
                              {"strides", std::vector<int64_t>{1, 1, 2, 2}},
                              {"padding", "SAME"},
                              {"data_format", "NCHW"}});
  const Tensor input = RandomTensor(TensorShape({2, 3, 7, 9}), -1, 1, 9);
  ExpectCudaMatchesCpu(pool, {input});
  test::KernelRunner cpu(pool);
  const Tensor output = (*cpu.Run({input}))[0];
  NodeDef grad = pool;
  grad.op = "MaxPoolGrad";
  ExpectCudaMatchesCpu(grad, {input, output, RandomTensor(output.shape(), -1, 1, 10)}, 1e-5,
                       1e-5);
}

TEST_F(ConvPoolCudaTest, MaxPoolGradShapeErrorsMatchCpu) {
  const PoolCase p = {TensorShape({1, 4, 4, 1}), 2, 2, "VALID"};
  ExpectCudaMatchesCpu(PoolNode("MaxPoolGrad", p),
                       {RandomTensor(p.input), RandomTensor(TensorShape({1, 3, 3, 1})),
                        RandomTensor(TensorShape({1, 2, 2, 1}))});
}

}  // namespace
}  // namespace minitf
