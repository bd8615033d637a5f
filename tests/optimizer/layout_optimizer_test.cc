// ConvertNchwToNhwcOnGpu (optimizer/layout_optimizer.h) on the cases of
// Grappler's generic_layout_optimizer_test, turned around (minitf's GPU
// kernels compute in NHWC): an NCHW Conv2D, BiasAdd, Relu and MaxPool chain
// on a GPU becomes NHWC with its window attrs reordered, and after the
// session's other passes one Transpose stays, at its input; a Const
// input_sizes of Conv2DBackpropInput reordered, a computed one left alone;
// the CPU's nodes and an image of unknown rank left alone; and through a
// SimGPU session, a training step of an NCHW network (convolution, bias,
// batch norm, Relu, max pooling, a residual AddV2, their gradients) gives
// the same values with the pass as without, and so do a padded strided
// convolution with a mean over height and width (the Pad, its gradient's
// Slice and the mean follow the chain in NHWC) and an NCHW convolution in
// a while loop's body (its Transposes stay in the loop).
#include "optimizer/layout_optimizer.h"

#include <cmath>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "gtest/gtest.h"
#include "ops/cc/gradients.h"
#include "ops/cc/scope.h"
#include "ops/cc/while_loop.h"
#include "ops/standard_ops.h"
#include "optimizer/graph_optimizer.h"
#include "optimizer/node_rules.h"
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

Tensor Filled(const TensorShape& shape, float scale, int period) {
  Tensor t(DT_FLOAT, shape);
  for (int64_t i = 0; i < t.NumElements(); ++i) {
    t.flat<float>()(i) = scale * static_cast<float>(i % period - period / 2);
  }
  return t;
}

// x [2,3,8,8] NCHW: Conv2D (3x3, 4 filters, SAME), BiasAdd, Relu, MaxPool
// (2x2, stride 2) into "pool", summed over its channels into "out".
Scope NchwChain(bool x_shape_known = true) {
  Scope root = Scope::NewRootScope();
  auto x = ops::Placeholder(
      root.WithOpName("x"), DT_FLOAT,
      {.shape = x_shape_known ? PartialTensorShape({2, 3, 8, 8}) : PartialTensorShape()});
  auto filter = ops::Const(root.WithOpName("f"), Filled(TensorShape({3, 3, 3, 4}), 0.05f, 9));
  auto b = ops::Const(root.WithOpName("b"), {0.5f, -0.5f, 0.25f, 0.0f});
  auto conv = ops::Conv2D(root.WithOpName("conv"), x, filter,
                          {.strides = {1, 1, 1, 1}, .padding = "SAME", .data_format = "NCHW"});
  auto sum = ops::BiasAdd(root.WithOpName("ba"), conv, b, {.data_format = "NCHW"});
  auto relu = ops::Relu(root.WithOpName("relu"), sum);
  auto pool = ops::MaxPool(
      root.WithOpName("pool"), relu,
      {.ksize = {1, 1, 2, 2}, .strides = {1, 1, 2, 2}, .padding = "VALID", .data_format = "NCHW"});
  ops::Sum(root.WithOpName("out"), pool, {1});
  return root;
}

std::string FormatOf(const Graph& g, const std::string& name) {
  const Node* n = g.FindNode(name);
  std::string format;
  if (n == nullptr || !GetNodeAttr(n->def(), "data_format", &format).ok()) return "";
  return format;
}

TEST(LayoutOptimizerTest, AnNchwChainOnAGpuBecomesNhwc) {
  std::unique_ptr<Graph> g = ToPlacedGraph(NchwChain(), kGpu);
  ASSERT_TRUE(ConvertNchwToNhwcOnGpu(g.get(), nullptr));
  for (const char* name : {"conv", "ba", "pool"}) EXPECT_EQ(FormatOf(*g, name), "NHWC") << name;
  std::vector<int64_t> ksize, strides;
  ASSERT_TRUE(GetNodeAttr(g->FindNode("pool")->def(), "ksize", &ksize).ok());
  ASSERT_TRUE(GetNodeAttr(g->FindNode("pool")->def(), "strides", &strides).ok());
  EXPECT_EQ(ksize, (std::vector<int64_t>{1, 2, 2, 1}));
  EXPECT_EQ(strides, (std::vector<int64_t>{1, 2, 2, 1}));
  // Into and out of each of the four nodes (the Relu follows), and into the
  // channel sum, which follows too: it leaves [N, H, W] in either layout.
  EXPECT_EQ(CountOps(*g, "Transpose"), 9);
  for (const Node* n : g->op_nodes()) {
    if (n->type_string() == "Transpose") {
      EXPECT_EQ(n->assigned_device_name(), kGpu);
    }
  }
  // The sum reads the pooled value in NHWC and sums its last dimension.
  const Node* out = g->FindNode("out");
  ASSERT_NE(out, nullptr);
  ASSERT_NE(DataInput(*out, 0), nullptr);
  EXPECT_EQ(DataInput(*out, 0)->src()->type_string(), "Transpose");
  EXPECT_EQ(ConstIntsInput(*out, 1), std::vector<int64_t>{3});
}

// The Transposes that meet cancel: one is left, x's into the chain (the
// channel sum reads the NHWC value).
TEST(LayoutOptimizerTest, TheSessionsPassesLeaveOneTransposeAtTheInput) {
  std::unique_ptr<Graph> g = ToPlacedGraph(NchwChain(), kGpu);
  GraphOptions options;
  options.rewrite_options.remapping = RewriterConfig::OFF;
  ASSERT_TRUE(GraphOptimizer(options).Optimize(g.get()).ok());
  EXPECT_EQ(CountOps(*g, "Transpose"), 1);
  for (const char* name : {"conv", "ba", "pool"}) EXPECT_EQ(FormatOf(*g, name), "NHWC") << name;

  std::unique_ptr<Graph> off = ToPlacedGraph(NchwChain(), kGpu);
  options.rewrite_options.layout_optimizer = RewriterConfig::OFF;
  ASSERT_TRUE(GraphOptimizer(options).Optimize(off.get()).ok());
  EXPECT_EQ(CountOps(*off, "Transpose"), 0);
  EXPECT_EQ(FormatOf(*off, "conv"), "NCHW");
}

TEST(LayoutOptimizerTest, TheCpusNodesAndNhwcNodesStay) {
  std::unique_ptr<Graph> on_cpu = ToPlacedGraph(NchwChain(), kCpu);
  EXPECT_FALSE(ConvertNchwToNhwcOnGpu(on_cpu.get(), nullptr));
  EXPECT_EQ(FormatOf(*on_cpu, "conv"), "NCHW");

  // An image of unknown rank may not be 4-D: the node stays as written (and
  // fails as it would have); the convolution's output is 4-D, so what reads
  // it converts.
  std::unique_ptr<Graph> unknown = ToPlacedGraph(NchwChain(/*x_shape_known=*/false), kGpu);
  EXPECT_TRUE(ConvertNchwToNhwcOnGpu(unknown.get(), nullptr));
  EXPECT_EQ(FormatOf(*unknown, "conv"), "NCHW");
  EXPECT_EQ(FormatOf(*unknown, "ba"), "NHWC");

  Scope root = Scope::NewRootScope();
  auto x = ops::Placeholder(root.WithOpName("x"), DT_FLOAT);
  auto filter = ops::Const(root.WithOpName("f"), Filled(TensorShape({3, 3, 3, 4}), 0.05f, 9));
  ops::Conv2D(root.WithOpName("conv"), x, filter, {.strides = {1, 1, 1, 1}, .padding = "SAME"});
  std::unique_ptr<Graph> nhwc = ToPlacedGraph(root, kGpu);
  EXPECT_FALSE(ConvertNchwToNhwcOnGpu(nhwc.get(), nullptr));
}

// Conv2DBackpropInput's input_sizes is in the data_format: a Const one is
// reordered (a new Const, as the old one may have other readers), a computed
// one leaves the node as it is.
TEST(LayoutOptimizerTest, AConstInputSizesIsReorderedAComputedOneIsNot) {
  for (bool computed : {false, true}) {
    SCOPED_TRACE(computed ? "computed" : "Const");
    Scope root = Scope::NewRootScope();
    auto dy = ops::Placeholder(root.WithOpName("dy"), DT_FLOAT,
                               {.shape = PartialTensorShape({2, 4, 8, 8})});
    auto filter = ops::Const(root.WithOpName("f"), Filled(TensorShape({3, 3, 3, 4}), 0.05f, 9));
    Output sizes = ops::Const(root.WithOpName("sizes"), {2, 3, 8, 8});
    if (computed) sizes = ops::Identity(root.WithOpName("sizes_read"), sizes);
    ops::Conv2DBackpropInput(root.WithOpName("dx"), sizes, filter, dy,
                             {.strides = {1, 1, 1, 1}, .padding = "SAME", .data_format = "NCHW"});
    std::unique_ptr<Graph> g = ToPlacedGraph(root, kGpu);
    EXPECT_EQ(ConvertNchwToNhwcOnGpu(g.get(), nullptr), !computed);
    const Node* dx = g->FindNode("dx");
    ASSERT_NE(dx, nullptr);
    EXPECT_EQ(FormatOf(*g, "dx"), computed ? "NCHW" : "NHWC");
    if (computed) continue;
    const Edge* in = nullptr;
    for (const Edge* e : dx->in_edges()) {
      if (!e->IsControlEdge() && e->dst_input() == 0) in = e;
    }
    ASSERT_NE(in, nullptr);
    Tensor value;
    ASSERT_TRUE(GetNodeAttr(in->src()->def(), "value", &value).ok());
    ASSERT_EQ(value.NumElements(), 4);
    EXPECT_EQ(value.flat<int32_t>()(1), 8);
    EXPECT_EQ(value.flat<int32_t>()(3), 3);
  }
}

// x [2,3,8,8] NCHW on the GPU: Conv2D + BiasAdd, FusedBatchNormV3 in
// training, Relu, a residual AddV2 with a second convolution of the Relu,
// MaxPool; the loss's gradients for both filters, the bias and the scale.
Scope NchwNetwork() {
  Scope root = Scope::NewRootScope().WithDevice("/device:GPU:0");
  auto x =
      ops::Placeholder(root.WithOpName("x"), DT_FLOAT, {.shape = PartialTensorShape({2, 3, 8, 8})});
  auto f1 = ops::Const(root.WithOpName("f1"), Filled(TensorShape({3, 3, 3, 4}), 0.05f, 9));
  auto f2 = ops::Const(root.WithOpName("f2"), Filled(TensorShape({3, 3, 4, 4}), 0.03f, 7));
  auto b = ops::Const(root.WithOpName("b"), {0.5f, -0.5f, 0.25f, 0.0f});
  auto scale = ops::Const(root.WithOpName("scale"), {1.0f, 0.5f, 2.0f, 1.5f});
  auto offset = ops::Const(root.WithOpName("offset"), {0.0f, 0.1f, -0.1f, 0.2f});
  auto empty = ops::Const(root.WithOpName("empty"), Tensor(DT_FLOAT, TensorShape({0})));
  const ops::Conv2DAttrs same{.strides = {1, 1, 1, 1}, .padding = "SAME", .data_format = "NCHW"};
  auto conv = ops::Conv2D(root.WithOpName("conv"), x, f1, same);
  auto sum = ops::BiasAdd(root.WithOpName("ba"), conv, b, {.data_format = "NCHW"});
  auto bn = ops::FusedBatchNormV3(root.WithOpName("bn"), sum, scale, offset, empty, empty,
                                  {.data_format = "NCHW"});
  auto relu = ops::Relu(root.WithOpName("relu"), bn.y);
  auto conv2 = ops::Conv2D(root.WithOpName("conv2"), relu, f2, same);
  auto residual = ops::AddV2(root.WithOpName("residual"), conv2, relu);
  auto pool = ops::MaxPool(
      root.WithOpName("pool"), residual,
      {.ksize = {1, 1, 2, 2}, .strides = {1, 1, 2, 2}, .padding = "VALID", .data_format = "NCHW"});
  auto loss = ops::Sum(root.WithOpName("loss"), ops::Square(root, pool), {0, 1, 2, 3});
  std::vector<Output> grads;
  EXPECT_TRUE(
      AddSymbolicGradients(root, {loss}, {Output(f1), Output(f2), Output(b), Output(scale)}, &grads)
          .ok())
      << root.status();
  for (int i = 0; i < 4; ++i) ops::Identity(root.WithOpName("d" + std::to_string(i)), grads[i]);
  return root;
}

struct Step {
  std::vector<Tensor> fetched;
  int gpu_transposes = 0;  // Transposes the GPU ran
  int gpu_nodes = 0;       // nodes the GPU ran
};

Step RunOnSimGpu(const GraphDef& def, RewriterConfig::Toggle layout) {
  SessionOptions options;
  options.config.allow_soft_placement = true;
  options.config.graph_options.rewrite_options.layout_optimizer = layout;
  std::unique_ptr<Session> session = *NewSession(options);
  const absl::Status created = session->Create(def);
  EXPECT_TRUE(created.ok()) << created;
  Step step;
  RunOptions run_options;
  run_options.trace_level = RunOptions::FULL_TRACE;
  RunMetadata metadata;
  const absl::Status s =
      session->Run(run_options, {{"x", Filled(TensorShape({2, 3, 8, 8}), 0.1f, 13)}},
                   {"loss", "pool", "d0", "d1", "d2", "d3"}, {}, &step.fetched, &metadata);
  EXPECT_TRUE(s.ok()) << s;
  for (const DeviceStepStats& device : metadata.step_stats.dev_stats) {
    if (device.device.find("GPU") == std::string::npos) continue;
    for (const NodeExecStats& n : device.node_stats) {
      ++step.gpu_nodes;
      if (n.op == "Transpose") ++step.gpu_transposes;
    }
  }
  return step;
}

TEST(LayoutOptimizerSessionTest, AnNchwNetworkTrainsAsWithoutThePass) {
  GraphDef def;
  ASSERT_TRUE(NchwNetwork().ToGraphDef(&def).ok());
  const Step off = RunOnSimGpu(def, RewriterConfig::OFF);
  const Step on = RunOnSimGpu(def, RewriterConfig::DEFAULT);
  ASSERT_EQ(off.fetched.size(), 6u);
  ASSERT_EQ(on.fetched.size(), 6u);
  for (size_t i = 0; i < off.fetched.size(); ++i) {
    SCOPED_TRACE(i);
    ASSERT_EQ(on.fetched[i].shape(), off.fetched[i].shape());
    for (int64_t j = 0; j < off.fetched[i].NumElements(); ++j) {
      const float expected = off.fetched[i].flat<float>()(j);
      EXPECT_NEAR(on.fetched[i].flat<float>()(j), expected, 1e-4f * (1 + std::abs(expected)));
    }
  }
  // The network ran on the GPU, and with the pass its chain transposed only
  // at its ends: x in, the pooled value out to the fetch, the loss's
  // gradient in (the loss, a sum over every dimension, reads NHWC).
  EXPECT_GT(off.gpu_nodes, 20);
  EXPECT_EQ(off.gpu_transposes, 0);
  EXPECT_EQ(on.gpu_transposes, 3);
}

// ResNet's strided block and head in NCHW on the GPU: x [2,3,9,9], Conv2D
// (3x3, 4 filters) + Relu, a Pad of height and width then a strided VALID
// Conv2D + Relu, and the mean over height and width (keep_dims false)
// into logits; with the gradients of both filters (the Pad's is a Slice).
// And the mean over the channels kept as a dimension, and the mean over
// the batch, which leaves [C, H, W] in NCHW and [H, W, C] in NHWC.
Scope NchwStridedHead() {
  Scope root = Scope::NewRootScope().WithDevice("/device:GPU:0");
  auto x =
      ops::Placeholder(root.WithOpName("x"), DT_FLOAT, {.shape = PartialTensorShape({2, 3, 9, 9})});
  auto f1 = ops::Const(root.WithOpName("f1"), Filled(TensorShape({3, 3, 3, 4}), 0.05f, 9));
  auto f2 = ops::Const(root.WithOpName("f2"), Filled(TensorShape({3, 3, 4, 4}), 0.03f, 7));
  auto conv = ops::Conv2D(root.WithOpName("conv"), x, f1,
                          {.strides = {1, 1, 1, 1}, .padding = "SAME", .data_format = "NCHW"});
  auto relu = ops::Relu(root.WithOpName("relu"), conv);
  auto paddings = ops::Const(
      root, Tensor::FromVector<int32_t>({0, 0, 0, 0, 1, 1, 1, 1}, TensorShape({4, 2})));
  auto padded = ops::Pad(root.WithOpName("pad"), relu, paddings);
  auto conv2 = ops::Conv2D(root.WithOpName("conv2"), padded, f2,
                           {.strides = {1, 1, 2, 2}, .padding = "VALID", .data_format = "NCHW"});
  auto relu2 = ops::Relu(root.WithOpName("relu2"), conv2);
  auto logits = ops::Mean(root.WithOpName("logits"), relu2, {2, 3});
  Output loss = ops::Sum(root.WithOpName("loss"), ops::Square(root, logits), {0, 1});
  ops::Mean(root.WithOpName("channel_mean"), relu2, {1}, {.keep_dims = true});
  ops::Mean(root.WithOpName("batch_mean"), relu2, {0});
  std::vector<Output> grads;
  EXPECT_TRUE(AddSymbolicGradients(root, {loss}, {Output(f1), Output(f2)}, &grads).ok())
      << root.status();
  ops::Identity(root.WithOpName("d0"), grads[0]);
  ops::Identity(root.WithOpName("d1"), grads[1]);
  return root;
}

TEST(LayoutOptimizerSessionTest, PadsSlicesAndMeansFollowTheChain) {
  GraphDef def;
  ASSERT_TRUE(NchwStridedHead().ToGraphDef(&def).ok());
  std::vector<std::vector<Tensor>> results;
  std::vector<int> transposes;
  for (RewriterConfig::Toggle layout : {RewriterConfig::OFF, RewriterConfig::DEFAULT}) {
    SessionOptions options;
    options.config.allow_soft_placement = true;
    options.config.graph_options.rewrite_options.layout_optimizer = layout;
    std::unique_ptr<Session> session = *NewSession(options);
    ASSERT_TRUE(session->Create(def).ok());
    std::vector<Tensor> fetched;
    RunOptions run_options;
    run_options.trace_level = RunOptions::FULL_TRACE;
    RunMetadata metadata;
    const absl::Status s = session->Run(
        run_options, {{"x", Filled(TensorShape({2, 3, 9, 9}), 0.1f, 13)}},
        {"loss", "logits", "channel_mean", "batch_mean", "d0", "d1"}, {}, &fetched, &metadata);
    ASSERT_TRUE(s.ok()) << s;
    results.push_back(fetched);
    int count = 0;
    for (const DeviceStepStats& device : metadata.step_stats.dev_stats) {
      for (const NodeExecStats& n : device.node_stats) count += n.op == "Transpose";
    }
    transposes.push_back(count);
  }
  for (size_t i = 0; i < results[0].size(); ++i) {
    SCOPED_TRACE(i);
    ASSERT_EQ(results[1][i].shape(), results[0][i].shape());
    for (int64_t j = 0; j < results[0][i].NumElements(); ++j) {
      const float expected = results[0][i].flat<float>()(j);
      EXPECT_NEAR(results[1][i].flat<float>()(j), expected, 1e-4f * (1 + std::abs(expected)));
    }
  }
  // x in; the channel mean (kept as an image) out; the batch mean's input
  // out (its [C, H, W] would come out as [H, W, C]); the mean's gradient
  // (a Tile of the logits' gradient) in: the Pad, the strided convolution,
  // the head's mean and the Pad's gradient (a Slice) in NHWC.
  EXPECT_EQ(transposes[0], 0);
  EXPECT_EQ(transposes[1], 4);
}

// Three times x = Relu(Conv2D(x)) in NCHW, in a while loop on the GPU: the
// Transposes and their permutations run in the loop's frame.
TEST(LayoutOptimizerSessionTest, AConvolutionInAWhileLoopRunsAsWithoutThePass) {
  Scope root = Scope::NewRootScope().WithDevice("/device:GPU:0");
  auto x =
      ops::Placeholder(root.WithOpName("x"), DT_FLOAT, {.shape = PartialTensorShape({2, 3, 8, 8})});
  auto i0 = ops::Const(root.WithOpName("i0"), 0);
  std::vector<Output> out;
  ASSERT_TRUE(ops::WhileLoop(
                  root, {i0, x},
                  [](const Scope& s, const std::vector<Output>& v, Output* cond) {
                    *cond = ops::Less(s, v[0], 3);
                    return s.status();
                  },
                  [](const Scope& s, const std::vector<Output>& v, std::vector<Output>* next) {
                    auto f = ops::Const(s, Filled(TensorShape({3, 3, 3, 3}), 0.04f, 11));
                    // A loop variable's shape is not known; the image's is.
                    auto image = ops::Reshape(s, v[1], ops::Const(s, {2, 3, 8, 8}));
                    auto conv = ops::Conv2D(
                        s, image, f,
                        {.strides = {1, 1, 1, 1}, .padding = "SAME", .data_format = "NCHW"});
                    *next = {ops::Add(s, v[0], 1), ops::Relu(s, conv)};
                    return s.status();
                  },
                  &out)
                  .ok())
      << root.status();
  ops::Identity(root.WithOpName("y"), out[1]);
  GraphDef def;
  ASSERT_TRUE(root.ToGraphDef(&def).ok());
  std::vector<std::vector<Tensor>> results;
  for (RewriterConfig::Toggle layout : {RewriterConfig::OFF, RewriterConfig::DEFAULT}) {
    SessionOptions options;
    options.config.allow_soft_placement = true;
    options.config.graph_options.rewrite_options.layout_optimizer = layout;
    std::unique_ptr<Session> session = *NewSession(options);
    ASSERT_TRUE(session->Create(def).ok());
    std::vector<Tensor> fetched;
    RunOptions run_options;
    run_options.trace_level = RunOptions::FULL_TRACE;
    RunMetadata metadata;
    const absl::Status s =
        session->Run(run_options, {{"x", Filled(TensorShape({2, 3, 8, 8}), 0.1f, 13)}}, {"y"}, {},
                     &fetched, &metadata);
    ASSERT_TRUE(s.ok()) << s;
    results.push_back(fetched);
    int transposes = 0;
    for (const DeviceStepStats& device : metadata.step_stats.dev_stats) {
      for (const NodeExecStats& n : device.node_stats) transposes += n.op == "Transpose";
    }
    // Into and out of the convolution, each iteration, with the pass.
    EXPECT_EQ(transposes, layout == RewriterConfig::OFF ? 0 : 6);
  }
  ASSERT_EQ(results[1][0].shape(), results[0][0].shape());
  for (int64_t j = 0; j < results[0][0].NumElements(); ++j) {
    const float expected = results[0][0].flat<float>()(j);
    EXPECT_NEAR(results[1][0].flat<float>()(j), expected, 1e-4f * (1 + std::abs(expected)));
  }
}

}  // namespace
}  // namespace minitf
