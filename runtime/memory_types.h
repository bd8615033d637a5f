// Memory types (TensorFlow's MemoryTypesForNode): which of a node's inputs
// and outputs live in host memory on its device.
//
//   MemoryTypeVector in, out;
//   MINITF_RETURN_IF_ERROR(MemoryTypesForNode(DEVICE_GPU, "SimGPU", node_def, &in, &out));
//   if (in[1] == HOST_MEMORY) ...   // Reshape's shape: read by host code
//
// On a CPU device everything is HOST_MEMORY. On a device with memory of its
// own (a GPU), an argument is HOST_MEMORY when the kernel chosen for the node
// declares it so (KernelDefBuilder::HostMemory: Shape's output, Reshape's
// shape, reduction axes, Switch's pred), or when its type is int32, as in
// TensorFlow: GPU kernels keep int32 tensors (shapes, indices, loop
// counters) in host memory. Everything else is DEVICE_MEMORY.
//
// What uses them: a kernel's HostMemory outputs are allocated in host memory
// (OpKernelContext::output_alloc_attr), and the partitioner connects two
// ends of an edge whose memory types differ with a _Send/_Recv pair that
// copies between the memories (_HostSend/_HostRecv on a GPU device when the
// tensor is in host memory), within one device as across devices.
#ifndef MINITF_RUNTIME_MEMORY_TYPES_H_
#define MINITF_RUNTIME_MEMORY_TYPES_H_

#include <string>

#include "absl/status/status.h"
#include "runtime/graph_def.h"
#include "runtime/op_def.h"
#include "runtime/types.h"

namespace minitf {

struct KernelDef;

// The memory types of `def`'s inputs and outputs on a device of type
// `device_type` and stream platform `platform` ("" for none), from the
// kernel the registry picks for it. NotFound when no kernel fits (as
// CreateOpKernel's), InvalidArgument when a HostMemory name is not an arg
// of the op (naming both).
absl::Status MemoryTypesForNode(const std::string& device_type, const std::string& platform,
                                const NodeDef& def, MemoryTypeVector* input_types,
                                MemoryTypeVector* output_types);

// The same from the kernel already found, with the node's arg types.
absl::Status MemoryTypesForKernel(const KernelDef& kernel, const NodeDef& def,
                                  const OpDef& op_def, const DataTypeVector& input_dtypes,
                                  const DataTypeVector& output_dtypes,
                                  MemoryTypeVector* input_types, MemoryTypeVector* output_types);

}  // namespace minitf

#endif  // MINITF_RUNTIME_MEMORY_TYPES_H_
