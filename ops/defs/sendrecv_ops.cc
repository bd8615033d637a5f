// Op definitions: _Send and _Recv, the two ends of a cross-device edge, and
// _HostSend and _HostRecv, the same for a tensor in host memory.
//
// Graph partitioning (session/graph_partition.h) replaces every edge whose
// ends run on different devices by a _Send in the producer's partition and a
// _Recv in the consumer's. The pair meets in the step's Rendezvous under the
// key Rendezvous::CreateKey(send_device, send_device_incarnation,
// recv_device, tensor_name). Attrs as in TensorFlow.
//
// On a device with memory of its own (a GPU), _HostSend takes and _HostRecv
// gives its tensor in host memory (a HostMemory arg, memory_types.h); the
// partitioner uses them where an edge's end is in host memory, and also to
// join two ends on one device whose memory types differ.
#include "runtime/op_registry.h"
#include "runtime/shape_inference.h"

namespace minitf {
namespace {

// The attrs both ends share, and the end's tensor.
OpDefBuilder TransferOp(const char* name, bool sends) {
  OpDefBuilder builder(name);
  if (sends) {
    builder.Input("tensor: T").Attr("T: type");
  } else {
    builder.Output("tensor: tensor_type").Attr("tensor_type: type");
  }
  builder.Attr("tensor_name: string")
      .Attr("send_device: string")
      .Attr("send_device_incarnation: int")
      .Attr("recv_device: string")
      // True when the receiver is the client (outside the graph); minitf's
      // session never sets it, it is kept for TensorFlow's attr set.
      .Attr("client_terminated: bool = false")
      .SetIsStateful()
      .SetShapeFn(shape_fns::UnknownShape);
  return builder;
}

const register_op::OpDefBuilderReceiver kSend = TransferOp("_Send", true);
const register_op::OpDefBuilderReceiver kRecv = TransferOp("_Recv", false);
const register_op::OpDefBuilderReceiver kHostSend = TransferOp("_HostSend", true);
const register_op::OpDefBuilderReceiver kHostRecv = TransferOp("_HostRecv", false);

}  // namespace
}  // namespace minitf
