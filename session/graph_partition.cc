#include "session/graph_partition.h"

#include <tuple>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/container/node_hash_map.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "platform/status_macros.h"
#include "session/control_loops.h"

namespace minitf {

namespace {

// Whether `device` (a full name) is a CPU, where host memory is the device's.
bool IsCpuDevice(const std::string& device) {
  return absl::StrContains(device, "/device:CPU:");
}

// Builds the partitions of one graph. Used once, by Partition().
class Partitioner {
 public:
  Partitioner(const PartitionOptions& options, const Graph& graph,
              absl::flat_hash_map<std::string, GraphDef>* partitions)
      : options_(options), graph_(graph), partitions_(partitions) {}

  absl::Status Run();

 private:
  // The NodeDef of `n` in its partition, with its inputs rewritten.
  absl::StatusOr<NodeDef> RewriteNode(const Node& n);
  // The memory types of `n` (cached), or the error finding them.
  absl::Status MemoryTypes(const Node& n, const MemoryTypeVector** inputs,
                           const MemoryTypeVector** outputs);
  // The name of the _Recv on `dst_device` that receives the tensor `e`
  // carries (a data edge) into memory `dst_memory`, sent from memory
  // `src_memory`, adding the _Send/_Recv pair the first time.
  std::string RecvForData(const Edge& e, const std::string& dst_device, MemoryType src_memory,
                          MemoryType dst_memory);
  // The same for a control edge: the _Recv `e->dst()` waits on.
  std::string RecvForControl(const Edge& e, const std::string& dst_device);
  // Adds the pair sending output `src_output` of `src_name` (on
  // `src_device`) to `dst_device`; returns the _Recv's name.
  // `dst` is the node the _Recv feeds: inside a loop spanning devices, the
  // _Recv waits on the control loop's Merge `dst` waits on (see
  // control_loops.h), so it runs once per iteration.
  // `host_send`/`host_recv`: that end is in host memory on a device that
  // is not a CPU (_HostSend/_HostRecv).
  std::string AddSendRecv(const std::string& src_name, int src_output, DataType type,
                          const std::string& src_device, const std::string& dst_device,
                          const std::string& tensor_name, const Node& dst,
                          bool host_send = false, bool host_recv = false);
  // `base`, or `base_1`, `base_2`, ...: a name no node of the graph or of
  // the partitions has.
  std::string NewName(const std::string& base);
  uint64_t Incarnation(const std::string& device) const {
    return options_.get_incarnation ? options_.get_incarnation(device) : 1;
  }

  const PartitionOptions& options_;
  const Graph& graph_;
  absl::flat_hash_map<std::string, GraphDef>* const partitions_;
  // (source node id, output or kControlSlot, destination device, memory
  // type wanted) -> _Recv name.
  absl::flat_hash_map<std::tuple<int, int, std::string, int>, std::string> recvs_;
  // Node id -> its (input, output) memory types.
  // node_hash_map: MemoryTypes hands out pointers into it that must survive
  // later insertions.
  absl::node_hash_map<int, std::pair<MemoryTypeVector, MemoryTypeVector>> memory_types_;
  absl::flat_hash_set<std::string> new_names_;
};

absl::Status Partitioner::Run() {
  partitions_->clear();
  for (const Node* n : graph_.op_nodes()) {
    if (n->assigned_device_name().empty()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "Node '", n->name(), "' (op '", n->type_string(), "') has no assigned device"));
    }
  }
  for (const Node* n : graph_.op_nodes()) {
    MINITF_ASSIGN_OR_RETURN(NodeDef def, RewriteNode(*n));
    (*partitions_)[n->assigned_device_name()].node.push_back(std::move(def));
  }
  return absl::OkStatus();
}

absl::StatusOr<NodeDef> Partitioner::RewriteNode(const Node& n) {
  const std::string& device = n.assigned_device_name();
  std::vector<std::string> data_inputs(n.num_inputs());
  std::vector<std::string> control_inputs;
  absl::flat_hash_set<std::string> seen_controls;
  for (const Edge* e : n.in_edges()) {
    const Node* src = e->src();
    if (!src->IsOp()) continue;  // _SOURCE: implied in every partition.
    const bool local = src->assigned_device_name() == device;
    if (e->IsControlEdge()) {
      std::string input = absl::StrCat("^", local ? src->name() : RecvForControl(*e, device));
      if (seen_controls.insert(input).second) control_inputs.push_back(std::move(input));
      continue;
    }
    const MemoryTypeVector *src_out = nullptr, *dst_in = nullptr, *unused = nullptr;
    MINITF_RETURN_IF_ERROR(MemoryTypes(*src, &unused, &src_out));
    MINITF_RETURN_IF_ERROR(MemoryTypes(n, &dst_in, &unused));
    const MemoryType src_memory = (*src_out)[e->src_output()];
    const MemoryType dst_memory = (*dst_in)[e->dst_input()];
    if (local && src_memory == dst_memory) {
      data_inputs[e->dst_input()] = TensorId{src->name(), e->src_output()}.ToString();
      continue;
    }
    if (IsRefType(n.input_type(e->dst_input()))) {
      return absl::InvalidArgumentError(absl::StrCat(
          "Node '", n.name(), "' on ", device, " takes input ", e->dst_input(),
          " by reference from '", src->name(), "' on ", src->assigned_device_name(),
          local ? " in another memory (host or device); a reference cannot be copied"
                : "; a reference cannot cross devices (colocate them)"));
    }
    data_inputs[e->dst_input()] = RecvForData(*e, device, src_memory, dst_memory);
  }
  NodeDef def = n.def();
  def.device = device;
  def.input = std::move(data_inputs);
  for (std::string& c : control_inputs) def.input.push_back(std::move(c));
  return def;
}

absl::Status Partitioner::MemoryTypes(const Node& n, const MemoryTypeVector** inputs,
                                      const MemoryTypeVector** outputs) {
  auto it = memory_types_.find(n.id());
  if (it == memory_types_.end()) {
    MemoryTypeVector in, out;
    if (options_.memory_types) {
      MINITF_RETURN_IF_ERROR(options_.memory_types(n, &in, &out));
    }
    // Without memory types, or where they are short: the device's memory.
    in.resize(static_cast<size_t>(n.num_inputs()), DEVICE_MEMORY);
    out.resize(static_cast<size_t>(n.num_outputs()), DEVICE_MEMORY);
    it = memory_types_.emplace(n.id(), std::make_pair(std::move(in), std::move(out))).first;
  }
  *inputs = &it->second.first;
  *outputs = &it->second.second;
  return absl::OkStatus();
}

std::string Partitioner::RecvForData(const Edge& e, const std::string& dst_device,
                                     MemoryType src_memory, MemoryType dst_memory) {
  const Node& src = *e.src();
  auto key = std::make_tuple(src.id(), e.src_output(), dst_device, static_cast<int>(dst_memory));
  if (auto it = recvs_.find(key); it != recvs_.end()) return it->second;
  const bool local = src.assigned_device_name() == dst_device;
  // A reference output is read by the _Send: what crosses is the value.
  std::string recv = AddSendRecv(
      src.name(), e.src_output(), RemoveRefType(src.output_type(e.src_output())),
      src.assigned_device_name(), dst_device,
      absl::StrCat(local ? "memtype_edge_" : "edge_", e.id(), "_", src.name()), *e.dst(),
      src_memory == HOST_MEMORY && !IsCpuDevice(src.assigned_device_name()),
      dst_memory == HOST_MEMORY && !IsCpuDevice(dst_device));
  recvs_.emplace(std::move(key), recv);
  return recv;
}

std::string Partitioner::RecvForControl(const Edge& e, const std::string& dst_device) {
  const Node& src = *e.src();
  auto key = std::make_tuple(src.id(), kControlSlot, dst_device, 0);
  if (auto it = recvs_.find(key); it != recvs_.end()) return it->second;
  const std::string tensor_name = absl::StrCat("edge_", e.id(), "_", src.name());
  // A dummy scalar, produced once `src` has run (and dead if `src` is).
  NodeDef dummy;
  dummy.name = NewName(absl::StrCat("_ctrl_", tensor_name));
  dummy.op = "Const";
  dummy.device = src.assigned_device_name();
  dummy.input = {absl::StrCat("^", src.name())};
  dummy.attr["dtype"] = DT_FLOAT;
  dummy.attr["value"] = Tensor::Scalar<float>(0.0f);
  (*partitions_)[dummy.device].node.push_back(dummy);
  std::string recv = AddSendRecv(dummy.name, 0, DT_FLOAT, src.assigned_device_name(),
                                 dst_device, tensor_name, *e.dst());
  // A _Recv that received a dead tensor has dead outputs but ran: a control
  // edge from it would not carry the deadness (as in TensorFlow's executor).
  // An Identity of its output is dead then, and its control edge is.
  NodeDef identity;
  identity.name = NewName(absl::StrCat("_ctrl_recv_", tensor_name));
  identity.op = "Identity";
  identity.device = dst_device;
  identity.input = {absl::StrCat(recv, ":0")};
  identity.attr["T"] = DT_FLOAT;
  (*partitions_)[dst_device].node.push_back(identity);
  recvs_.emplace(std::move(key), identity.name);
  return identity.name;
}

std::string Partitioner::AddSendRecv(const std::string& src_name, int src_output,
                                     DataType type, const std::string& src_device,
                                     const std::string& dst_device,
                                     const std::string& tensor_name, const Node& dst,
                                     bool host_send, bool host_recv) {
  const int64_t incarnation = static_cast<int64_t>(Incarnation(src_device));
  NodeDef send;
  send.name = NewName(absl::StrCat("_send_", tensor_name));
  send.op = host_send ? "_HostSend" : "_Send";
  send.device = src_device;
  send.input = {TensorId{src_name, src_output}.ToString()};
  send.attr["T"] = type;
  NodeDef recv;
  recv.name = NewName(absl::StrCat("_recv_", tensor_name));
  recv.op = host_recv ? "_HostRecv" : "_Recv";
  recv.device = dst_device;
  recv.attr["tensor_type"] = type;
  for (const Edge* in : dst.in_edges()) {
    if (IsControlLoopMerge(*in->src()) && in->src()->assigned_device_name() == dst_device) {
      recv.input.push_back(absl::StrCat("^", in->src()->name()));
    }
  }
  for (NodeDef* def : {&send, &recv}) {
    def->attr["tensor_name"] = tensor_name;
    def->attr["send_device"] = src_device;
    def->attr["send_device_incarnation"] = incarnation;
    def->attr["recv_device"] = dst_device;
    def->attr["client_terminated"] = false;
  }
  (*partitions_)[src_device].node.push_back(std::move(send));
  std::string recv_name = recv.name;
  (*partitions_)[dst_device].node.push_back(std::move(recv));
  return recv_name;
}

std::string Partitioner::NewName(const std::string& base) {
  std::string name = base;
  for (int i = 1; graph_.FindNode(name) != nullptr || new_names_.contains(name); ++i) {
    name = absl::StrCat(base, "_", i);
  }
  new_names_.insert(name);
  return name;
}

}  // namespace

absl::Status Partition(const PartitionOptions& options, Graph* graph,
                       absl::flat_hash_map<std::string, GraphDef>* partitions) {
  return Partitioner(options, *graph, partitions).Run();
}

}  // namespace minitf
