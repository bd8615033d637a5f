#include "session/placer.h"

#include <algorithm>
#include <numeric>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "platform/logging.h"
#include "platform/status_macros.h"
#include "runtime/kernel_registry.h"

namespace minitf {

namespace {

std::string DeviceNames(const DeviceSet& devices) {
  std::vector<std::string> names;
  for (Device* d : devices.devices()) names.push_back(d->name());
  return absl::StrJoin(names, ", ");
}

// Whether `device` (its type, and its stream platform for GPUs) has a kernel
// for `n`.
bool HasKernel(const Node& n, const Device& device) {
  return KernelRegistry::Global()
      ->FindKernel(device.device_type(), n.def(), device.platform_name())
      .ok();
}

bool HasKernels(const std::vector<Node*>& nodes, const Device& device) {
  return std::all_of(nodes.begin(), nodes.end(),
                     [&](const Node* n) { return HasKernel(*n, device); });
}

// The first device among `candidates` that has a kernel for every node of
// `group`, trying device types in priority order.
Device* BestDevice(const std::vector<Node*>& group, const std::vector<Device*>& candidates,
                   const std::vector<std::string>& types) {
  for (const std::string& type : types) {
    for (Device* d : candidates) {
      if (d->device_type() == type && HasKernels(group, *d)) return d;
    }
  }
  return nullptr;
}

bool Compatible(const ParsedDeviceName& a, const ParsedDeviceName& b) {
  return (a.type.empty() || b.type.empty() || a.type == b.type) &&
         (a.id < 0 || b.id < 0 || a.id == b.id);
}

// Union-find over node ids: the colocation groups.
class ColocationGroups {
 public:
  explicit ColocationGroups(int num_ids) : parent_(num_ids) {
    std::iota(parent_.begin(), parent_.end(), 0);
  }
  int Find(int id) {
    while (parent_[id] != id) id = parent_[id] = parent_[parent_[id]];
    return id;
  }
  // The lower id becomes the root, so a group is named by its first node.
  void Union(int a, int b) {
    a = Find(a);
    b = Find(b);
    if (a != b) parent_[std::max(a, b)] = std::min(a, b);
  }

 private:
  std::vector<int> parent_;
};

// The device request of a group: the merged requests of its members, which
// must not contradict each other. `requester` is the member whose request
// came first (null when nobody asked).
struct GroupRequest {
  ParsedDeviceName spec;
  const Node* requester = nullptr;
};

absl::StatusOr<GroupRequest> RequestOf(const std::vector<Node*>& group,
                                       const PlacerOptions& options) {
  GroupRequest request;
  for (const Node* n : group) {
    if (n->requested_device().empty()) continue;
    absl::StatusOr<ParsedDeviceName> spec = ParseDeviceName(n->requested_device());
    if (!spec.ok()) {
      return absl::InvalidArgumentError(
          absl::StrCat("Node '", n->name(), "': ", spec.status().message()));
    }
    if (request.requester == nullptr) {
      request.spec = *spec;
      request.requester = n;
      continue;
    }
    if (!Compatible(request.spec, *spec)) {
      if (options.allow_soft_placement) continue;  // The first request wins.
      return absl::InvalidArgumentError(absl::StrCat(
          "Cannot colocate node '", n->name(), "' (it asks for '", n->requested_device(),
          "') with '", request.requester->name(), "' (it asks for '",
          request.requester->requested_device(),
          "'): they share a variable (a reference or a resource handle)"));
    }
    if (request.spec.type.empty()) request.spec.type = spec->type;
    if (request.spec.id < 0) request.spec.id = spec->id;
  }
  return request;
}

// The registry's explanation for the first node of `group` without a
// kernel on `device`.
absl::Status NoKernelError(const std::vector<Node*>& group, const Device& device) {
  for (const Node* n : group) {
    auto reg = KernelRegistry::Global()->FindKernel(device.device_type(), n->def(),
                                                    device.platform_name());
    if (!reg.ok()) return reg.status();
  }
  return absl::InternalError(absl::StrCat("no device found for node '",
                                          group.front()->name(), "'"));
}

// The device types to try for `group`, best first: the devices' priority
// order, except that while-loop and cond machinery (Switch, Merge, Enter,
// Exit, NextIteration, LoopCond) asked for no device prefers the CPU, where
// the predicates are computed and read (its GPU kernels serve the control
// loops a loop spanning devices gets, session/control_loops.h).
std::vector<std::string> TypesFor(const std::vector<Node*>& group, const DeviceSet& devices) {
  std::vector<std::string> types = devices.PrioritizedDeviceTypeList();
  for (const Node* n : group) {
    if (!n->IsControlFlow()) return types;
  }
  auto cpu = std::find(types.begin(), types.end(), std::string(DEVICE_CPU));
  if (cpu != types.end()) std::rotate(types.begin(), cpu, cpu + 1);
  return types;
}

absl::StatusOr<Device*> PlaceGroup(const std::vector<Node*>& group, const DeviceSet& devices,
                                   const PlacerOptions& options) {
  const std::vector<std::string> types = TypesFor(group, devices);
  MINITF_ASSIGN_OR_RETURN(GroupRequest request, RequestOf(group, options));
  if (const Node* n = request.requester; n != nullptr) {
    std::vector<Device*> matching = devices.FindMatchingDevices(request.spec);
    if (!matching.empty()) {
      if (Device* d = BestDevice(group, matching, types)) return d;
      if (!options.allow_soft_placement) {
        for (const Node* m : group) {
          if (!HasKernel(*m, *matching.front())) {
            n = m;
            break;
          }
        }
        return absl::InvalidArgumentError(absl::StrCat(
            "Cannot assign a device for operation '", n->name(), "': op '", n->type_string(),
            "' has no kernel for the requested device '", request.requester->requested_device(),
            "'"));
      }
    } else if (!options.allow_soft_placement) {
      return absl::InvalidArgumentError(absl::StrCat(
          "Cannot assign a device for operation '", n->name(), "': it asks for device '",
          n->requested_device(), "', but the devices are [", DeviceNames(devices), "]"));
    }
  }
  if (Device* d = BestDevice(group, devices.devices(), types)) return d;
  // No device has kernels for the whole group: explain with the first
  // device of the highest-priority type.
  for (Device* d : devices.devices()) {
    if (d->device_type() == types.front()) return NoKernelError(group, *d);
  }
  return NoKernelError(group, *devices.devices().front());
}

// The device of a group some of whose members were placed before (by an
// earlier PlaceGraph of the session's graph), or null when none was. The
// members placed before must agree, and the others need kernels there: a
// placed node never moves.
absl::StatusOr<Device*> PlacedDeviceOf(const std::vector<Node*>& group,
                                       const DeviceSet& devices) {
  const Node* placed = nullptr;
  for (const Node* n : group) {
    if (n->assigned_device_name().empty()) continue;
    if (placed == nullptr) {
      placed = n;
    } else if (n->assigned_device_name() != placed->assigned_device_name()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "Cannot colocate node '", n->name(), "' (placed on ", n->assigned_device_name(),
          ") with '", placed->name(), "' (placed on ", placed->assigned_device_name(),
          "): they share a variable, and a placed node does not move"));
    }
  }
  if (placed == nullptr) return nullptr;
  Device* device = nullptr;
  for (Device* d : devices.devices()) {
    if (d->name() == placed->assigned_device_name()) device = d;
  }
  if (device == nullptr) {
    return absl::InternalError(absl::StrCat("node '", placed->name(), "' is placed on ",
                                            placed->assigned_device_name(),
                                            ", which is not a device of this session"));
  }
  for (const Node* n : group) {
    if (!n->assigned_device_name().empty() || HasKernel(*n, *device)) continue;
    return absl::InvalidArgumentError(absl::StrCat(
        "Cannot assign a device for operation '", n->name(), "': it must be colocated with '",
        placed->name(), "', which is placed on ", device->name(), ", but op '",
        n->type_string(), "' has no kernel there"));
  }
  return device;
}

// An Identity that asked for no device and reads a variable is placed with
// the variable (as TensorFlow's Variable.read_value() colocates its
// Identity): the read happens where the value lives.
void ColocateReaders(Graph* graph, const DeviceSet& devices,
                     const std::vector<bool>& placed_before) {
  for (Node* n : graph->op_nodes()) {
    if (placed_before[n->id()]) continue;
    if (n->type_string() != "Identity" || !n->requested_device().empty()) continue;
    absl::StatusOr<const Edge*> in = n->input_edge(0);
    if (!in.ok() || !IsRefType((*in)->src()->output_type((*in)->src_output()))) continue;
    const std::string& var_device = (*in)->src()->assigned_device_name();
    for (Device* d : devices.devices()) {
      if (d->name() == var_device && HasKernel(*n, *d)) {
        n->set_assigned_device_name(var_device);
      }
    }
  }
}

}  // namespace

absl::Status ValidateRequestedDevices(const std::vector<NodeDef>& nodes,
                                      const DeviceSet& devices, const PlacerOptions& options) {
  for (const NodeDef& n : nodes) {
    if (n.device.empty()) continue;
    absl::StatusOr<ParsedDeviceName> spec = ParseDeviceName(n.device);
    if (!spec.ok()) {
      return absl::InvalidArgumentError(
          absl::StrCat("Node '", n.name, "': ", spec.status().message()));
    }
    if (options.allow_soft_placement || !devices.FindMatchingDevices(*spec).empty()) continue;
    return absl::InvalidArgumentError(absl::StrCat(
        "Cannot assign a device for operation '", n.name,
        "': Could not satisfy explicit device specification '", n.device,
        "' because no devices matching that specification are registered in this process; "
        "available devices: ",
        DeviceNames(devices)));
  }
  return absl::OkStatus();
}

absl::Status PlaceGraph(Graph* graph, const DeviceSet& devices, const PlacerOptions& options) {
  if (devices.devices().empty()) return absl::InternalError("no devices to place nodes on");
  // A reference input ties a node to the node whose tensor it refers to, and
  // a resource handle input to the node that made the handle (the resource
  // lives on that device), as TensorFlow's colocation of resource users.
  ColocationGroups groups(graph->num_node_ids());
  for (Node* n : graph->op_nodes()) {
    for (const Edge* e : n->in_edges()) {
      if (e->IsControlEdge() || !e->src()->IsOp()) continue;
      const DataType in_type = n->input_type(e->dst_input());
      if (IsRefType(in_type) || in_type == DT_RESOURCE) groups.Union(e->src()->id(), n->id());
    }
  }
  // Root id -> members in id order.
  std::vector<std::vector<Node*>> members(graph->num_node_ids());
  for (Node* n : graph->op_nodes()) members[groups.Find(n->id())].push_back(n);
  // The nodes placed before this call keep their devices.
  std::vector<bool> placed_before(graph->num_node_ids(), false);
  for (Node* n : graph->op_nodes()) placed_before[n->id()] = !n->assigned_device_name().empty();
  for (const std::vector<Node*>& group : members) {
    if (group.empty()) continue;
    MINITF_ASSIGN_OR_RETURN(Device * d, PlacedDeviceOf(group, devices));
    if (d == nullptr) {
      MINITF_ASSIGN_OR_RETURN(d, PlaceGroup(group, devices, options));
    }
    for (Node* n : group) n->set_assigned_device_name(d->name());
  }
  ColocateReaders(graph, devices, placed_before);
  if (options.log_device_placement) {
    for (Node* n : graph->op_nodes()) {
      if (placed_before[n->id()]) continue;
      LOG(INFO, "{}: ({}): {}", n->name(), n->type_string(), n->assigned_device_name());
    }
  }
  return absl::OkStatus();
}

}  // namespace minitf
