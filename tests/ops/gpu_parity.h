// The harness of the CPU/GPU parity tests (gpu_parity_math_test.cc,
// gpu_parity_nn_test.cc, gpu_parity_array_test.cc, and the parity cases of
// compare_ops_test.cc): a
// ParityCase builds a small graph over placeholders; RunCase runs it once
// with the nodes pinned to /device:GPU:0 (SimGPU) and once in a CPU-only
// session, traced, so a test can compare the answers and check where the
// node under test ran.
//
//   ParityCase c = {"Add_float", {Random(DT_FLOAT, {3, 4}), Random(DT_FLOAT, {4})},
//                   [](const Scope& s, const std::vector<Output>& in) {
//                     return std::vector<Output>{ops::Add(s.WithOpName("op"), in[0], in[1])};
//                   }};
//   ExpectGPUMatchesCpu(c);
//
// Tolerance: the SimGPU kernels run the CPU kernels' Eigen code on device
// memory with an intra-op pool of the same size, so results are expected to
// be bit-identical; the comparison still allows 1e-5 absolute + 1e-5
// relative for float and 1e-12 + 1e-12 for double. Integers and bools must be
// equal.
//
// Coverage: every op with a SimGPU kernel is listed in exactly one of
// kMathFileOps / kNnFileOps / kStateFileOps / kCompareFileOps /
// kArrayFileOps, and the file owning it runs every SimGPU kernel
// registration of the op (each dtype) in some case, so a new op or a new
// dtype without a parity case fails a test.
#ifndef MINITF_TESTS_OPS_GPU_PARITY_H_
#define MINITF_TESTS_OPS_GPU_PARITY_H_

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <ostream>
#include <random>
#include <set>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "ops/cc/scope.h"
#include "ops/standard_ops.h"
#include "runtime/kernel_registry.h"
#include "session/session.h"
#include "tests/testlib/kernel_runner.h"

namespace minitf::gpu_parity {

inline constexpr char kGPU[] = "/device:GPU:0";
inline constexpr char kFullGPU[] = "/job:localhost/replica:0/task:0/device:GPU:0";
inline constexpr char kFullCpu[] = "/job:localhost/replica:0/task:0/device:CPU:0";
// Small and untimed: parity runs need neither capacity nor the cost model.
inline constexpr char kSimGPUOptions[] = "memory=256MiB,mode=functional";

// The ops each parity file covers (see the header comment).
// clang-format off
inline const std::set<std::string> kMathFileOps = {
    "Add", "Sub", "Mul", "Div", "Maximum", "Minimum", "Neg", "Square", "Sqrt", "Exp", "Log",
    "Cast", "Sum", "Mean", "Max", "Const", "Identity", "Reshape", "Shape", "Fill", "ZerosLike",
    "OnesLike", "RandomUniform", "RandomStandardNormal", "TruncatedNormal", "RandomUniformInt",
    "Transpose",
    "AddV2", "RealDiv", "FloorDiv", "FloorMod", "Pow", "SquaredDifference", "RsqrtGrad",
    "SqrtGrad", "ReciprocalGrad", "SigmoidGrad", "TanhGrad", "Rsqrt", "Abs", "Sign",
    "Reciprocal", "Erf", "Erfc", "AddN", "Select", "SelectV2", "Min", "Prod", "ArgMax"};
inline const std::set<std::string> kNnFileOps = {
    "MatMul", "BatchMatMul", "BiasAdd", "Relu", "ReluGrad", "Sigmoid", "Tanh", "Softmax",
    "SparseSoftmaxCrossEntropyWithLogits", "Conv2D", "Conv2DBackpropInput",
    "Conv2DBackpropFilter", "MaxPool", "MaxPoolGrad", "AvgPool", "AvgPoolGrad",
    "FusedBatchNorm", "FusedBatchNormV3", "FusedBatchNormGrad", "FusedBatchNormGradV3",
    "BatchMatMulV2", "Relu6", "LeakyRelu", "Elu", "Relu6Grad", "LeakyReluGrad", "EluGrad",
    "LogSoftmax", "SoftmaxCrossEntropyWithLogits", "BiasAddGrad", "L2Loss", "_FusedMatMul",
    "_FusedConv2D", "_FusedBatchNormEx"};
inline const std::set<std::string> kStateFileOps = {
    "Variable", "Assign", "AssignAdd", "ApplyGradientDescent", "VariableV2", "AssignSub",
    "ScatterAdd", "ApplyMomentum", "ApplyAdam", "VarHandleOp", "ReadVariableOp",
    "AssignVariableOp", "AssignAddVariableOp", "AssignSubVariableOp", "VarIsInitializedOp",
    "DestroyResourceOp", "ResourceApplyGradientDescent", "ResourceApplyMomentum",
    "ResourceApplyAdam"};
inline const std::set<std::string> kCompareFileOps = {
    "Less", "LessEqual", "Greater", "GreaterEqual", "Equal", "NotEqual", "LogicalAnd",
    "LogicalOr", "LogicalNot"};
inline const std::set<std::string> kArrayFileOps = {
    "ConcatV2", "ConcatOffset", "Pack", "Unpack", "Split", "SplitV", "Slice", "StridedSlice",
    "StridedSliceGrad", "Squeeze", "ExpandDims", "Pad", "PadV2", "Tile", "BroadcastTo",
    "BroadcastGradientArgs", "Range", "OneHot", "GatherV2", "UnsortedSegmentSum", "Unique", "Size",
    "Rank",
    "StopGradient", "PreventGradient", "Snapshot", "InvertPermutation", "ShapeN", "IdentityN"};
// clang-format on

inline const std::vector<DataType> kNumberTypes = {DT_FLOAT, DT_DOUBLE, DT_INT32, DT_INT64};
inline const std::vector<DataType> kFloatTypes = {DT_FLOAT, DT_DOUBLE};
inline const std::vector<DataType> kAllTypes = {DT_FLOAT, DT_DOUBLE, DT_INT32, DT_INT64, DT_BOOL};

using Feeds = std::vector<std::pair<std::string, Tensor>>;
// Adds the nodes under test to `s` (pinned to the GPU, or not) reading the
// placeholders `in`; the node under test is named "op". Returns the fetches.
using Builder = std::function<std::vector<Output>(const Scope& s, const std::vector<Output>& in)>;

struct ParityCase {
  std::string name;            // The gtest name suffix: letters, digits, '_'.
  std::vector<Tensor> inputs;  // Fed to placeholders in0, in1, ...
  Builder build;
};

inline std::string CaseName(const ::testing::TestParamInfo<ParityCase>& info) {
  return info.param.name;
}
// How gtest shows a case in failure messages.
inline void PrintTo(const ParityCase& c, std::ostream* os) { *os << c.name; }

inline std::string TypeName(DataType dtype) {
  switch (dtype) {
    case DT_FLOAT:
      return "float";
    case DT_DOUBLE:
      return "double";
    case DT_INT32:
      return "int32";
    case DT_INT64:
      return "int64";
    case DT_BOOL:
      return "bool";
    default:
      return "invalid";
  }
}

template <typename T>
void FillRandom(Tensor* t, std::mt19937* rng, double lo, double hi) {
  auto v = t->flat<T>();
  for (int64_t i = 0; i < v.size(); ++i) {
    if constexpr (std::is_same_v<T, bool>) {
      v(i) = (*rng)() % 2 == 1;
    } else if constexpr (std::is_integral_v<T>) {
      v(i) = static_cast<T>(std::uniform_int_distribution<int64_t>(static_cast<int64_t>(lo),
                                                                   static_cast<int64_t>(hi))(*rng));
    } else {
      v(i) = static_cast<T>(std::uniform_real_distribution<double>(lo, hi)(*rng));
    }
  }
}

// Seeded random values in [lo, hi] (integers: the integers in it; bools:
// either). Cases are built in a fixed order, so every run feeds the same.
inline Tensor Random(DataType dtype, const TensorShape& shape, double lo = -3, double hi = 3) {
  static std::mt19937 rng(20240611);
  Tensor t(dtype, shape);
  switch (dtype) {
    case DT_FLOAT:
      FillRandom<float>(&t, &rng, lo, hi);
      break;
    case DT_DOUBLE:
      FillRandom<double>(&t, &rng, lo, hi);
      break;
    case DT_INT32:
      FillRandom<int32_t>(&t, &rng, lo, hi);
      break;
    case DT_INT64:
      FillRandom<int64_t>(&t, &rng, lo, hi);
      break;
    case DT_BOOL:
      FillRandom<bool>(&t, &rng, lo, hi);
      break;
    default:
      ADD_FAILURE() << "no random values of type " << dtype;
  }
  return t;
}

// An int32 or int64 vector holding `values` (shapes, axes, labels).
inline Tensor IndexVector(DataType dtype, const std::vector<int64_t>& values) {
  const TensorShape shape({static_cast<int64_t>(values.size())});
  if (dtype == DT_INT64) return Tensor::FromVector<int64_t>(values, shape);
  const std::vector<int32_t> narrow(values.begin(), values.end());
  return Tensor::FromVector<int32_t>(narrow, shape);
}

inline SessionOptions ParitySessionOptions(bool gpu) {
  SessionOptions options;
  options.config.intra_op_parallelism_threads = 2;
  options.config.inter_op_parallelism_threads = 2;
  options.config.gpu_options.platform = "SimGPU";
  options.config.gpu_options.simgpu_options = kSimGPUOptions;
  if (!gpu) options.config.device_count["GPU"] = 0;
  return options;
}

inline RunOptions TracedRunOptions() {
  RunOptions options;
  options.trace_level = RunOptions::FULL_TRACE;
  options.timeout_in_ms = 60000;  // A hang fails the test instead of blocking it.
  return options;
}

// `c`'s graph: placeholders on the CPU, the built nodes pinned to GPU:0 when
// `gpu`, else left to the placer (a CPU-only session has only the CPU).
inline absl::Status BuildGraph(const ParityCase& c, bool gpu, GraphDef* def, Feeds* feeds,
                               std::vector<std::string>* fetches) {
  Scope root = Scope::NewRootScope();
  std::vector<Output> in;
  for (size_t i = 0; i < c.inputs.size(); ++i) {
    const std::string name = absl::StrCat("in", i);
    in.push_back(ops::Placeholder(root.WithOpName(name), c.inputs[i].dtype()));
    feeds->emplace_back(name, c.inputs[i]);
  }
  for (const Output& out : c.build(gpu ? root.WithDevice(kGPU) : root, in)) {
    fetches->push_back(out.name());
  }
  return root.ToGraphDef(def);
}

// Adds the device each traced node ran on to `out`.
inline void AddDevicesOfNodes(const RunMetadata& metadata,
                              std::map<std::string, std::string>* out) {
  for (const DeviceStepStats& dev : metadata.step_stats.dev_stats) {
    for (const NodeExecStats& n : dev.node_stats) (*out)[n.node_name] = dev.device;
  }
}

struct Outcome {
  absl::Status status;  // The first error of building, creating or running.
  std::vector<Tensor> outputs;
  std::map<std::string, std::string> device_of_node;  // From the full trace.
};

inline Outcome RunCase(const ParityCase& c, bool gpu) {
  Outcome outcome;
  GraphDef def;
  Feeds feeds;
  std::vector<std::string> fetches;
  outcome.status = BuildGraph(c, gpu, &def, &feeds, &fetches);
  if (!outcome.status.ok()) return outcome;
  absl::StatusOr<std::unique_ptr<Session>> session = NewSession(ParitySessionOptions(gpu));
  if (!session.ok()) {
    outcome.status = session.status();
    return outcome;
  }
  outcome.status = (*session)->Create(def);
  if (!outcome.status.ok()) return outcome;
  RunMetadata metadata;
  outcome.status =
      (*session)->Run(TracedRunOptions(), feeds, fetches, {}, &outcome.outputs, &metadata);
  AddDevicesOfNodes(metadata, &outcome.device_of_node);
  return outcome;
}

// Within the tolerance of the header comment.
inline void ExpectSameValues(const Tensor& gpu, const Tensor& cpu) {
  if (cpu.dtype() == DT_FLOAT) {
    test::ExpectTensorNear(gpu, cpu, 1e-5, 1e-5);
  } else if (cpu.dtype() == DT_DOUBLE) {
    test::ExpectTensorNear(gpu, cpu, 1e-12, 1e-12);
  } else {
    test::ExpectTensorEqual(gpu, cpu);
  }
}

// Node "op" of `c` runs on the GPU in one session and on the CPU in a
// CPU-only one, and every fetched output agrees.
inline void ExpectGPUMatchesCpu(const ParityCase& c) {
  const Outcome gpu = RunCase(c, /*gpu=*/true);
  const Outcome cpu = RunCase(c, /*gpu=*/false);
  ASSERT_TRUE(gpu.status.ok()) << gpu.status;
  ASSERT_TRUE(cpu.status.ok()) << cpu.status;
  ASSERT_TRUE(gpu.device_of_node.count("op")) << "node 'op' is not in the trace";
  EXPECT_EQ(gpu.device_of_node.at("op"), kFullGPU);
  EXPECT_EQ(cpu.device_of_node.at("op"), kFullCpu);
  ASSERT_EQ(gpu.outputs.size(), cpu.outputs.size());
  for (size_t i = 0; i < cpu.outputs.size(); ++i) {
    SCOPED_TRACE(absl::StrCat("output ", i));
    ExpectSameValues(gpu.outputs[i], cpu.outputs[i]);
  }
}

// `c` fails on the GPU and on the CPU with the same status code and the same
// message (the SimGPU kernel reports its CPU kernel's error), which names
// node "op".
inline void ExpectSameErrorOnGPUAndCpu(const ParityCase& c) {
  const Outcome gpu = RunCase(c, /*gpu=*/true);
  const Outcome cpu = RunCase(c, /*gpu=*/false);
  ASSERT_FALSE(gpu.status.ok()) << "the GPU run should fail";
  ASSERT_FALSE(cpu.status.ok()) << "the CPU run should fail";
  EXPECT_EQ(gpu.status.code(), cpu.status.code())
      << "GPU: " << gpu.status << "\nCPU: " << cpu.status;
  EXPECT_EQ(gpu.status.message(), cpu.status.message());
  EXPECT_THAT(std::string(gpu.status.message()), ::testing::HasSubstr("Node 'op'"));
}

// The GraphDef of `c` with its nodes pinned to the GPU (for coverage).
inline GraphDef GPUGraphOf(const ParityCase& c) {
  GraphDef def;
  Feeds feeds;
  std::vector<std::string> fetches;
  const absl::Status s = BuildGraph(c, /*gpu=*/true, &def, &feeds, &fetches);
  EXPECT_TRUE(s.ok()) << c.name << ": " << s;
  return def;
}

inline std::vector<const KernelRegistration*> SimGPUKernelsOf(const std::string& op) {
  std::vector<const KernelRegistration*> out;
  for (const KernelRegistration* reg : KernelRegistry::Global()->KernelsForOp(op)) {
    // SimGPU's own kernels, and those registered for every GPU platform.
    if (reg->def.device_type == DEVICE_GPU &&
        (reg->def.platform == "SimGPU" || reg->def.platform.empty())) {
      out.push_back(reg);
    }
  }
  return out;
}

// Every op with a SimGPU kernel is owned by exactly one parity file.
inline void ExpectEverySimGPUOpIsOwnedByAParityFile() {
  // The loop machinery only forwards on a GPU; tests/session/while_loop_test.cc
  // runs it there (loops whose body is on the GPU). NoOp and an unfed
  // Placeholder do no device work; transfers (ops starting with '_') are
  // the session's.
  static const std::set<std::string> kNoDeviceWork = {
      "Switch", "Merge", "Enter", "Exit", "NextIteration", "LoopCond", "NoOp", "Placeholder"};
  for (const std::string& op : KernelRegistry::Global()->Ops()) {
    if (SimGPUKernelsOf(op).empty() || kNoDeviceWork.count(op) || op[0] == '_') continue;
    EXPECT_EQ(kMathFileOps.count(op) + kNnFileOps.count(op) + kStateFileOps.count(op) +
                  kCompareFileOps.count(op) + kArrayFileOps.count(op),
              1u)
        << op << " has a SimGPU kernel: give it parity cases in gpu_parity_math_test.cc, "
        << "gpu_parity_nn_test.cc, gpu_parity_state_test.cc, gpu_parity_array_test.cc or "
        << "compare_ops_test.cc and list it in that file's set in gpu_parity.h";
  }
}

// Every SimGPU kernel registration of `ops` is the one some GPU-pinned node
// of `graphs` runs with.
inline void ExpectSimGPUKernelsExercised(const std::set<std::string>& ops,
                                         const std::vector<GraphDef>& graphs) {
  std::set<const KernelRegistration*> used;
  for (const GraphDef& graph : graphs) {
    for (const NodeDef& node : graph.node) {
      if (node.device != kGPU) continue;
      absl::StatusOr<const KernelRegistration*> reg =
          KernelRegistry::Global()->FindKernel(DEVICE_GPU, node, "SimGPU");
      EXPECT_TRUE(reg.ok()) << reg.status();
      if (reg.ok()) used.insert(*reg);
    }
  }
  for (const std::string& op : ops) {
    const std::vector<const KernelRegistration*> kernels = SimGPUKernelsOf(op);
    EXPECT_FALSE(kernels.empty()) << op << " is listed but has no SimGPU kernel";
    for (const KernelRegistration* reg : kernels) {
      EXPECT_TRUE(used.count(reg))
          << "no parity case runs the SimGPU kernel of " << op << ": " << reg->def.DebugString();
    }
  }
}

}  // namespace minitf::gpu_parity

#endif  // MINITF_TESTS_OPS_GPU_PARITY_H_
