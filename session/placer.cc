#include "session/placer.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "runtime/kernel_registry.h"
#include "runtime/logging.h"
#include "runtime/status_macros.h"

namespace minitf {

namespace {

std::string DeviceNames(const DeviceSet& devices) {
  std::vector<std::string> names;
  for (Device* d : devices.devices()) names.push_back(d->name());
  return absl::StrJoin(names, ", ");
}

bool HasKernel(const Node& n, const std::string& device_type) {
  return KernelRegistry::Global()->FindKernel(device_type, n.def()).ok();
}

// The first device among `candidates` whose type has a kernel for `n`,
// trying types in priority order.
Device* BestDevice(const Node& n, const std::vector<Device*>& candidates,
                   const std::vector<std::string>& types) {
  for (const std::string& type : types) {
    if (!HasKernel(n, type)) continue;
    for (Device* d : candidates) {
      if (d->device_type() == type) return d;
    }
  }
  return nullptr;
}

absl::StatusOr<Device*> PlaceNode(const Node& n, const DeviceSet& devices,
                                  const PlacerOptions& options) {
  const std::vector<std::string> types = devices.PrioritizedDeviceTypeList();
  std::vector<Device*> candidates = devices.devices();
  if (!n.requested_device().empty()) {
    absl::StatusOr<ParsedDeviceName> spec = ParseDeviceName(n.requested_device());
    if (!spec.ok()) {
      return absl::InvalidArgumentError(
          absl::StrCat("Node '", n.name(), "': ", spec.status().message()));
    }
    std::vector<Device*> matching = devices.FindMatchingDevices(*spec);
    if (!matching.empty()) {
      if (Device* d = BestDevice(n, matching, types)) return d;
      if (!options.allow_soft_placement) {
        return absl::InvalidArgumentError(absl::StrCat(
            "Cannot assign a device for operation '", n.name(), "': op '", n.type_string(),
            "' has no kernel for the requested device '", n.requested_device(), "'"));
      }
    } else if (!options.allow_soft_placement) {
      return absl::InvalidArgumentError(absl::StrCat(
          "Cannot assign a device for operation '", n.name(), "': it asks for device '",
          n.requested_device(), "', but the devices are [", DeviceNames(devices), "]"));
    }
  }
  if (Device* d = BestDevice(n, candidates, types)) return d;
  // No device type has a kernel: report the registry's explanation.
  auto reg = KernelRegistry::Global()->FindKernel(
      types.empty() ? std::string(DEVICE_CPU) : types.front(), n.def());
  return reg.status();
}

}  // namespace

absl::Status PlaceGraph(Graph* graph, const DeviceSet& devices, const PlacerOptions& options) {
  if (devices.devices().empty()) return absl::InternalError("no devices to place nodes on");
  for (Node* n : graph->op_nodes()) {
    MINITF_ASSIGN_OR_RETURN(Device * d, PlaceNode(*n, devices, options));
    n->set_assigned_device_name(d->name());
  }
  // A reference edge ties its consumer to the producer's device.
  for (Node* n : graph->op_nodes()) {
    for (const Edge* e : n->in_edges()) {
      if (e->IsControlEdge() || !IsRefType(n->input_type(e->dst_input()))) continue;
      if (e->src()->assigned_device_name() != n->assigned_device_name()) {
        if (n->requested_device().empty() || options.allow_soft_placement) {
          n->set_assigned_device_name(e->src()->assigned_device_name());
        } else {
          return absl::InvalidArgumentError(absl::StrCat(
              "Cannot colocate node '", n->name(), "' on ", n->assigned_device_name(),
              " with the variable '", e->src()->name(), "' it updates on ",
              e->src()->assigned_device_name()));
        }
      }
    }
  }
  if (options.log_device_placement) {
    for (Node* n : graph->op_nodes()) {
      LOG(INFO, "{}: ({}): {}", n->name(), n->type_string(), n->assigned_device_name());
    }
  }
  return absl::OkStatus();
}

}  // namespace minitf
