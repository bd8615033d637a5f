// CPU/GPU parity of the variable and optimizer ops (the harness, the
// tolerance and the coverage rule are in gpu_parity.h), through a session:
// a variable of each kind on the GPU updated over several steps ends with
// the value the same steps give on the CPU.
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "tests/ops/gpu_parity.h"

namespace minitf::gpu_parity {
namespace {

// ---------------------------------------------------------------------------
// State ops: [3, 4] variables of each kind, updated step by step (one
// target per step) on the GPU and on the CPU, then read back. A ref
// Variable: Assign, AssignAdd, ApplyGradientDescent. A VariableV2:
// Assign, AssignSub, ScatterAdd, ApplyMomentum, ApplyAdam. A resource variable:
// AssignVariableOp, AssignAdd/SubVariableOp, the ResourceApply* updates,
// VarIsInitializedOp, ReadVariableOp (and DestroyResourceOp on another).
// Every value comes from a placeholder. The ops each dtype has kernels for
// run with it.

bool HasAssignAdd(DataType t) { return t != DT_BOOL; }
bool HasApplyGradientDescent(DataType t) { return t == DT_FLOAT || t == DT_DOUBLE; }

Tensor ScalarOf(DataType t, double value) {
  return t == DT_FLOAT ? Tensor::Scalar<float>(static_cast<float>(value))
                       : Tensor::Scalar<double>(value);
}

const std::vector<std::string> kStateFetches = {"read", "read_v2", "read_r", "r_is_initialized"};

GraphDef StateGraph(DataType t, bool gpu) {
  Scope root = Scope::NewRootScope();
  auto init_value = ops::Placeholder(root.WithOpName("init_value"), t);
  auto delta = ops::Placeholder(root.WithOpName("delta"), t);
  auto alpha = ops::Placeholder(root.WithOpName("alpha"), t);
  auto grad = ops::Placeholder(root.WithOpName("grad"), t);
  auto momentum = ops::Placeholder(root.WithOpName("momentum_value"), t);
  auto beta1_power = ops::Placeholder(root.WithOpName("beta1_power"), t);
  auto beta2_power = ops::Placeholder(root.WithOpName("beta2_power"), t);
  Scope s = gpu ? root.WithDevice(kGPU) : root;
  const PartialTensorShape shape({3, 4});
  // Ref variables.
  auto v = ops::Variable(s.WithOpName("v"), shape, t);
  ops::Assign(s.WithOpName("init"), v, init_value);
  if (HasAssignAdd(t)) ops::AssignAdd(s.WithOpName("add"), v, delta);
  if (HasApplyGradientDescent(t)) ops::ApplyGradientDescent(s.WithOpName("sgd"), v, alpha, grad);
  ops::Identity(s.WithOpName("read"), v);
  auto v2 = ops::VariableV2(s.WithOpName("v2"), shape, t);
  ops::Assign(s.WithOpName("init_v2"), v2, init_value);
  if (HasAssignAdd(t)) {
    ops::AssignSub(s.WithOpName("sub_v2"), v2, delta);
    auto updates = ops::Placeholder(root.WithOpName("scatter_updates"), t);
    auto rows = ops::Placeholder(root.WithOpName("scatter_rows"), DT_INT32);
    ops::ScatterAdd(s.WithOpName("scatter_v2"), v2, rows, updates);
    auto rows64 = ops::Placeholder(root.WithOpName("scatter_rows64"), DT_INT64);
    ops::ScatterAdd(s.WithOpName("scatter64_v2"), v2, rows64, updates);
  }
  ops::Identity(s.WithOpName("read_v2"), v2);
  // Resource variables.
  auto r = ops::VarHandleOp(s.WithOpName("r"), t, shape);
  ops::AssignVariableOp(s.WithOpName("init_r"), r, init_value);
  if (HasAssignAdd(t)) {
    ops::AssignAddVariableOp(s.WithOpName("add_r"), r, delta);
    ops::AssignSubVariableOp(s.WithOpName("sub_r"), r, grad);
  }
  ops::ReadVariableOp(s.WithOpName("read_r"), r, t);
  ops::VarIsInitializedOp(s.WithOpName("r_is_initialized"), r);
  auto scratch = ops::VarHandleOp(s.WithOpName("scratch"), t, shape);
  ops::DestroyResourceOp(s.WithOpName("destroy_scratch"), scratch);
  if (HasApplyGradientDescent(t)) {
    auto accum = ops::VariableV2(s.WithOpName("accum"), shape, t);
    auto m = ops::VariableV2(s.WithOpName("m"), shape, t);
    auto v2v = ops::VariableV2(s.WithOpName("v2v"), shape, t);
    ops::Assign(s.WithOpName("init_accum"), accum, ops::ZerosLike(s, init_value));
    ops::Assign(s.WithOpName("init_m"), m, ops::ZerosLike(s, init_value));
    ops::Assign(s.WithOpName("init_v2v"), v2v, ops::ZerosLike(s, init_value));
    ops::ApplyMomentum(s.WithOpName("momentum_v2"), v2, accum, alpha, grad, momentum,
                       {.use_locking = false, .use_nesterov = true});
    const ops::AdamInputs adam = {beta1_power, beta2_power, alpha, ScalarOf(t, 0.9),
                                  ScalarOf(t, 0.999), ScalarOf(t, 1e-7), grad};
    ops::ApplyAdam(s.WithOpName("adam_v2"), v2, m, v2v, adam);
    auto r_accum = ops::VarHandleOp(s.WithOpName("r_accum"), t, shape);
    auto r_m = ops::VarHandleOp(s.WithOpName("r_m"), t, shape);
    auto r_v = ops::VarHandleOp(s.WithOpName("r_v"), t, shape);
    ops::AssignVariableOp(s.WithOpName("init_r_accum"), r_accum, ops::ZerosLike(s, init_value));
    ops::AssignVariableOp(s.WithOpName("init_r_m"), r_m, ops::ZerosLike(s, init_value));
    ops::AssignVariableOp(s.WithOpName("init_r_v"), r_v, ops::ZerosLike(s, init_value));
    ops::ResourceApplyGradientDescent(s.WithOpName("sgd_r"), r, alpha, grad);
    ops::ResourceApplyMomentum(s.WithOpName("momentum_r"), r, r_accum, alpha, grad, momentum);
    ops::ResourceApplyAdam(s.WithOpName("adam_r"), r, r_m, r_v, adam, {.use_locking = false, .use_nesterov = true});
  }
  GraphDef def;
  const absl::Status status = root.ToGraphDef(&def);
  EXPECT_TRUE(status.ok()) << status;
  return def;
}

// The targets run in order, each with its feeds.
std::vector<std::pair<std::string, Feeds>> StateSteps(DataType t) {
  const Feeds init = {{"init_value", Random(t, {3, 4})}};
  std::vector<std::pair<std::string, Feeds>> steps = {
      {"init", init}, {"init_v2", init}, {"init_r", init}, {"destroy_scratch", {}}};
  if (HasAssignAdd(t)) {
    steps.push_back({"add", {{"delta", Random(t, {3, 4})}}});
    steps.push_back({"sub_v2", {{"delta", Random(t, {3, 4})}}});
    // Row 2 twice: it gets both updates.
    steps.push_back({"scatter_v2",
                     {{"scatter_rows", IndexVector(DT_INT32, {2, 0, 2})},
                      {"scatter_updates", Random(t, {3, 4})}}});
    steps.push_back({"scatter64_v2",
                     {{"scatter_rows64", IndexVector(DT_INT64, {1, 1})},
                      {"scatter_updates", Random(t, {2, 4})}}});
    steps.push_back({"add_r", {{"delta", Random(t, {3, 4})}}});
    steps.push_back({"sub_r", {{"grad", Random(t, {3, 4})}}});
  }
  if (!HasApplyGradientDescent(t)) return steps;
  for (const char* target :
       {"init_accum", "init_m", "init_v2v", "init_r_accum", "init_r_m", "init_r_v"}) {
    steps.push_back({target, init});
  }
  for (int i = 0; i < 2; ++i) {
    const Tensor alpha = Random(t, {}, 0.05, 0.5);
    const Tensor grad = Random(t, {3, 4});
    const Feeds sgd = {{"alpha", alpha}, {"grad", grad}};
    Feeds momentum = sgd;
    momentum.emplace_back("momentum_value", ScalarOf(t, 0.9));
    Feeds adam = sgd;
    adam.emplace_back("beta1_power", ScalarOf(t, i == 0 ? 0.9 : 0.81));
    adam.emplace_back("beta2_power", ScalarOf(t, i == 0 ? 0.999 : 0.998001));
    for (const char* suffix : {"", "_r"}) {
      steps.push_back({absl::StrCat("sgd", suffix), sgd});
    }
    for (const char* suffix : {"_v2", "_r"}) {
      steps.push_back({absl::StrCat("momentum", suffix), momentum});
      steps.push_back({absl::StrCat("adam", suffix), adam});
    }
  }
  return steps;
}

Outcome RunStateSteps(DataType t, const std::vector<std::pair<std::string, Feeds>>& steps,
                      bool gpu) {
  Outcome outcome;
  absl::StatusOr<std::unique_ptr<Session>> session = NewSession(ParitySessionOptions(gpu));
  if (!session.ok()) {
    outcome.status = session.status();
    return outcome;
  }
  outcome.status = (*session)->Create(StateGraph(t, gpu));
  for (const auto& [target, feeds] : steps) {
    if (!outcome.status.ok()) return outcome;
    RunMetadata metadata;
    outcome.status =
        (*session)->Run(TracedRunOptions(), feeds, {}, {target}, nullptr, &metadata);
    if (!outcome.status.ok()) {
      outcome.status = absl::Status(outcome.status.code(),
                                    absl::StrCat("step ", target, ": ", outcome.status.message()));
    }
    AddDevicesOfNodes(metadata, &outcome.device_of_node);
  }
  if (!outcome.status.ok()) return outcome;
  RunMetadata metadata;
  outcome.status =
      (*session)->Run(TracedRunOptions(), {}, kStateFetches, {}, &outcome.outputs, &metadata);
  AddDevicesOfNodes(metadata, &outcome.device_of_node);
  return outcome;
}

class GPUStateOpsTest : public ::testing::TestWithParam<DataType> {};

TEST_P(GPUStateOpsTest, VariableUpdatedOnTheGpuEndsWithTheCpuValue) {
  const DataType t = GetParam();
  const std::vector<std::pair<std::string, Feeds>> steps = StateSteps(t);
  const Outcome gpu = RunStateSteps(t, steps, /*gpu=*/true);
  const Outcome cpu = RunStateSteps(t, steps, /*gpu=*/false);
  ASSERT_TRUE(gpu.status.ok()) << gpu.status;
  ASSERT_TRUE(cpu.status.ok()) << cpu.status;
  for (const auto& [target, feeds] : steps) {
    ASSERT_TRUE(gpu.device_of_node.count(target)) << target << " is not in the trace";
    EXPECT_EQ(gpu.device_of_node.at(target), kFullGPU) << target;
    EXPECT_EQ(cpu.device_of_node.at(target), kFullCpu) << target;
  }
  for (const std::string& fetch : kStateFetches) {
    EXPECT_EQ(gpu.device_of_node.at(fetch), kFullGPU) << fetch;
  }
  ASSERT_EQ(gpu.outputs.size(), kStateFetches.size());
  ASSERT_EQ(cpu.outputs.size(), kStateFetches.size());
  for (size_t i = 0; i < kStateFetches.size(); ++i) {
    SCOPED_TRACE(kStateFetches[i]);
    ExpectSameValues(gpu.outputs[i], cpu.outputs[i]);
  }
  ExpectSameValues(gpu.outputs[3], Tensor::Scalar<bool>(true));
}

INSTANTIATE_TEST_SUITE_P(State, GPUStateOpsTest, ::testing::ValuesIn(kAllTypes),
                         [](const ::testing::TestParamInfo<DataType>& info) {
                           return TypeName(info.param);
                         });

// ---------------------------------------------------------------------------
// Coverage.

TEST(GPUParityStateCoverageTest, EverySimGpuKernelOfTheStateOpsRunsInACase) {
  std::vector<GraphDef> graphs;
  for (DataType t : kAllTypes) graphs.push_back(StateGraph(t, /*gpu=*/true));
  ExpectSimGPUKernelsExercised(kStateFileOps, graphs);
}

}  // namespace
}  // namespace minitf::gpu_parity
