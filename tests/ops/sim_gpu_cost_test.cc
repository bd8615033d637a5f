// SimGPU's cost model (ops/kernels/sim_gpu/sim_gpu_cost.h) counts the work a
// kernel does, whatever its attrs say: a pooling window larger than its
// input models the input's elements, not the window's, so a hostile ksize
// cannot hold the simulated engine for days.
#include "ops/kernels/sim_gpu/sim_gpu_cost.h"

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "gtest/gtest.h"
#include "stream/sim_gpu/sim_gpu_cost_model.h"
#include "stream/sim_gpu/sim_gpu_platform.h"

namespace minitf {
namespace {

NodeDef MaxPoolNode(const std::string& op, int64_t window) {
  NodeDef def;
  def.name = "pool";
  def.op = op;
  def.attr["T"] = DT_FLOAT;
  def.attr["ksize"] = std::vector<int64_t>{1, window, window, 1};
  def.attr["strides"] = std::vector<int64_t>{1, 1, 1, 1};
  def.attr["padding"] = std::string("SAME");
  def.attr["data_format"] = std::string("NHWC");
  return def;
}

TEST(SimGpuCostTest, APoolingWindowCountsNoMoreThanItsInput) {
  absl::StatusOr<se::SimGPUPlatform*> platform = se::GetSimGPUPlatform("");
  ASSERT_TRUE(platform.ok()) << platform.status();
  absl::StatusOr<se::StreamExecutor*> executor = (*platform)->ExecutorForDevice(0);
  ASSERT_TRUE(executor.ok()) << executor.status();
  const Tensor input(DT_FLOAT, TensorShape({1, 4, 4, 1}));
  const std::vector<PartialTensorShape> out = {PartialTensorShape({1, 4, 4, 1})};
  // Every window of a 4x4 input reads at most its 16 elements, 16 windows.
  for (int64_t window : {int64_t{5}, int64_t{10000000}, int64_t{2147483647}}) {
    const se::KernelCost cost =
        EstimateKernelCost(MaxPoolNode("MaxPool", window), {&input}, out, {DT_FLOAT}, **executor);
    EXPECT_EQ(cost.flops, 16.0 * 16.0) << window;
    const se::KernelCost grad = EstimateKernelCost(MaxPoolNode("MaxPoolGrad", window),
                                                   {&input, &input, &input}, out, {DT_FLOAT},
                                                   **executor);
    EXPECT_EQ(grad.flops, 16.0 * 16.0) << window;
  }
  // A window inside the input counts its own size.
  const se::KernelCost small =
      EstimateKernelCost(MaxPoolNode("MaxPool", 2), {&input}, out, {DT_FLOAT}, **executor);
  EXPECT_EQ(small.flops, 16.0 * 4.0);
}

// The family (for the GPU profile's efficiencies) comes from the op's name;
// an op of no listed family is `other`.
TEST(SimGpuCostTest, EachOpIsClassifiedIntoItsFamily) {
  using F = se::KernelFamily;
  const std::pair<const char*, F> cases[] = {
      {"Conv2D", F::kConvForward},
      {"Conv2DBackpropInput", F::kConvBackpropInput},
      {"Conv2DBackpropFilter", F::kConvBackpropFilter},
      {"MatMul", F::kMatMul},
      {"_FusedMatMul", F::kMatMul},
      {"_FusedConv2D", F::kConvForward},
      {"BatchMatMulV2", F::kMatMul},
      {"AddV2", F::kElementwise},
      {"ReluGrad", F::kElementwise},
      {"ApplyMomentum", F::kElementwise},
      {"Fill", F::kElementwise},
      {"BiasAddGrad", F::kReduction},
      {"Mean", F::kReduction},
      {"MaxPoolGrad", F::kPooling},
      {"FusedBatchNormGradV3", F::kBatchNorm},
      {"SparseSoftmaxCrossEntropyWithLogits", F::kSoftmax},
      {"Transpose", F::kDataMovement},
      {"Assign", F::kDataMovement},
      {"VariableV2", F::kOther},
      {"NoSuchOp", F::kOther},
  };
  for (const auto& [op, family] : cases) {
    EXPECT_EQ(KernelFamilyOfOp(op), family)
        << op << " is " << se::KernelFamilyName(KernelFamilyOfOp(op)) << ", want "
        << se::KernelFamilyName(family);
  }

  absl::StatusOr<se::SimGPUPlatform*> platform = se::GetSimGPUPlatform("");
  ASSERT_TRUE(platform.ok()) << platform.status();
  absl::StatusOr<se::StreamExecutor*> executor = (*platform)->ExecutorForDevice(0);
  ASSERT_TRUE(executor.ok()) << executor.status();
  const Tensor input(DT_FLOAT, TensorShape({1, 4, 4, 1}));
  const std::vector<PartialTensorShape> out = {PartialTensorShape({1, 4, 4, 1})};
  EXPECT_EQ(EstimateKernelCost(MaxPoolNode("MaxPool", 2), {&input}, out, {DT_FLOAT}, **executor)
                .family,
            F::kPooling);
}

// The blocks of the CUDA twin's launch, for the SM model: a block per 256
// elements of the largest tensor (eight per SM), a 64 x 64 output tile per
// block for a matrix product (two per SM).
TEST(SimGpuCostTest, BlocksFollowTheCudaTwinsLaunch) {
  absl::StatusOr<se::SimGPUPlatform*> platform = se::GetSimGPUPlatform("");
  ASSERT_TRUE(platform.ok()) << platform.status();
  absl::StatusOr<se::StreamExecutor*> executor = (*platform)->ExecutorForDevice(0);
  ASSERT_TRUE(executor.ok()) << executor.status();
  NodeDef relu;
  relu.name = "relu";
  relu.op = "Relu";
  const Tensor x(DT_FLOAT, TensorShape({1000}));
  se::KernelCost cost =
      EstimateKernelCost(relu, {&x}, {PartialTensorShape({1000})}, {DT_FLOAT}, **executor);
  EXPECT_EQ(cost.blocks, 4);
  EXPECT_EQ(cost.blocks_per_sm, 8);
  EXPECT_DOUBLE_EQ(se::KernelWidth(cost, 132), 0.5);

  NodeDef matmul;
  matmul.name = "mm";
  matmul.op = "MatMul";
  const Tensor a(DT_FLOAT, TensorShape({1024, 512})), b(DT_FLOAT, TensorShape({512, 768}));
  cost = EstimateKernelCost(matmul, {&a, &b}, {PartialTensorShape({1024, 768})}, {DT_FLOAT},
                            **executor);
  EXPECT_EQ(cost.blocks, 16 * 12);
  EXPECT_EQ(cost.blocks_per_sm, 2);
  EXPECT_DOUBLE_EQ(se::KernelWidth(cost, 132), 96);
  EXPECT_DOUBLE_EQ(se::KernelWidth(cost, 80), 80);  // More than the device: all of it.

  // Unknown output: the whole device.
  cost = EstimateKernelCost(matmul, {&a, &b}, {PartialTensorShape()}, {DT_FLOAT}, **executor);
  EXPECT_EQ(cost.blocks, 0);
  EXPECT_DOUBLE_EQ(se::KernelWidth(cost, 132), 132);
}

// The remapper's fusions model their contraction's work: _FusedMatMul the
// flops and blocks of its MatMul, _FusedConv2D those of its Conv2D (the
// bias is one more input, the activation an attr).
TEST(SimGpuCostTest, AFusedContractionCostsAsItsContraction) {
  absl::StatusOr<se::SimGPUPlatform*> platform = se::GetSimGPUPlatform("");
  ASSERT_TRUE(platform.ok()) << platform.status();
  absl::StatusOr<se::StreamExecutor*> executor = (*platform)->ExecutorForDevice(0);
  ASSERT_TRUE(executor.ok()) << executor.status();
  auto node = [](const std::string& op) {
    NodeDef def;
    def.name = "n";
    def.op = op;
    def.attr["fused_ops"] = std::vector<std::string>{"BiasAdd", "Relu"};
    return def;
  };
  const Tensor a(DT_FLOAT, TensorShape({256, 512})), b(DT_FLOAT, TensorShape({512, 128}));
  const Tensor bias(DT_FLOAT, TensorShape({128}));
  const std::vector<PartialTensorShape> product = {PartialTensorShape({256, 128})};
  const se::KernelCost mm = EstimateKernelCost(node("MatMul"), {&a, &b}, product, {DT_FLOAT},
                                               **executor);
  const se::KernelCost fused_mm = EstimateKernelCost(node("_FusedMatMul"), {&a, &b, &bias},
                                                     product, {DT_FLOAT}, **executor);
  EXPECT_EQ(mm.flops, 2.0 * 256 * 128 * 512);
  EXPECT_EQ(fused_mm.flops, mm.flops);
  EXPECT_EQ(fused_mm.blocks, mm.blocks);
  EXPECT_EQ(fused_mm.family, se::KernelFamily::kMatMul);

  const Tensor input(DT_FLOAT, TensorShape({2, 8, 8, 3}));
  const Tensor filter(DT_FLOAT, TensorShape({3, 3, 3, 16}));
  const Tensor conv_bias(DT_FLOAT, TensorShape({16}));
  const std::vector<PartialTensorShape> out = {PartialTensorShape({2, 8, 8, 16})};
  const se::KernelCost conv = EstimateKernelCost(node("Conv2D"), {&input, &filter}, out,
                                                 {DT_FLOAT}, **executor);
  const se::KernelCost fused_conv = EstimateKernelCost(
      node("_FusedConv2D"), {&input, &filter, &conv_bias}, out, {DT_FLOAT}, **executor);
  EXPECT_EQ(conv.flops, 2.0 * (2 * 8 * 8 * 16) * (3 * 3 * 3));
  EXPECT_EQ(fused_conv.flops, conv.flops);
  EXPECT_EQ(fused_conv.family, se::KernelFamily::kConvForward);
}

}  // namespace
}  // namespace minitf
