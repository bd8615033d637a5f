// SimGPUBlas: the BLAS plugin of a SimGPU executor. DoBlasGemm launches a
// host kernel on the stream that computes the product with Eigen over the
// device memory (column-major, as blas.h says), with the cost
// flops = 2mnk, device_bytes = 4 (mk + kn + 2mn) (A and B read, C read and
// written), so it takes the device's compute engine for its modeled time.
//
//   BlasSupport* blas = executor->AsBlas();
//   blas->DoBlasGemm(stream, Transpose::kNoTranspose, Transpose::kTranspose,
//                    m, n, k, 1.0f, a, m, b, n, 0.0f, &c, m);
//
// Thread-safe (stateless). Owned by its SimGPUExecutor.
#ifndef MINITF_STREAM_SIM_GPU_SIM_GPU_BLAS_H_
#define MINITF_STREAM_SIM_GPU_SIM_GPU_BLAS_H_

#include <cstdint>

#include "stream/blas.h"

namespace minitf::se {

class StreamExecutor;

class SimGPUBlas : public BlasSupport {
 public:
  // `executor` is the owner (not owned); gemms must be enqueued on its streams.
  explicit SimGPUBlas(StreamExecutor* executor) : executor_(executor) {}

  // With beta == 0, C is not read (it may hold anything). InvalidArgument
  // when a leading dimension is too small for its matrix, a buffer is too
  // small for the matrix it holds, or `stream` is not of this executor.
  absl::Status DoBlasGemm(Stream* stream, blas::Transpose transa, blas::Transpose transb,
                          uint64_t m, uint64_t n, uint64_t k, float alpha,
                          const DeviceMemory<float>& a, int lda, const DeviceMemory<float>& b,
                          int ldb, float beta, DeviceMemory<float>* c, int ldc) override;

 private:
  StreamExecutor* const executor_;
};

}  // namespace minitf::se

#endif  // MINITF_STREAM_SIM_GPU_SIM_GPU_BLAS_H_
