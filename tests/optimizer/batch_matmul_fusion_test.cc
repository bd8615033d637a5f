// FuseBatchMatMulScaleAdd (optimizer/batch_matmul_fusion.h) on the cases of
// Grappler's oneDNN remapper tests of FusedBatchMatMul: an attention's
// scores, BatchMatMulV2 by a scalar Mul and an AddV2 of a mask over every
// head, become one _MklFusedBatchMatMulV2 with the Add's name, with the Mul's
// operands either way round; a GPU's, a mask per head (dimension 1 not 1),
// a factor of more than one element, a product something else reads, and
// shapes not known when the graph is built, left alone; and through a
// session, a training step gives the same loss and gradients with the
// fusion as without, running the fused node once.
#include "optimizer/batch_matmul_fusion.h"

#include <cmath>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "gtest/gtest.h"
#include "ops/cc/gradients.h"
#include "ops/cc/scope.h"
#include "ops/standard_ops.h"
#include "optimizer/graph_optimizer.h"
#include "runtime/node_def_util.h"
#include "runtime/step_stats.h"
#include "session/session.h"
#include "tests/testlib/graph_testing.h"
#include "tests/testlib/optimizer_testing.h"

namespace minitf {
namespace {

using test::CountOps;
using test::kCpu;
using test::kGpu;
using test::ToPlacedGraph;

struct AttentionOptions {
  PartialTensorShape mask_shape{2, 1, 1, 5};
  PartialTensorShape q_shape{2, 3, 4, 8};
  Tensor factor = Tensor::FromVector<float>({0.35f}, TensorShape({}));
  bool factor_first = false;  // Mul(factor, scores) rather than Mul(scores, factor).
  bool scores_read_twice = false;
  bool train = false;
};

// softmax(q k^T * factor + mask) for q [2,3,4,8], k [2,3,5,8]; its loss
// and, when training, the loss's gradients with respect to q and k.
Scope Attention(const AttentionOptions& o) {
  Scope root = Scope::NewRootScope();
  auto q = ops::Placeholder(root.WithOpName("q"), DT_FLOAT, {.shape = o.q_shape});
  auto k = ops::Placeholder(root.WithOpName("k"), DT_FLOAT, {.shape = {2, 3, 5, 8}});
  auto mask = ops::Placeholder(root.WithOpName("mask"), DT_FLOAT, {.shape = o.mask_shape});
  auto factor = ops::Const(root.WithOpName("factor"), o.factor);
  auto scores = ops::BatchMatMulV2(root.WithOpName("scores"), q, k, {.adj_y = true});
  auto scaled = o.factor_first ? ops::Mul(root.WithOpName("scaled"), factor, scores)
                               : ops::Mul(root.WithOpName("scaled"), scores, factor);
  auto masked = ops::AddV2(root.WithOpName("masked"), scaled, mask);
  auto probs = ops::Softmax(root.WithOpName("probs"), masked);
  auto loss = ops::Sum(root.WithOpName("loss"), ops::Square(root, probs), {0, 1, 2, 3});
  if (o.scores_read_twice) ops::Neg(root.WithOpName("also"), scores);
  if (o.train) {
    std::vector<Output> grads;
    EXPECT_TRUE(AddSymbolicGradients(root, {loss}, {q, k}, &grads).ok()) << root.status();
    ops::Identity(root.WithOpName("dq"), grads[0]);
    ops::Identity(root.WithOpName("dk"), grads[1]);
  }
  return root;
}

TEST(BatchMatMulFusionTest, ScaledMaskedScoresBecomeOneNode) {
  for (bool factor_first : {false, true}) {
    SCOPED_TRACE(factor_first ? "Mul(factor, scores)" : "Mul(scores, factor)");
    std::unique_ptr<Graph> g = ToPlacedGraph(Attention({.factor_first = factor_first}), kCpu);
    EXPECT_TRUE(FuseBatchMatMulScaleAdd(g.get(), nullptr));
    EXPECT_EQ(CountOps(*g, "BatchMatMulV2") + CountOps(*g, "Mul") + CountOps(*g, "AddV2"), 0);
    const Node* fused = g->FindNode("masked");
    ASSERT_NE(fused, nullptr);
    EXPECT_EQ(fused->type_string(), "_MklFusedBatchMatMulV2");
    EXPECT_EQ(fused->assigned_device_name(), kCpu);
    std::vector<std::string> fused_ops;
    ASSERT_TRUE(GetNodeAttr(fused->def(), "fused_ops", &fused_ops).ok());
    EXPECT_EQ(fused_ops, (std::vector<std::string>{"Mul", "Add"}));
    bool adj_y = false;
    ASSERT_TRUE(GetNodeAttr(fused->def(), "adj_y", &adj_y).ok());
    EXPECT_TRUE(adj_y);
    const std::vector<std::string> inputs = {"q", "k", "factor", "mask"};
    for (int i = 0; i < 4; ++i) {
      absl::StatusOr<const Edge*> in = fused->input_edge(i);
      ASSERT_TRUE(in.ok()) << in.status();
      EXPECT_EQ((*in)->src()->name(), inputs[i]);
    }
    absl::StatusOr<const Edge*> reader = g->FindNode("probs")->input_edge(0);
    ASSERT_TRUE(reader.ok());
    EXPECT_EQ((*reader)->src(), fused);
    EXPECT_FALSE(FuseBatchMatMulScaleAdd(g.get(), nullptr));
  }
}

TEST(BatchMatMulFusionTest, WhatTensorFlowDoesNotFuseStays) {
  const std::vector<std::pair<std::string, AttentionOptions>> cases = {
      {"a mask per head", {.mask_shape = {2, 3, 4, 5}}},
      {"a mask of rank 2", {.mask_shape = {4, 5}}},
      {"a mask of unknown shape", {.mask_shape = PartialTensorShape()}},
      {"a product of unknown rows", {.q_shape = {2, 3, -1, 8}}},
      {"a factor per key", {.factor = Tensor(DT_FLOAT, TensorShape({5}))}},
      {"a product read twice", {.scores_read_twice = true}},
  };
  for (const auto& [name, options] : cases) {
    SCOPED_TRACE(name);
    std::unique_ptr<Graph> g = ToPlacedGraph(Attention(options), kCpu);
    EXPECT_FALSE(FuseBatchMatMulScaleAdd(g.get(), nullptr));
    EXPECT_EQ(CountOps(*g, "BatchMatMulV2"), 1);
  }
  // TensorFlow fuses on the CPU only; a GPU has no kernel for it.
  std::unique_ptr<Graph> on_gpu = ToPlacedGraph(Attention({}), kGpu);
  EXPECT_FALSE(FuseBatchMatMulScaleAdd(on_gpu.get(), nullptr));
  std::unique_ptr<Graph> unplaced = ToPlacedGraph(Attention({}), "");
  EXPECT_FALSE(FuseBatchMatMulScaleAdd(unplaced.get(), nullptr));
}

Tensor Filled(const TensorShape& shape, float scale, int period) {
  Tensor t(DT_FLOAT, shape);
  for (int64_t i = 0; i < t.NumElements(); ++i) {
    t.flat<float>()(i) = scale * static_cast<float>(i % period - period / 2);
  }
  return t;
}

struct Step {
  std::vector<Tensor> fetched;
  int fused = 0;  // _MklFusedBatchMatMulV2 nodes run.
};

Step RunTrainingStep(RewriterConfig::Toggle remapping) {
  GraphDef def;
  EXPECT_TRUE(Attention({.train = true}).ToGraphDef(&def).ok());
  SessionOptions options;
  options.config.device_count["GPU"] = 0;
  options.config.graph_options.rewrite_options.remapping = remapping;
  std::unique_ptr<Session> session = *NewSession(options);
  const absl::Status created = session->Create(def);
  EXPECT_TRUE(created.ok()) << created;
  RunOptions run_options;
  run_options.trace_level = RunOptions::FULL_TRACE;
  RunMetadata metadata;
  Step step;
  const absl::Status s = session->Run(run_options,
                                      {{"q", Filled(TensorShape({2, 3, 4, 8}), 0.3f, 11)},
                                       {"k", Filled(TensorShape({2, 3, 5, 8}), 0.2f, 7)},
                                       {"mask", Filled(TensorShape({2, 1, 1, 5}), 1.0f, 3)}},
                                      {"loss", "dq", "dk"}, {}, &step.fetched, &metadata);
  EXPECT_TRUE(s.ok()) << s;
  for (const DeviceStepStats& device : metadata.step_stats.dev_stats) {
    for (const NodeExecStats& n : device.node_stats) {
      if (n.op == "_MklFusedBatchMatMulV2") ++step.fused;
    }
  }
  return step;
}

TEST(BatchMatMulFusionSessionTest, ATrainingStepGivesTheSameValues) {
  const Step off = RunTrainingStep(RewriterConfig::OFF);
  const Step on = RunTrainingStep(RewriterConfig::DEFAULT);
  EXPECT_EQ(off.fused, 0);
  EXPECT_EQ(on.fused, 1);
  ASSERT_EQ(off.fetched.size(), 3u);
  ASSERT_EQ(on.fetched.size(), 3u);
  float gradient = 0;
  for (size_t i = 0; i < off.fetched.size(); ++i) {
    SCOPED_TRACE(i);
    ASSERT_EQ(on.fetched[i].shape(), off.fetched[i].shape());
    for (int64_t j = 0; j < off.fetched[i].NumElements(); ++j) {
      const float want = off.fetched[i].flat<float>()(j);
      EXPECT_NEAR(on.fetched[i].flat<float>()(j), want, 1e-5f * (1 + std::abs(want)));
      if (i > 0) gradient += std::abs(want);
    }
  }
  EXPECT_GT(gradient, 0.0f);
}

}  // namespace
}  // namespace minitf
