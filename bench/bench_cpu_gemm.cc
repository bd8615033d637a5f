// The host's float matrix product on one thread through both libraries of
// functor::GemmUsing (ops/kernels/cpu_gemm.h): oneDNN's sgemm (JIT kernels
// for this processor, what MatMul runs by default) and OpenBLAS (with the
// kernels it chose for this processor at load time), beside Eigen's product
// as this build compiles it (for baseline x86-64 unless the build was
// configured with -march), on the shapes of BERT-base's dense layers (1024
// tokens) and of a ResNet-50 3x3 convolution's im2col product; and both
// libraries' products over an intra-op pool of every core, as MatMul runs
// them. Counter: GFLOP, shown per second.
//
//   build/bin/bench_cpu_gemm
//   OPENBLAS_CORETYPE=Haswell build/bin/bench_cpu_gemm   # OpenBLAS's AVX2 kernels
//   MINITF_MAX_CPU_ISA=avx2 build/bin/bench_cpu_gemm     # oneDNN's AVX2 kernels
#include <cstdint>
#include <string>

#include "Eigen/Core"
#include "benchmark/benchmark.h"
#include "ops/kernels/cpu_gemm.h"
#include "ops/kernels/onednn_host.h"
#include "platform/cpu_info.h"
#include "runtime/threadpool.h"

namespace minitf {
namespace {

using Matrix = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

void SetShape(benchmark::State& state, int64_t m, int64_t n, int64_t k,
              const std::string& label) {
  state.counters["GFLOP"] = benchmark::Counter(
      2.0 * static_cast<double>(m * n * k) * static_cast<double>(state.iterations()) / 1e9,
      benchmark::Counter::kIsRate);
  state.SetLabel(label);
}

std::string LibraryName(functor::GemmLibrary library) {
  return library == functor::GemmLibrary::kOneDnn ? functor::OneDnnName()
                                                  : "OpenBLAS " + functor::GemmCoreName();
}

// One thread, through `library`.
void HostGemm(benchmark::State& state, functor::GemmLibrary library) {
  if (library == functor::GemmLibrary::kOneDnn && !functor::OneDnnEnabled()) {
    state.SkipWithError(("oneDNN is off: " + functor::WhyOneDnnOff()).c_str());
    return;
  }
  const int64_t m = state.range(0), n = state.range(1), k = state.range(2);
  const Matrix a = Matrix::Random(m, k), b = Matrix::Random(k, n);
  Matrix c(m, n);
  functor::GemmArgs<float> g;
  g.m = m;
  g.n = n;
  g.k = k;
  g.a = a.data();
  g.lda = k;
  g.b = b.data();
  g.ldb = n;
  g.c = c.data();
  g.ldc = n;
  for (auto _ : state) {
    functor::GemmUsing<float>(library, nullptr, g);
    benchmark::DoNotOptimize(c.data());
  }
  SetShape(state, m, n, k, LibraryName(library));
}

// The same product split over an intra-op pool of every schedulable CPU,
// as MatMul runs it (functor::Gemm with a device).
void HostGemmPool(benchmark::State& state, functor::GemmLibrary library) {
  if (library == functor::GemmLibrary::kOneDnn && !functor::OneDnnEnabled()) {
    state.SkipWithError(("oneDNN is off: " + functor::WhyOneDnnOff()).c_str());
    return;
  }
  const int64_t m = state.range(0), n = state.range(1), k = state.range(2);
  const Matrix a = Matrix::Random(m, k), b = Matrix::Random(k, n);
  Matrix c(m, n);
  static ThreadPool* pool = new ThreadPool("intra_op", NumSchedulableCPUs());
  for (auto _ : state) {
    functor::GemmUsing<float>(library, &pool->eigen_device(),
                              functor::PackedGemm<float>(false, false, m, n, k, a.data(),
                                                         b.data(), c.data()));
    benchmark::DoNotOptimize(c.data());
  }
  SetShape(state, m, n, k, LibraryName(library));
}

void BM_OneDnnGemm(benchmark::State& state) { HostGemm(state, functor::GemmLibrary::kOneDnn); }
void BM_OpenBlasGemm(benchmark::State& state) {
  HostGemm(state, functor::GemmLibrary::kOpenBlas);
}
void BM_OneDnnGemmPool(benchmark::State& state) {
  HostGemmPool(state, functor::GemmLibrary::kOneDnn);
}
void BM_OpenBlasGemmPool(benchmark::State& state) {
  HostGemmPool(state, functor::GemmLibrary::kOpenBlas);
}

void BM_EigenGemm(benchmark::State& state) {
  const int64_t m = state.range(0), n = state.range(1), k = state.range(2);
  const Matrix a = Matrix::Random(m, k), b = Matrix::Random(k, n);
  Matrix c(m, n);
  for (auto _ : state) {
    c.noalias() = a * b;
    benchmark::DoNotOptimize(c.data());
  }
  SetShape(state, m, n, k, "Eigen");
}

// BERT-base: attention projections, the feed-forward layer in and out; a
// ResNet-50 3x3 convolution of 64 channels at 56x56, batch 2, as im2col.
#define MINITF_GEMM_SHAPES(bm)                                                          \
  BENCHMARK(bm)->Args({1024, 768, 768})->Args({1024, 3072, 768})->Args({1024, 768, 3072}) \
      ->Args({6272, 64, 576})->Unit(benchmark::kMillisecond)
MINITF_GEMM_SHAPES(BM_OneDnnGemm);
MINITF_GEMM_SHAPES(BM_OpenBlasGemm);
MINITF_GEMM_SHAPES(BM_OneDnnGemmPool)->UseRealTime();
MINITF_GEMM_SHAPES(BM_OpenBlasGemmPool)->UseRealTime();
MINITF_GEMM_SHAPES(BM_EigenGemm);

}  // namespace
}  // namespace minitf

BENCHMARK_MAIN();
