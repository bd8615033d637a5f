#include "session/graph_partition.h"

#include <map>
#include <set>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "ops/cc/scope.h"
#include "ops/standard_ops.h"

namespace minitf {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::UnorderedElementsAre;

constexpr char kCpu0[] = "/job:localhost/replica:0/task:0/device:CPU:0";
constexpr char kCpu1[] = "/job:localhost/replica:0/task:0/device:CPU:1";
constexpr char kCpu2[] = "/job:localhost/replica:0/task:0/device:CPU:2";
constexpr char kGpu0[] = "/job:localhost/replica:0/task:0/device:GPU:0";

// Builds `root`'s graph and assigns each node the device `devices` gives
// it (CPU:0 for nodes not listed).
std::unique_ptr<Graph> PlacedGraph(const Scope& root,
                                   const std::map<std::string, std::string>& devices) {
  GraphDef def;
  EXPECT_TRUE(root.ToGraphDef(&def).ok());
  auto graph = ConvertGraphDefToGraph(def);
  EXPECT_TRUE(graph.ok()) << graph.status();
  for (Node* n : (*graph)->op_nodes()) {
    auto it = devices.find(n->name());
    n->set_assigned_device_name(it == devices.end() ? kCpu0 : it->second);
  }
  return *std::move(graph);
}

absl::flat_hash_map<std::string, GraphDef> PartitionOrDie(Graph* graph,
                                                          PartitionOptions options = {}) {
  absl::flat_hash_map<std::string, GraphDef> partitions;
  absl::Status s = Partition(options, graph, &partitions);
  EXPECT_TRUE(s.ok()) << s;
  return partitions;
}

std::vector<const NodeDef*> NodesOfOp(const GraphDef& def, const std::string& op) {
  std::vector<const NodeDef*> out;
  for (const NodeDef& n : def.node) {
    if (n.op == op) out.push_back(&n);
  }
  return out;
}

const NodeDef* FindNode(const GraphDef& def, const std::string& name) {
  for (const NodeDef& n : def.node) {
    if (n.name == name) return &n;
  }
  return nullptr;
}

std::string StringAttr(const NodeDef& n, const std::string& name) {
  return n.attr.at(name).s();
}

TEST(GraphPartitionTest, NodesGoToTheirDevicesAndLocalEdgesStay) {
  Scope root = Scope::NewRootScope();
  Output a = ops::Const(root.WithOpName("a"), 1.0f);
  Output b = ops::Neg(root.WithOpName("b"), a);
  ops::Neg(root.WithOpName("c"), b);
  auto graph = PlacedGraph(root, {});
  auto partitions = PartitionOrDie(graph.get());
  ASSERT_EQ(partitions.size(), 1u);
  const GraphDef& p = partitions.at(kCpu0);
  EXPECT_EQ(p.node.size(), 3u);
  EXPECT_THAT(FindNode(p, "c")->input, ElementsAre("b:0"));
  for (const NodeDef& n : p.node) EXPECT_EQ(n.device, kCpu0);
}

TEST(GraphPartitionTest, OnePairPerTensorAndDestinationDevice) {
  // x (CPU:0) feeds two nodes on CPU:1 and one on CPU:2; y (CPU:0) feeds one
  // node on CPU:1.
  Scope root = Scope::NewRootScope();
  Output x = ops::Const(root.WithOpName("x"), 2.0f);
  Output y = ops::Const(root.WithOpName("y"), 3.0f);
  ops::Neg(root.WithOpName("n1"), x);
  ops::Square(root.WithOpName("n2"), x);
  ops::Add(root.WithOpName("n3"), x, y);
  ops::Neg(root.WithOpName("n4"), x);
  auto graph = PlacedGraph(root, {{"n1", kCpu1}, {"n2", kCpu1}, {"n3", kCpu1}, {"n4", kCpu2}});
  PartitionOptions options;
  options.get_incarnation = [](const std::string& device) -> uint64_t {
    return device == kCpu0 ? 0x1234 : 99;
  };
  auto partitions = PartitionOrDie(graph.get(), options);
  ASSERT_EQ(partitions.size(), 3u);
  const GraphDef& p0 = partitions.at(kCpu0);
  const GraphDef& p1 = partitions.at(kCpu1);
  const GraphDef& p2 = partitions.at(kCpu2);
  // x -> CPU:1, y -> CPU:1, x -> CPU:2.
  ASSERT_EQ(NodesOfOp(p0, "_Send").size(), 3u);
  ASSERT_EQ(NodesOfOp(p1, "_Recv").size(), 2u);
  ASSERT_EQ(NodesOfOp(p2, "_Recv").size(), 1u);
  EXPECT_TRUE(NodesOfOp(p1, "_Send").empty());
  // n1, n2 and n3 read x from the same _Recv.
  const std::string x_recv = FindNode(p1, "n1")->input[0];
  EXPECT_EQ(FindNode(p1, "n2")->input[0], x_recv);
  EXPECT_EQ(FindNode(p1, "n3")->input[0], x_recv);
  EXPECT_NE(FindNode(p1, "n3")->input[1], x_recv);
  // Send and Recv agree on the key parts.
  const NodeDef* recv = FindNode(p1, x_recv);
  ASSERT_NE(recv, nullptr);
  EXPECT_EQ(recv->op, "_Recv");
  EXPECT_EQ(recv->device, kCpu1);
  EXPECT_EQ(recv->attr.at("tensor_type").type(), DT_FLOAT);
  EXPECT_EQ(StringAttr(*recv, "send_device"), kCpu0);
  EXPECT_EQ(StringAttr(*recv, "recv_device"), kCpu1);
  EXPECT_EQ(recv->attr.at("send_device_incarnation").i(), 0x1234);
  int matching_sends = 0;
  std::set<std::string> tensor_names;
  for (const NodeDef* send : NodesOfOp(p0, "_Send")) {
    tensor_names.insert(StringAttr(*send, "tensor_name"));
    EXPECT_EQ(send->device, kCpu0);
    if (StringAttr(*send, "tensor_name") == StringAttr(*recv, "tensor_name")) {
      ++matching_sends;
      EXPECT_THAT(send->input, ElementsAre("x:0"));
      EXPECT_EQ(StringAttr(*send, "recv_device"), kCpu1);
      EXPECT_EQ(send->attr.at("T").type(), DT_FLOAT);
    }
  }
  EXPECT_EQ(matching_sends, 1);
  EXPECT_EQ(tensor_names.size(), 3u);  // Unique within the step.
  // Every partition is a valid graph on its own.
  for (const auto& [device, def] : partitions) {
    auto g = ConvertGraphDefToGraph(def);
    EXPECT_TRUE(g.ok()) << device << ": " << g.status();
  }
}

TEST(GraphPartitionTest, EachOutputOfANodeGetsItsOwnPair) {
  Scope root = Scope::NewRootScope();
  Output x = ops::Const(root.WithOpName("x"), 1.0f);
  Output pred = ops::Const(root.WithOpName("pred"), true);
  ops::SwitchOutputs sw = ops::Switch(root.WithOpName("sw"), x, pred);
  ops::Merge(root.WithOpName("m"), {sw.output_false, sw.output_true});
  auto graph = PlacedGraph(root, {{"m", kCpu1}});
  auto partitions = PartitionOrDie(graph.get());
  EXPECT_EQ(NodesOfOp(partitions.at(kCpu0), "_Send").size(), 2u);
  const NodeDef* merge = FindNode(partitions.at(kCpu1), "m");
  ASSERT_EQ(merge->input.size(), 2u);
  EXPECT_NE(merge->input[0], merge->input[1]);
}

TEST(GraphPartitionTest, CrossDeviceControlEdgeBecomesADummySendAndRecv) {
  Scope root = Scope::NewRootScope();
  Output first = ops::Const(root.WithOpName("first"), 1.0f);
  Output local = ops::Const(root.WithOpName("local"), 2.0f);
  Scope after = root.WithControlDependencies({first, local});
  ops::Const(after.WithOpName("second"), 3.0f);
  ops::Const(after.WithOpName("third"), 4.0f);
  auto graph = PlacedGraph(root, {{"local", kCpu1}, {"second", kCpu1}, {"third", kCpu1}});
  auto partitions = PartitionOrDie(graph.get());
  const GraphDef& p0 = partitions.at(kCpu0);
  const GraphDef& p1 = partitions.at(kCpu1);
  // One pair for `first` -> CPU:1, shared by `second` and `third`.
  ASSERT_EQ(NodesOfOp(p0, "_Send").size(), 1u);
  ASSERT_EQ(NodesOfOp(p1, "_Recv").size(), 1u);
  const NodeDef* send = NodesOfOp(p0, "_Send")[0];
  const NodeDef* dummy = FindNode(p0, send->input[0].substr(0, send->input[0].find(':')));
  ASSERT_NE(dummy, nullptr);
  EXPECT_EQ(dummy->op, "Const");
  EXPECT_THAT(dummy->input, ElementsAre("^first"));
  const std::string recv = NodesOfOp(p1, "_Recv")[0]->name;
  // The control edges leave from an Identity of the _Recv: it is dead when
  // the _Recv receives a dead tensor, which a control edge from the _Recv
  // itself would not carry.
  ASSERT_EQ(NodesOfOp(p1, "Identity").size(), 1u);
  const NodeDef* gate = NodesOfOp(p1, "Identity")[0];
  EXPECT_THAT(gate->input, ElementsAre(recv + ":0"));
  EXPECT_THAT(FindNode(p1, "second")->input, UnorderedElementsAre("^local", "^" + gate->name));
  EXPECT_THAT(FindNode(p1, "third")->input, UnorderedElementsAre("^local", "^" + gate->name));
  for (const auto& [device, def] : partitions) {
    EXPECT_TRUE(ConvertGraphDefToGraph(def).ok()) << device;
  }
}

TEST(GraphPartitionTest, AVariableReadOnAnotherDeviceSendsItsValue) {
  Scope root = Scope::NewRootScope();
  Output v = ops::Variable(root.WithOpName("v"), TensorShape({2}), DT_FLOAT);
  ops::Neg(root.WithOpName("reader"), v);
  auto graph = PlacedGraph(root, {{"v", kCpu1}});
  auto partitions = PartitionOrDie(graph.get());
  const std::vector<const NodeDef*> sends = NodesOfOp(partitions.at(kCpu1), "_Send");
  ASSERT_EQ(sends.size(), 1u);
  EXPECT_EQ(sends[0]->attr.at("T").type(), DT_FLOAT);  // Not the ref type.
  EXPECT_TRUE(ConvertGraphDefToGraph(partitions.at(kCpu1)).ok());
}

TEST(GraphPartitionTest, AReferenceAcrossDevicesIsAnError) {
  Scope root = Scope::NewRootScope();
  Output v = ops::Variable(root.WithOpName("v"), TensorShape({2}), DT_FLOAT);
  ops::Assign(root.WithOpName("init"), v, Tensor::FromVector<float>({1, 2}));
  auto graph = PlacedGraph(root, {{"v", kCpu1}});
  absl::flat_hash_map<std::string, GraphDef> partitions;
  absl::Status s = Partition({}, graph.get(), &partitions);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(s.message()), HasSubstr("'init'"));
  EXPECT_THAT(std::string(s.message()), HasSubstr("'v'"));
}

TEST(GraphPartitionTest, ANodeWithoutADeviceIsAnError) {
  Scope root = Scope::NewRootScope();
  ops::Const(root.WithOpName("lost"), 1.0f);
  auto graph = PlacedGraph(root, {});
  graph->FindNode("lost")->set_assigned_device_name("");
  absl::flat_hash_map<std::string, GraphDef> partitions;
  absl::Status s = Partition({}, graph.get(), &partitions);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(s.message()), HasSubstr("'lost'"));
}

// Memory types as a test gives them: on the GPU, every input of a node named
// "host_*" is in host memory; everything else in device memory.
absl::Status TestMemoryTypes(const Node& n, MemoryTypeVector* in, MemoryTypeVector* out) {
  const bool gpu = n.assigned_device_name() == kGpu0;
  const bool host_inputs = absl::StartsWith(n.name(), "host_");
  in->assign(static_cast<size_t>(n.num_inputs()),
             !gpu || host_inputs ? HOST_MEMORY : DEVICE_MEMORY);
  out->assign(static_cast<size_t>(n.num_outputs()), gpu ? DEVICE_MEMORY : HOST_MEMORY);
  return absl::OkStatus();
}

TEST(GraphPartitionTest, AnEdgeBetweenMemoriesOfOneGpuGetsAHostRecvPair) {
  // x (GPU, device memory) -> host_y (GPU, wants x in host memory).
  Scope root = Scope::NewRootScope();
  Output x = ops::Const(root.WithOpName("x"), 2.0f);
  ops::Neg(root.WithOpName("host_y"), x);
  ops::Neg(root.WithOpName("z"), x);
  auto graph = PlacedGraph(root, {{"x", kGpu0}, {"host_y", kGpu0}, {"z", kGpu0}});
  PartitionOptions options;
  options.memory_types = TestMemoryTypes;
  auto partitions = PartitionOrDie(graph.get(), options);
  ASSERT_EQ(partitions.size(), 1u);
  const GraphDef& gpu = partitions.at(kGpu0);
  // The device-memory consumer reads x directly; the host-memory one through
  // a _Send / _HostRecv pair on the same device.
  EXPECT_THAT(FindNode(gpu, "z")->input, ElementsAre("x:0"));
  ASSERT_EQ(NodesOfOp(gpu, "_Send").size(), 1u);
  const std::vector<const NodeDef*> recvs = NodesOfOp(gpu, "_HostRecv");
  ASSERT_EQ(recvs.size(), 1u);
  EXPECT_THAT(StringAttr(*recvs[0], "tensor_name"), HasSubstr("memtype_edge_"));
  EXPECT_THAT(FindNode(gpu, "host_y")->input, ElementsAre(recvs[0]->name));
}

TEST(GraphPartitionTest, AHostMemoryInputOnTheGpuFromTheCpuIsAHostRecv) {
  Scope root = Scope::NewRootScope();
  Output x = ops::Const(root.WithOpName("x"), 2.0f);
  ops::Neg(root.WithOpName("host_y"), x);
  ops::Neg(root.WithOpName("z"), x);
  auto graph = PlacedGraph(root, {{"host_y", kGpu0}, {"z", kGpu0}});
  PartitionOptions options;
  options.memory_types = TestMemoryTypes;
  auto partitions = PartitionOrDie(graph.get(), options);
  const GraphDef& gpu = partitions.at(kGpu0);
  // One receive per memory: x arrives once in host memory, once in device
  // memory.
  EXPECT_EQ(NodesOfOp(gpu, "_HostRecv").size(), 1u);
  EXPECT_EQ(NodesOfOp(gpu, "_Recv").size(), 1u);
  EXPECT_EQ(NodesOfOp(partitions.at(kCpu0), "_Send").size(), 2u);
}

TEST(GraphPartitionTest, MemoryTypesOfEveryNodeOfALargeGraphStayValid) {
  // Enough nodes that the partitioner's cache of memory types grows many
  // times while the types of earlier nodes are in use (AddressSanitizer
  // caught a read of a moved entry here).
  Scope root = Scope::NewRootScope();
  Output x = ops::Const(root.WithOpName("x"), 1.0f);
  std::map<std::string, std::string> devices = {{"x", kGpu0}};
  for (int i = 0; i < 200; ++i) {
    const std::string name = absl::StrCat(i % 2 == 0 ? "host_" : "n", i);
    x = ops::Neg(root.WithOpName(name), x);
    devices[name] = kGpu0;
  }
  auto graph = PlacedGraph(root, devices);
  PartitionOptions options;
  options.memory_types = TestMemoryTypes;
  auto partitions = PartitionOrDie(graph.get(), options);
  // Every host_* node reads its device-memory input through a pair.
  EXPECT_EQ(NodesOfOp(partitions.at(kGpu0), "_HostRecv").size(), 100u);
}

}  // namespace
}  // namespace minitf
