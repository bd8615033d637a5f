#include "stream/cuda/scratch_arena.h"

#include "stream/cuda/cuda_executor.h"

namespace minitf::se::cuda {

ScratchArena::~ScratchArena() {
  for (DeviceMemoryBase& buffer : buffers_) {
    // A failure here leaves the buffer to the pool; nothing else can be done.
    executor_->DeallocateScratch(stream_, &buffer).IgnoreError();
  }
}

absl::StatusOr<void*> ScratchArena::Allocate(uint64_t bytes) {
  if (bytes == 0) return nullptr;
  if (allocator_ != nullptr) {
    absl::StatusOr<DeviceMemoryBase> buffer = allocator_->AllocateBytes(bytes);
    if (!buffer.ok()) return buffer.status();
    return buffer->opaque();
  }
  absl::StatusOr<DeviceMemoryBase> buffer = executor_->AllocateScratch(stream_, bytes);
  if (!buffer.ok()) return buffer.status();
  buffers_.push_back(*buffer);
  return buffer->opaque();
}

absl::StatusOr<float*> ScratchArena::AllocateFloats(int64_t count) {
  absl::StatusOr<void*> buffer = Allocate(static_cast<uint64_t>(count) * sizeof(float));
  if (!buffer.ok()) return buffer.status();
  return static_cast<float*>(*buffer);
}

}  // namespace minitf::se::cuda
