// FuseContractionBiasAdd (optimizer/remapper.h) on the cases of Grappler's
// remapper_test: MatMul + BiasAdd, and + Relu, fused into one
// _FusedMatMul named after the last node; Conv2D + BiasAdd + Relu6 into one
// _FusedConv2D with the convolution's window, in a training graph too, on a
// GPU as on the CPU, in NCHW as in NHWC; a contraction whose output something else reads, a
// bias add on a device without the kernel, and an unplaced graph left
// alone; a residual connection's Add fused into the MatMul on the CPU
// (Grappler's oneDNN fusion) and not on a GPU; and through a
// session, a small network and a convolution's training step give the same
// values with the fusion as without.
#include "optimizer/remapper.h"

#include <cmath>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "gtest/gtest.h"
#include "ops/cc/gradients.h"
#include "ops/cc/scope.h"
#include "ops/standard_ops.h"
#include "optimizer/graph_optimizer.h"
#include "runtime/node_def_util.h"
#include "session/session.h"
#include "tests/testlib/graph_testing.h"
#include "tests/testlib/optimizer_testing.h"

namespace minitf {
namespace {

using test::CountOps;
using test::kCpu;
using test::kGpu;
using test::RunUnoptimizedAndOptimized;
using test::ToPlacedGraph;

// Both runs' fetches agree to `relative` of the unoptimized value (plus
// `relative` absolute).
void ExpectSameValues(const std::vector<std::vector<Tensor>>& results, float relative) {
  ASSERT_EQ(results.size(), 2u);
  for (size_t i = 0; i < results[0].size(); ++i) {
    SCOPED_TRACE(i);
    ASSERT_EQ(results[0][i].shape(), results[1][i].shape());
    for (int64_t j = 0; j < results[0][i].NumElements(); ++j) {
      const float expected = results[0][i].flat<float>()(j);
      EXPECT_NEAR(results[1][i].flat<float>()(j), expected, relative * (1 + std::abs(expected)));
    }
  }
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
    EXPECT_TRUE(FuseContractionBiasAdd(g.get(), nullptr));
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
    EXPECT_FALSE(FuseContractionBiasAdd(g.get(), nullptr));
  }
}

TEST(RemapperTest, WhatCannotBeFusedStays) {
  std::unique_ptr<Graph> read_twice = ToPlacedGraph(Dense("Relu", true), kCpu);
  EXPECT_FALSE(FuseContractionBiasAdd(read_twice.get(), nullptr));
  // A device with no _FusedMatMul kernel.
  std::unique_ptr<Graph> on_tpu =
      ToPlacedGraph(Dense("Relu"), "/job:localhost/replica:0/task:0/device:TPU:0");
  EXPECT_FALSE(FuseContractionBiasAdd(on_tpu.get(), nullptr));
  std::unique_ptr<Graph> unplaced = ToPlacedGraph(Dense("Relu"), "");
  EXPECT_FALSE(FuseContractionBiasAdd(unplaced.get(), nullptr));
  EXPECT_EQ(CountOps(*unplaced, "MatMul"), 1);
}

// images [2,6,6,3] convolved by a [3,3,3,4] filter (stride 2, SAME), + b,
// through `activation` (Relu or Relu6); with its gradients when `train`. A
// training step never reads the convolution's output; ReluGrad reads the
// Relu's output, Relu6Grad the Relu6's input (as TensorFlow's gradients).
// Under `nchw` the images are [2,3,6,6] and both the Conv2D and the
// BiasAdd say NCHW.
Scope ConvLayer(const std::string& activation, bool train, bool convolution_read_twice = false,
                bool nchw = false) {
  Scope root = Scope::NewRootScope();
  auto x = ops::Placeholder(root.WithOpName("x"), DT_FLOAT);
  Tensor f(DT_FLOAT, TensorShape({3, 3, 3, 4}));
  for (int i = 0; i < f.NumElements(); ++i) f.flat<float>()(i) = 0.05f * static_cast<float>(i % 9 - 4);
  auto filter = ops::Const(root.WithOpName("f"), f);
  auto b = ops::Const(root.WithOpName("b"), {0.5f, -0.5f, 0.25f, 0.0f});
  const std::string format = nchw ? "NCHW" : "NHWC";
  const std::vector<int64_t> strides = nchw ? std::vector<int64_t>{1, 1, 2, 2}
                                            : std::vector<int64_t>{1, 2, 2, 1};
  auto conv = ops::Conv2D(root.WithOpName("conv"), x, filter,
                          {.strides = strides, .padding = "SAME", .data_format = format});
  auto sum = ops::BiasAdd(root.WithOpName("ba"), conv, b, {.data_format = format});
  Output act = activation == "Relu" ? ops::Relu(root.WithOpName("act"), sum)
                                    : ops::Relu6(root.WithOpName("act"), sum);
  auto loss = ops::Sum(root.WithOpName("loss"), ops::Square(root, act), {0, 1, 2, 3});
  if (convolution_read_twice) ops::Neg(root.WithOpName("also"), conv);
  if (train) {
    std::vector<Output> grads;
    EXPECT_TRUE(AddSymbolicGradients(root, {loss}, {filter, b}, &grads).ok()) << root.status();
    ops::Identity(root.WithOpName("d_filter"), grads[0]);
    ops::Identity(root.WithOpName("d_bias"), grads[1]);
  }
  return root;
}

TEST(RemapperTest, ConvBiasAddAndActivationBecomeOneFusedConv2D) {
  for (const std::string activation : {"Relu", "Relu6"}) {
    for (bool train : {false, true}) {
      SCOPED_TRACE(activation + (train ? " training" : " inference"));
      std::unique_ptr<Graph> g = ToPlacedGraph(ConvLayer(activation, train), kCpu);
      EXPECT_TRUE(FuseContractionBiasAdd(g.get(), nullptr));
      EXPECT_EQ(CountOps(*g, "Conv2D") + CountOps(*g, "BiasAdd"), 0);
      // Relu6Grad reads the sum, so a training step's Relu6 stays apart.
      const bool with_activation = !train || activation == "Relu";
      EXPECT_EQ(CountOps(*g, activation), with_activation ? 0 : 1);
      const Node* fused = g->FindNode(with_activation ? "act" : "ba");
      ASSERT_NE(fused, nullptr);
      EXPECT_EQ(fused->type_string(), "_FusedConv2D");
      std::vector<std::string> fused_ops;
      ASSERT_TRUE(GetNodeAttr(fused->def(), "fused_ops", &fused_ops).ok());
      std::vector<std::string> expected = {"BiasAdd"};
      if (with_activation) expected.push_back(activation);
      EXPECT_EQ(fused_ops, expected);
      std::vector<int64_t> strides;
      ASSERT_TRUE(GetNodeAttr(fused->def(), "strides", &strides).ok());
      EXPECT_EQ(strides, (std::vector<int64_t>{1, 2, 2, 1}));
      std::string padding;
      ASSERT_TRUE(GetNodeAttr(fused->def(), "padding", &padding).ok());
      EXPECT_EQ(padding, "SAME");
      EXPECT_EQ(CountOps(*g, "_FusedConv2D"), 1);
    }
  }
  std::unique_ptr<Graph> read_twice = ToPlacedGraph(ConvLayer("Relu", true, true), kCpu);
  EXPECT_FALSE(FuseContractionBiasAdd(read_twice.get(), nullptr));
}

// An NCHW Conv2D and an NCHW BiasAdd fuse into an NCHW _FusedConv2D (as
// Grappler's remapper on a GPU); a BiasAdd along another dimension than the
// convolution's channels does not fuse.
TEST(RemapperTest, AnNchwConvolutionFusesInItsLayout) {
  std::unique_ptr<Graph> g = ToPlacedGraph(ConvLayer("Relu", true, false, true), kCpu);
  EXPECT_TRUE(FuseContractionBiasAdd(g.get(), nullptr));
  const Node* fused = g->FindNode("act");
  ASSERT_NE(fused, nullptr);
  EXPECT_EQ(fused->type_string(), "_FusedConv2D");
  std::string format;
  ASSERT_TRUE(GetNodeAttr(fused->def(), "data_format", &format).ok());
  EXPECT_EQ(format, "NCHW");
  std::vector<int64_t> strides;
  ASSERT_TRUE(GetNodeAttr(fused->def(), "strides", &strides).ok());
  EXPECT_EQ(strides, (std::vector<int64_t>{1, 1, 2, 2}));

  Scope root = Scope::NewRootScope();
  auto x = ops::Placeholder(root.WithOpName("x"), DT_FLOAT);
  auto conv = ops::Conv2D(root.WithOpName("conv"), x,
                          ops::Const(root, Tensor(DT_FLOAT, TensorShape({3, 3, 3, 4}))),
                          {.strides = {1, 1, 2, 2}, .padding = "SAME", .data_format = "NCHW"});
  // NHWC: a bias along the output's last dimension (its columns).
  ops::BiasAdd(root.WithOpName("ba"), conv, ops::Const(root, {1.0f, 2.0f, 3.0f}));
  std::unique_ptr<Graph> mixed = ToPlacedGraph(root, kCpu);
  EXPECT_FALSE(FuseContractionBiasAdd(mixed.get(), nullptr));
  EXPECT_EQ(CountOps(*mixed, "_FusedConv2D"), 0);
}

TEST(RemapperSessionTest, AnNchwFusedConvolutionTrainsAsTheUnfusedOne) {
  GraphDef def;
  ASSERT_TRUE(ConvLayer("Relu", true, false, true).ToGraphDef(&def).ok());
  Tensor xv(DT_FLOAT, TensorShape({2, 3, 6, 6}));
  for (int i = 0; i < xv.NumElements(); ++i) {
    xv.flat<float>()(i) = 0.1f * static_cast<float>(i % 17) - 0.6f;
  }
  ExpectSameValues(
      RunUnoptimizedAndOptimized(def, {{"x", xv}}, {"loss:0", "d_filter:0", "d_bias:0"}), 1e-5f);
}

// CUDA has both fused kernels for float (and SimGPU, CUDA's kernel set):
// a GPU's MatMul and Conv2D fuse as the CPU's.
TEST(RemapperTest, AGpuFusesAsTheCpu) {
  std::unique_ptr<Graph> dense = ToPlacedGraph(Dense("Relu"), kGpu);
  EXPECT_TRUE(FuseContractionBiasAdd(dense.get(), nullptr));
  const Node* fused = dense->FindNode("act");
  ASSERT_NE(fused, nullptr);
  EXPECT_EQ(fused->type_string(), "_FusedMatMul");
  EXPECT_EQ(fused->assigned_device_name(), kGpu);
  std::unique_ptr<Graph> conv = ToPlacedGraph(ConvLayer("Relu", true), kGpu);
  EXPECT_TRUE(FuseContractionBiasAdd(conv.get(), nullptr));
  EXPECT_EQ(CountOps(*conv, "_FusedConv2D"), 1);
}

TEST(RemapperSessionTest, AFusedConvolutionTrainsAsTheUnfusedOne) {
  GraphDef def;
  ASSERT_TRUE(ConvLayer("Relu", true).ToGraphDef(&def).ok());
  Tensor xv(DT_FLOAT, TensorShape({2, 6, 6, 3}));
  for (int i = 0; i < xv.NumElements(); ++i) {
    xv.flat<float>()(i) = 0.1f * static_cast<float>(i % 17) - 0.6f;
  }
  const std::vector<std::vector<Tensor>> results =
      RunUnoptimizedAndOptimized(def, {{"x", xv}}, {"loss:0", "d_filter:0", "d_bias:0"});
  ExpectSameValues(results, 1e-5f);
  // The Relu cut some sums at 0 and kept others: the bias gradient is not 0.
  float bias_grad = 0;
  for (int j = 0; j < 4; ++j) bias_grad += std::abs(results[1][2].flat<float>()(j));
  EXPECT_GT(bias_grad, 0.0f);
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
  // A GPU has the fused kernel too (CUDA's, and SimGPU's twin of it).
  std::unique_ptr<Graph> on_gpu = ToPlacedGraph(root, kGpu);
  EXPECT_TRUE(FuseBatchNormRelu(on_gpu.get(), nullptr));
  const Node* gpu_fused = on_gpu->FindNode("act");
  ASSERT_NE(gpu_fused, nullptr);
  EXPECT_EQ(gpu_fused->type_string(), "_FusedBatchNormEx");
  EXPECT_EQ(gpu_fused->assigned_device_name(), kGpu);
}

// A residual block's end: relu(batch_norm(x) + shortcut), x and shortcut
// [2,4,4,3] placeholders (`shortcut_shape` may differ: a broadcast Add is
// not a side input), with the gradients of sum(out^2) by scale, offset, x
// and the shortcut when `train`.
Scope ResidualEnd(bool train, const PartialTensorShape& shortcut_shape = {2, 4, 4, 3}) {
  Scope root = Scope::NewRootScope();
  auto x = ops::Placeholder(root.WithOpName("x"), DT_FLOAT, {.shape = {2, 4, 4, 3}});
  auto shortcut = ops::Placeholder(root.WithOpName("shortcut"), DT_FLOAT, {.shape = shortcut_shape});
  auto scale = ops::Const(root.WithOpName("scale"), {1.5f, 0.5f, 1.0f});
  auto offset = ops::Const(root.WithOpName("offset"), {0.1f, -0.2f, 0.3f});
  auto empty = ops::Const(root.WithOpName("empty"), Tensor(DT_FLOAT, TensorShape({0})));
  auto bn = ops::FusedBatchNormV3(root.WithOpName("bn"), x, scale, offset, empty, empty);
  auto out = ops::Relu(root.WithOpName("out"), ops::AddV2(root.WithOpName("add"), bn.y, shortcut));
  if (train) {
    auto loss = ops::Sum(root.WithOpName("loss"), ops::Square(root, out), {0, 1, 2, 3});
    std::vector<Output> grads;
    EXPECT_TRUE(
        AddSymbolicGradients(root, {loss}, {scale, offset, x, shortcut}, &grads).ok())
        << root.status();
    for (int i = 0; i < 4; ++i) ops::Identity(root.WithOpName("grad" + std::to_string(i)), grads[i]);
  }
  return root;
}

TEST(RemapperTest, BatchNormAddAndReluBecomeOneNodeWithASideInput) {
  for (bool train : {false, true}) {
    SCOPED_TRACE(train ? "training" : "inference");
    std::unique_ptr<Graph> g = ToPlacedGraph(ResidualEnd(train), kCpu);
    if (train) {
      // The Add's gradient reads the shapes of y and the shortcut until
      // constant folding makes them constants, as Grappler's does before
      // its remapper: the whole optimizer, then.
      const absl::Status s = GraphOptimizer(GraphOptions()).Optimize(g.get());
      ASSERT_TRUE(s.ok()) << s;
    } else {
      EXPECT_TRUE(FuseBatchNormRelu(g.get(), nullptr));
    }
    EXPECT_EQ(CountOps(*g, "FusedBatchNormV3") + CountOps(*g, "AddV2") + CountOps(*g, "Relu"), 0);
    const Node* fused = g->FindNode("out");
    ASSERT_NE(fused, nullptr);
    EXPECT_EQ(fused->type_string(), "_FusedBatchNormEx");
    int64_t side_inputs = 0;
    ASSERT_TRUE(GetNodeAttr(fused->def(), "num_side_inputs", &side_inputs).ok());
    EXPECT_EQ(side_inputs, 1);
    absl::StatusOr<const Edge*> side = fused->input_edge(5);
    ASSERT_TRUE(side.ok()) << side.status();
    EXPECT_EQ((*side)->src()->name(), "shortcut");
  }
  // A shortcut of another shape (the Add broadcasts) or of unknown shape
  // stays an Add; only the Relu-free batch norm is left as it was.
  for (const PartialTensorShape& shape : {PartialTensorShape({2, 1, 1, 3}), PartialTensorShape()}) {
    std::unique_ptr<Graph> g = ToPlacedGraph(ResidualEnd(true, shape), kCpu);
    EXPECT_FALSE(FuseBatchNormRelu(g.get(), nullptr));
    EXPECT_EQ(CountOps(*g, "AddV2"), 1);
  }
}

TEST(RemapperSessionTest, AResidualBlockTrainsAsTheUnfusedOne) {
  GraphDef def;
  ASSERT_TRUE(ResidualEnd(true).ToGraphDef(&def).ok());
  Tensor xv(DT_FLOAT, TensorShape({2, 4, 4, 3})), sv(DT_FLOAT, TensorShape({2, 4, 4, 3}));
  for (int i = 0; i < xv.NumElements(); ++i) {
    xv.flat<float>()(i) = 0.1f * static_cast<float>(i % 11) - 0.4f;
    sv.flat<float>()(i) = 0.2f * static_cast<float>(i % 7) - 0.7f;
  }
  ExpectSameValues(RunUnoptimizedAndOptimized(
                       def, {{"x", xv}, {"shortcut", sv}},
                       {"loss:0", "grad0:0", "grad1:0", "grad2:0", "grad3:0"}),
                   1e-5f);
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
  ExpectSameValues(RunUnoptimizedAndOptimized(def, {{"x", xv}}, {"y:0", "h:0"}), 1e-6f);
}

// A transformer's residual connection: x [3,4] @ w [4,4] + b, plus `addend`
// (x itself when unset), then its loss; with the loss's gradients with
// respect to x, w and b when `train`.
Scope Residual(bool train, std::optional<PartialTensorShape> addend_shape = std::nullopt) {
  Scope root = Scope::NewRootScope();
  auto x = ops::Placeholder(root.WithOpName("x"), DT_FLOAT, {.shape = {3, 4}});
  Tensor wv(DT_FLOAT, TensorShape({4, 4}));
  for (int i = 0; i < 16; ++i) wv.flat<float>()(i) = 0.1f * static_cast<float>(i % 7 - 3);
  auto w = ops::Const(root.WithOpName("w"), wv);
  auto b = ops::Const(root.WithOpName("b"), {0.5f, -0.5f, 0.25f, 0.0f});
  auto sum = ops::BiasAdd(root.WithOpName("ba"), ops::MatMul(root.WithOpName("mm"), x, w), b);
  Output addend = x;
  if (addend_shape.has_value()) {
    addend = ops::Placeholder(root.WithOpName("addend"), DT_FLOAT, {.shape = *addend_shape});
  }
  auto out = ops::AddV2(root.WithOpName("add"), addend, sum);
  auto loss = ops::Sum(root.WithOpName("loss"), ops::Square(root, ops::Tanh(root, out)), {0, 1});
  if (train) {
    std::vector<Output> grads;
    EXPECT_TRUE(AddSymbolicGradients(root, {loss}, {x, w, b}, &grads).ok()) << root.status();
    for (int i = 0; i < 3; ++i)
      ops::Identity(root.WithOpName("grad" + std::to_string(i)), grads[i]);
  }
  return root;
}

// Grappler's oneDNN remapper fuses MatMul + BiasAdd + Add on the CPU into
// one _FusedMatMul [BiasAdd, Add], the addend its fourth input.
TEST(RemapperTest, AResidualAddFusesIntoTheMatMulOnTheCpu) {
  std::unique_ptr<Graph> g = ToPlacedGraph(Residual(false), kCpu);
  EXPECT_TRUE(FuseContractionBiasAdd(g.get(), nullptr));
  EXPECT_EQ(CountOps(*g, "MatMul") + CountOps(*g, "BiasAdd") + CountOps(*g, "AddV2"), 0);
  const Node* fused = g->FindNode("add");
  ASSERT_NE(fused, nullptr);
  EXPECT_EQ(fused->type_string(), "_FusedMatMul");
  std::vector<std::string> fused_ops;
  ASSERT_TRUE(GetNodeAttr(fused->def(), "fused_ops", &fused_ops).ok());
  EXPECT_EQ(fused_ops, (std::vector<std::string>{"BiasAdd", "Add"}));
  int64_t num_args = 0;
  ASSERT_TRUE(GetNodeAttr(fused->def(), "num_args", &num_args).ok());
  EXPECT_EQ(num_args, 2);
  absl::StatusOr<const Edge*> addend = fused->input_edge(3);
  ASSERT_TRUE(addend.ok()) << addend.status();
  EXPECT_EQ((*addend)->src()->name(), "x");

  // A GPU fuses the bias alone (its kernels have no addend), and an Add
  // that broadcasts, or whose addend's shape is unknown, stays.
  std::unique_ptr<Graph> on_gpu = ToPlacedGraph(Residual(false), kGpu);
  EXPECT_TRUE(FuseContractionBiasAdd(on_gpu.get(), nullptr));
  EXPECT_EQ(CountOps(*on_gpu, "AddV2"), 1);
  EXPECT_EQ(on_gpu->FindNode("add")->type_string(), "AddV2");
  for (const PartialTensorShape& shape : {PartialTensorShape({4}), PartialTensorShape()}) {
    SCOPED_TRACE(shape.DebugString());
    std::unique_ptr<Graph> broadcast = ToPlacedGraph(Residual(false, shape), kCpu);
    EXPECT_TRUE(FuseContractionBiasAdd(broadcast.get(), nullptr));
    EXPECT_EQ(CountOps(*broadcast, "AddV2"), 1);
    const Node* ba = broadcast->FindNode("ba");
    ASSERT_NE(ba, nullptr);
    std::vector<std::string> bias_only;
    ASSERT_TRUE(GetNodeAttr(ba->def(), "fused_ops", &bias_only).ok());
    EXPECT_EQ(bias_only, (std::vector<std::string>{"BiasAdd"}));
  }
}

TEST(RemapperSessionTest, AResidualConnectionTrainsAsTheUnfusedOne) {
  GraphDef def;
  ASSERT_TRUE(Residual(true).ToGraphDef(&def).ok());
  Tensor xv(DT_FLOAT, TensorShape({3, 4}));
  for (int i = 0; i < 12; ++i) xv.flat<float>()(i) = 0.2f * static_cast<float>(i % 5) - 0.4f;
  const std::vector<std::vector<Tensor>> results =
      RunUnoptimizedAndOptimized(def, {{"x", xv}}, {"loss:0", "grad0:0", "grad1:0", "grad2:0"});
  ExpectSameValues(results, 1e-5f);
}

}  // namespace
}  // namespace minitf
