// FuseMatMulBiasAdd (optimizer/remapper.h) on the cases of Grappler's
// remapper_test: MatMul + BiasAdd, and + Relu, fused into one
// _FusedMatMul named after the last node; a MatMul whose product something
// else reads, a bias add on a device without the kernel, and an unplaced
// graph left alone; and through a session, a small network gives the same
// values with the fusion as without.
#include "optimizer/remapper.h"

#include <memory>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "ops/cc/scope.h"
#include "ops/standard_ops.h"
#include "session/session.h"
#include "runtime/node_def_util.h"

namespace minitf {
namespace {

constexpr char kCpu[] = "/job:localhost/replica:0/task:0/device:CPU:0";
constexpr char kGpu[] = "/job:localhost/replica:0/task:0/device:GPU:0";

std::unique_ptr<Graph> ToPlacedGraph(const Scope& root, const std::string& device) {
  GraphDef def;
  EXPECT_TRUE(root.ToGraphDef(&def).ok());
  absl::StatusOr<std::unique_ptr<Graph>> graph = ConvertGraphDefToGraph(def);
  EXPECT_TRUE(graph.ok()) << graph.status();
  for (Node* n : (*graph)->op_nodes()) n->set_assigned_device_name(device);
  return std::move(*graph);
}

int CountOps(const Graph& graph, const std::string& op) {
  int count = 0;
  for (const Node* n : graph.op_nodes()) count += n->type_string() == op;
  return count;
}

// x [2,3] @ w [3,4] + b, through `activation` when not empty.
Scope Dense(const std::string& activation, bool product_read_twice = false) {
  Scope root = Scope::NewRootScope();
  auto x = ops::Placeholder(root.WithOpName("x"), DT_FLOAT);
  auto w = ops::Const(root.WithOpName("w"), Tensor(DT_FLOAT, TensorShape({3, 4})));
  auto b = ops::Const(root.WithOpName("b"), Tensor(DT_FLOAT, TensorShape({4})));
  auto mm = ops::MatMul(root.WithOpName("mm"), x, w);
  Output out = ops::BiasAdd(root.WithOpName("ba"), mm, b);
  if (activation == "Relu") out = ops::Relu(root.WithOpName("act"), out);
  ops::Neg(root.WithOpName("out"), out);
  if (product_read_twice) ops::Square(root.WithOpName("also"), mm);
  return root;
}

TEST(RemapperTest, MatMulBiasAddAndReluBecomeOneNode) {
  for (const std::string activation : {"", "Relu"}) {
    SCOPED_TRACE(activation);
    std::unique_ptr<Graph> g = ToPlacedGraph(Dense(activation), kCpu);
    EXPECT_TRUE(FuseMatMulBiasAdd(g.get(), nullptr));
    EXPECT_EQ(CountOps(*g, "MatMul") + CountOps(*g, "BiasAdd") + CountOps(*g, "Relu"), 0);
    const std::string last = activation.empty() ? "ba" : "act";
    const Node* fused = g->FindNode(last);
    ASSERT_NE(fused, nullptr);
    EXPECT_EQ(fused->type_string(), "_FusedMatMul");
    EXPECT_EQ(fused->assigned_device_name(), kCpu);
    std::vector<std::string> fused_ops;
    ASSERT_TRUE(GetNodeAttr(fused->def(), "fused_ops", &fused_ops).ok());
    std::vector<std::string> expected = {"BiasAdd"};
    if (!activation.empty()) expected.push_back(activation);
    EXPECT_EQ(fused_ops, expected);
    absl::StatusOr<const Edge*> consumer_input = g->FindNode("out")->input_edge(0);
    ASSERT_TRUE(consumer_input.ok());
    EXPECT_EQ((*consumer_input)->src(), fused);
    EXPECT_FALSE(FuseMatMulBiasAdd(g.get(), nullptr));
  }
}

TEST(RemapperTest, WhatCannotBeFusedStays) {
  std::unique_ptr<Graph> read_twice = ToPlacedGraph(Dense("Relu", true), kCpu);
  EXPECT_FALSE(FuseMatMulBiasAdd(read_twice.get(), nullptr));
  // CUDA (and SimGPU, which has CUDA's kernels) has no _FusedMatMul.
  std::unique_ptr<Graph> on_gpu = ToPlacedGraph(Dense("Relu"), kGpu);
  EXPECT_FALSE(FuseMatMulBiasAdd(on_gpu.get(), nullptr));
  std::unique_ptr<Graph> unplaced = ToPlacedGraph(Dense("Relu"), "");
  EXPECT_FALSE(FuseMatMulBiasAdd(unplaced.get(), nullptr));
  EXPECT_EQ(CountOps(*unplaced, "MatMul"), 1);
}

TEST(RemapperTest, BatchNormAndReluBecomeOneNodeKeepingTheStatistics) {
  Scope root = Scope::NewRootScope();
  auto x = ops::Placeholder(root.WithOpName("x"), DT_FLOAT);
  auto c = ops::Const(root.WithOpName("c"), Tensor(DT_FLOAT, TensorShape({4})));
  auto bn = ops::FusedBatchNormV3(root.WithOpName("bn"), x, c, c, c, c);
  ops::Neg(root.WithOpName("out"), ops::Relu(root.WithOpName("act"), bn.y));
  ops::Identity(root.WithOpName("stats"), bn.reserve_space_1);
  std::unique_ptr<Graph> g = ToPlacedGraph(root, kCpu);
  EXPECT_TRUE(FuseBatchNormRelu(g.get(), nullptr));
  const Node* fused = g->FindNode("act");
  ASSERT_NE(fused, nullptr);
  EXPECT_EQ(fused->type_string(), "_FusedBatchNormEx");
  EXPECT_EQ(g->FindNode("bn"), nullptr);
  absl::StatusOr<const Edge*> stats = g->FindNode("stats")->input_edge(0);
  ASSERT_TRUE(stats.ok());
  EXPECT_EQ((*stats)->src(), fused);
  EXPECT_EQ((*stats)->src_output(), 3);
  std::unique_ptr<Graph> on_gpu = ToPlacedGraph(root, kGpu);
  EXPECT_FALSE(FuseBatchNormRelu(on_gpu.get(), nullptr));
}

TEST(RemapperSessionTest, TheFusedNetworkGivesTheSameValues) {
  Scope root = Scope::NewRootScope();
  auto x = ops::Placeholder(root.WithOpName("x"), DT_FLOAT);
  Tensor w(DT_FLOAT, TensorShape({3, 4}));
  for (int i = 0; i < 12; ++i) w.flat<float>()(i) = 0.1f * static_cast<float>(i - 6);
  auto h = ops::Relu(root.WithOpName("h"),
                     ops::BiasAdd(root, ops::MatMul(root, x, ops::Const(root, w)),
                                  ops::Const(root, {0.5f, -0.5f, 0.25f, 0.0f})));
  ops::Tanh(root.WithOpName("y"),
            ops::BiasAdd(root, ops::MatMul(root, h, ops::Const(root, w), {.transpose_b = true}),
                         ops::Const(root, {0.1f, 0.2f, 0.3f})));
  GraphDef def;
  ASSERT_TRUE(root.ToGraphDef(&def).ok());
  Tensor xv(DT_FLOAT, TensorShape({2, 3}));
  for (int i = 0; i < 6; ++i) xv.flat<float>()(i) = 0.3f * static_cast<float>(i) - 0.7f;
  std::vector<std::vector<Tensor>> results;
  for (const GraphOptions& graph_options : {GraphOptions::Unoptimized(), GraphOptions()}) {
    SessionOptions options;
    options.config.device_count["GPU"] = 0;
    options.config.graph_options = graph_options;
    std::unique_ptr<Session> session = *NewSession(options);
    ASSERT_TRUE(session->Create(def).ok());
    std::vector<Tensor> out;
    absl::Status s = session->Run({{"x", xv}}, {"y:0", "h:0"}, {}, &out);
    ASSERT_TRUE(s.ok()) << s;
    results.push_back(out);
  }
  for (int i = 0; i < 2; ++i) {
    ASSERT_EQ(results[0][i].shape(), results[1][i].shape());
    for (int64_t j = 0; j < results[0][i].NumElements(); ++j) {
      EXPECT_NEAR(results[0][i].flat<float>()(j), results[1][i].flat<float>()(j), 1e-6f);
    }
  }
}

}  // namespace
}  // namespace minitf
