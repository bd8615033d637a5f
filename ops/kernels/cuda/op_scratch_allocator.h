// OpScratchAllocator: a plugin call's scratch (cuDNN workspaces, relaid-out
// operands) as temporary tensors of the calling kernel, from its GPU
// device's allocator, so the memory counts against the device's limit
// (AntMan's maxDeviceMem included) like any other tensor of the step.
//
//   OpScratchAllocator scratch(ctx);
//   dnn->DoConvolve(stream, conv, input, filter, &output, &scratch);
//
// The tensors are held until the allocator is destroyed, after the call has
// enqueued its work; the compute stream orders their next use after it.
// Not thread-safe: one call's helper.
#ifndef MINITF_OPS_KERNELS_CUDA_OP_SCRATCH_ALLOCATOR_H_
#define MINITF_OPS_KERNELS_CUDA_OP_SCRATCH_ALLOCATOR_H_

#include <cstdint>
#include <vector>

#include "absl/status/statusor.h"
#include "runtime/op_kernel.h"
#include "runtime/tensor.h"
#include "stream/scratch_allocator.h"

namespace minitf {

class OpScratchAllocator : public se::ScratchAllocator {
 public:
  // `ctx` is not owned and outlives the allocator.
  explicit OpScratchAllocator(OpKernelContext* ctx) : ctx_(ctx) {}

  // allocate_temp's error (ResourceExhausted naming the node) when the
  // device has no room.
  absl::StatusOr<se::DeviceMemoryBase> AllocateBytes(uint64_t bytes) override;

 private:
  OpKernelContext* const ctx_;
  std::vector<Tensor> held_;
};

}  // namespace minitf

#endif  // MINITF_OPS_KERNELS_CUDA_OP_SCRATCH_ALLOCATOR_H_
