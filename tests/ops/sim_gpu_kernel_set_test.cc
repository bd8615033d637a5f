// SimGPU's kernel set. By default it is CUDA's (ops/kernels/cuda_kernel_set.h):
// every listed kernel wraps a CPU kernel for each of its dtypes, and an op
// CUDA has no kernel for runs on the CPU in a SimGPU session, as it would
// next to a CUDA GPU. With MINITF_SIMGPU="kernels=all" every CPU kernel has
// a SimGPU twin. No listed kernel keeps an int32 tensor in device memory.
#include <algorithm>
#include <cstdlib>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "ops/cc/scope.h"
#include "ops/kernels/cuda_kernel_set.h"
#include "ops/standard_ops.h"
#include "runtime/kernel_registry.h"
#include "runtime/op_def.h"
#include "runtime/op_registry.h"
#include "session/session.h"
#include "stream/sim_gpu/sim_gpu_options.h"

namespace minitf {
namespace {

// One NodeDef per dtype combination of `def`'s constraints.
void NodesFor(const KernelDef& def, size_t i, NodeDef node, std::vector<NodeDef>* out) {
  if (i == def.constraints.size()) {
    out->push_back(node);
    return;
  }
  for (DataType t : def.constraints[i].second) {
    node.attr[def.constraints[i].first] = AttrValue(t);
    NodesFor(def, i + 1, node, out);
  }
}

using TypeAttrs = std::map<std::string, DataType>;

bool HasKernel(const std::string& op, const std::string& device, const std::string& platform,
               const TypeAttrs& attrs) {
  NodeDef node;
  node.name = "n";
  node.op = op;
  for (const auto& [name, t] : attrs) node.attr[name] = AttrValue(t);
  return KernelRegistry::Global()->FindKernel(device, node, platform).ok();
}

const TypeAttrs kPadFloat = {{"T", DT_FLOAT}, {"Tpaddings", DT_INT32}};

// The args of `op` whose dtype is the type attr `attr`.
std::vector<std::string> ArgsTypedBy(const OpDef& op, const std::string& attr) {
  std::vector<std::string> args;
  for (const auto* list : {&op.input_arg, &op.output_arg}) {
    for (const OpDef::ArgDef& arg : *list) {
      if (arg.type_attr == attr) args.push_back(arg.name);
    }
  }
  return args;
}

TEST(SimGpuKernelSetTest, NoCudaKernelKeepsAnInt32TensorInDeviceMemory) {
  // On GPU devices int32 tensors live in host memory (TensorFlow's rule,
  // runtime/memory_types.cc), so a CUDA kernel given an int32 tensor
  // outside its HostMemory args would touch host memory from the device.
  for (const KernelDef& def : CudaKernelSet()) {
    const OpDef* op = OpRegistry::Global()->LookUp(def.op);
    ASSERT_NE(op, nullptr) << def.op;
    for (const auto& [attr, types] : def.constraints) {
      if (std::find(types.begin(), types.end(), DT_INT32) == types.end()) continue;
      for (const std::string& arg : ArgsTypedBy(*op, attr)) {
        EXPECT_NE(std::find(def.host_memory_args.begin(), def.host_memory_args.end(), arg),
                  def.host_memory_args.end())
            << def.op << "'s " << arg << " may be int32 (" << attr
            << ") but is not in host memory";
      }
    }
  }
}

TEST(SimGpuKernelSetTest, EveryListedKernelWrapsACpuKernelOfEachOfItsDtypes) {
  ASSERT_EQ(se::SimGPUKernelSetOfProcess(), se::SimGPUOptions::KernelSet::kCuda);
  for (const KernelDef& def : CudaKernelSet()) {
    NodeDef node;
    node.name = "n";
    node.op = def.op;
    std::vector<NodeDef> nodes;
    NodesFor(def, 0, node, &nodes);
    for (const NodeDef& n : nodes) {
      absl::StatusOr<const KernelRegistration*> cpu =
          KernelRegistry::Global()->FindKernel(DEVICE_CPU, n);
      EXPECT_TRUE(cpu.ok()) << cpu.status();
      absl::StatusOr<const KernelRegistration*> gpu =
          KernelRegistry::Global()->FindKernel(DEVICE_GPU, n, "SimGPU");
      ASSERT_TRUE(gpu.ok()) << gpu.status();
      EXPECT_EQ((*gpu)->def.host_memory_args, def.host_memory_args) << def.DebugString();
    }
  }
}

TEST(SimGpuKernelSetTest, OnlyCudasOpsAndDtypesHaveSimGpuKernels) {
  // CUDA has float Exp, no double Exp, float Pad but no int32 Pad, no Abs,
  // and no int32 Transpose.
  EXPECT_TRUE(HasKernel("Exp", DEVICE_GPU, "SimGPU", {{"T", DT_FLOAT}}));
  EXPECT_FALSE(HasKernel("Exp", DEVICE_GPU, "SimGPU", {{"T", DT_DOUBLE}}));
  EXPECT_TRUE(HasKernel("Exp", DEVICE_CPU, "", {{"T", DT_DOUBLE}}));
  EXPECT_TRUE(HasKernel("Pad", DEVICE_CPU, "", kPadFloat));
  EXPECT_TRUE(HasKernel("Pad", DEVICE_GPU, "SimGPU", kPadFloat));
  const TypeAttrs int32_pad = {{"T", DT_INT32}, {"Tpaddings", DT_INT32}};
  EXPECT_TRUE(HasKernel("Pad", DEVICE_CPU, "", int32_pad));
  EXPECT_FALSE(HasKernel("Pad", DEVICE_GPU, "SimGPU", int32_pad));
  EXPECT_TRUE(HasKernel("Abs", DEVICE_CPU, "", {{"T", DT_FLOAT}}));
  EXPECT_FALSE(HasKernel("Abs", DEVICE_GPU, "SimGPU", {{"T", DT_FLOAT}}));
  const TypeAttrs int64_transpose = {{"T", DT_INT64}, {"Tperm", DT_INT32}};
  const TypeAttrs int32_transpose = {{"T", DT_INT32}, {"Tperm", DT_INT32}};
  EXPECT_TRUE(HasKernel("Transpose", DEVICE_GPU, "SimGPU", int64_transpose));
  EXPECT_FALSE(HasKernel("Transpose", DEVICE_GPU, "SimGPU", int32_transpose));
  EXPECT_TRUE(HasKernel("Transpose", DEVICE_CPU, "", int32_transpose));
}

TEST(SimGpuKernelSetTest, AnOpCudaLacksRunsOnTheCpuNextToASimGpu) {
  Scope root = Scope::NewRootScope();
  auto x = ops::Const(root.WithOpName("x"), {1.0f, 2.0f, 3.0f});
  // CUDA has no Abs kernel.
  auto abs = ops::Abs(root.WithOpName("abs"), x);
  ops::Exp(root.WithOpName("exp"), abs);
  GraphDef graph;
  ASSERT_TRUE(root.ToGraphDef(&graph).ok());
  SessionOptions options;
  options.config.gpu_options.platform = "SimGPU";
  options.config.gpu_options.simgpu_options = "memory=64MiB,mode=functional";
  // Abs and Exp must run where they are placed, not be folded beforehand.
  options.config.graph_options = GraphOptions::Unoptimized();
  auto session = NewSession(options);
  ASSERT_TRUE(session.ok()) << session.status();
  absl::Status created = (*session)->Create(graph);
  ASSERT_TRUE(created.ok()) << created;
  RunOptions run_options;
  run_options.trace_level = RunOptions::FULL_TRACE;
  RunMetadata metadata;
  std::vector<Tensor> out;
  absl::Status s = (*session)->Run(run_options, {}, {"exp:0"}, {}, &out, &metadata);
  ASSERT_TRUE(s.ok()) << s;
  std::map<std::string, std::string> device_of;
  for (const DeviceStepStats& dev : metadata.step_stats.dev_stats) {
    for (const NodeExecStats& n : dev.node_stats) device_of[n.node_name] = dev.device;
  }
  EXPECT_EQ(device_of["abs"], "/job:localhost/replica:0/task:0/device:CPU:0");
  EXPECT_EQ(device_of["exp"], "/job:localhost/replica:0/task:0/device:GPU:0");
}

TEST(SimGpuKernelSetDeathTest, KernelsAllTwinsEveryCpuKernel) {
  // In a fresh process (the threadsafe style re-executes the test binary)
  // started with MINITF_SIMGPU asking for every kernel: the set is read
  // once, when the process starts.
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  ASSERT_EQ(setenv("MINITF_SIMGPU", "kernels=all", 1), 0);
  EXPECT_EXIT(
      {
        const bool all = se::SimGPUKernelSetOfProcess() == se::SimGPUOptions::KernelSet::kAll &&
                         HasKernel("Abs", DEVICE_GPU, "SimGPU", {{"T", DT_FLOAT}}) &&
                         HasKernel("Exp", DEVICE_GPU, "SimGPU", {{"T", DT_DOUBLE}});
        std::exit(all ? 0 : 1);
      },
      ::testing::ExitedWithCode(0), "");
  unsetenv("MINITF_SIMGPU");
}

}  // namespace
}  // namespace minitf
