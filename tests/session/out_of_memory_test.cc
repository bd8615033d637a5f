// Memory that cannot be had fails the step with a status, never the
// process: a kernel's output too big for the CPU's or the GPU's memory is
// ResourceExhausted naming the node, its device, the shape and the
// allocator; a feed too big for the GPU names the feed's node; a tensor whose
// allocation failed is refused as a feed and as a constant. The host's
// allocator has a memory limit (the machine's memory), so asking for 4 TiB
// fails at once without touching memory.
#include <memory>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "ops/standard_ops.h"
#include "session/session.h"

namespace minitf {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;

constexpr int64_t kFourTiBOfFloats = int64_t{1} << 40;

std::unique_ptr<Session> MakeSession(const Scope& root, const SessionOptions& options) {
  GraphDef graph;
  absl::Status s = root.ToGraphDef(&graph);
  EXPECT_TRUE(s.ok()) << s;
  auto session = NewSession(options);
  EXPECT_TRUE(session.ok()) << session.status();
  if (!session.ok()) return nullptr;
  s = (*session)->Create(graph);
  EXPECT_TRUE(s.ok()) << s;
  return *std::move(session);
}

SessionOptions SimGpu(const std::string& simgpu) {
  SessionOptions options;
  options.config.gpu_options.platform = "SimGPU";
  options.config.gpu_options.simgpu_options = simgpu;
  return options;
}

TEST(OutOfMemoryTest, KernelOutputTooBigForTheCpuNamesNodeShapeAndAllocator) {
  Scope root = Scope::NewRootScope().WithDevice("/device:CPU:0");
  ops::Fill(root.WithOpName("big"), {1 << 20, 1 << 20}, 1.0f);
  ops::Fill(root.WithOpName("small"), {2}, 1.0f);
  std::unique_ptr<Session> session = MakeSession(root, SessionOptions());
  ASSERT_NE(session, nullptr);
  std::vector<Tensor> out;
  absl::Status s = session->Run({}, {"big"}, {}, &out);
  EXPECT_EQ(s.code(), absl::StatusCode::kResourceExhausted) << s;
  EXPECT_THAT(s.message(),
              AllOf(HasSubstr("Node 'big' (op 'Fill')"), HasSubstr("device:CPU:0"),
                    HasSubstr("OOM when allocating tensor with shape[1048576,1048576] and type "
                              "float"),
                    HasSubstr(cpu_allocator()->Name())));
  // The session is still good.
  s = session->Run({}, {"small"}, {}, &out);
  EXPECT_TRUE(s.ok()) << s;
}

TEST(OutOfMemoryTest, KernelOutputTooBigForTheGpuAndItsHostMemoryNamesTheNode) {
  for (const std::string mode : {"functional", "timing"}) {
    SCOPED_TRACE(mode);
    Scope root = Scope::NewRootScope().WithDevice("/device:GPU:0");
    ops::Fill(root.WithOpName("big"), {1 << 20, 1 << 20}, 1.0f);
    std::unique_ptr<Session> session = MakeSession(root, SimGpu("memory=64MiB,mode=" + mode));
    ASSERT_NE(session, nullptr);
    std::vector<Tensor> out;
    absl::Status s = session->Run({}, {"big"}, {}, &out);
    EXPECT_EQ(s.code(), absl::StatusCode::kResourceExhausted) << s;
    EXPECT_THAT(s.message(), AllOf(HasSubstr("Node 'big'"), HasSubstr("device:GPU:0"),
                                   HasSubstr("shape[1048576,1048576]")));
  }
}

TEST(OutOfMemoryTest, FeedTooBigForTheGpuNamesTheFeed) {
  Scope root = Scope::NewRootScope().WithDevice("/device:GPU:0");
  auto x = ops::Placeholder(root.WithOpName("x"), DT_FLOAT);
  ops::Relu(root.WithOpName("y"), x);
  SessionOptions options = SimGpu("memory=16MiB,mode=functional");
  options.config.gpu_options.vmem = false;  // no host memory to fall back on
  std::unique_ptr<Session> session = MakeSession(root, options);
  ASSERT_NE(session, nullptr);
  Tensor feed(DT_FLOAT, TensorShape({8, 1 << 20}));  // 32 MiB
  feed.flat<float>().setZero();
  std::vector<Tensor> out;
  absl::Status s = session->Run({{"x", feed}}, {"y"}, {}, &out);
  EXPECT_EQ(s.code(), absl::StatusCode::kResourceExhausted) << s;
  // The copy to the GPU fails in the _Recv of the feed's _Arg node.
  EXPECT_THAT(s.message(), AllOf(HasSubstr("_arg_x_0"), HasSubstr("device:GPU:0"),
                                 HasSubstr("shape[8,1048576] and type float")))
      << s;
}

TEST(OutOfMemoryTest, AFeedWhoseAllocationFailedIsRefusedNamingIt) {
  Scope root = Scope::NewRootScope();
  auto x = ops::Placeholder(root.WithOpName("x"), DT_FLOAT);
  ops::Relu(root.WithOpName("y"), x);
  std::unique_ptr<Session> session = MakeSession(root, SessionOptions());
  ASSERT_NE(session, nullptr);
  Tensor unallocated(DT_FLOAT, TensorShape({kFourTiBOfFloats}));
  ASSERT_FALSE(unallocated.IsInitialized());
  std::vector<Tensor> out;
  absl::Status s = session->Run({{"x", unallocated}}, {"y"}, {}, &out);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << s;
  EXPECT_THAT(s.message(), AllOf(HasSubstr("Feed 'x'"), HasSubstr("no buffer")));
}

TEST(OutOfMemoryTest, AConstantWhoseAllocationFailedIsAnErrorOfTheScope) {
  Tensor unallocated(DT_FLOAT, TensorShape({kFourTiBOfFloats}));
  Scope root = Scope::NewRootScope();
  ops::Const(root.WithOpName("c"), unallocated);
  EXPECT_EQ(root.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(root.status().message(),
              AllOf(HasSubstr("'c'"), HasSubstr("shape [1099511627776]"), HasSubstr("no buffer")));

  Scope other = Scope::NewRootScope();
  auto x = ops::Placeholder(other.WithOpName("x"), DT_DOUBLE);
  ops::Add(other.WithOpName("add"), x, unallocated);  // converted to double
  EXPECT_EQ(other.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(other.status().message(), AllOf(HasSubstr("'add'"), HasSubstr("no buffer")));
}

}  // namespace
}  // namespace minitf
