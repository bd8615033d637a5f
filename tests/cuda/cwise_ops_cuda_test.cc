// CPU/CUDA parity of the element-wise CUDA kernels: Add, Sub, Mul, Div,
// Maximum, Minimum and the comparisons (with broadcasting), the unary math
// ops and activations, ReluGrad and BiasAdd (NHWC and NCHW), on random
// inputs; shape errors match the CPU's.
// Skipped without a GPU.
#include <cmath>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "tests/cuda/cuda_test_device.h"

namespace minitf {
namespace {

using test::ExpectCudaMatchesCpu;
using test::MakeNodeDef;
using test::RandomTensor;
using test::VisibleCudaDevices;

class CwiseOpsCudaTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (VisibleCudaDevices() == 0) GTEST_SKIP() << "no CUDA device visible";
  }
};

NodeDef FloatNode(const std::string& op) { return MakeNodeDef("n", op, {{"T", DT_FLOAT}}); }

TEST_F(CwiseOpsCudaTest, BinaryOpsMatchCpuWithBroadcasting) {
  const std::vector<std::pair<TensorShape, TensorShape>> shapes = {
      {TensorShape({3, 4, 5}), TensorShape({3, 4, 5})},  // same shape
      {TensorShape({2, 3, 4}), TensorShape({4})},        // trailing vector
      {TensorShape({3, 1}), TensorShape({1, 4})},        // outer product
      {TensorShape({}), TensorShape({7})},               // scalar x
      {TensorShape({7, 2}), TensorShape({})},            // scalar y
      {TensorShape({2, 1, 3, 1}), TensorShape({1, 4, 1, 5})},
      {TensorShape({0, 3}), TensorShape({3})},  // empty
  };
  for (const char* op : {"Add", "Sub", "Mul", "Div", "Maximum", "Minimum"}) {
    for (const auto& [x, y] : shapes) {
      SCOPED_TRACE(std::string(op) + " " + x.DebugString() + " " + y.DebugString());
      // Divisors away from zero.
      ExpectCudaMatchesCpu(FloatNode(op),
                           {RandomTensor(x, -2, 2, 1), RandomTensor(y, 0.5f, 2, 2)});
    }
  }
}

TEST_F(CwiseOpsCudaTest, ComparisonsMatchCpuWithBroadcastingEqualValuesAndNaN) {
  // Values on a coarse grid, so equal pairs occur, and a NaN.
  auto grid = [](const TensorShape& shape, unsigned seed) {
    Tensor t = RandomTensor(shape, -3, 3, seed);
    for (int64_t i = 0; i < t.NumElements(); ++i) {
      t.data<float>()[i] = static_cast<float>(static_cast<int>(t.data<float>()[i]));
    }
    if (t.NumElements() > 2) t.data<float>()[2] = std::nanf("");
    return t;
  };
  const std::vector<std::pair<TensorShape, TensorShape>> shapes = {
      {TensorShape({4, 5}), TensorShape({4, 5})},
      {TensorShape({3, 1}), TensorShape({1, 4})},
      {TensorShape({}), TensorShape({7})},
      {TensorShape({2, 1, 3}), TensorShape({4, 1})},
      {TensorShape({0, 3}), TensorShape({3})}};
  for (const char* op : {"Less", "LessEqual", "Greater", "GreaterEqual", "Equal", "NotEqual"}) {
    for (const auto& [x, y] : shapes) {
      SCOPED_TRACE(std::string(op) + " " + x.DebugString() + " " + y.DebugString());
      ExpectCudaMatchesCpu(FloatNode(op), {grid(x, 1), grid(y, 2)});
    }
  }
  // Shapes that do not broadcast: an error, or for the equality ops with
  // incompatible_shape_error false, a scalar answer.
  const std::vector<Tensor> incompatible = {RandomTensor(TensorShape({2, 3})),
                                            RandomTensor(TensorShape({4}))};
  ExpectCudaMatchesCpu(FloatNode("Greater"), incompatible);
  for (const char* op : {"Equal", "NotEqual"}) {
    ExpectCudaMatchesCpu(
        MakeNodeDef("n", op, {{"T", DT_FLOAT}, {"incompatible_shape_error", false}}),
        incompatible);
  }
}

TEST_F(CwiseOpsCudaTest, IncompatibleShapesFailAsOnCpu) {
  ExpectCudaMatchesCpu(FloatNode("Add"),
                       {RandomTensor(TensorShape({2, 3})), RandomTensor(TensorShape({4}))});
}

TEST_F(CwiseOpsCudaTest, UnaryOpsMatchCpu) {
  const TensorShape shape({4, 33, 7});
  for (const char* op : {"Neg", "Square", "Exp", "Relu", "Sigmoid", "Tanh"}) {
    SCOPED_TRACE(op);
    ExpectCudaMatchesCpu(FloatNode(op), {RandomTensor(shape, -5, 5)}, 1e-5, 1e-5);
  }
  for (const char* op : {"Sqrt", "Log"}) {
    SCOPED_TRACE(op);
    ExpectCudaMatchesCpu(FloatNode(op), {RandomTensor(shape, 0.01f, 5)}, 1e-5, 1e-5);
  }
  ExpectCudaMatchesCpu(FloatNode("Exp"), {RandomTensor(TensorShape({0}))});
}

TEST_F(CwiseOpsCudaTest, ReluGradMatchesCpu) {
  const TensorShape shape({5, 17});
  ExpectCudaMatchesCpu(FloatNode("ReluGrad"),
                       {RandomTensor(shape, -1, 1, 3), RandomTensor(shape, -1, 1, 4)});
  ExpectCudaMatchesCpu(FloatNode("ReluGrad"), {RandomTensor(TensorShape({5, 17})),
                                               RandomTensor(TensorShape({17, 5}))});
}

TEST_F(CwiseOpsCudaTest, BiasAddMatchesCpu) {
  ExpectCudaMatchesCpu(FloatNode("BiasAdd"), {RandomTensor(TensorShape({2, 3, 4, 6}), -1, 1, 5),
                                              RandomTensor(TensorShape({6}), -1, 1, 6)});
  ExpectCudaMatchesCpu(FloatNode("BiasAdd"),
                       {RandomTensor(TensorShape({3, 5})), RandomTensor(TensorShape({4}))});
  // NCHW: the bias along dimension 1.
  ExpectCudaMatchesCpu(MakeNodeDef("n", "BiasAdd", {{"T", DT_FLOAT}, {"data_format", "NCHW"}}),
                       {RandomTensor(TensorShape({2, 6, 3, 5}), -1, 1, 7),
                        RandomTensor(TensorShape({6}), -1, 1, 8)});
}

}  // namespace
}  // namespace minitf
