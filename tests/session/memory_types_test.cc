// Memory types (TensorFlow's memory_types_test and the host-memory cases of
// its partitioning tests): which args of a node live in host memory on a
// GPU, and that a session honours them. On a strict SimGPU (its device
// memory faults when host code touches it, as cudaMalloc memory does), a
// kernel that reads an input on the host dies unless it declares the input
// HostMemory; declared, the partitioner copies the tensor into host memory
// and the same graph runs.
#include <memory>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "ops/cc/scope.h"
#include "ops/standard_ops.h"
#include "runtime/kernel_registry.h"
#include "runtime/memory_types.h"
#include "runtime/op_registry.h"
#include "runtime/shape_inference.h"
#include "platform/status_macros.h"
#include "runtime/op_requires.h"
#include "session/session.h"
#include "tests/testlib/fault_death.h"
#include "tests/testlib/kernel_runner.h"

namespace minitf {
namespace {

using ::testing::Contains;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

constexpr char kGPU[] = "/device:GPU:0";
constexpr char kCPU[] = "/device:CPU:0";

// Two test ops that read their input's elements in Compute, on the host:
// the sum of `x`, in host memory. One declares `x` HostMemory, the other
// does not (the bug this file guards against).
void SumOnHost(OpKernelContext* ctx) {
  const Tensor& x = ctx->input(0);
  Tensor* y = nullptr;
  OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape({}), &y));
  float sum = 0;
  const float* data = x.flat<float>().data();
  for (int64_t i = 0; i < x.NumElements(); ++i) sum += data[i];
  y->scalar<float>()() = sum;
}

class SumOnHostOp : public OpKernel {
 public:
  explicit SumOnHostOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}
  void Compute(OpKernelContext* ctx) override { SumOnHost(ctx); }
};

REGISTER_OP("_TestSumOnHostDeclared")
    .Input("x: float")
    .Output("y: float")
    .SetShapeFn(shape_fns::ScalarShape);
REGISTER_OP("_TestSumOnHostUndeclared")
    .Input("x: float")
    .Output("y: float")
    .SetShapeFn(shape_fns::ScalarShape);
REGISTER_KERNEL_BUILDER(Name("_TestSumOnHostDeclared").Device(DEVICE_CPU), SumOnHostOp);
REGISTER_KERNEL_BUILDER(Name("_TestSumOnHostUndeclared").Device(DEVICE_CPU), SumOnHostOp);
REGISTER_KERNEL_BUILDER(
    Name("_TestSumOnHostDeclared").Device(DEVICE_GPU).HostMemory("x").HostMemory("y"),
    SumOnHostOp);
REGISTER_KERNEL_BUILDER(Name("_TestSumOnHostUndeclared").Device(DEVICE_GPU).HostMemory("y"),
                        SumOnHostOp);

NodeDef Node(const std::string& op, std::vector<std::string> inputs, AttrValueMap attrs = {}) {
  NodeDef def;
  def.name = "n";
  def.op = op;
  def.input = std::move(inputs);
  def.attr = std::move(attrs);
  return def;
}

struct Types {
  MemoryTypeVector in, out;
};

Types TypesOn(const std::string& device_type, const NodeDef& def) {
  Types t;
  const absl::Status s = MemoryTypesForNode(device_type, "SimGPU", def, &t.in, &t.out);
  EXPECT_TRUE(s.ok()) << s;
  return t;
}

TEST(MemoryTypesForNodeTest, EverythingIsHostMemoryOnTheCpu) {
  const Types t = TypesOn(DEVICE_CPU, Node("MatMul", {"a", "b"}, {{"T", AttrValue(DT_FLOAT)}}));
  EXPECT_THAT(t.in, ElementsAre(HOST_MEMORY, HOST_MEMORY));
  EXPECT_THAT(t.out, ElementsAre(HOST_MEMORY));
}

TEST(MemoryTypesForNodeTest, GpuFloatArgsAreDeviceMemory) {
  const Types t = TypesOn(DEVICE_GPU, Node("MatMul", {"a", "b"}, {{"T", AttrValue(DT_FLOAT)}}));
  EXPECT_THAT(t.in, ElementsAre(DEVICE_MEMORY, DEVICE_MEMORY));
  EXPECT_THAT(t.out, ElementsAre(DEVICE_MEMORY));
}

TEST(MemoryTypesForNodeTest, DeclaredHostMemoryArgsAreHostMemoryOnTheGpu) {
  // Reshape's shape and Shape's output, as TensorFlow registers them.
  Types t = TypesOn(DEVICE_GPU, Node("Reshape", {"t", "shape"},
                                     {{"T", AttrValue(DT_FLOAT)}, {"Tshape", AttrValue(DT_INT64)}}));
  EXPECT_THAT(t.in, ElementsAre(DEVICE_MEMORY, HOST_MEMORY));
  EXPECT_THAT(t.out, ElementsAre(DEVICE_MEMORY));
  t = TypesOn(DEVICE_GPU,
              Node("Shape", {"t"}, {{"T", AttrValue(DT_FLOAT)}, {"out_type", AttrValue(DT_INT64)}}));
  EXPECT_THAT(t.in, ElementsAre(DEVICE_MEMORY));
  EXPECT_THAT(t.out, ElementsAre(HOST_MEMORY));
}

TEST(MemoryTypesForNodeTest, Int32IsHostMemoryOnTheGpu) {
  // TensorFlow's rule: GPU kernels keep int32 tensors on the host.
  const Types t = TypesOn(DEVICE_GPU, Node("Identity", {"x"}, {{"T", AttrValue(DT_INT32)}}));
  EXPECT_THAT(t.in, ElementsAre(HOST_MEMORY));
  EXPECT_THAT(t.out, ElementsAre(HOST_MEMORY));
}

TEST(MemoryTypesForNodeTest, NoKernelIsNotFound) {
  MemoryTypeVector in, out;
  // _TestFail has a CPU kernel only.
  const absl::Status s = MemoryTypesForNode(
      DEVICE_GPU, "SimGPU", Node("_TestFail", {"x"}, {{"T", AttrValue(DT_FLOAT)}}), &in, &out);
  EXPECT_EQ(s.code(), absl::StatusCode::kNotFound) << s;
  EXPECT_THAT(std::string(s.message()), HasSubstr("_TestFail"));
}

// A session on a strict SimGPU: x = Const on the GPU, y = op(x) on the GPU.
class StrictSimGpuSessionTest : public ::testing::Test {
 protected:
  void SetUp() override {
    GTEST_FLAG_SET(death_test_style, "threadsafe");
  }

  // Runs y = op(Const([1, 2, 3, 4])) with both nodes on the GPU; y's value,
  // and in `node_names` the nodes that ran.
  static absl::StatusOr<float> SumOnGpu(const std::string& op,
                                        std::vector<std::string>* node_names = nullptr) {
    SessionOptions options;
    options.config.intra_op_parallelism_threads = 2;
    options.config.inter_op_parallelism_threads = 2;
    options.config.gpu_options.platform = "SimGPU";
    options.config.gpu_options.simgpu_options = "memory=256MiB,mode=functional,strict=true";
    // The op must read its constant input on the GPU, not be folded.
    options.config.graph_options = GraphOptions::Unoptimized();
    MINITF_ASSIGN_OR_RETURN(std::unique_ptr<Session> session, NewSession(options));
    Scope root = Scope::NewRootScope().WithDevice(kGPU);
    auto x = ops::Const(root.WithOpName("x"), {1.0f, 2.0f, 3.0f, 4.0f});
    NodeDef def;
    def.name = "y";
    def.op = op;
    def.input = {"x"};
    def.device = kGPU;
    GraphDef graph;
    MINITF_RETURN_IF_ERROR(root.ToGraphDef(&graph));
    graph.node.push_back(def);
    MINITF_RETURN_IF_ERROR(session->Create(graph));
    RunOptions run_options;
    run_options.timeout_in_ms = 60000;
    run_options.trace_level = RunOptions::FULL_TRACE;
    RunMetadata metadata;
    std::vector<Tensor> out;
    MINITF_RETURN_IF_ERROR(session->Run(run_options, {}, {"y:0"}, {}, &out, &metadata));
    if (node_names != nullptr) {
      for (const DeviceStepStats& dev : metadata.step_stats.dev_stats) {
        for (const NodeExecStats& n : dev.node_stats) node_names->push_back(n.node_name);
      }
    }
    return out.at(0).scalar<float>()();
  }
};

using StrictSimGpuSessionDeathTest = StrictSimGpuSessionTest;

TEST_F(StrictSimGpuSessionDeathTest, KernelReadingADeviceInputOnTheHostFaults) {
  EXPECT_EXIT((void)SumOnGpu("_TestSumOnHostUndeclared"), test::DiedOfFault, test::kFaultReport);
}

TEST_F(StrictSimGpuSessionTest, DeclaringTheInputHostMemoryMakesTheSameGraphRun) {
  std::vector<std::string> nodes;
  absl::StatusOr<float> sum = SumOnGpu("_TestSumOnHostDeclared", &nodes);
  ASSERT_TRUE(sum.ok()) << sum.status();
  EXPECT_EQ(*sum, 10.0f);
  // x (device memory) reaches y's host-memory input through a copy inside
  // the GPU's partition: a _Send/_HostRecv pair on the same device.
  EXPECT_THAT(nodes, Contains("_send_memtype_edge_0_x"));
  EXPECT_THAT(nodes, Contains("_recv_memtype_edge_0_x"));
}

TEST_F(StrictSimGpuSessionTest, ShapeOutputInHostMemoryFeedsAGpuReshape) {
  // Shape (output in host memory) -> Reshape's shape (host memory) on the
  // GPU, and the result back to the CPU: no copy of the shape through
  // device memory, and the values arrive intact.
  SessionOptions options;
  options.config.intra_op_parallelism_threads = 2;
  options.config.gpu_options.platform = "SimGPU";
  options.config.gpu_options.simgpu_options = "memory=256MiB,mode=functional,strict=true";
  auto session = NewSession(options);
  ASSERT_TRUE(session.ok()) << session.status();
  Scope root = Scope::NewRootScope();
  auto a = ops::Const(root.WithOpName("a").WithDevice(kCPU),
                      Tensor::FromVector<float>({1, 2, 3, 4, 5, 6}, TensorShape({2, 3})));
  auto b = ops::Const(root.WithOpName("b").WithDevice(kCPU),
                      Tensor::FromVector<float>({10, 20, 30, 40, 50, 60}));
  auto shape = ops::Shape(root.WithOpName("shape").WithDevice(kGPU), a);
  auto reshaped = ops::Reshape(root.WithOpName("reshaped").WithDevice(kGPU), b, shape);
  GraphDef def;
  ASSERT_TRUE(root.ToGraphDef(&def).ok());
  ASSERT_TRUE((*session)->Create(def).ok());
  std::vector<Tensor> out;
  const absl::Status s = (*session)->Run({}, {"reshaped:0", "shape:0"}, {}, &out);
  ASSERT_TRUE(s.ok()) << s;
  test::ExpectTensorEqual(out[0],
                          Tensor::FromVector<float>({10, 20, 30, 40, 50, 60}, TensorShape({2, 3})));
  test::ExpectTensorEqual(out[1], Tensor::FromVector<int32_t>({2, 3}));
}

}  // namespace
}  // namespace minitf
