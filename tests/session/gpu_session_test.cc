// Sessions with SimGPU devices: an unchanged graph runs on the GPU by
// default and gives the CPU's answer; graphs split across CPU and GPU
// exchange tensors through _Send/_Recv; VMem lets a graph larger than the
// device run, with its host bytes reported; device memory is one capacity
// shared by every session on the device; errors name the node at fault.
#include <atomic>
#include <map>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "device/gpu/gpu_device.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "ops/cc/scope.h"
#include "ops/standard_ops.h"
#include "session/session.h"
#include "platform/mutex.h"
#include "stream/host/host_stream.h"
#include "stream/sim_gpu/sim_gpu_executor.h"
#include "tests/testlib/kernel_runner.h"

namespace minitf {
namespace {

using ::testing::HasSubstr;
using test::ExpectTensorNear;

constexpr char kGPU[] = "/device:GPU:0";
constexpr char kCpu[] = "/device:CPU:0";
constexpr char kFullGPU[] = "/job:localhost/replica:0/task:0/device:GPU:0";

using Feeds = std::vector<std::pair<std::string, Tensor>>;

// Graph optimization stays off: these graphs are made of constants, which
// it would compute on the host before the step; the tests are about the
// device running them.
SessionOptions Options(const std::string& simgpu = "", bool private_allocators = false) {
  SessionOptions options;
  options.config.graph_options = GraphOptions::Unoptimized();
  options.config.intra_op_parallelism_threads = 2;
  options.config.inter_op_parallelism_threads = 2;
  options.config.gpu_options.platform = "SimGPU";
  options.config.gpu_options.simgpu_options = simgpu;
  options.config.gpu_options.private_allocators = private_allocators;
  return options;
}

std::unique_ptr<Session> MakeSession(const SessionOptions& options, const Scope& root) {
  auto session = NewSession(options);
  EXPECT_TRUE(session.ok()) << session.status();
  if (!session.ok()) return nullptr;
  GraphDef def;
  absl::Status s = root.ToGraphDef(&def);
  EXPECT_TRUE(s.ok()) << s;
  s = (*session)->Create(def);
  EXPECT_TRUE(s.ok()) << s;
  return *std::move(session);
}

absl::Status RunStep(Session* session, const Feeds& feeds, const std::vector<std::string>& fetches,
                 std::vector<Tensor>* out, RunMetadata* metadata = nullptr) {
  RunOptions options;
  options.timeout_in_ms = 60000;  // A hang fails the test instead of blocking it.
  if (metadata != nullptr) options.trace_level = RunOptions::FULL_TRACE;
  return session->Run(options, feeds, fetches, {}, out, metadata);
}

GPUDevice* GPUOf(Session* session) {
  for (Device* d : session->ListDevices()) {
    if (auto* gpu = dynamic_cast<GPUDevice*>(d)) return gpu;
  }
  return nullptr;
}

std::map<std::string, std::string> DeviceOfNode(const RunMetadata& metadata) {
  std::map<std::string, std::string> out;
  for (const DeviceStepStats& dev : metadata.step_stats.dev_stats) {
    for (const NodeExecStats& n : dev.node_stats) out[n.node_name] = dev.device;
  }
  return out;
}

Tensor RandomMatrix(int rows, int cols, float offset) {
  Tensor t(DT_FLOAT, TensorShape({rows, cols}));
  auto v = t.flat<float>();
  for (int64_t i = 0; i < v.size(); ++i) v(i) = 0.01f * static_cast<float>((i * 37) % 101) - offset;
  return t;
}

TEST(GPUSessionTest, ANewSessionHasASimGpuDeviceByDefault) {
  auto session = NewSession(Options());
  ASSERT_TRUE(session.ok()) << session.status();
  GPUDevice* gpu = GPUOf(session->get());
  ASSERT_NE(gpu, nullptr);
  EXPECT_EQ(gpu->name(), kFullGPU);
  EXPECT_EQ(gpu->platform_name(), "SimGPU");
  EXPECT_THAT(gpu->attributes().physical_device_desc, HasSubstr("0000:50:00.0"));
  EXPECT_GT(gpu->attributes().memory_limit, 0);
}

TEST(GPUSessionTest, EveryNodeOnAGpuGetsTheDevicesContext) {
  auto session = NewSession(Options());
  ASSERT_TRUE(session.ok()) << session.status();
  GPUDevice* gpu = GPUOf(session->get());
  ASSERT_NE(gpu, nullptr);
  std::vector<DeviceContext*> map;
  ASSERT_TRUE(gpu->FillContextMap(5, &map).ok());
  ASSERT_EQ(map.size(), 5u);
  for (DeviceContext* c : map) EXPECT_EQ(c, gpu->gpu_device_context());
  // The CPU uses none.
  std::vector<DeviceContext*> cpu_map;
  Device* cpu = (*session)->ListDevices().front();
  ASSERT_EQ(cpu->device_type(), "CPU");
  ASSERT_TRUE(cpu->FillContextMap(5, &cpu_map).ok());
  EXPECT_TRUE(cpu_map.empty());
}

TEST(GPUSessionTest, UnpinnedGraphRunsOnTheGpuAndMatchesTheCpu) {
  Scope root = Scope::NewRootScope();
  auto a = ops::Placeholder(root.WithOpName("a"), DT_FLOAT);
  auto b = ops::Placeholder(root.WithOpName("b"), DT_FLOAT);
  auto y = ops::Relu(root.WithOpName("y"), ops::MatMul(root.WithOpName("mm"), a, b));
  auto session = MakeSession(Options(), root);
  const Tensor ta = RandomMatrix(8, 5, 0.3f), tb = RandomMatrix(5, 3, 0.2f);
  std::vector<Tensor> out;
  RunMetadata metadata;
  ASSERT_TRUE(RunStep(session.get(), {{"a", ta}, {"b", tb}}, {"y"}, &out, &metadata).ok());
  EXPECT_EQ(DeviceOfNode(metadata)["mm"], kFullGPU);
  EXPECT_EQ(DeviceOfNode(metadata)["y"], kFullGPU);
  // GPU kernels complete on a stream (async); the feeds' Placeholders,
  // replaced by the call frame's _Arg on the host, do not.
  for (const DeviceStepStats& dev : metadata.step_stats.dev_stats) {
    for (const NodeExecStats& n : dev.node_stats) {
      if (n.node_name == "mm" || n.node_name == "y") {
        EXPECT_TRUE(n.async) << n.node_name;
      }
      if (n.op == "_Arg") {
        EXPECT_FALSE(n.async) << n.node_name;
      }
    }
  }

  SessionOptions cpu_only = Options();
  cpu_only.config.device_count["GPU"] = 0;
  auto cpu_session = MakeSession(cpu_only, root);
  std::vector<Tensor> expected;
  ASSERT_TRUE(RunStep(cpu_session.get(), {{"a", ta}, {"b", tb}}, {"y"}, &expected).ok());
  ExpectTensorNear(out[0], expected[0], 1e-6, 1e-6);
}

TEST(GPUSessionTest, GraphSplitAcrossCpuAndGpuGivesTheCpuOnlyAnswer) {
  Scope root = Scope::NewRootScope();
  auto x = ops::Placeholder(root.WithOpName("x"), DT_FLOAT);
  auto w = ops::Const(root.WithOpName("w").WithDevice(kCpu), RandomMatrix(4, 4, 0.1f));
  auto h1 = ops::MatMul(root.WithOpName("h1").WithDevice(kGPU), x, w);
  auto h2 = ops::Tanh(root.WithOpName("h2").WithDevice(kCpu), h1);
  auto h3 = ops::Add(root.WithOpName("h3").WithDevice(kGPU), h2, h1);
  auto s = ops::Sum(root.WithOpName("s").WithDevice(kCpu), h3, {1});
  auto session = MakeSession(Options(), root);
  const Tensor tx = RandomMatrix(3, 4, 0.25f);
  std::vector<Tensor> out;
  RunMetadata metadata;
  ASSERT_TRUE(RunStep(session.get(), {{"x", tx}}, {"s", "h3"}, &out, &metadata).ok());
  std::map<std::string, std::string> where = DeviceOfNode(metadata);
  EXPECT_EQ(where["h1"], kFullGPU);
  EXPECT_EQ(where["h3"], kFullGPU);
  int sends = 0, recvs = 0;
  for (const DeviceStepStats& dev : metadata.step_stats.dev_stats) {
    for (const NodeExecStats& n : dev.node_stats) {
      sends += n.op == "_Send";
      recvs += n.op == "_Recv";
    }
  }
  EXPECT_GT(sends, 0);
  EXPECT_EQ(sends, recvs);

  SessionOptions cpu_only = Options();
  cpu_only.config.device_count["GPU"] = 0;
  cpu_only.config.allow_soft_placement = true;
  auto cpu_session = MakeSession(cpu_only, root);
  std::vector<Tensor> expected;
  ASSERT_TRUE(RunStep(cpu_session.get(), {{"x", tx}}, {"s", "h3"}, &expected).ok());
  ExpectTensorNear(out[0], expected[0], 1e-6, 1e-6);
  ExpectTensorNear(out[1], expected[1], 1e-6, 1e-6);
}

TEST(GPUSessionTest, VariablesLiveOnTheGpuAndKeepTheirValueAcrossSteps) {
  Scope root = Scope::NewRootScope();
  auto v = ops::Variable(root.WithOpName("v"), PartialTensorShape({2}), DT_FLOAT);
  auto init = ops::Assign(root.WithOpName("init"), v, Tensor::FromVector<float>({1, 2}));
  auto add = ops::AssignAdd(root.WithOpName("add"), v, Tensor::FromVector<float>({0.5f, 0.5f}));
  auto read = ops::Identity(root.WithOpName("read"), v);
  auto session = MakeSession(Options(), root);
  std::vector<Tensor> out;
  RunMetadata metadata;
  ASSERT_TRUE(session->Run({}, {}, {"init"}, nullptr).ok());
  ASSERT_TRUE(session->Run({}, {}, {"add"}, nullptr).ok());
  ASSERT_TRUE(session->Run({}, {}, {"add"}, nullptr).ok());
  ASSERT_TRUE(RunStep(session.get(), {}, {"read"}, &out, &metadata).ok());
  EXPECT_EQ(DeviceOfNode(metadata)["read"], kFullGPU);
  test::ExpectTensorEqual(out[0], Tensor::FromVector<float>({2, 3}));
}

// A chain of five 4 MiB tensors on a device of 12 MiB. The first add of
// the total waits on all five (control edges), and each is still needed by
// the total, so 20 MiB are alive at once whatever order the executor picks:
// VMem places what does not fit in host memory.
Scope BigChain(std::vector<std::string>* fetches) {
  Scope root = Scope::NewRootScope().WithDevice(kGPU);
  auto dims = ops::Const(root, Tensor::FromVector<int32_t>({1024, 1024}));
  Output prev = ops::Fill(root.WithOpName("t0"), dims, Tensor::Scalar<float>(1.0f));
  std::vector<Output> all = {prev};
  for (int i = 1; i < 5; ++i) {
    prev = ops::Add(root.WithOpName("t" + std::to_string(i)), prev,
                    Tensor::Scalar<float>(1.0f));
    all.push_back(prev);
  }
  Output total = ops::Add(root.WithControlDependencies(all), all[0], all[1]);
  for (int i = 2; i < 5; ++i) total = ops::Add(root, total, all[i]);
  ops::Sum(root.WithOpName("total"), total, {0, 1});
  *fetches = {"total"};
  return root;
}

// An empty tensor has no buffer (a BFC gives nullptr for zero bytes, as
// TensorFlow's does): fed, sent between CPU and GPU, computed on and fetched,
// it stays a valid tensor of its shape, on SimGPU and on the CPU alone.
TEST(GPUSessionTest, EmptyTensorsFeedComputeAndFetchOnCpuAndGpu) {
  Scope root = Scope::NewRootScope();
  auto x = ops::Placeholder(root.WithOpName("x"), DT_FLOAT);
  auto w = ops::Const(root.WithOpName("w").WithDevice(kCpu), RandomMatrix(4, 3, 0.1f));
  auto h = ops::MatMul(root.WithOpName("h").WithDevice(kGPU), x, w);
  auto r = ops::Relu(root.WithOpName("r").WithDevice(kCpu), h);
  auto y = ops::Add(root.WithOpName("y").WithDevice(kGPU), r, h);
  Tensor empty(DT_FLOAT, TensorShape({0, 4}));
  ASSERT_TRUE(empty.IsInitialized());
  SessionOptions cpu_only = Options();
  cpu_only.config.device_count["GPU"] = 0;
  cpu_only.config.allow_soft_placement = true;
  for (const SessionOptions& options : {Options("", /*private_allocators=*/true), cpu_only}) {
    auto session = MakeSession(options, root);
    ASSERT_NE(session, nullptr);
    for (int step = 0; step < 2; ++step) {
      std::vector<Tensor> out;
      absl::Status s = RunStep(session.get(), {{"x", empty}}, {"x", "h", "y"}, &out);
      ASSERT_TRUE(s.ok()) << s;
      ASSERT_EQ(out.size(), 3u);
      EXPECT_EQ(out[0].shape(), TensorShape({0, 4}));
      for (const Tensor& t : {out[1], out[2]}) {
        EXPECT_TRUE(t.IsInitialized());
        EXPECT_EQ(t.dtype(), DT_FLOAT);
        EXPECT_EQ(t.shape(), TensorShape({0, 3}));
        EXPECT_EQ(t.NumElements(), 0);
      }
    }
    if (GPUDevice* gpu = GPUOf(session.get())) {
      // Nothing of the empty tensors is left on the device.
      EXPECT_EQ(gpu->allocator_stack()->device_bfc()->GetStats()->bytes_in_use, 0);
    }
  }
}

TEST(GPUSessionTest, VMemRunsAGraphLargerThanTheDeviceAndReportsHostBytes) {
  std::vector<std::string> fetches;
  Scope root = BigChain(&fetches);
  SessionOptions options = Options("memory=12MiB,mode=functional", true);
  options.config.gpu_options.allow_growth = true;
  auto session = MakeSession(options, root);
  std::vector<Tensor> out;
  absl::Status s = RunStep(session.get(), {}, fetches, &out);
  ASSERT_TRUE(s.ok()) << s;
  // Elements: 1 + 2 + 3 + 4 + 5 = 15 per position.
  EXPECT_FLOAT_EQ(out[0].scalar<float>()(), 15.0f * 1024 * 1024);
  GPUDevice* gpu = GPUOf(session.get());
  ASSERT_NE(gpu, nullptr);
  ASSERT_NE(gpu->allocator_stack()->vmem(), nullptr);
  const VMemStats stats = gpu->allocator_stack()->vmem()->GetVMemStats();
  EXPECT_GT(stats.peak_host_bytes_in_use, 0);
  EXPECT_GT(stats.num_host_allocs, 0);
}

TEST(GPUSessionTest, WithoutVMemAGraphLargerThanTheDeviceFailsNamingTheNode) {
  std::vector<std::string> fetches;
  Scope root = BigChain(&fetches);
  SessionOptions options = Options("memory=12MiB,mode=functional", true);
  options.config.gpu_options.vmem = false;
  auto session = MakeSession(options, root);
  std::vector<Tensor> out;
  absl::Status s = RunStep(session.get(), {}, fetches, &out);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.code(), absl::StatusCode::kResourceExhausted) << s;
  EXPECT_THAT(std::string(s.message()), HasSubstr("'t"));
  // The session stays usable for a graph that fits.
  Scope small = Scope::NewRootScope().WithDevice(kGPU);
  ops::Add(small.WithOpName("z"), Tensor::FromVector<float>({1}), Tensor::FromVector<float>({2}));
  GraphDef def;
  ASSERT_TRUE(small.ToGraphDef(&def).ok());
  ASSERT_TRUE(session->Extend(def).ok());
  ASSERT_TRUE(RunStep(session.get(), {}, {"z"}, &out).ok());
  EXPECT_FLOAT_EQ(out[0].flat<float>()(0), 3.0f);
}

TEST(GPUSessionTest, TwoSessionsShareTheDeviceCapacity) {
  // Each session may use 30 MiB of a 40 MiB device. Initialising a 12 MiB
  // variable needs 24 MiB (the filled value and the variable's copy), and
  // the pool keeps what it grew to: one session fits, two do not.
  SessionOptions options = Options("memory=40MiB,mode=functional", true);
  options.config.gpu_options.allow_growth = true;
  options.config.gpu_options.vmem = false;
  options.config.gpu_options.memory_limit_bytes = 30 << 20;
  auto make = [&] {
    Scope root = Scope::NewRootScope().WithDevice(kGPU);
    auto v = ops::Variable(root.WithOpName("v"), PartialTensorShape({3 << 20}), DT_FLOAT);
    auto dims = ops::Const(root, Tensor::FromVector<int32_t>({3 << 20}));
    ops::Assign(root.WithOpName("init"), v, ops::Fill(root, dims, Tensor::Scalar<float>(1)));
    return MakeSession(options, root);
  };
  auto first = make();
  auto second = make();
  absl::Status s = first->Run({}, {}, {"init"}, nullptr);
  ASSERT_TRUE(s.ok()) << s;
  s = second->Run({}, {}, {"init"}, nullptr);
  EXPECT_EQ(s.code(), absl::StatusCode::kResourceExhausted) << s;
  EXPECT_THAT(std::string(s.message()), HasSubstr("Node '"));
  // Once the first session is gone, its memory is the second's to use.
  first.reset();
  s = second->Run({}, {}, {"init"}, nullptr);
  EXPECT_TRUE(s.ok()) << s;
}

TEST(GPUSessionTest, GpuPrivateThreadModeGivesTheSameAnswer) {
  Scope root = Scope::NewRootScope();
  auto a = ops::Placeholder(root.WithOpName("a"), DT_FLOAT);
  auto y = ops::Sum(root.WithOpName("y"), ops::Square(root, ops::MatMul(root, a, a)), {0, 1});
  SessionOptions options = Options();
  options.config.gpu_options.thread_mode = "gpu_private";
  auto session = MakeSession(options, root);
  GPUDevice* gpu = GPUOf(session.get());
  ASSERT_NE(gpu, nullptr);
  EXPECT_NE(gpu->tensorflow_device_thread_pool(), nullptr);
  const Tensor ta = RandomMatrix(6, 6, 0.3f);
  std::vector<Tensor> out, expected;
  ASSERT_TRUE(RunStep(session.get(), {{"a", ta}}, {"y"}, &out).ok());
  SessionOptions cpu_only = Options();
  cpu_only.config.device_count["GPU"] = 0;
  auto cpu_session = MakeSession(cpu_only, root);
  ASSERT_TRUE(RunStep(cpu_session.get(), {{"a", ta}}, {"y"}, &expected).ok());
  ExpectTensorNear(out[0], expected[0], 1e-5, 1e-5);
}

// Shapes a graph may make huge (Fill's dims, a random op's shape,
// Conv2DBackpropInput's input_sizes): the kernel refuses them, and the
// engine models no time for work it did not do. Before, each held the
// simulated engine for its 4e18 bytes at HBM speed (weeks).
TEST(GPUSessionTest, AKernelThatRefusesHugeShapesHoldsTheEngineForNoTime) {
  Scope root = Scope::NewRootScope().WithDevice(kGPU);
  const Tensor huge = Tensor::FromVector<int64_t>({1000000000, 1000000000});
  const Tensor huge_image = Tensor::FromVector<int32_t>({1, 1000000000, 1000000000, 1});
  ops::Fill(root.WithOpName("fill"), ops::Const(root, huge), 1.0f);
  ops::RandomUniform(root.WithOpName("random"), ops::Const(root, huge), DT_FLOAT);
  ops::Conv2DBackpropInput(root.WithOpName("backprop_input"), ops::Const(root, huge_image),
                           ops::Const(root, Tensor(DT_FLOAT, TensorShape({1, 1, 1, 1}))),
                           ops::Const(root, Tensor(DT_FLOAT, TensorShape({1, 1, 1, 1}))),
                           {.strides = {1, 1, 1, 1}, .padding = "VALID"});
  for (const std::string mode : {"compute", "timing"}) {
    auto session = MakeSession(Options("mode=" + mode), root);
    for (const char* node : {"fill", "random", "backprop_input"}) {
      std::vector<Tensor> out;
      const absl::Status s = RunStep(session.get(), {}, {node}, &out);
      EXPECT_FALSE(s.ok()) << mode << " " << node;
      EXPECT_THAT(std::string(s.message()), HasSubstr(absl::StrCat("'", node, "'"))) << s;
    }
    EXPECT_LT(GPUOf(session.get())->executor()->DeviceBusyTime(), absl::Seconds(60)) << mode;
  }
}

TEST(GPUSessionTest, TimingModeRunsWithoutArithmeticAndCountsBusyTime) {
  Scope root = Scope::NewRootScope().WithDevice(kGPU);
  auto a = ops::Placeholder(root.WithOpName("a"), DT_FLOAT);
  ops::MatMul(root.WithOpName("mm"), a, a);
  auto session = MakeSession(Options("mode=timing,tflops=1000"), root);
  std::vector<Tensor> out;
  ASSERT_TRUE(RunStep(session.get(), {{"a", RandomMatrix(64, 64, 0)}}, {"mm"}, &out).ok());
  EXPECT_EQ(out[0].shape(), TensorShape({64, 64}));
  EXPECT_GT(GPUOf(session.get())->executor()->DeviceBusyTime(), absl::ZeroDuration());
}

// Timing mode skips arithmetic, not state: a variable initialised, updated
// and read on the GPU keeps its buffer (its kernels' bodies run).
TEST(GPUSessionTest, TimingModeRunsVariablesAndAssigns) {
  Scope root = Scope::NewRootScope().WithDevice(kGPU);
  auto v = ops::Variable(root.WithOpName("v"), TensorShape({2}), DT_FLOAT);
  ops::Assign(root.WithOpName("init"), v, Tensor::FromVector<float>({1, 2}));
  ops::AssignAdd(root.WithOpName("add"), v, Tensor::FromVector<float>({1, 1}));
  ops::Identity(root.WithOpName("read"), v);
  auto session = MakeSession(Options("mode=timing,memory=64MiB"), root);
  std::vector<Tensor> out;
  ASSERT_TRUE(session->Run({}, {}, {"init"}, nullptr).ok());
  ASSERT_TRUE(session->Run({}, {}, {"add"}, nullptr).ok());
  ASSERT_TRUE(session->Run({}, {"read"}, {}, &out).ok());
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].shape(), TensorShape({2}));
}

// Nor shapes: constants and integer results (which later ops read as
// dimensions) are computed, so shapes come out right.
TEST(GPUSessionTest, TimingModeComputesConstantsAndShapes) {
  Scope root = Scope::NewRootScope().WithDevice(kGPU);
  auto x = ops::Fill(root.WithOpName("x"), ops::Const(root, Tensor::FromVector<int32_t>({4, 6})),
                     Tensor::Scalar<float>(1.0f));
  auto y = ops::Reshape(root.WithOpName("y"), x, Tensor::FromVector<int32_t>({3, 8}));
  ops::Shape(root.WithOpName("shape"), y);
  auto session = MakeSession(Options("mode=timing,memory=64MiB"), root);
  std::vector<Tensor> out;
  ASSERT_TRUE(session->Run({}, {"y", "shape"}, {}, &out).ok());
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[0].shape(), TensorShape({3, 8}));
  test::ExpectTensorEqual(out[1], Tensor::FromVector<int32_t>({3, 8}));
}

// Batch normalization's outputs all have shapes known before it runs, so
// timing mode skips its arithmetic (a ResNet step would otherwise spend its
// wall time in the CPU bodies of 53 batch norms).
TEST(GPUSessionTest, TimingModeSkipsTheArithmeticOfBatchNormAndItsGradient) {
  Scope root = Scope::NewRootScope().WithDevice(kGPU);
  auto x = ops::Placeholder(root.WithOpName("x"), DT_FLOAT);
  auto scale = ops::Placeholder(root.WithOpName("scale"), DT_FLOAT);
  auto offset = ops::Placeholder(root.WithOpName("offset"), DT_FLOAT);
  auto empty = ops::Placeholder(root.WithOpName("empty"), DT_FLOAT);
  auto bn = ops::FusedBatchNormV3(root.WithOpName("bn"), x, scale, offset, empty, empty);
  auto grad = ops::FusedBatchNormGradV3(root.WithOpName("bn_grad"), bn.y, x, scale,
                                        bn.reserve_space_1, bn.reserve_space_2,
                                        bn.reserve_space_3);
  auto session = MakeSession(Options("mode=timing,memory=64MiB"), root);
  const auto* sim = dynamic_cast<const se::SimGPUExecutor*>(GPUOf(session.get())->executor());
  ASSERT_NE(sim, nullptr);
  const int64_t kernels = sim->KernelCount();
  const int64_t bodies = sim->BodyCount();
  std::vector<Tensor> out;
  ASSERT_TRUE(RunStep(session.get(),
                      {{"x", Tensor(DT_FLOAT, TensorShape({2, 4, 4, 3}))},
                       {"scale", Tensor(DT_FLOAT, TensorShape({3}))},
                       {"offset", Tensor(DT_FLOAT, TensorShape({3}))},
                       {"empty", Tensor(DT_FLOAT, TensorShape({0}))}},
                      {"bn:5", "bn_grad:0", "bn_grad:1"}, &out)
                  .ok());
  EXPECT_EQ(out[0].shape(), TensorShape());
  EXPECT_EQ(out[1].shape(), TensorShape({2, 4, 4, 3}));
  EXPECT_EQ(out[2].shape(), TensorShape({3}));
  EXPECT_GE(sim->KernelCount() - kernels, 2);
  EXPECT_EQ(sim->BodyCount() - bodies, 0);
}

// In timing mode a SimGPU op returns once its kernel is enqueued, as a CUDA
// op does: with the compute stream held up, the executor still launches the
// whole chain of kernels. The step ends only when the device has run them
// (the executor syncs the device on finish).
TEST(GPUSessionTest, TimingModeRunsAheadOfTheDeviceAndTheStepWaitsForIt) {
  constexpr int kMatMuls = 5;
  Scope root = Scope::NewRootScope().WithDevice(kGPU);
  // A constant on the device: the step copies nothing over.
  auto x = ops::Const(root.WithOpName("x"), RandomMatrix(64, 64, 0));
  Output y = x;
  for (int i = 0; i < kMatMuls; ++i) y = ops::MatMul(root.WithOpName(absl::StrCat("mm", i)), y, x);
  auto session = MakeSession(Options("mode=timing,memory=64MiB"), root);
  GPUDevice* gpu = GPUOf(session.get());
  ASSERT_NE(gpu, nullptr);
  auto* compute = dynamic_cast<se::HostStream*>(gpu->gpu_device_info()->stream);
  ASSERT_NE(compute, nullptr);
  const auto* sim = dynamic_cast<const se::SimGPUExecutor*>(gpu->executor());
  ASSERT_NE(sim, nullptr);
  const Feeds feeds;
  const std::string last = absl::StrCat("mm", kMatMuls - 1);
  std::vector<Tensor> out;
  // The first step builds the executor (and puts the constant on the device).
  ASSERT_TRUE(session->Run(feeds, {}, {last}, &out).ok());
  Notification held, release;
  ASSERT_TRUE(compute->DoHostCallback([&] {
    held.Notify();
    release.WaitForNotification();
  }).ok());
  held.WaitForNotification();
  const int64_t kernels = sim->KernelCount();
  std::atomic<bool> returned{false};
  absl::Status step;
  std::thread runner([&] {
    step = session->Run(feeds, {}, {last}, &out);
    returned = true;
  });
  // The held callback, and every MatMul's kernel.
  const absl::Time give_up = absl::Now() + absl::Seconds(30);
  while (compute->PendingItems() < 1 + kMatMuls && absl::Now() < give_up) {
    absl::SleepFor(absl::Milliseconds(1));
  }
  EXPECT_GE(compute->PendingItems(), 1 + kMatMuls);
  absl::SleepFor(absl::Milliseconds(50));
  EXPECT_FALSE(returned.load());  // The device has not run them yet.
  release.Notify();
  runner.join();
  EXPECT_TRUE(step.ok()) << step;
  EXPECT_EQ(sim->KernelCount() - kernels, kMatMuls);
  EXPECT_EQ(compute->PendingItems(), 0);
}

// An update of an initialized variable changes only values: timing mode
// passes the reference on without the arithmetic. The first Assign (which
// allocates) runs, and so do an update of an uninitialized variable and one
// whose operands do not fit, which fail as in compute mode. Small bool
// results (predicates) are computed; large ones (masks) are not.
TEST(GPUSessionTest, TimingModeSkipsUpdatesOfInitializedVariablesAndLargeMasks) {
  Scope root = Scope::NewRootScope().WithDevice(kGPU);
  auto v = ops::VariableV2(root.WithOpName("v"), TensorShape({4096}), DT_FLOAT);
  auto w = ops::VariableV2(root.WithOpName("w"), TensorShape({4096}), DT_FLOAT);
  auto value = ops::Placeholder(root.WithOpName("value"), DT_FLOAT);
  ops::Assign(root.WithOpName("init"), v, value);
  ops::Assign(root.WithOpName("reassign"), v, value);
  ops::AssignAdd(root.WithOpName("add"), v, value);
  ops::AssignAdd(root.WithOpName("add_w"), w, value);
  ops::Greater(root.WithOpName("mask"), value, 0.0f);
  ops::Greater(root.WithOpName("predicate"), ops::Sum(root, value, 0), 0.0f);
  auto session = MakeSession(Options("mode=timing,memory=64MiB"), root);
  const auto* sim = dynamic_cast<const se::SimGPUExecutor*>(GPUOf(session.get())->executor());
  ASSERT_NE(sim, nullptr);
  const Feeds feeds = {{"value", Tensor(DT_FLOAT, TensorShape({4096}))}};
  std::vector<Tensor> out;
  auto bodies_of = [&](const std::string& target) {
    const int64_t before = sim->BodyCount();
    EXPECT_TRUE(session->Run(feeds, {}, {target}, &out).ok()) << target;
    return sim->BodyCount() - before;
  };
  // VariableV2 hands out the buffer on the host: no kernel, as on CUDA.
  EXPECT_EQ(bodies_of("init"), 1);  // the first Assign, which allocates it
  EXPECT_EQ(bodies_of("reassign"), 0);
  EXPECT_EQ(bodies_of("add"), 0);
  EXPECT_EQ(bodies_of("mask"), 0);
  EXPECT_EQ(bodies_of("predicate"), 1);
  absl::Status uninitialized = session->Run(feeds, {}, {"add_w"}, &out);
  EXPECT_EQ(uninitialized.code(), absl::StatusCode::kFailedPrecondition) << uninitialized;
  // Operands that do not fit fail as in compute mode, naming the node.
  absl::Status mismatch =
      session->Run({{"value", Tensor(DT_FLOAT, TensorShape({3}))}}, {}, {"add"}, &out);
  EXPECT_EQ(mismatch.code(), absl::StatusCode::kInvalidArgument) << mismatch;
  EXPECT_THAT(std::string(mismatch.message()), HasSubstr("add"));
}

TEST(GPUSessionTest, BadGpuOptionsFailSessionCreationNamingTheSetting) {
  SessionOptions options = Options("memory=lots");
  auto session = NewSession(options);
  ASSERT_FALSE(session.ok());
  EXPECT_THAT(std::string(session.status().message()), HasSubstr("memory"));

  options = Options();
  options.config.gpu_options.thread_mode = "gpu_everywhere";
  session = NewSession(options);
  ASSERT_FALSE(session.ok());
  EXPECT_THAT(std::string(session.status().message()), HasSubstr("gpu_everywhere"));

  options = Options();
  options.config.gpu_options.visible_device_list = "3";
  session = NewSession(options);
  ASSERT_FALSE(session.ok());
  EXPECT_THAT(std::string(session.status().message()), HasSubstr("visible_device_list"));
}

// A cond whose branch value is a Const on the CPU waiting (control edge) for
// the branch's pivot on the GPU: the pivot's deadness crosses devices with
// the control edge, so the untaken branch stays dead and Merge gives the
// taken one's value, for either predicate.
TEST(GPUSessionTest, DeadnessCrossesDevicesOnAControlEdge) {
  Scope root = Scope::NewRootScope();
  auto p = ops::Placeholder(root.WithOpName("p"), DT_BOOL);
  auto sw = ops::Switch(root.WithOpName("sw").WithDevice(kGPU), p, p);
  auto pivot_f = ops::Identity(root.WithOpName("pivot_f").WithDevice(kGPU), sw.output_false);
  auto pivot_t = ops::Identity(root.WithOpName("pivot_t").WithDevice(kGPU), sw.output_true);
  auto if_false = ops::Const(
      root.WithOpName("if_false").WithDevice(kCpu).WithControlDependencies({pivot_f}), 18);
  auto if_true = ops::Const(
      root.WithOpName("if_true").WithDevice(kCpu).WithControlDependencies({pivot_t}), 7);
  ops::Merge(root.WithOpName("m").WithDevice(kCpu), {if_false, if_true});
  auto session = MakeSession(Options(), root);
  for (bool pred : {false, true}) {
    std::vector<Tensor> out;
    ASSERT_TRUE(RunStep(session.get(), {{"p", Tensor::Scalar<bool>(pred)}}, {"m:0"}, &out).ok());
    EXPECT_EQ(out[0].scalar<int32_t>()(), pred ? 7 : 18) << "pred " << pred;
  }
}

}  // namespace
}  // namespace minitf
