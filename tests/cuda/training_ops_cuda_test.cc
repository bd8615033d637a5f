// CPU/CUDA parity of the kernels on the hot path of the ResNet-50 and BERT
// training graphs TensorFlow writes: FusedBatchNorm(V3) in training and
// inference, NHWC and NCHW, and its gradient; the remapper's
// _FusedBatchNormEx; AddV2, RealDiv,
// SquaredDifference and Pow with broadcasting; Rsqrt, Erf and Erfc; the
// unary gradient helpers; AddN; BiasAddGrad; BatchMatMulV2. Shape errors
// fail as on the CPU. Skipped without a GPU.
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

NodeDef BatchNorm(const std::string& op, bool is_training, const std::string& format,
                  float factor = 1.0f) {
  AttrValueMap attrs = {{"T", DT_FLOAT}, {"epsilon", 0.001f}, {"is_training", is_training},
                        {"data_format", format}};
  if (op.find("V3") != std::string::npos) attrs["U"] = DT_FLOAT;
  if (op.find("Grad") == std::string::npos) attrs["exponential_avg_factor"] = factor;
  return MakeNodeDef("bn", op, std::move(attrs));
}

TEST(TrainingOpsCudaTest, FusedBatchNormMatchesCpu) {
  if (VisibleCudaDevices() == 0) GTEST_SKIP() << "no CUDA device visible";
  const Tensor scale = RandomTensor(TensorShape({6}), 0.5, 2, 1);
  const Tensor offset = RandomTensor(TensorShape({6}), -1, 1, 2);
  const Tensor mean = RandomTensor(TensorShape({6}), -1, 1, 3);
  const Tensor variance = RandomTensor(TensorShape({6}), 0.5, 2, 4);
  const Tensor empty(DT_FLOAT, TensorShape({0}));
  const Tensor nhwc = RandomTensor(TensorShape({4, 9, 7, 6}), -3, 3, 5);
  const Tensor nchw = RandomTensor(TensorShape({4, 6, 9, 7}), -3, 3, 6);
  for (const char* op : {"FusedBatchNorm", "FusedBatchNormV3"}) {
    SCOPED_TRACE(op);
    ExpectCudaMatchesCpu(BatchNorm(op, true, "NHWC"), {nhwc, scale, offset, empty, empty}, 1e-5,
                         1e-5);
    ExpectCudaMatchesCpu(BatchNorm(op, true, "NCHW"), {nchw, scale, offset, empty, empty}, 1e-5,
                         1e-5);
    ExpectCudaMatchesCpu(BatchNorm(op, true, "NHWC", 0.1f), {nhwc, scale, offset, mean, variance},
                         1e-5, 1e-5);
    ExpectCudaMatchesCpu(BatchNorm(op, false, "NHWC"), {nhwc, scale, offset, mean, variance},
                         1e-5, 1e-5);
    // No elements: NaN statistics on both.
    ExpectCudaMatchesCpu(BatchNorm(op, true, "NHWC"),
                         {Tensor(DT_FLOAT, TensorShape({0, 2, 2, 6})), scale, offset, empty, empty});
    // scale of the wrong length fails the same way.
    ExpectCudaMatchesCpu(BatchNorm(op, true, "NHWC"),
                         {nhwc, RandomTensor(TensorShape({5})), offset, empty, empty});
  }
}

// The remapper's fusion: the Relu of y, with a side input (a residual)
// added first or not, in one pass over y; a side input of another shape
// fails as on the CPU.
TEST(TrainingOpsCudaTest, FusedBatchNormExMatchesCpu) {
  if (VisibleCudaDevices() == 0) GTEST_SKIP() << "no CUDA device visible";
  const Tensor scale = RandomTensor(TensorShape({6}), 0.5, 2, 21);
  const Tensor offset = RandomTensor(TensorShape({6}), -1, 1, 22);
  const Tensor mean = RandomTensor(TensorShape({6}), -1, 1, 23);
  const Tensor variance = RandomTensor(TensorShape({6}), 0.5, 2, 24);
  const Tensor empty(DT_FLOAT, TensorShape({0}));
  const Tensor x = RandomTensor(TensorShape({4, 9, 7, 6}), -3, 3, 25);
  const Tensor side = RandomTensor(TensorShape({4, 9, 7, 6}), -2, 2, 26);
  for (bool training : {true, false}) {
    for (bool with_side : {false, true}) {
      SCOPED_TRACE(testing::Message() << "training=" << training << " side=" << with_side);
      NodeDef def = BatchNorm("FusedBatchNormV3", training, "NHWC");
      def.op = "_FusedBatchNormEx";
      def.attr["activation_mode"] = std::string("Relu");
      def.attr["num_side_inputs"] = int64_t{with_side ? 1 : 0};
      std::vector<Tensor> inputs = {x, scale, offset, training ? empty : mean,
                                    training ? empty : variance};
      if (with_side) inputs.push_back(side);
      ExpectCudaMatchesCpu(def, inputs, 1e-5, 1e-5);
    }
  }
  NodeDef def = BatchNorm("FusedBatchNormV3", true, "NHWC");
  def.op = "_FusedBatchNormEx";
  def.attr["activation_mode"] = std::string("Relu");
  def.attr["num_side_inputs"] = int64_t{1};
  ExpectCudaMatchesCpu(def, {x, scale, offset, empty, empty, RandomTensor(TensorShape({4, 6}))});
}

TEST(TrainingOpsCudaTest, FusedBatchNormGradMatchesCpu) {
  if (VisibleCudaDevices() == 0) GTEST_SKIP() << "no CUDA device visible";
  const Tensor scale = RandomTensor(TensorShape({5}), 0.5, 2, 7);
  const Tensor mean = RandomTensor(TensorShape({5}), -1, 1, 8);
  const Tensor variance = RandomTensor(TensorShape({5}), 0.5, 2, 9);
  const Tensor reserve_3(DT_FLOAT, TensorShape());
  const Tensor x = RandomTensor(TensorShape({3, 8, 6, 5}), -3, 3, 10);
  const Tensor dy = RandomTensor(TensorShape({3, 8, 6, 5}), -1, 1, 11);
  for (bool is_training : {true, false}) {
    SCOPED_TRACE(is_training);
    ExpectCudaMatchesCpu(BatchNorm("FusedBatchNormGradV3", is_training, "NHWC"),
                         {dy, x, scale, mean, variance, reserve_3}, 1e-5, 1e-5);
    ExpectCudaMatchesCpu(BatchNorm("FusedBatchNormGrad", is_training, "NHWC"),
                         {dy, x, scale, mean, variance}, 1e-5, 1e-5);
  }
  // y_backprop and x of different shapes fail the same way.
  ExpectCudaMatchesCpu(BatchNorm("FusedBatchNormGrad", true, "NHWC"),
                       {RandomTensor(TensorShape({3, 8, 6, 4})), x, scale, mean, variance});
}

// Shapes whose channels the CUDA kernels fold in many chunks: NHWC with a
// partial 32-channel tile, NCHW with several chunks per channel.
TEST(TrainingOpsCudaTest, FusedBatchNormAndGradFoldManyChunksAsCpu) {
  if (VisibleCudaDevices() == 0) GTEST_SKIP() << "no CUDA device visible";
  struct Case {
    const char* format;
    TensorShape x;
    int64_t channels;
  };
  for (const Case& c : {Case{"NHWC", TensorShape({8, 16, 16, 40}), 40},
                        Case{"NCHW", TensorShape({8, 3, 32, 32}), 3}}) {
    SCOPED_TRACE(c.format);
    const TensorShape vector({c.channels});
    const Tensor x = RandomTensor(c.x, -3, 3, 12);
    const Tensor dy = RandomTensor(c.x, -1, 1, 13);
    const Tensor scale = RandomTensor(vector, 0.5, 2, 14);
    const Tensor offset = RandomTensor(vector, -1, 1, 15);
    const Tensor mean = RandomTensor(vector, -1, 1, 16);
    const Tensor variance = RandomTensor(vector, 0.5, 2, 17);
    const Tensor empty(DT_FLOAT, TensorShape({0}));
    ExpectCudaMatchesCpu(BatchNorm("FusedBatchNormV3", true, c.format),
                         {x, scale, offset, empty, empty}, 1e-5, 1e-5);
    ExpectCudaMatchesCpu(BatchNorm("FusedBatchNormV3", true, c.format, 0.1f),
                         {x, scale, offset, mean, variance}, 1e-5, 1e-5);
    for (bool is_training : {true, false}) {
      ExpectCudaMatchesCpu(BatchNorm("FusedBatchNormGrad", is_training, c.format),
                           {dy, x, scale, mean, variance}, 1e-5, 1e-5);
    }
  }
}

TEST(TrainingOpsCudaTest, ElementwiseOpsOfTensorFlowGraphsMatchCpu) {
  if (VisibleCudaDevices() == 0) GTEST_SKIP() << "no CUDA device visible";
  const Tensor a = RandomTensor(TensorShape({4, 1, 6}), -3, 3, 12);
  const Tensor b = RandomTensor(TensorShape({5, 1}), 0.5, 3, 13);
  for (const char* op : {"AddV2", "RealDiv", "SquaredDifference", "Pow"}) {
    SCOPED_TRACE(op);
    ExpectCudaMatchesCpu(MakeNodeDef("n", op, {{"T", DT_FLOAT}}), {a, b}, 1e-6, 1e-6);
    ExpectCudaMatchesCpu(MakeNodeDef("n", op, {{"T", DT_FLOAT}}),
                         {a, RandomTensor(TensorShape({3}))});  // not broadcastable
  }
  ExpectCudaMatchesCpu(MakeNodeDef("n", "Rsqrt", {{"T", DT_FLOAT}}),
                       {RandomTensor(TensorShape({7, 3}), 0.1, 9, 14)}, 1e-6, 1e-6);
  for (const char* op : {"Erf", "Erfc"}) {
    ExpectCudaMatchesCpu(MakeNodeDef("n", op, {{"T", DT_FLOAT}}),
                         {RandomTensor(TensorShape({9, 4}), -5, 5, 17)}, 1e-6, 1e-5);
  }
  const Tensor y = RandomTensor(TensorShape({6, 5}), 0.1, 0.9, 15);
  const Tensor dy = RandomTensor(TensorShape({6, 5}), -2, 2, 16);
  for (const char* op :
       {"RsqrtGrad", "SqrtGrad", "ReciprocalGrad", "SigmoidGrad", "TanhGrad"}) {
    SCOPED_TRACE(op);
    ExpectCudaMatchesCpu(MakeNodeDef("n", op, {{"T", DT_FLOAT}}), {y, dy}, 1e-6, 1e-5);
    ExpectCudaMatchesCpu(MakeNodeDef("n", op, {{"T", DT_FLOAT}}),
                         {y, RandomTensor(TensorShape({4}))});
  }
}

TEST(TrainingOpsCudaTest, AddNAndBiasAddGradMatchCpu) {
  if (VisibleCudaDevices() == 0) GTEST_SKIP() << "no CUDA device visible";
  for (int n : {1, 2, 5}) {
    SCOPED_TRACE(n);
    std::vector<Tensor> inputs;
    for (int i = 0; i < n; ++i) inputs.push_back(RandomTensor(TensorShape({3, 7}), -2, 2, 20 + i));
    ExpectCudaMatchesCpu(MakeNodeDef("n", "AddN", {{"T", DT_FLOAT}, {"N", int64_t{n}}}), inputs,
                         1e-6, 1e-6);
  }
  ExpectCudaMatchesCpu(MakeNodeDef("n", "AddN", {{"T", DT_FLOAT}, {"N", int64_t{2}}}),
                       {RandomTensor(TensorShape({3, 7})), RandomTensor(TensorShape({7, 3}))});
  const Tensor grad = RandomTensor(TensorShape({4, 5, 3, 6}), -2, 2, 30);
  for (const char* format : {"NHWC", "NCHW"}) {
    SCOPED_TRACE(format);
    ExpectCudaMatchesCpu(
        MakeNodeDef("n", "BiasAddGrad", {{"T", DT_FLOAT}, {"data_format", format}}), {grad},
        1e-5, 1e-5);
  }
  ExpectCudaMatchesCpu(
      MakeNodeDef("n", "BiasAddGrad", {{"T", DT_FLOAT}, {"data_format", "NCHW"}}),
      {RandomTensor(TensorShape({4, 5}))});  // NCHW needs rank 3
  // Long folds, cut into chunks on the GPU: BERT's bias gradient (1024 rows
  // into 768 sums), and NCHW planes of 40000 into 16 sums.
  ExpectCudaMatchesCpu(
      MakeNodeDef("n", "BiasAddGrad", {{"T", DT_FLOAT}, {"data_format", "NHWC"}}),
      {RandomTensor(TensorShape({8, 128, 768}), -2, 2, 31)}, 1e-4, 1e-5);
  ExpectCudaMatchesCpu(
      MakeNodeDef("n", "BiasAddGrad", {{"T", DT_FLOAT}, {"data_format", "NCHW"}}),
      {RandomTensor(TensorShape({2, 8, 200, 200}), -2, 2, 32)}, 1e-3, 1e-5);
}

// The transformer's attention products: equal batch dimensions (one strided
// call) and broadcast ones (one call per product), adjoints included.
TEST(TrainingOpsCudaTest, BatchMatMulV2MatchesCpu) {
  if (VisibleCudaDevices() == 0) GTEST_SKIP() << "no CUDA device visible";
  const Tensor x = RandomTensor(TensorShape({2, 3, 4, 5}), -1, 1, 40);
  for (bool adj_y : {false, true}) {
    SCOPED_TRACE(adj_y);
    const NodeDef def = MakeNodeDef(
        "n", "BatchMatMulV2", {{"T", DT_FLOAT}, {"adj_x", false}, {"adj_y", adj_y}});
    const TensorShape same = adj_y ? TensorShape({2, 3, 6, 5}) : TensorShape({2, 3, 5, 6});
    ExpectCudaMatchesCpu(def, {x, RandomTensor(same, -1, 1, 41)}, 1e-5, 1e-5);
    const TensorShape broadcast = adj_y ? TensorShape({3, 6, 5}) : TensorShape({3, 5, 6});
    ExpectCudaMatchesCpu(def, {x, RandomTensor(broadcast, -1, 1, 42)}, 1e-5, 1e-5);
  }
  // Batch dimensions that do not broadcast fail as on the CPU.
  ExpectCudaMatchesCpu(MakeNodeDef("n", "BatchMatMulV2", {{"T", DT_FLOAT}}),
                       {x, RandomTensor(TensorShape({4, 5, 6}))});
}

}  // namespace
}  // namespace minitf
