// Every shipped op is registered cleanly and has a CPU kernel.
#include <set>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "runtime/kernel_registry.h"
#include "runtime/op_registry.h"

namespace minitf {
namespace {

// The ops minitf ships (test-only ops start with "_Test").
const std::set<std::string>& ShippedOps() {
  static const auto* ops = new std::set<std::string>{
      "Const", "Placeholder", "Identity", "NoOp", "_Arg", "_Retval", "Switch", "Merge",
      "Add", "Sub", "Mul", "Div", "Maximum", "Minimum", "Neg", "Square", "Sqrt", "Exp", "Log",
      "Cast", "Sum", "Mean", "Max", "MatMul", "BiasAdd", "Relu", "ReluGrad", "Sigmoid", "Tanh",
      "Softmax", "SparseSoftmaxCrossEntropyWithLogits", "Conv2D", "Conv2DBackpropInput",
      "Conv2DBackpropFilter", "MaxPool", "MaxPoolGrad", "Reshape", "Shape", "Fill",
      "ZerosLike", "OnesLike", "RandomUniform", "RandomStandardNormal", "Variable", "Assign",
      "AssignAdd", "ApplyGradientDescent", "_Send", "_Recv", "_HostSend", "_HostRecv", "Transpose", "BatchMatMul", "Less",
      "LessEqual", "Greater", "GreaterEqual", "Equal", "NotEqual", "LogicalAnd", "LogicalOr",
      "LogicalNot", "Enter", "Exit", "NextIteration", "LoopCond", "ConcatV2", "ConcatOffset",
      "Pack", "Unpack", "Split", "SplitV", "Slice", "StridedSlice", "StridedSliceGrad",
      "Squeeze", "ExpandDims", "Pad", "PadV2", "Tile", "BroadcastTo", "BroadcastGradientArgs",
      "Range", "OneHot", "GatherV2", "UnsortedSegmentSum", "Unique", "Size", "Rank", "StopGradient",
      "PreventGradient", "Snapshot", "InvertPermutation", "IdentityN", "AvgPool", "AvgPoolGrad",
      "FusedBatchNorm", "FusedBatchNormV3", "FusedBatchNormGrad", "FusedBatchNormGradV3",
      "BatchMatMulV2", "_FusedMatMul", "_FusedConv2D", "_FusedBatchNormEx",
      "_MklFusedBatchMatMulV2",
      // Elementwise math, activations, reductions and losses of TensorFlow 2.x graphs.
      "AddV2", "RealDiv", "FloorDiv", "FloorMod", "Pow", "SquaredDifference", "RsqrtGrad",
      "SqrtGrad", "ReciprocalGrad", "SigmoidGrad", "TanhGrad", "Rsqrt", "Abs", "Sign",
      "Reciprocal", "Erf", "Erfc", "AddN", "ShapeN", "Relu6", "LeakyRelu", "Elu", "Relu6Grad", "LeakyReluGrad", "EluGrad",
      "Select", "SelectV2", "Min", "Prod", "ArgMax", "LogSoftmax",
      "SoftmaxCrossEntropyWithLogits", "BiasAddGrad", "L2Loss",
      // Variables, optimizers and random ops of TensorFlow 2.x training graphs.
      "VariableV2", "AssignSub", "ScatterAdd", "ApplyMomentum", "ApplyAdam", "VarHandleOp", "ReadVariableOp",
      "AssignVariableOp", "AssignAddVariableOp", "AssignSubVariableOp", "VarIsInitializedOp",
      "DestroyResourceOp", "ResourceApplyGradientDescent", "ResourceApplyMomentum",
      "ResourceApplyAdam", "TruncatedNormal", "RandomUniformInt"};
  return *ops;
}

// Shipped ops whose GPU kernels serve every platform: they touch no device
// memory (transfers, forwarding, reshaping, reading only a shape, the loop
// machinery, a constant copied once), so they are not SimGPU twins.
const std::set<std::string>& AnyGPUPlatformOps() {
  static const auto* ops = new std::set<std::string>{
      "_Send", "_Recv",  "_HostSend", "_HostRecv", "NoOp",          "Placeholder",
      "Const", "Identity", "Reshape", "Shape",     "Switch",        "Merge",
      "Enter", "Exit",   "NextIteration", "LoopCond", "Size", "Rank", "Squeeze", "ExpandDims",
      "StopGradient", "PreventGradient", "IdentityN", "ShapeN"};
  return *ops;
}

// Shipped ops that have no GPU kernel by design (sim_gpu_kernels.cc): the
// runtime's own, and a fusion TensorFlow makes on the CPU only.
const std::set<std::string>& CpuOnlyOps() {
  static const auto* ops = new std::set<std::string>{"_Arg", "_Retval", "_MklFusedBatchMatMulV2"};
  return *ops;
}

TEST(RegistrationTest, NoOpFailedToRegister) {
  EXPECT_THAT(OpRegistry::Global()->registration_errors(), ::testing::IsEmpty());
}

TEST(RegistrationTest, EveryShippedOpIsRegisteredWithAShapeFunction) {
  for (const std::string& op : ShippedOps()) {
    const OpDef* def = OpRegistry::Global()->LookUp(op);
    ASSERT_NE(def, nullptr) << op;
    EXPECT_TRUE(static_cast<bool>(def->shape_fn)) << op << " has no shape function";
  }
}

TEST(RegistrationTest, EveryRegisteredOpHasACpuKernel) {
  for (const std::string& op : OpRegistry::Global()->ListOpNames()) {
    const std::vector<std::string> types = KernelRegistry::Global()->DeviceTypesForOp(op);
    EXPECT_THAT(types, ::testing::Contains(DEVICE_CPU)) << op << " has no CPU kernel";
  }
}

TEST(RegistrationTest, EveryRegisteredOpIsShippedOrATestOp) {
  for (const std::string& op : OpRegistry::Global()->ListOpNames()) {
    if (op.rfind("_Test", 0) == 0) continue;
    EXPECT_TRUE(ShippedOps().count(op)) << op << " is registered but not in the shipped list";
  }
}

TEST(RegistrationTest, EveryCpuKernelOfAShippedOpHasASimGpuTwin) {
  for (const std::string& op : ShippedOps()) {
    if (CpuOnlyOps().count(op) || AnyGPUPlatformOps().count(op)) continue;
    int cpu = 0, sim_gpu = 0;
    for (const KernelRegistration* reg : KernelRegistry::Global()->KernelsForOp(op)) {
      if (reg->def.device_type == DEVICE_CPU) ++cpu;
      if (reg->def.device_type == DEVICE_GPU && reg->def.platform == "SimGPU") {
        ++sim_gpu;
        EXPECT_THAT(reg->class_name, ::testing::StartsWith("SimGPUOpKernel(")) << op;
      }
    }
    EXPECT_GT(cpu, 0) << op;
    EXPECT_EQ(sim_gpu, cpu) << op << ": every CPU kernel should have a SimGPU twin";
  }
}

TEST(RegistrationTest, SomeOpsRunOnEveryGpuPlatformAndCpuOnlyOpsHaveNoGpuKernel) {
  for (const std::string& op : AnyGPUPlatformOps()) {
    bool any_platform_gpu = false;
    for (const KernelRegistration* reg : KernelRegistry::Global()->KernelsForOp(op)) {
      any_platform_gpu |= reg->def.device_type == DEVICE_GPU && reg->def.platform.empty();
      EXPECT_FALSE(reg->def.device_type == DEVICE_GPU && reg->def.platform == "SimGPU")
          << op << " has a SimGPU-only kernel besides the one for every platform";
    }
    EXPECT_TRUE(any_platform_gpu) << op;
  }
  for (const std::string& op : CpuOnlyOps()) {
    EXPECT_THAT(KernelRegistry::Global()->DeviceTypesForOp(op),
                ::testing::Not(::testing::Contains(DEVICE_GPU)))
        << op;
  }
}

TEST(RegistrationTest, DuplicateOpRegistrationIsReportedNotFatal) {
  absl::Status s = OpRegistry::Global()->Register(OpDefBuilder("Identity"));
  EXPECT_EQ(s.code(), absl::StatusCode::kAlreadyExists);
  EXPECT_NE(OpRegistry::Global()->LookUp("Identity"), nullptr);
}

}  // namespace
}  // namespace minitf
