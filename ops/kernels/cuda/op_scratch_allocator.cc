#include "ops/kernels/cuda/op_scratch_allocator.h"

#include <utility>

#include "ops/kernels/cuda/cuda_kernel_helpers.h"
#include "platform/status_macros.h"

namespace minitf {

absl::StatusOr<se::DeviceMemoryBase> OpScratchAllocator::AllocateBytes(uint64_t bytes) {
  Tensor scratch;
  MINITF_RETURN_IF_ERROR(AllocateScratch(ctx_, static_cast<int64_t>(bytes), &scratch));
  se::DeviceMemoryBase memory(ScratchOf(scratch), bytes);
  held_.push_back(std::move(scratch));
  return memory;
}

}  // namespace minitf
