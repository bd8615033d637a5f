// Variables on a CUDA GPU. A ref variable (VariableV2) initialised by Assign
// and updated by AssignAdd, AssignSub, ApplyGradientDescent, ApplyMomentum
// (with and without Nesterov) and ApplyAdam, and a resource variable
// (VarHandleOp) initialised by AssignVariableOp, read by ReadVariableOp and
// updated by ResourceApplyGradientDescent, ResourceApplyMomentum and
// ResourceApplyAdam, every node on the GPU (no soft placement), end with the
// values the same steps give on the CPU; an update of an uninitialized
// variable fails as on the CPU. Skipped without a GPU.
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "gtest/gtest.h"
#include "ops/standard_ops.h"
#include "platform/status_macros.h"
#include "session/session.h"
#include "tests/cuda/cuda_test_device.h"

namespace minitf {
namespace {

using test::RandomTensor;
using test::VisibleCudaDevices;
using Feeds = std::vector<std::pair<std::string, Tensor>>;

constexpr char kGPU[] = "/device:GPU:0";

GraphDef Graph() {
  Scope root = Scope::NewRootScope();
  auto value = ops::Placeholder(root.WithOpName("value"), DT_FLOAT);
  auto grad = ops::Placeholder(root.WithOpName("grad"), DT_FLOAT);
  Scope s = root.WithDevice(kGPU);
  const PartialTensorShape shape({3, 4});
  auto var = ops::VariableV2(s.WithOpName("var"), shape, DT_FLOAT);
  auto accum = ops::VariableV2(s.WithOpName("accum"), shape, DT_FLOAT);
  auto m = ops::VariableV2(s.WithOpName("m"), shape, DT_FLOAT);
  auto v = ops::VariableV2(s.WithOpName("v"), shape, DT_FLOAT);
  auto unset = ops::VariableV2(s.WithOpName("unset"), shape, DT_FLOAT);
  ops::Assign(s.WithOpName("init_var"), var, value);
  for (const auto& [name, slot] : {std::pair{"init_accum", accum}, std::pair{"init_m", m},
                                   std::pair{"init_v", v}}) {
    ops::Assign(s.WithOpName(name), slot, ops::ZerosLike(s, value));
  }
  ops::AssignAdd(s.WithOpName("add"), var, grad);
  ops::AssignSub(s.WithOpName("sub"), var, grad);
  ops::ApplyGradientDescent(s.WithOpName("gd"), var, 0.5f, grad);
  ops::ApplyMomentum(s.WithOpName("momentum"), var, accum, 0.1f, grad, 0.9f);
  ops::ApplyMomentum(s.WithOpName("nesterov"), var, accum, 0.1f, grad, 0.9f,
                     {.use_locking = true, .use_nesterov = true});
  const ops::AdamInputs adam = {0.9f, 0.999f, 0.01f, 0.9f, 0.999f, 1e-7f, grad};
  ops::ApplyAdam(s.WithOpName("adam"), var, m, v, adam);
  ops::AssignAdd(s.WithOpName("add_unset"), unset, grad);
  ops::Identity(s.WithOpName("read"), var);
  GraphDef def;
  EXPECT_TRUE(root.ToGraphDef(&def).ok());
  return def;
}

// The same steps on resource variables; "read" fetches var's value.
GraphDef ResourceGraph() {
  Scope root = Scope::NewRootScope();
  auto value = ops::Placeholder(root.WithOpName("value"), DT_FLOAT);
  auto grad = ops::Placeholder(root.WithOpName("grad"), DT_FLOAT);
  Scope s = root.WithDevice(kGPU);
  const PartialTensorShape shape({3, 4});
  auto var = ops::VarHandleOp(s.WithOpName("var"), DT_FLOAT, shape);
  auto accum = ops::VarHandleOp(s.WithOpName("accum"), DT_FLOAT, shape);
  auto m = ops::VarHandleOp(s.WithOpName("m"), DT_FLOAT, shape);
  auto v = ops::VarHandleOp(s.WithOpName("v"), DT_FLOAT, shape);
  auto unset = ops::VarHandleOp(s.WithOpName("unset"), DT_FLOAT, shape);
  ops::AssignVariableOp(s.WithOpName("init_var"), var, value);
  for (const auto& [name, slot] : {std::pair{"init_accum", accum}, std::pair{"init_m", m},
                                   std::pair{"init_v", v}}) {
    ops::AssignVariableOp(s.WithOpName(name), slot, ops::ZerosLike(s, value));
  }
  ops::ResourceApplyGradientDescent(s.WithOpName("gd"), var, 0.5f, grad);
  ops::ResourceApplyMomentum(s.WithOpName("momentum"), var, accum, 0.1f, grad, 0.9f);
  const ops::AdamInputs adam = {0.9f, 0.999f, 0.01f, 0.9f, 0.999f, 1e-7f, grad};
  ops::ResourceApplyAdam(s.WithOpName("adam"), var, m, v, adam);
  ops::ResourceApplyGradientDescent(s.WithOpName("gd_unset"), unset, 0.5f, grad);
  ops::ReadVariableOp(s.WithOpName("read"), var, DT_FLOAT);
  GraphDef def;
  EXPECT_TRUE(root.ToGraphDef(&def).ok());
  return def;
}

// The value "read" fetches after the steps on `graph`, or the first step's
// error.
absl::StatusOr<Tensor> RunSteps(bool cuda, const std::vector<std::pair<std::string, Feeds>>& steps,
                                const GraphDef& graph = Graph()) {
  SessionOptions options;
  if (cuda) {
    options.config.gpu_options.platform = "CUDA";
  } else {
    // The reference: no GPU, and the graph's GPU requests fall back to the
    // CPU (soft placement), as the same graph would in TensorFlow.
    options.config.device_count["GPU"] = 0;
    options.config.allow_soft_placement = true;
  }
  MINITF_ASSIGN_OR_RETURN(std::unique_ptr<Session> session, NewSession(options));
  MINITF_RETURN_IF_ERROR(session->Create(graph));
  for (const auto& [target, feeds] : steps) {
    MINITF_RETURN_IF_ERROR(session->Run(feeds, {}, {target}, nullptr));
  }
  std::vector<Tensor> out;
  MINITF_RETURN_IF_ERROR(session->Run({}, {"read"}, {}, &out));
  return out[0];
}

TEST(VariableOpsCudaTest, UpdatesOnTheGpuEndAsOnTheCpu) {
  if (VisibleCudaDevices() == 0) GTEST_SKIP() << "no CUDA device visible";
  const Feeds init = {{"value", RandomTensor(TensorShape({3, 4}), -1, 1, 1)}};
  std::vector<std::pair<std::string, Feeds>> steps = {
      {"init_var", init}, {"init_accum", init}, {"init_m", init}, {"init_v", init}};
  unsigned seed = 2;
  for (const char* target :
       {"add", "sub", "gd", "momentum", "nesterov", "adam", "momentum", "gd", "adam"}) {
    steps.push_back({target, {{"grad", RandomTensor(TensorShape({3, 4}), -1, 1, seed++)}}});
  }
  absl::StatusOr<Tensor> gpu = RunSteps(/*cuda=*/true, steps);
  absl::StatusOr<Tensor> cpu = RunSteps(/*cuda=*/false, steps);
  ASSERT_TRUE(gpu.ok()) << gpu.status();
  ASSERT_TRUE(cpu.ok()) << cpu.status();
  test::ExpectTensorNear(*gpu, *cpu, 1e-6, 1e-5);
}

TEST(VariableOpsCudaTest, ResourceUpdatesOnTheGpuEndAsOnTheCpu) {
  if (VisibleCudaDevices() == 0) GTEST_SKIP() << "no CUDA device visible";
  const Feeds init = {{"value", RandomTensor(TensorShape({3, 4}), -1, 1, 1)}};
  std::vector<std::pair<std::string, Feeds>> steps = {
      {"init_var", init}, {"init_accum", init}, {"init_m", init}, {"init_v", init}};
  unsigned seed = 2;
  for (const char* target : {"gd", "momentum", "adam", "gd", "momentum", "adam"}) {
    steps.push_back({target, {{"grad", RandomTensor(TensorShape({3, 4}), -1, 1, seed++)}}});
  }
  absl::StatusOr<Tensor> gpu = RunSteps(/*cuda=*/true, steps, ResourceGraph());
  absl::StatusOr<Tensor> cpu = RunSteps(/*cuda=*/false, steps, ResourceGraph());
  ASSERT_TRUE(gpu.ok()) << gpu.status();
  ASSERT_TRUE(cpu.ok()) << cpu.status();
  test::ExpectTensorNear(*gpu, *cpu, 1e-6, 1e-5);
}

TEST(VariableOpsCudaTest, UninitializedResourceVariableFailsAsOnTheCpu) {
  if (VisibleCudaDevices() == 0) GTEST_SKIP() << "no CUDA device visible";
  const std::vector<std::pair<std::string, Feeds>> steps = {
      {"gd_unset", {{"grad", RandomTensor(TensorShape({3, 4}))}}}};
  absl::StatusOr<Tensor> gpu = RunSteps(/*cuda=*/true, steps, ResourceGraph());
  absl::StatusOr<Tensor> cpu = RunSteps(/*cuda=*/false, steps, ResourceGraph());
  ASSERT_FALSE(gpu.ok());
  EXPECT_EQ(gpu.status().code(), absl::StatusCode::kFailedPrecondition) << gpu.status();
  EXPECT_EQ(gpu.status().code(), cpu.status().code());
}

TEST(VariableOpsCudaTest, UninitializedVariableFailsAsOnTheCpu) {
  if (VisibleCudaDevices() == 0) GTEST_SKIP() << "no CUDA device visible";
  const std::vector<std::pair<std::string, Feeds>> steps = {
      {"add_unset", {{"grad", RandomTensor(TensorShape({3, 4}))}}}};
  absl::StatusOr<Tensor> gpu = RunSteps(/*cuda=*/true, steps);
  absl::StatusOr<Tensor> cpu = RunSteps(/*cuda=*/false, steps);
  ASSERT_FALSE(gpu.ok());
  EXPECT_EQ(gpu.status().code(), absl::StatusCode::kFailedPrecondition) << gpu.status();
  EXPECT_EQ(gpu.status().code(), cpu.status().code());
}

}  // namespace
}  // namespace minitf
