// Op definitions: _Send and _Recv, the two ends of a cross-device edge.
//
// Graph partitioning (session/graph_partition.h) replaces every edge whose
// ends run on different devices by a _Send in the producer's partition and a
// _Recv in the consumer's. The pair meets in the step's Rendezvous under the
// key Rendezvous::CreateKey(send_device, send_device_incarnation,
// recv_device, tensor_name). Attrs as in TensorFlow.
#include "runtime/op_registry.h"
#include "runtime/shape_inference.h"

namespace minitf {

REGISTER_OP("_Send")
    .Input("tensor: T")
    .Attr("T: type")
    .Attr("tensor_name: string")
    .Attr("send_device: string")
    .Attr("send_device_incarnation: int")
    .Attr("recv_device: string")
    // True when the receiver is the client (outside the graph); minitf's
    // session never sets it, it is kept for TensorFlow's attr set.
    .Attr("client_terminated: bool = false")
    .SetIsStateful()
    .SetShapeFn(shape_fns::UnknownShape);

REGISTER_OP("_Recv")
    .Output("tensor: tensor_type")
    .Attr("tensor_type: type")
    .Attr("tensor_name: string")
    .Attr("send_device: string")
    .Attr("send_device_incarnation: int")
    .Attr("recv_device: string")
    .Attr("client_terminated: bool = false")
    .SetIsStateful()
    .SetShapeFn(shape_fns::UnknownShape);

}  // namespace minitf
