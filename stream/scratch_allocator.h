// ScratchAllocator: temporary device memory for one plugin call (cuDNN's
// workspaces, operands relaid out for the library), TensorFlow's
// se::ScratchAllocator. The op kernel making the call provides it, so the
// memory comes from the device's allocator and counts against its limit.
//
//   OpScratchAllocator scratch(ctx);  // ops/kernels/cuda/op_scratch_allocator.h
//   MINITF_RETURN_IF_ERROR(dnn->DoConvolve(stream, conv, input, filter, &output, &scratch));
//
// Memory handed out stays valid until the allocator is destroyed, which the
// caller does after the call has enqueued its work; the call's stream orders
// the memory's next use after that work.
#ifndef MINITF_STREAM_SCRATCH_ALLOCATOR_H_
#define MINITF_STREAM_SCRATCH_ALLOCATOR_H_

#include <cstdint>

#include "absl/status/statusor.h"
#include "stream/device_memory.h"

namespace minitf::se {

class ScratchAllocator {
 public:
  virtual ~ScratchAllocator() = default;

  // `bytes` of device memory; ResourceExhausted when there is no room.
  virtual absl::StatusOr<DeviceMemoryBase> AllocateBytes(uint64_t bytes) = 0;
};

}  // namespace minitf::se

#endif  // MINITF_STREAM_SCRATCH_ALLOCATOR_H_
