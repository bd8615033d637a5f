// Graph partitioning (TensorFlow's graph_partition.cc): splits a placed graph
// into one GraphDef per device, joined by _Send/_Recv pairs.
//
//   PartitionOptions options;
//   options.get_incarnation = [&](const std::string& device) { return ...; };
//   absl::flat_hash_map<std::string, GraphDef> partitions;
//   MINITF_RETURN_IF_ERROR(Partition(options, graph.get(), &partitions));
//   // partitions["/job:localhost/replica:0/task:0/device:CPU:1"] ...
//
// Every node goes to the partition of its assigned device. A data edge whose
// ends are on different devices becomes a _Send in the producer's partition
// and a _Recv in the consumer's, one pair per (produced tensor, consuming
// device): two consumers of x:0 on CPU:1 share one _Recv. A cross-device
// control edge becomes a Send/Recv of a dummy tensor (a Const that runs
// after the source, sent to a _Recv the consumer then waits on), one pair
// per (source node, consuming device); a dead source makes the dummy dead,
// so deadness crosses devices as it would through a local control edge.
//
// Each transfer's tensor_name is "edge_<id>_<source node>" with the id of
// the first graph edge it carries, unique within the step.
//
// Memory types (runtime/memory_types.h), when PartitionOptions::memory_types
// is set: an end in host memory on a device that is not a CPU gets
// _HostSend / _HostRecv instead of _Send / _Recv, and an edge between two
// nodes of one such device whose ends' memory types differ gets a pair too
// (tensor_name "memtype_edge_<id>_<source node>"), so the rendezvous copies
// between the memories; consumers of one tensor that want it in different
// memories get a _Recv each.
#ifndef MINITF_SESSION_GRAPH_PARTITION_H_
#define MINITF_SESSION_GRAPH_PARTITION_H_

#include <cstdint>
#include <functional>
#include <string>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "runtime/graph.h"
#include "runtime/graph_def.h"

namespace minitf {

struct PartitionOptions {
  // The incarnation of a device (by full name), written into every
  // transfer's send_device_incarnation. When empty, 1 for every device.
  std::function<uint64_t(const std::string& device_name)> get_incarnation;
  // The memory types of a node's inputs and outputs on its assigned device.
  // When empty, every end is taken to be in its device's own memory.
  std::function<absl::Status(const Node& node, MemoryTypeVector* input_types,
                             MemoryTypeVector* output_types)>
      memory_types;
};

// Fills `partitions` (cleared first) with one GraphDef per device that has
// nodes, keyed by the full device name; every NodeDef's `device` is its
// assigned device. `graph` is not modified.
//
// REQUIRES: every op node of `graph` has an assigned device.
// Errors name the node without a device, the edge that would carry a
// reference (a Variable's input of an Assign) across devices or memories,
// or the node whose memory types cannot be found.
absl::Status Partition(const PartitionOptions& options, Graph* graph,
                       absl::flat_hash_map<std::string, GraphDef>* partitions);

}  // namespace minitf

#endif  // MINITF_SESSION_GRAPH_PARTITION_H_
