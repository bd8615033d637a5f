// Matrix products of row-major float and double matrices on the host.
// Float products go through oneDNN's GEMM (dnnl_sgemm, as TensorFlow's x86
// builds multiply, JIT kernels for the processor's widest vector unit)
// whenever oneDNN is on (onednn_host.h: unless TF_ENABLE_ONEDNN_OPTS=0 or
// MINITF_MAX_CPU_ISA=baseline); double products, and float ones with
// oneDNN off, through OpenBLAS (Debian's build, DYNAMIC_ARCH: it picks the
// kernels for the processor it runs on, AVX-512, AVX2 or SSE, when the
// library loads; OPENBLAS_CORETYPE=Haswell, say, forces a narrower one).
// The CPU kernels of MatMul, BatchMatMul and the convolutions' im2col path
// (conv_functors.h) call these; other dtypes stay with Eigen.
//
//   // c[m, n] = a[m, k] * b[k, n], over ctx's intra-op threads:
//   functor::Gemm<float>(&ctx->eigen_cpu_device(),
//                        functor::PackedGemm<float>(false, false, m, n, k, a, b, c));
//
// Either library runs single-threaded in each call: the parallelism is the
// intra-op pool's, which splits a product into blocks of rows or columns,
// so a kernel never runs two thread pools' worth of threads at once.
// Thread-safe: calls with distinct outputs may run concurrently.
#ifndef MINITF_OPS_KERNELS_CPU_GEMM_H_
#define MINITF_OPS_KERNELS_CPU_GEMM_H_

#include <cstdint>
#include <string>

#ifndef EIGEN_USE_THREADS
#define EIGEN_USE_THREADS
#endif
#include "unsupported/Eigen/CXX11/Tensor"

namespace minitf::functor {

// c = op(a) * op(b) + beta * c, op(x) being x or its transpose. Sizes are
// op(a): [m, k], op(b): [k, n], c: [m, n]; ld* are the row strides of the
// matrices as stored (a is [k, m] in memory when transpose_a).
template <typename T>
struct GemmArgs {
  bool transpose_a = false;
  bool transpose_b = false;
  int64_t m = 0;
  int64_t n = 0;
  int64_t k = 0;
  const T* a = nullptr;
  int64_t lda = 0;
  const T* b = nullptr;
  int64_t ldb = 0;
  T beta = T(0);
  T* c = nullptr;
  int64_t ldc = 0;
};

// The product of tightly packed matrices (every row stride the row's
// length): c[m, n] = op(a) * op(b) + beta * c, with a stored [m, k] ([k, m]
// when transpose_a) and b stored [k, n] ([n, k] when transpose_b).
template <typename T>
GemmArgs<T> PackedGemm(bool transpose_a, bool transpose_b, int64_t m, int64_t n, int64_t k,
                       const T* a, const T* b, T* c, T beta = T(0)) {
  GemmArgs<T> g;
  g.transpose_a = transpose_a;
  g.transpose_b = transpose_b;
  g.m = m;
  g.n = n;
  g.k = k;
  g.a = a;
  g.lda = transpose_a ? m : k;
  g.b = b;
  g.ldb = transpose_b ? k : n;
  g.beta = beta;
  g.c = c;
  g.ldc = n;
  return g;
}

// The libraries a product may run in.
enum class GemmLibrary { kOneDnn, kOpenBlas };

// What Gemm<T> uses: oneDNN for float when it is on, else OpenBLAS.
template <typename T>
GemmLibrary DefaultGemmLibrary();

// T: float or double. `device` null: on the calling thread only (for
// callers that split their work over the pool themselves). Returns when c
// is complete. REQUIRES: c overlaps neither a nor b; m, n, k < 2^31.
template <typename T>
void Gemm(const Eigen::ThreadPoolDevice* device, const GemmArgs<T>& args);

// Gemm in the library given (kOneDnn: float only, and oneDNN on; a block
// oneDNN refuses runs in OpenBLAS, logged once). For tests and benchmarks
// that set the two side by side.
template <typename T>
void GemmUsing(GemmLibrary library, const Eigen::ThreadPoolDevice* device,
               const GemmArgs<T>& args);

// The OpenBLAS kernel family serving this process ("SkylakeX", "Haswell",
// "Prescott", ...).
std::string GemmCoreName();

// What multiplies on the host, as `minitf run --profile` reports it:
// "float: oneDNN 2.6.3, up to avx512; double: OpenBLAS, SkylakeX kernels",
// or "OpenBLAS, SkylakeX kernels (TF_ENABLE_ONEDNN_OPTS=0)".
std::string HostMatrixProductName();

}  // namespace minitf::functor

#endif  // MINITF_OPS_KERNELS_CPU_GEMM_H_
