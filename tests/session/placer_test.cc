#include "session/placer.h"

#include <memory>
#include <string>
#include <vector>

#include "device/cpu_device.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "ops/cc/scope.h"
#include "ops/standard_ops.h"
#include "session/subgraph.h"

namespace minitf {
namespace {

using ::testing::HasSubstr;

class PlacerTest : public ::testing::Test {
 protected:
  PlacerTest() : cpu0_(0, 1, cpu_allocator()), cpu1_(1, 1, cpu_allocator()) {
    devices_.AddDevice(&cpu0_);
    devices_.AddDevice(&cpu1_);
  }

  absl::StatusOr<std::unique_ptr<Graph>> Place(const Scope& root, bool soft = false) {
    GraphDef def;
    if (absl::Status s = root.ToGraphDef(&def); !s.ok()) return s;
    auto graph = ConvertGraphDefToGraph(def);
    if (!graph.ok()) return graph.status();
    PlacerOptions options;
    options.allow_soft_placement = soft;
    if (absl::Status s = PlaceGraph(graph->get(), devices_, options); !s.ok()) return s;
    return graph;
  }

  static std::string DeviceOf(const Graph& g, const std::string& node) {
    return g.FindNode(node)->assigned_device_name();
  }

  ThreadPoolDevice cpu0_;
  ThreadPoolDevice cpu1_;
  DeviceSet devices_;
};

TEST_F(PlacerTest, UpdatesFollowTheirVariable) {
  Scope root = Scope::NewRootScope();
  Output w = ops::Variable(root.WithDevice("/device:CPU:1").WithOpName("w"), TensorShape({1}),
                           DT_FLOAT);
  Output init = ops::Assign(root.WithOpName("init"), w, Tensor::FromVector<float>({1}));
  ops::AssignAdd(root.WithOpName("add"), init, Tensor::FromVector<float>({1}));
  ops::ApplyGradientDescent(root.WithOpName("sgd"), w, 0.5f, Tensor::FromVector<float>({1}));
  auto g = Place(root);
  ASSERT_TRUE(g.ok()) << g.status();
  for (const char* node : {"w", "init", "add", "sgd"}) {
    EXPECT_EQ(DeviceOf(**g, node), cpu1_.name()) << node;
  }
}

TEST_F(PlacerTest, AVariableFollowsTheDeviceItsUpdateAsksFor) {
  Scope root = Scope::NewRootScope();
  Output w = ops::Variable(root.WithOpName("w"), TensorShape({1}), DT_FLOAT);
  ops::Assign(root.WithDevice("CPU:1").WithOpName("init"), w, Tensor::FromVector<float>({1}));
  auto g = Place(root);
  ASSERT_TRUE(g.ok()) << g.status();
  EXPECT_EQ(DeviceOf(**g, "w"), cpu1_.name());
  EXPECT_EQ(DeviceOf(**g, "init"), cpu1_.name());
}

TEST_F(PlacerTest, ContradictingRequestsInAGroupAreAnErrorUnlessSoft) {
  Scope root = Scope::NewRootScope();
  Output w = ops::Variable(root.WithDevice("CPU:1").WithOpName("w"), TensorShape({1}), DT_FLOAT);
  ops::Assign(root.WithDevice("CPU:0").WithOpName("init"), w, Tensor::FromVector<float>({1}));
  auto strict = Place(root);
  ASSERT_FALSE(strict.ok());
  EXPECT_EQ(strict.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(strict.status().message()), HasSubstr("'init'"));
  EXPECT_THAT(std::string(strict.status().message()), HasSubstr("'w'"));
  auto soft = Place(root, /*soft=*/true);
  ASSERT_TRUE(soft.ok()) << soft.status();
  EXPECT_EQ(DeviceOf(**soft, "init"), cpu1_.name());  // The variable's request came first.
}

TEST_F(PlacerTest, AnUnpinnedIdentityReadsTheVariableWhereItLives) {
  Scope root = Scope::NewRootScope();
  Output w = ops::Variable(root.WithDevice("CPU:1").WithOpName("w"), TensorShape({1}), DT_FLOAT);
  ops::Identity(root.WithOpName("read"), w);
  ops::Identity(root.WithDevice("CPU:0").WithOpName("pinned_read"), w);
  ops::Neg(root.WithOpName("neg"), w);
  auto g = Place(root);
  ASSERT_TRUE(g.ok()) << g.status();
  EXPECT_EQ(DeviceOf(**g, "read"), cpu1_.name());
  EXPECT_EQ(DeviceOf(**g, "pinned_read"), cpu0_.name());
  EXPECT_EQ(DeviceOf(**g, "neg"), cpu0_.name());  // Only Identity follows.
}

TEST_F(PlacerTest, FeedsAndFetchesAreOnTheClientDevice) {
  Scope root = Scope::NewRootScope();
  Output x = ops::Placeholder(root.WithOpName("x"), DT_FLOAT);
  ops::Neg(root.WithDevice("CPU:1").WithOpName("y"), x);
  GraphDef def;
  ASSERT_TRUE(root.ToGraphDef(&def).ok());
  auto graph = ConvertGraphDefToGraph(def);
  ASSERT_TRUE(graph.ok());
  subgraph::RewriteResult rewrite;
  ASSERT_TRUE(subgraph::RewriteGraphForExecution(graph->get(), {"x:0"}, {"y:0"}, {},
                                                 devices_.client_device()->name(), &rewrite)
                  .ok());
  ASSERT_TRUE(PlaceGraph(graph->get(), devices_, {}).ok());
  for (Node* n : (*graph)->op_nodes()) {
    if (n->type_string() == "_Arg" || n->type_string() == "_Retval") {
      EXPECT_EQ(n->assigned_device_name(), cpu0_.name()) << n->name();
    }
  }
  EXPECT_EQ(DeviceOf(**graph, "y"), cpu1_.name());
}

}  // namespace
}  // namespace minitf
