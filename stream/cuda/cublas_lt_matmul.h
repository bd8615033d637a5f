// CublasLtMatmul: the gemm with an epilogue that CudaBlas runs through
// cuBLASLt (as TensorFlow's and PyTorch's fused MatMul + BiasAdd on CUDA):
// D = epilogue(op(A) op(B)), the bias added to every column of the
// column-major D, then tanh-GELU for kBiasGeluApproximate, all in the
// product's kernel instead of a second pass over D. TF32 tensor cores while
// TensorFloat32ExecutionEnabled(), FP32 otherwise.
//
//   CublasLtMatmul lt(executor);
//   MINITF_RETURN_IF_ERROR(lt.Run(stream, gemm));  // Unimplemented: no algorithm
//
// The algorithm of each shape, epilogue and math mode is cuBLASLt's first
// heuristic choice within a 4 MiB workspace, asked once and kept. Each call
// leases a cuBLASLt handle of its own (HandlePool). Thread-safe. Owned by
// its CudaBlas.
#ifndef MINITF_STREAM_CUDA_CUBLAS_LT_MATMUL_H_
#define MINITF_STREAM_CUDA_CUBLAS_LT_MATMUL_H_

#include <cublasLt.h>
#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <utility>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "platform/mutex.h"
#include "stream/blas.h"
#include "stream/handle_pool.h"

namespace minitf::se::cuda {

class CudaExecutor;

// cuBLAS's operation for a transpose flag (cuBLAS and cuBLASLt share it).
inline cublasOperation_t ToCublas(blas::Transpose t) {
  return t == blas::Transpose::kTranspose ? CUBLAS_OP_T : CUBLAS_OP_N;
}

// One column-major gemm with an epilogue: op(A) is m x k, op(B) k x n, D
// m x n, the bias m floats.
struct GemmWithEpilogue {
  blas::Transpose transa = blas::Transpose::kNoTranspose;
  blas::Transpose transb = blas::Transpose::kNoTranspose;
  uint64_t m = 0, n = 0, k = 0;
  const float* a = nullptr;
  int lda = 0;
  const float* b = nullptr;
  int ldb = 0;
  float* d = nullptr;
  int ldd = 0;
  blas::Epilogue epilogue = blas::Epilogue::kBias;
  const float* bias = nullptr;
};

class CublasLtMatmul {
 public:
  static constexpr uint64_t kWorkspaceBytes = uint64_t{4} << 20;

  // `parent` is not owned and outlives this.
  explicit CublasLtMatmul(CudaExecutor* parent);
  CublasLtMatmul(const CublasLtMatmul&) = delete;
  CublasLtMatmul& operator=(const CublasLtMatmul&) = delete;

  // Enqueues `g` on `stream` (the parent's, its device current; the sizes
  // fit an int). Unimplemented when cuBLASLt has no algorithm for it; a
  // cuBLASLt or CUDA error otherwise.
  absl::Status Run(cudaStream_t stream, const GemmWithEpilogue& g);

 private:
  struct Key {
    blas::Transpose transa, transb;
    uint64_t m, n, k;
    int lda, ldb, ldd;
    blas::Epilogue epilogue;
    bool tf32;
    bool operator==(const Key&) const = default;
    template <typename H>
    friend H AbslHashValue(H h, const Key& key) {
      return H::combine(std::move(h), key.transa, key.transb, key.m, key.n, key.k, key.lda,
                        key.ldb, key.ldd, key.epilogue, key.tf32);
    }
  };

  // cuBLASLt's heuristic choice and the workspace it needs.
  struct Choice {
    cublasLtMatmulAlgo_t algorithm;
    size_t workspace_bytes;
  };

  CudaExecutor* const parent_;
  HandlePool<cublasLtHandle_t> handles_;
  Mutex mu_;
  absl::flat_hash_map<Key, Choice> choices_ ABSL_GUARDED_BY(mu_);  // Asked once per key.
};

}  // namespace minitf::se::cuda

#endif  // MINITF_STREAM_CUDA_CUBLAS_LT_MATMUL_H_
