// ScopedKernelTiming: the hook through which a CUDA stream's busy time
// (Stream::BusyTime) is measured. Every code path that puts device work on a
// CudaStream (kernel launches, cuBLAS and cuDNN calls) holds one around its
// launches; the stream's KernelBusyTimer records an event before and after.
//
//   const se::cuda::ScopedKernelTiming timing(stream);
//   MyKernel<<<blocks, threads, 0, CudaStreamOf(stream)>>>(...);
//   blas->DoBlasGemm(stream, ...);
//
// A stream of another platform is not timed (the object does nothing).
// Scopes may nest and overlap across threads: see kernel_busy_timer.h.
#ifndef MINITF_STREAM_CUDA_SCOPED_KERNEL_TIMING_H_
#define MINITF_STREAM_CUDA_SCOPED_KERNEL_TIMING_H_

#include "stream/cuda/cuda_stream.h"
#include "stream/stream.h"

namespace minitf::se::cuda {

class ScopedKernelTiming {
 public:
  // `stream` is not owned and outlives the object. REQUIRES: the stream's
  // device is current on this thread (as for any launch on it).
  explicit ScopedKernelTiming(Stream* stream) : stream_(CudaStream::FromStream(stream)) {
    if (stream_ != nullptr) stream_->BeginKernel();
  }
  ~ScopedKernelTiming() {
    if (stream_ != nullptr) stream_->EndKernel();
  }
  ScopedKernelTiming(const ScopedKernelTiming&) = delete;
  ScopedKernelTiming& operator=(const ScopedKernelTiming&) = delete;

 private:
  CudaStream* const stream_;  // Not owned; nullptr when not a CUDA stream.
};

}  // namespace minitf::se::cuda

#endif  // MINITF_STREAM_CUDA_SCOPED_KERNEL_TIMING_H_
