// CPU/CUDA parity of the remapper's fused kernels: _FusedMatMul (cuBLAS's
// product, then the bias-and-activation kernel) for every transpose and
// activation, _FusedConv2D (cuDNN's convolution, then the same kernel) for
// every activation at strides 1 and 2; and a bias of the wrong size, which
// fails as on the CPU. Skipped without a GPU.
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

const std::vector<std::string>& Activations() {
  static const auto* acts = new std::vector<std::string>{"", "Relu", "Relu6", "Elu", "Tanh"};
  return *acts;
}

// A MatMul's activations: the convolutions' and the GELUs.
const std::vector<std::string>& MatMulActivations() {
  static const auto* acts = new std::vector<std::string>{"",     "Relu", "Relu6",
                                                         "Elu",  "Tanh", "GeluApproximate",
                                                         "GeluExact"};
  return *acts;
}

std::vector<std::string> FusedOps(const std::string& activation) {
  std::vector<std::string> ops = {"BiasAdd"};
  if (!activation.empty()) ops.push_back(activation);
  return ops;
}

TEST(FusedContractionCudaTest, FusedMatMulMatchesCpu) {
  if (VisibleCudaDevices() == 0) GTEST_SKIP() << "no CUDA device visible";
  const int64_t m = 37, k = 53, n = 29;
  for (const std::string& act : MatMulActivations()) {
    for (bool ta : {false, true}) {
      for (bool tb : {false, true}) {
        SCOPED_TRACE(testing::Message() << act << " transpose_a=" << ta << " transpose_b=" << tb);
        const NodeDef def = MakeNodeDef("fused", "_FusedMatMul",
                                        {{"T", DT_FLOAT},
                                         {"transpose_a", ta},
                                         {"transpose_b", tb},
                                         {"num_args", int64_t{1}},
                                         {"fused_ops", FusedOps(act)}});
        ExpectCudaMatchesCpu(
            def,
            {RandomTensor(ta ? TensorShape({k, m}) : TensorShape({m, k}), -1, 1, 1),
             RandomTensor(tb ? TensorShape({n, k}) : TensorShape({k, n}), -1, 1, 2),
             RandomTensor(TensorShape({n}), -1, 1, 3)},
            1e-4, 1e-4);
      }
    }
  }
}

TEST(FusedContractionCudaTest, FusedConv2DMatchesCpu) {
  if (VisibleCudaDevices() == 0) GTEST_SKIP() << "no CUDA device visible";
  for (const std::string& act : Activations()) {
    for (int64_t stride : {1, 2}) {
      SCOPED_TRACE(testing::Message() << act << " stride " << stride);
      const NodeDef def = MakeNodeDef("fused", "_FusedConv2D",
                                      {{"T", DT_FLOAT},
                                       {"strides", std::vector<int64_t>{1, stride, stride, 1}},
                                       {"padding", std::string("SAME")},
                                       {"num_args", int64_t{1}},
                                       {"fused_ops", FusedOps(act)}});
      ExpectCudaMatchesCpu(def,
                           {RandomTensor(TensorShape({2, 9, 9, 5}), -1, 1, 4),
                            RandomTensor(TensorShape({3, 3, 5, 8}), -1, 1, 5),
                            RandomTensor(TensorShape({8}), -1, 1, 6)},
                           1e-4, 1e-4);
    }
  }
}

TEST(FusedContractionCudaTest, ABiasOfTheWrongSizeFailsAsOnCpu) {
  if (VisibleCudaDevices() == 0) GTEST_SKIP() << "no CUDA device visible";
  const NodeDef def = MakeNodeDef("fused", "_FusedMatMul",
                                  {{"T", DT_FLOAT},
                                   {"transpose_a", false},
                                   {"transpose_b", false},
                                   {"num_args", int64_t{1}},
                                   {"fused_ops", FusedOps("Relu")}});
  ExpectCudaMatchesCpu(def, {RandomTensor(TensorShape({3, 4})), RandomTensor(TensorShape({4, 5})),
                             RandomTensor(TensorShape({4}))});
}

}  // namespace
}  // namespace minitf
