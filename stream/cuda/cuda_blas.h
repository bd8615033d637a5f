// CudaBlas: the BLAS plugin of a CudaExecutor, over cuBLAS. Each call leases
// a cuBLAS handle of its own from a pool (one per concurrent caller), points
// it at the caller's stream and enqueues the routine there; no lock is held
// across a cuBLAS call. sgemm uses TF32 tensor cores while
// TensorFloat32ExecutionEnabled() (platform/tensor_float_32.h), cuBLAS's
// FP32 default math otherwise, whose results match the CPU kernels to
// rounding.
//
//   BlasSupport* blas = stream->parent()->AsBlas();
//   MINITF_RETURN_IF_ERROR(blas->DoBlasGemm(stream, Transpose::kNoTranspose, ...));
//
// Owned by its CudaExecutor. Thread-safe.
#ifndef MINITF_STREAM_CUDA_CUDA_BLAS_H_
#define MINITF_STREAM_CUDA_CUDA_BLAS_H_

#include <cublas_v2.h>

#include "absl/status/statusor.h"
#include "stream/blas.h"
#include "stream/cuda/cublas_lt_matmul.h"
#include "stream/handle_pool.h"

namespace minitf::se::cuda {

class CudaExecutor;
class CudaStream;

class CudaBlas : public BlasSupport {
 public:
  // `parent` is not owned and outlives the plugin.
  explicit CudaBlas(CudaExecutor* parent);
  ~CudaBlas() override;
  CudaBlas(const CudaBlas&) = delete;
  CudaBlas& operator=(const CudaBlas&) = delete;

  // InvalidArgument for a stream of another platform or executor, or sizes
  // beyond cuBLAS's int range.
  absl::Status DoBlasGemm(Stream* stream, blas::Transpose transa, blas::Transpose transb,
                          uint64_t m, uint64_t n, uint64_t k, float alpha,
                          const DeviceMemory<float>& a, int lda, const DeviceMemory<float>& b,
                          int ldb, float beta, DeviceMemory<float>* c, int ldc) override;
  // cublasSgemmStridedBatched; the same errors, the batch count included.
  absl::Status DoBlasGemmStridedBatched(Stream* stream, blas::Transpose transa,
                                        blas::Transpose transb, uint64_t m, uint64_t n,
                                        uint64_t k, float alpha, const DeviceMemory<float>& a,
                                        int lda, int64_t stride_a, const DeviceMemory<float>& b,
                                        int ldb, int64_t stride_b, float beta,
                                        DeviceMemory<float>* c, int ldc, int64_t stride_c,
                                        uint64_t batch_count) override;
  // Through cuBLASLt (cublas_lt_matmul.h); Unimplemented when it has no
  // algorithm for the shape (nothing enqueued, the stream unharmed).
  absl::Status DoBlasGemmWithEpilogue(Stream* stream, blas::Transpose transa,
                                      blas::Transpose transb, uint64_t m, uint64_t n, uint64_t k,
                                      const DeviceMemory<float>& a, int lda,
                                      const DeviceMemory<float>& b, int ldb,
                                      DeviceMemory<float>* c, int ldc, blas::Epilogue epilogue,
                                      const DeviceMemory<float>& bias) override;

 private:
  // The CudaStream behind `stream` with its device current, after checking
  // that it is this device's and healthy and that the sizes fit an int.
  absl::StatusOr<CudaStream*> Prepare(Stream* stream, const char* routine, uint64_t m,
                                      uint64_t n, uint64_t k, uint64_t batch_count);
  // Checks `stream` and the sizes, then leases a handle, points it at the
  // stream, sets the math mode and runs `call`; a cuBLAS error becomes the
  // stream's.
  template <typename Call>
  absl::Status Enqueue(Stream* stream, const char* routine, uint64_t m, uint64_t n, uint64_t k,
                       uint64_t batch_count, Call call);
  CudaExecutor* const parent_;  // Not owned.
  HandlePool<cublasHandle_t> handles_;
  CublasLtMatmul lt_;
};

}  // namespace minitf::se::cuda

#endif  // MINITF_STREAM_CUDA_CUDA_BLAS_H_
