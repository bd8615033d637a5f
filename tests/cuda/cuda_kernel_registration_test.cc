// Runs without a GPU: every float op the CUDA platform covers has a kernel
// registered for GPU devices of the "CUDA" platform (and only for those), and
// shape inputs such as reduction_indices are kept in host memory. Fill,
// ZerosLike, OnesLike and Cast cover float, double, int64 (and bool for
// Cast) but not int32, whose tensors stay in host memory on GPU devices.
#include <algorithm>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "runtime/kernel_registry.h"
#include "runtime/node_def_util.h"
#include "runtime/op_registry.h"
#include "tests/testlib/kernel_runner.h"

namespace minitf {
namespace {

using test::MakeNodeDef;

// A float node of `op` with its attr defaults and dummy inputs.
NodeDef FloatNode(const std::string& op, AttrValueMap attrs = {}) {
  attrs["T"] = DT_FLOAT;
  NodeDef def = MakeNodeDef("n", op, std::move(attrs));
  const OpDef* op_def = OpRegistry::Global()->LookUp(op);
  EXPECT_NE(op_def, nullptr) << op;
  if (op_def == nullptr) return def;
  // The 1-D operands of FusedBatchNormV3 and its gradient.
  if (op_def->FindAttr("U") != nullptr) def.attr["U"] = DT_FLOAT;
  AddDefaultsToNodeDef(*op_def, &def);
  for (size_t i = 0; i < op_def->input_arg.size(); ++i) def.input.push_back("in");
  return def;
}

const std::vector<std::string>& CudaOps() {
  static const std::vector<std::string> ops = {
      "Add", "Sub", "Mul", "Div", "Maximum", "Minimum", "Neg", "Square", "Sqrt", "Exp", "Log",
      "Relu", "ReluGrad", "Sigmoid", "Tanh", "BiasAdd", "Sum", "Mean", "Max", "MatMul",
      "Softmax", "SparseSoftmaxCrossEntropyWithLogits", "Conv2D", "Conv2DBackpropInput",
      "Conv2DBackpropFilter", "MaxPool", "MaxPoolGrad", "Transpose", "BatchMatMul", "Fill",
      "ZerosLike", "OnesLike",
      // The hot path of the ResNet-50 and BERT training graphs TensorFlow writes.
      "AddV2", "RealDiv", "SquaredDifference", "Rsqrt", "RsqrtGrad", "SqrtGrad",
      "ReciprocalGrad", "SigmoidGrad", "TanhGrad", "AddN", "BiasAddGrad", "FusedBatchNorm",
      "FusedBatchNormV3", "FusedBatchNormGrad", "FusedBatchNormGradV3", "Pow", "Erf", "Erfc",
      "BatchMatMulV2", "Assign", "AssignAdd", "AssignSub", "ApplyMomentum", "ApplyAdam"};
  return ops;
}

AttrValueMap WindowAttrs(const std::string& op) {
  if (op == "AddN") return {{"N", int64_t{2}}};
  if (op.rfind("Conv2D", 0) == 0) {
    return {{"strides", std::vector<int64_t>{1, 1, 1, 1}}, {"padding", "SAME"}};
  }
  if (op.rfind("MaxPool", 0) == 0) {
    return {{"ksize", std::vector<int64_t>{1, 2, 2, 1}},
            {"strides", std::vector<int64_t>{1, 2, 2, 1}},
            {"padding", "VALID"}};
  }
  return {};
}

TEST(CudaKernelRegistrationTest, EveryCoveredOpHasAFloatCudaKernel) {
  for (const std::string& op : CudaOps()) {
    const NodeDef def = FloatNode(op, WindowAttrs(op));
    absl::StatusOr<const KernelRegistration*> reg =
        KernelRegistry::Global()->FindKernel(DEVICE_GPU, def, "CUDA");
    ASSERT_TRUE(reg.ok()) << op << ": " << reg.status();
    EXPECT_EQ((*reg)->def.platform, "CUDA") << op;
  }
}

TEST(CudaKernelRegistrationTest, ShapeInputsStayInHostMemory) {
  const std::vector<std::pair<std::string, std::string>> host_args = {
      {"Sum", "reduction_indices"},      {"Mean", "reduction_indices"},
      {"Max", "reduction_indices"},      {"Conv2DBackpropInput", "input_sizes"},
      {"Conv2DBackpropFilter", "filter_sizes"}, {"SparseSoftmaxCrossEntropyWithLogits", "labels"},
      {"Transpose", "perm"}, {"Fill", "dims"}, {"Fill", "value"}};
  for (const auto& [op, arg] : host_args) {
    absl::StatusOr<const KernelRegistration*> reg =
        KernelRegistry::Global()->FindKernel(DEVICE_GPU, FloatNode(op, WindowAttrs(op)), "CUDA");
    ASSERT_TRUE(reg.ok()) << op << ": " << reg.status();
    const std::vector<std::string>& args = (*reg)->def.host_memory_args;
    EXPECT_NE(std::find(args.begin(), args.end(), arg), args.end()) << op << " " << arg;
  }
}

TEST(CudaKernelRegistrationTest, TransposeHasACudaKernelForEveryDeviceDtypeAndPermType) {
  for (DataType dtype : AllDataTypes()) {
    for (DataType tperm : {DT_INT32, DT_INT64}) {
      NodeDef def = MakeNodeDef("n", "Transpose", {{"T", dtype}, {"Tperm", tperm}});
      def.input = {"x", "perm"};
      absl::StatusOr<const KernelRegistration*> reg =
          KernelRegistry::Global()->FindKernel(DEVICE_GPU, def, "CUDA");
      // int32 tensors stay in host memory on GPU devices: a CUDA kernel
      // would write them from the device.
      if (dtype == DT_INT32) {
        EXPECT_FALSE(reg.ok()) << DataTypeString(tperm);
        continue;
      }
      ASSERT_TRUE(reg.ok()) << DataTypeString(dtype) << " " << DataTypeString(tperm) << ": "
                            << reg.status();
      EXPECT_EQ((*reg)->def.platform, "CUDA");
    }
  }
}

// A node of `op` with `attrs`, its attr defaults and dummy inputs.
NodeDef NodeWith(const std::string& op, AttrValueMap attrs) {
  NodeDef def = MakeNodeDef("n", op, std::move(attrs));
  const OpDef* op_def = OpRegistry::Global()->LookUp(op);
  EXPECT_NE(op_def, nullptr) << op;
  if (op_def == nullptr) return def;
  AddDefaultsToNodeDef(*op_def, &def);
  for (size_t i = 0; i < op_def->input_arg.size(); ++i) def.input.push_back("in");
  return def;
}

bool HasCudaKernel(const NodeDef& def) {
  absl::StatusOr<const KernelRegistration*> reg =
      KernelRegistry::Global()->FindKernel(DEVICE_GPU, def, "CUDA");
  return reg.ok() && (*reg)->def.platform == "CUDA";
}

TEST(CudaKernelRegistrationTest, FillAndConstantLikeHaveCudaKernelsForDeviceTypesOnly) {
  for (DataType dtype : {DT_FLOAT, DT_DOUBLE, DT_INT64}) {
    for (DataType index_type : {DT_INT32, DT_INT64}) {
      const NodeDef fill = NodeWith("Fill", {{"T", dtype}, {"index_type", index_type}});
      absl::StatusOr<const KernelRegistration*> reg =
          KernelRegistry::Global()->FindKernel(DEVICE_GPU, fill, "CUDA");
      ASSERT_TRUE(reg.ok()) << DataTypeString(dtype) << ": " << reg.status();
      EXPECT_EQ((*reg)->def.platform, "CUDA");
      const std::vector<std::string>& args = (*reg)->def.host_memory_args;
      EXPECT_NE(std::find(args.begin(), args.end(), "dims"), args.end());
      EXPECT_NE(std::find(args.begin(), args.end(), "value"), args.end());
    }
    EXPECT_TRUE(HasCudaKernel(NodeWith("ZerosLike", {{"T", dtype}}))) << DataTypeString(dtype);
    EXPECT_TRUE(HasCudaKernel(NodeWith("OnesLike", {{"T", dtype}}))) << DataTypeString(dtype);
  }
  EXPECT_FALSE(HasCudaKernel(NodeWith("Fill", {{"T", DT_INT32}})));
  EXPECT_FALSE(HasCudaKernel(NodeWith("ZerosLike", {{"T", DT_INT32}})));
  EXPECT_FALSE(HasCudaKernel(NodeWith("OnesLike", {{"T", DT_INT32}})));
}

TEST(CudaKernelRegistrationTest, CastHasACudaKernelForEveryPairOfDeviceTypes) {
  const std::vector<DataType> types = {DT_FLOAT, DT_DOUBLE, DT_INT64, DT_BOOL};
  for (DataType src : types) {
    for (DataType dst : types) {
      EXPECT_TRUE(HasCudaKernel(NodeWith("Cast", {{"SrcT", src}, {"DstT", dst}})))
          << DataTypeString(src) << " to " << DataTypeString(dst);
    }
    EXPECT_FALSE(HasCudaKernel(NodeWith("Cast", {{"SrcT", src}, {"DstT", DT_INT32}})));
    EXPECT_FALSE(HasCudaKernel(NodeWith("Cast", {{"SrcT", DT_INT32}, {"DstT", src}})));
  }
}

TEST(CudaKernelRegistrationTest, CudaKernelsAreNotOfferedToOtherPlatforms) {
  for (const std::string& op : CudaOps()) {
    absl::StatusOr<const KernelRegistration*> reg = KernelRegistry::Global()->FindKernel(
        DEVICE_GPU, FloatNode(op, WindowAttrs(op)), "SomeOtherPlatform");
    if (reg.ok()) {
      EXPECT_NE((*reg)->def.platform, "CUDA") << op;
    }
  }
}

}  // namespace
}  // namespace minitf
