// BlasSupport: the BLAS plugin of a StreamExecutor (cuBLAS on CUDA, Eigen on
// SimGPU). Matrices are column-major, as in BLAS; a row-major caller computes
// C^T = B^T A^T by swapping the operands.
//
//   BlasSupport* blas = stream->parent()->AsBlas();
//   MINITF_RETURN_IF_ERROR(blas->DoBlasGemm(stream, Transpose::kNoTranspose,
//       Transpose::kNoTranspose, m, n, k, 1.0f, a, m, b, k, 0.0f, &c, m));
//   // Many equally shaped products in one call (BatchMatMul):
//   MINITF_RETURN_IF_ERROR(blas->DoBlasGemmStridedBatched(stream, ..., a, m, m * k,
//       b, k, k * n, 0.0f, &c, m, m * n, batch));
//
//   // The bias (and a GELU) in the product's kernel, where the plugin can:
//   absl::Status s = blas->DoBlasGemmWithEpilogue(stream, ..., &c, m,
//       blas::Epilogue::kBias, bias);  // Unimplemented: add it yourself
//
// The call enqueues the work on `stream`; it returns enqueue-time errors.
#ifndef MINITF_STREAM_BLAS_H_
#define MINITF_STREAM_BLAS_H_

#include <cstdint>

#include "absl/status/status.h"
#include "stream/device_memory.h"

namespace minitf::se {

class Stream;

namespace blas {
enum class Transpose { kNoTranspose, kTranspose };
// What a gemm applies to its product in the product's own kernel: the bias
// (a vector along the rows of the column-major C, so along a row-major
// product's last dimension), then nothing or tanh-GELU.
enum class Epilogue { kBias, kBiasGeluApproximate };
}  // namespace blas

class BlasSupport {
 public:
  virtual ~BlasSupport() = default;

  // C = alpha * op(A) * op(B) + beta * C, with op(A) m x k, op(B) k x n.
  virtual absl::Status DoBlasGemm(Stream* stream, blas::Transpose transa,
                                  blas::Transpose transb, uint64_t m, uint64_t n, uint64_t k,
                                  float alpha, const DeviceMemory<float>& a, int lda,
                                  const DeviceMemory<float>& b, int ldb, float beta,
                                  DeviceMemory<float>* c, int ldc) = 0;

  // For i in [0, batch_count): C_i = alpha * op(A_i) * op(B_i) + beta * C_i,
  // where A_i starts stride_a elements after A_{i-1} (likewise B_i, C_i).
  // Unimplemented on a platform whose plugin has no batched routine.
  virtual absl::Status DoBlasGemmStridedBatched(
      Stream* /*stream*/, blas::Transpose /*transa*/, blas::Transpose /*transb*/,
      uint64_t /*m*/, uint64_t /*n*/, uint64_t /*k*/, float /*alpha*/,
      const DeviceMemory<float>& /*a*/, int /*lda*/, int64_t /*stride_a*/,
      const DeviceMemory<float>& /*b*/, int /*ldb*/, int64_t /*stride_b*/, float /*beta*/,
      DeviceMemory<float>* /*c*/, int /*ldc*/, int64_t /*stride_c*/, uint64_t /*batch_count*/) {
    return absl::UnimplementedError("this BLAS plugin has no strided batched gemm");
  }

  // C = epilogue(op(A) * op(B)), op(A) m x k, op(B) k x n, `bias` m floats
  // added to every column. Unimplemented where the plugin has no such
  // routine or none for the shape: the caller then adds the bias itself.
  virtual absl::Status DoBlasGemmWithEpilogue(
      Stream* /*stream*/, blas::Transpose /*transa*/, blas::Transpose /*transb*/,
      uint64_t /*m*/, uint64_t /*n*/, uint64_t /*k*/, const DeviceMemory<float>& /*a*/,
      int /*lda*/, const DeviceMemory<float>& /*b*/, int /*ldb*/, DeviceMemory<float>* /*c*/,
      int /*ldc*/, blas::Epilogue /*epilogue*/, const DeviceMemory<float>& /*bias*/) {
    return absl::UnimplementedError("this BLAS plugin has no gemm with an epilogue");
  }
};

}  // namespace minitf::se

#endif  // MINITF_STREAM_BLAS_H_
