#include "ops/kernels/cuda/op_scratch_allocator.h"

#include <utility>

#include "platform/status_macros.h"

namespace minitf {

absl::StatusOr<se::DeviceMemoryBase> OpScratchAllocator::AllocateBytes(uint64_t bytes) {
  // minitf's dtypes have no bytes; doubles hold the size rounded up.
  const auto words = static_cast<int64_t>((bytes + sizeof(double) - 1) / sizeof(double));
  Tensor scratch;
  MINITF_RETURN_IF_ERROR(ctx_->allocate_temp(DT_DOUBLE, TensorShape({words}), &scratch));
  se::DeviceMemoryBase memory(scratch.data<double>(), bytes);
  held_.push_back(std::move(scratch));
  return memory;
}

}  // namespace minitf
