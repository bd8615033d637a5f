// CUDA runtime, cuBLAS and cuDNN result codes as absl::Status. The message
// names the call that failed and the code by its name, e.g.
//   "cudaMalloc(&ptr, size) failed: cudaErrorMemoryAllocation (out of memory)".
//
//   MINITF_RETURN_IF_CUDA_ERROR(cudaMemcpyAsync(dst, src, n, kind, stream));
//   absl::Status s = CudaStatus(cudaStreamSynchronize(stream), "cudaStreamSynchronize");
//
// Codes map to absl codes by kind: out of memory -> ResourceExhausted, a bad
// argument -> InvalidArgument, no device or driver -> FailedPrecondition,
// an unsupported request -> Unimplemented, anything else -> Internal.
#ifndef MINITF_STREAM_CUDA_CUDA_STATUS_H_
#define MINITF_STREAM_CUDA_CUDA_STATUS_H_

#include <cublas_v2.h>
#include <cuda_runtime_api.h>
#include <cudnn.h>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"

namespace minitf::se::cuda {

// Ok for cudaSuccess.
absl::Status CudaStatus(cudaError_t error, absl::string_view call);
// Ok for CUBLAS_STATUS_SUCCESS.
absl::Status CublasStatus(cublasStatus_t status, absl::string_view call);
// Ok for CUDNN_STATUS_SUCCESS.
absl::Status CudnnStatus(cudnnStatus_t status, absl::string_view call);

// "CUBLAS_STATUS_ALLOC_FAILED".
const char* CublasStatusName(cublasStatus_t status);

}  // namespace minitf::se::cuda

// Each evaluates `expr` once and returns its Status from the enclosing
// function when it is not a success; the message quotes `expr`.
#define MINITF_RETURN_IF_CUDA_ERROR(expr)                                              \
  do {                                                                                 \
    if (const cudaError_t _minitf_cuda_error = (expr); _minitf_cuda_error != cudaSuccess) \
      return ::minitf::se::cuda::CudaStatus(_minitf_cuda_error, #expr);                \
  } while (0)
#define MINITF_RETURN_IF_CUBLAS_ERROR(expr)                                            \
  do {                                                                                 \
    if (const cublasStatus_t _minitf_cublas_status = (expr);                           \
        _minitf_cublas_status != CUBLAS_STATUS_SUCCESS)                                \
      return ::minitf::se::cuda::CublasStatus(_minitf_cublas_status, #expr);           \
  } while (0)
#define MINITF_RETURN_IF_CUDNN_ERROR(expr)                                             \
  do {                                                                                 \
    if (const cudnnStatus_t _minitf_cudnn_status = (expr);                             \
        _minitf_cudnn_status != CUDNN_STATUS_SUCCESS)                                  \
      return ::minitf::se::cuda::CudnnStatus(_minitf_cudnn_status, #expr);             \
  } while (0)

#endif  // MINITF_STREAM_CUDA_CUDA_STATUS_H_
