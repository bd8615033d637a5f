// Placement: choose a device for every node of a graph.
//
// A node runs on the device its NodeDef asks for when one matches; with no
// request, on the first device of the highest-priority type that has a
// kernel for it. A request no device matches is an error naming the node and
// the devices there are, unless soft placement is allowed, in which case the
// node is placed as if it had asked for nothing.
//
// Colocation: nodes joined by reference edges (a Variable and the Assign,
// AssignAdd or ApplyGradientDescent that updates it) form one group, placed
// together on a device that has kernels for all of them and matches all of
// their requests; contradicting requests are an error naming both nodes
// (with soft placement, the request of the group's first node wins). An
// Identity that asks for no device and reads a variable goes with the
// variable. Other readers may sit elsewhere: the partitioner sends them the
// variable's value.
//
// Feeds and fetches (_Arg, _Retval) ask for the client device
// (subgraph::RewriteGraphForExecution), so they are placed there.
//
// A node that already has a device (assigned_device_name) keeps it, and so
// does the rest of its colocation group: a session places its whole graph
// once (at Create, then the new nodes at Extend) and each Run's pruned graph
// starts from those devices, so a variable never changes device between
// runs, whatever they fetch (TensorFlow's GraphExecutionState).
#ifndef MINITF_SESSION_PLACER_H_
#define MINITF_SESSION_PLACER_H_

#include <vector>

#include "absl/status/status.h"
#include "device/device_mgr.h"
#include "runtime/graph.h"
#include "runtime/graph_def.h"

namespace minitf {

struct PlacerOptions {
  bool allow_soft_placement = false;
  bool log_device_placement = false;
};

// Sets assigned_device_name() on every op node of `graph` that has none.
// With log_device_placement, logs each node it places, as TensorFlow does
// ("name: (Op): /job:localhost/replica:0/task:0/device:CPU:0").
absl::Status PlaceGraph(Graph* graph, const DeviceSet& devices, const PlacerOptions& options);

// Checks the device each of `nodes` asks for, as Session::Create and Extend
// do before any Run: a request that does not parse is InvalidArgument; one
// that no device of `devices` matches is InvalidArgument naming the node,
// the request and the devices there are, unless soft placement is allowed.
absl::Status ValidateRequestedDevices(const std::vector<NodeDef>& nodes,
                                      const DeviceSet& devices, const PlacerOptions& options);

}  // namespace minitf

#endif  // MINITF_SESSION_PLACER_H_
