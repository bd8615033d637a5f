#include "stream/cuda/cuda_blas.h"

#include <climits>

#include "absl/strings/str_cat.h"
#include "platform/tensor_float_32.h"
#include "stream/cuda/cuda_executor.h"
#include "stream/cuda/cuda_status.h"
#include "stream/cuda/cuda_stream.h"

namespace minitf::se::cuda {
namespace {

absl::StatusOr<cublasHandle_t> CreateHandle() {
  cublasHandle_t handle = nullptr;
  MINITF_RETURN_IF_CUBLAS_ERROR(cublasCreate(&handle));
  return handle;
}

}  // namespace

CudaBlas::CudaBlas(CudaExecutor* parent)
    : parent_(parent),
      handles_(&CreateHandle, [](cublasHandle_t h) { cublasDestroy(h); }),
      lt_(parent) {}

// The pool, destroyed after this body, destroys its handles on the device
// made current here.
CudaBlas::~CudaBlas() { parent_->Activate().IgnoreError(); }

absl::StatusOr<CudaStream*> CudaBlas::Prepare(Stream* stream, const char* routine, uint64_t m,
                                              uint64_t n, uint64_t k, uint64_t batch_count) {
  CudaStream* cuda_stream = CudaStream::FromStream(stream);
  if (cuda_stream == nullptr || cuda_stream->executor() != parent_) {
    return absl::InvalidArgumentError(
        absl::StrCat(routine, " needs a stream of the same CUDA device"));
  }
  if (m > INT_MAX || n > INT_MAX || k > INT_MAX || batch_count > INT_MAX) {
    return absl::InvalidArgumentError(absl::StrCat(routine, " of ", batch_count, " x ", m, "x", k,
                                                   " by ", k, "x", n,
                                                   ": sizes must fit in an int"));
  }
  if (absl::Status s = cuda_stream->status(); !s.ok()) return s;
  if (absl::Status active = parent_->Activate(); !active.ok()) return active;
  return cuda_stream;
}

template <typename Call>
absl::Status CudaBlas::Enqueue(Stream* stream, const char* routine, uint64_t m, uint64_t n,
                               uint64_t k, uint64_t batch_count, Call call) {
  absl::StatusOr<CudaStream*> prepared = Prepare(stream, routine, m, n, k, batch_count);
  if (!prepared.ok()) return prepared.status();
  CudaStream* cuda_stream = *prepared;
  absl::StatusOr<HandlePool<cublasHandle_t>::Lease> handle = handles_.Acquire();
  if (!handle.ok()) return handle.status();
  absl::Status s =
      CublasStatus(cublasSetStream(handle->get(), cuda_stream->handle()), "cublasSetStream");
  if (s.ok()) {
    const cublasMath_t math =
        TensorFloat32ExecutionEnabled() ? CUBLAS_TF32_TENSOR_OP_MATH : CUBLAS_DEFAULT_MATH;
    s = CublasStatus(cublasSetMathMode(handle->get(), math), "cublasSetMathMode");
  }
  if (s.ok()) {
    s = CublasStatus(call(handle->get()), absl::StrCat(routine, " (m=", m, ", n=", n, ", k=", k,
                                                       ", batch=", batch_count, ")"));
  }
  if (!s.ok()) return cuda_stream->SetError(s);
  return absl::OkStatus();
}

absl::Status CudaBlas::DoBlasGemm(Stream* stream, blas::Transpose transa, blas::Transpose transb,
                                  uint64_t m, uint64_t n, uint64_t k, float alpha,
                                  const DeviceMemory<float>& a, int lda,
                                  const DeviceMemory<float>& b, int ldb, float beta,
                                  DeviceMemory<float>* c, int ldc) {
  return Enqueue(stream, "cublasSgemm", m, n, k, 1, [&](cublasHandle_t handle) {
    return cublasSgemm(handle, ToCublas(transa), ToCublas(transb), static_cast<int>(m),
                       static_cast<int>(n), static_cast<int>(k), &alpha, a.base(), lda, b.base(),
                       ldb, &beta, c->base(), ldc);
  });
}

absl::Status CudaBlas::DoBlasGemmStridedBatched(
    Stream* stream, blas::Transpose transa, blas::Transpose transb, uint64_t m, uint64_t n,
    uint64_t k, float alpha, const DeviceMemory<float>& a, int lda, int64_t stride_a,
    const DeviceMemory<float>& b, int ldb, int64_t stride_b, float beta, DeviceMemory<float>* c,
    int ldc, int64_t stride_c, uint64_t batch_count) {
  return Enqueue(stream, "cublasSgemmStridedBatched", m, n, k, batch_count,
                 [&](cublasHandle_t handle) {
                   return cublasSgemmStridedBatched(
                       handle, ToCublas(transa), ToCublas(transb), static_cast<int>(m),
                       static_cast<int>(n), static_cast<int>(k), &alpha, a.base(), lda, stride_a,
                       b.base(), ldb, stride_b, &beta, c->base(), ldc, stride_c,
                       static_cast<int>(batch_count));
                 });
}

absl::Status CudaBlas::DoBlasGemmWithEpilogue(Stream* stream, blas::Transpose transa,
                                              blas::Transpose transb, uint64_t m, uint64_t n,
                                              uint64_t k, const DeviceMemory<float>& a, int lda,
                                              const DeviceMemory<float>& b, int ldb,
                                              DeviceMemory<float>* c, int ldc,
                                              blas::Epilogue epilogue,
                                              const DeviceMemory<float>& bias) {
  absl::StatusOr<CudaStream*> prepared = Prepare(stream, "cublasLtMatmul", m, n, k, 1);
  if (!prepared.ok()) return prepared.status();
  const GemmWithEpilogue g{transa, transb, m, n, k, a.base(), lda, b.base(), ldb, c->base(), ldc,
                           epilogue, bias.base()};
  absl::Status s = lt_.Run((*prepared)->handle(), g);
  // No algorithm: nothing was enqueued, and the caller falls back.
  if (s.ok() || absl::IsUnimplemented(s)) return s;
  return (*prepared)->SetError(s);
}

}  // namespace minitf::se::cuda
