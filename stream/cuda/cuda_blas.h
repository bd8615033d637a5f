// CudaBlas: the BLAS plugin of a CudaExecutor, over cuBLAS. One cuBLAS
// handle per executor, created on first use and shared by every stream:
// each call takes the lock, points the handle at the caller's stream and
// enqueues the routine there. cuBLAS's default math mode computes sgemm in
// full FP32 (no TF32 tensor cores), so results match the CPU kernels to
// rounding.
//
//   BlasSupport* blas = stream->parent()->AsBlas();
//   MINITF_RETURN_IF_ERROR(blas->DoBlasGemm(stream, Transpose::kNoTranspose, ...));
//
// Owned by its CudaExecutor. Thread-safe.
#ifndef MINITF_STREAM_CUDA_CUDA_BLAS_H_
#define MINITF_STREAM_CUDA_CUDA_BLAS_H_

#include <cublas_v2.h>

#include "absl/base/thread_annotations.h"
#include "absl/status/statusor.h"
#include "platform/mutex.h"
#include "stream/blas.h"

namespace minitf::se::cuda {

class CudaExecutor;

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

 private:
  // Checks `stream` and the sizes, then takes the lock and runs `call` with
  // the handle pointed at the stream; a cuBLAS error becomes the stream's.
  template <typename Call>
  absl::Status Enqueue(Stream* stream, const char* routine, uint64_t m, uint64_t n, uint64_t k,
                       uint64_t batch_count, Call call);
  // The handle, created on the first call.
  absl::StatusOr<cublasHandle_t> Handle() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  CudaExecutor* const parent_;  // Not owned.
  Mutex mu_;
  cublasHandle_t handle_ ABSL_GUARDED_BY(mu_) = nullptr;
};

}  // namespace minitf::se::cuda

#endif  // MINITF_STREAM_CUDA_CUDA_BLAS_H_
