// ScratchArena: the temporary device buffers of one plugin call, from the
// caller's ScratchAllocator (the op's device allocator), or without one from
// CudaExecutor::AllocateScratch on the call's stream, all given back on that
// stream when the arena goes out of scope; either way they are reused only
// by work enqueued after the call's.
//
//   ScratchArena scratch(executor, stream, scratch_allocator);
//   absl::StatusOr<void*> workspace = scratch.Allocate(bytes);
//   ... enqueue work using *workspace on `stream` ...
//   // ~ScratchArena returns the buffer in stream order.
//
// Not thread-safe: one call's helper.
#ifndef MINITF_STREAM_CUDA_SCRATCH_ARENA_H_
#define MINITF_STREAM_CUDA_SCRATCH_ARENA_H_

#include <cuda_runtime_api.h>

#include <cstdint>
#include <vector>

#include "absl/status/statusor.h"
#include "stream/device_memory.h"
#include "stream/scratch_allocator.h"

namespace minitf::se::cuda {

class CudaExecutor;

class ScratchArena {
 public:
  // `executor` and `allocator` (nullable) are not owned and outlive the
  // arena.
  ScratchArena(CudaExecutor* executor, cudaStream_t stream, ScratchAllocator* allocator)
      : executor_(executor), stream_(stream), allocator_(allocator) {}
  ~ScratchArena();
  ScratchArena(const ScratchArena&) = delete;
  ScratchArena& operator=(const ScratchArena&) = delete;

  // `bytes` of device memory (nullptr for 0 bytes); ResourceExhausted when
  // the device is full.
  absl::StatusOr<void*> Allocate(uint64_t bytes);
  absl::StatusOr<float*> AllocateFloats(int64_t count);

 private:
  CudaExecutor* const executor_;
  const cudaStream_t stream_;
  ScratchAllocator* const allocator_;
  std::vector<DeviceMemoryBase> buffers_;  // from the executor, to give back
};

}  // namespace minitf::se::cuda

#endif  // MINITF_STREAM_CUDA_SCRATCH_ARENA_H_
