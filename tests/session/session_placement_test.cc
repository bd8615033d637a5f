// A session places its graph once: a variable initialized in one Run is the
// variable every later Run reads and updates, whichever nodes each Run
// fetches, even when one of its updates has no GPU kernel (the update and
// the variable go to the CPU together, for every Run). Extend places only
// the nodes it adds; the placed ones never move.
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "ops/cc/scope.h"
#include "ops/standard_ops.h"
#include "platform/mutex.h"
#include "runtime/kernel_registry.h"
#include "runtime/op_kernel.h"
#include "runtime/op_registry.h"
#include "runtime/op_requires.h"
#include "session/session.h"
#include "tests/testlib/kernel_runner.h"

namespace minitf {
namespace {

// Adds one to every element of a float variable, in place. It has a CPU
// kernel only (an internal op, so SimGPU does not twin it): the update op
// of a TensorFlow graph that CUDA has no kernel for.
REGISTER_OP("_TestCpuOnlyAddOne").Input("ref: Ref(float)").Output("output_ref: Ref(float)");

class CpuOnlyAddOneOp : public OpKernel {
 public:
  explicit CpuOnlyAddOneOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}
  void Compute(OpKernelContext* ctx) override {
    {
      MutexLock lock(ctx->input_ref_mutex(0));
      Tensor* var = ctx->mutable_input(0);
      OP_REQUIRES(ctx, var->IsInitialized(),
                  absl::FailedPreconditionError(
                      absl::StrCat("Attempting to use uninitialized value (node '", name(), "')")));
      auto values = var->flat<float>();
      for (int64_t i = 0; i < values.size(); ++i) values(i) += 1.0f;
    }
    ctx->forward_ref_input_to_ref_output(0, 0);
  }
};
REGISTER_KERNEL_BUILDER(Name("_TestCpuOnlyAddOne").Device(DEVICE_CPU), CpuOnlyAddOneOp);

constexpr char kFullCpu[] = "/job:localhost/replica:0/task:0/device:CPU:0";
constexpr char kFullGpu[] = "/job:localhost/replica:0/task:0/device:GPU:0";

std::unique_ptr<Session> NewSimGpuSession() {
  SessionOptions options;
  options.config.intra_op_parallelism_threads = 2;
  options.config.inter_op_parallelism_threads = 2;
  options.config.gpu_options.platform = "SimGPU";
  options.config.gpu_options.simgpu_options = "memory=256MiB,mode=functional";
  auto session = NewSession(options);
  EXPECT_TRUE(session.ok()) << session.status();
  return session.ok() ? *std::move(session) : nullptr;
}

NodeDef AddOne(const std::string& name, const std::string& var) {
  NodeDef def;
  def.name = name;
  def.op = "_TestCpuOnlyAddOne";
  def.input = {var};
  return def;
}

// v = Variable([2]); init = Assign(v, [1, 2]); read = Identity(v).
GraphDef VariableGraph() {
  Scope root = Scope::NewRootScope();
  auto v = ops::Variable(root.WithOpName("v"), {2}, DT_FLOAT);
  ops::Assign(root.WithOpName("init"), v, ops::Const(root.WithOpName("value"), {1.0f, 2.0f}));
  ops::Identity(root.WithOpName("read"), v);
  GraphDef def;
  EXPECT_TRUE(root.ToGraphDef(&def).ok());
  return def;
}

// Runs one traced step; the device each node ran on.
std::map<std::string, std::string> RunTraced(Session* session,
                                             const std::vector<std::string>& fetches,
                                             const std::vector<std::string>& targets,
                                             std::vector<Tensor>* out) {
  RunOptions options;
  options.timeout_in_ms = 60000;
  options.trace_level = RunOptions::FULL_TRACE;
  RunMetadata metadata;
  absl::Status s = session->Run(options, {}, fetches, targets, out, &metadata);
  EXPECT_TRUE(s.ok()) << s;
  std::map<std::string, std::string> devices;
  for (const DeviceStepStats& dev : metadata.step_stats.dev_stats) {
    for (const NodeExecStats& n : dev.node_stats) devices[n.node_name] = dev.device;
  }
  return devices;
}

// A SimGPU session created with `graph`; null (with the failure recorded)
// when it cannot be made.
std::unique_ptr<Session> SimGpuSessionOf(const GraphDef& graph) {
  std::unique_ptr<Session> session = NewSimGpuSession();
  if (session == nullptr) return nullptr;
  absl::Status s = session->Create(graph);
  EXPECT_TRUE(s.ok()) << s;
  return s.ok() ? std::move(session) : nullptr;
}

// VariableGraph() plus "update", v's CPU-only update.
GraphDef GraphWithCpuOnlyUpdate() {
  GraphDef graph = VariableGraph();
  graph.node.push_back(AddOne("update", "v"));
  return graph;
}

TEST(SessionPlacementTest, VariableInitializedInOneRunIsUpdatedByAnUpdateWithoutAGpuKernel) {
  // The init Run alone would put v and its Assign on the GPU; the update
  // Run alone would put v and the update on the CPU. Placed once, v sits
  // where all three can run, in both Runs.
  std::unique_ptr<Session> session = SimGpuSessionOf(GraphWithCpuOnlyUpdate());
  ASSERT_NE(session, nullptr);
  std::vector<Tensor> out;
  std::map<std::string, std::string> init_run = RunTraced(session.get(), {}, {"init"}, &out);
  std::map<std::string, std::string> update_run = RunTraced(session.get(), {}, {"update"}, &out);
  std::map<std::string, std::string> read_run = RunTraced(session.get(), {"read:0"}, {}, &out);
  test::ExpectTensorEqual(out.at(0), Tensor::FromVector<float>({2.0f, 3.0f}));

  EXPECT_EQ(init_run["v"], kFullCpu);
  EXPECT_EQ(init_run["init"], kFullCpu);
  EXPECT_EQ(update_run["v"], kFullCpu);
  EXPECT_EQ(update_run["update"], kFullCpu);
  EXPECT_EQ(read_run["v"], kFullCpu);
}

TEST(SessionPlacementTest, AVariableKeepsItsDeviceWhicheverRunComesFirst) {
  // The update's Run first, then the init's: the order of the Runs (and of
  // the executors built for them) changes nothing.
  std::unique_ptr<Session> session = SimGpuSessionOf(GraphWithCpuOnlyUpdate());
  ASSERT_NE(session, nullptr);
  std::vector<Tensor> out;
  RunOptions options;
  absl::Status s = session->Run(options, {}, {}, {"update"}, &out, nullptr);
  EXPECT_EQ(s.code(), absl::StatusCode::kFailedPrecondition) << s;
  EXPECT_THAT(std::string(s.message()), ::testing::HasSubstr("uninitialized"));
  RunTraced(session.get(), {}, {"init"}, &out);
  RunTraced(session.get(), {}, {"update"}, &out);
  RunTraced(session.get(), {"read:0"}, {}, &out);
  test::ExpectTensorEqual(out.at(0), Tensor::FromVector<float>({2.0f, 3.0f}));
}

TEST(SessionPlacementTest, VariableWithGpuKernelsStaysOnTheGpuForEveryRun) {
  std::unique_ptr<Session> session = SimGpuSessionOf(VariableGraph());
  ASSERT_NE(session, nullptr);
  std::vector<Tensor> out;
  EXPECT_EQ(RunTraced(session.get(), {}, {"init"}, &out)["v"], kFullGpu);
  EXPECT_EQ(RunTraced(session.get(), {"read:0"}, {}, &out)["v"], kFullGpu);
  test::ExpectTensorEqual(out.at(0), Tensor::FromVector<float>({1.0f, 2.0f}));
}

TEST(SessionPlacementTest, ExtendPlacesTheNewNodesWithoutMovingThePlacedOnes) {
  std::unique_ptr<Session> session = SimGpuSessionOf(VariableGraph());
  ASSERT_NE(session, nullptr);
  std::vector<Tensor> out;
  ASSERT_EQ(RunTraced(session.get(), {}, {"init"}, &out)["v"], kFullGpu);

  // An update with a GPU kernel joins v on the GPU.
  Scope more = Scope::NewRootScope();
  NodeDef add;
  add.name = "add";
  add.op = "AssignAdd";
  add.input = {"v", "delta"};
  add.attr["T"] = AttrValue(DT_FLOAT);
  add.attr["use_locking"] = AttrValue(false);
  GraphDef extension;
  ops::Const(more.WithOpName("delta"), {10.0f, 10.0f});
  ASSERT_TRUE(more.ToGraphDef(&extension).ok());
  extension.node.push_back(add);
  ASSERT_TRUE(session->Extend(extension).ok());
  std::map<std::string, std::string> devices = RunTraced(session.get(), {}, {"add"}, &out);
  EXPECT_EQ(devices["v"], kFullGpu);
  EXPECT_EQ(devices["add"], kFullGpu);
  RunTraced(session.get(), {"read:0"}, {}, &out);
  test::ExpectTensorEqual(out.at(0), Tensor::FromVector<float>({11.0f, 12.0f}));

  // An update with no GPU kernel cannot join v there: v does not move (its
  // value would be lost), so Extend fails naming the node, and the session
  // keeps its graph.
  GraphDef cpu_only;
  cpu_only.node.push_back(AddOne("update", "v"));
  absl::Status s = session->Extend(cpu_only);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << s;
  EXPECT_THAT(std::string(s.message()), ::testing::HasSubstr("'update'"));
  EXPECT_THAT(std::string(s.message()), ::testing::HasSubstr("'v'"));
  RunTraced(session.get(), {"read:0"}, {}, &out);
  test::ExpectTensorEqual(out.at(0), Tensor::FromVector<float>({11.0f, 12.0f}));
}

TEST(SessionPlacementTest, AnUnplaceableNodeFailsAtCreate) {
  // As TensorFlow's sessions: placement is part of Create, so a node that
  // asks for a device without a kernel for it is reported before any Run,
  // even when no Run would need it.
  Scope root = Scope::NewRootScope();
  ops::Const(root.WithOpName("x"), {1});
  GraphDef graph;
  ASSERT_TRUE(root.ToGraphDef(&graph).ok());
  NodeDef increment;
  increment.name = "increment";
  increment.op = "_TestIncrement";  // A CPU kernel only.
  increment.input = {"x"};
  increment.device = "/device:GPU:0";
  graph.node.push_back(increment);
  auto session = NewSimGpuSession();
  ASSERT_NE(session, nullptr);
  absl::Status s = session->Create(graph);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << s;
  EXPECT_THAT(std::string(s.message()), ::testing::HasSubstr("'increment'"));
}

}  // namespace
}  // namespace minitf
