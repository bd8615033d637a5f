#include "stream/cuda/cuda_blas.h"

#include <climits>

#include "absl/strings/str_cat.h"
#include "stream/cuda/cuda_executor.h"
#include "stream/cuda/cuda_status.h"
#include "stream/cuda/cuda_stream.h"

namespace minitf::se::cuda {
namespace {

cublasOperation_t ToCublas(blas::Transpose t) {
  return t == blas::Transpose::kTranspose ? CUBLAS_OP_T : CUBLAS_OP_N;
}

}  // namespace

CudaBlas::CudaBlas(CudaExecutor* parent) : parent_(parent) {}

CudaBlas::~CudaBlas() {
  MutexLock lock(&mu_);
  if (handle_ != nullptr && parent_->Activate().ok()) cublasDestroy(handle_);
}

absl::StatusOr<cublasHandle_t> CudaBlas::Handle() {
  if (handle_ != nullptr) return handle_;
  if (absl::Status active = parent_->Activate(); !active.ok()) return active;
  cublasHandle_t handle = nullptr;
  MINITF_RETURN_IF_CUBLAS_ERROR(cublasCreate(&handle));
  handle_ = handle;
  return handle_;
}

absl::Status CudaBlas::DoBlasGemm(Stream* stream, blas::Transpose transa, blas::Transpose transb,
                                  uint64_t m, uint64_t n, uint64_t k, float alpha,
                                  const DeviceMemory<float>& a, int lda,
                                  const DeviceMemory<float>& b, int ldb, float beta,
                                  DeviceMemory<float>* c, int ldc) {
  CudaStream* cuda_stream = CudaStream::FromStream(stream);
  if (cuda_stream == nullptr || cuda_stream->executor() != parent_) {
    return absl::InvalidArgumentError("cuBLAS gemm needs a stream of the same CUDA device");
  }
  if (m > INT_MAX || n > INT_MAX || k > INT_MAX) {
    return absl::InvalidArgumentError(absl::StrCat("cuBLAS gemm of ", m, "x", k, " by ", k, "x", n,
                                                   ": sizes must fit in an int"));
  }
  if (absl::Status s = cuda_stream->status(); !s.ok()) return s;
  MutexLock lock(&mu_);
  absl::StatusOr<cublasHandle_t> handle = Handle();
  if (!handle.ok()) return handle.status();
  if (absl::Status active = parent_->Activate(); !active.ok()) return active;
  absl::Status s = CublasStatus(cublasSetStream(*handle, cuda_stream->handle()), "cublasSetStream");
  if (s.ok()) {
    s = CublasStatus(cublasSgemm(*handle, ToCublas(transa), ToCublas(transb), static_cast<int>(m),
                                 static_cast<int>(n), static_cast<int>(k), &alpha, a.base(), lda,
                                 b.base(), ldb, &beta, c->base(), ldc),
                     absl::StrCat("cublasSgemm (m=", m, ", n=", n, ", k=", k, ")"));
  }
  if (!s.ok()) return cuda_stream->SetError(s);
  return absl::OkStatus();
}

}  // namespace minitf::se::cuda
