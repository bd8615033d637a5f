#include "ops/kernels/cpu_gemm.h"

#include <cblas.h>

#include <algorithm>
#include <atomic>
#include <mutex>
#include <type_traits>

#include "absl/strings/str_cat.h"
#include "oneapi/dnnl/dnnl.h"
#include "ops/kernels/onednn_host.h"
#include "platform/logging.h"

namespace minitf::functor {
namespace {

// Below this many multiply-adds a product stays on the calling thread: a
// hand-off to the pool costs microseconds.
constexpr int64_t kMinMultiplyAddsPerShard = int64_t{1} << 18;

void UseOneOpenBlasThread() {
  static std::once_flag once;
  std::call_once(once, [] { openblas_set_num_threads(1); });
}

CBLAS_TRANSPOSE Op(bool transpose) { return transpose ? CblasTrans : CblasNoTrans; }

void OpenBlas(const GemmArgs<float>& g) {
  cblas_sgemm(CblasRowMajor, Op(g.transpose_a), Op(g.transpose_b), static_cast<int>(g.m),
              static_cast<int>(g.n), static_cast<int>(g.k), 1.0f, g.a, static_cast<int>(g.lda),
              g.b, static_cast<int>(g.ldb), g.beta, g.c, static_cast<int>(g.ldc));
}

void OpenBlas(const GemmArgs<double>& g) {
  cblas_dgemm(CblasRowMajor, Op(g.transpose_a), Op(g.transpose_b), static_cast<int>(g.m),
              static_cast<int>(g.n), static_cast<int>(g.k), 1.0, g.a, static_cast<int>(g.lda),
              g.b, static_cast<int>(g.ldb), g.beta, g.c, static_cast<int>(g.ldc));
}

// oneDNN's sgemm (row-major, as cblas_sgemm with CblasRowMajor) on this
// thread alone; a block it refuses goes to OpenBLAS (logged once).
void OneDnn(const GemmArgs<float>& g) {
  PrepareOneDnnCall(1);
  const dnnl_status_t status = dnnl_sgemm(
      g.transpose_a ? 'T' : 'N', g.transpose_b ? 'T' : 'N', g.m, g.n, g.k, 1.0f, g.a, g.lda, g.b,
      g.ldb, g.beta, g.c, g.ldc);
  if (status == dnnl_success) return;
  static std::atomic<bool> logged{false};
  if (!logged.exchange(true)) {
    LOG(WARNING, "oneDNN's sgemm refused a {}x{}x{} product (status {}); OpenBLAS computes it",
        g.m, g.n, g.k, static_cast<int>(status));
  }
  OpenBlas(g);
}

void OneDnn(const GemmArgs<double>& g) { OpenBlas(g); }  // oneDNN has no dgemm.

template <typename T>
void Blas(GemmLibrary library, const GemmArgs<T>& g) {
  if (library == GemmLibrary::kOneDnn) {
    OneDnn(g);
  } else {
    OpenBlas(g);
  }
}

// Rows [begin, end) of c: the same rows of op(a), all of op(b).
template <typename T>
GemmArgs<T> Rows(GemmArgs<T> g, int64_t begin, int64_t end) {
  g.a += g.transpose_a ? begin : begin * g.lda;
  g.c += begin * g.ldc;
  g.m = end - begin;
  return g;
}

// Columns [begin, end) of c: all of op(a), the same columns of op(b).
template <typename T>
GemmArgs<T> Columns(GemmArgs<T> g, int64_t begin, int64_t end) {
  g.b += g.transpose_b ? begin * g.ldb : begin;
  g.c += begin;
  g.n = end - begin;
  return g;
}

}  // namespace

template <typename T>
GemmLibrary DefaultGemmLibrary() {
  return std::is_same_v<T, float> && OneDnnEnabled() ? GemmLibrary::kOneDnn
                                                     : GemmLibrary::kOpenBlas;
}

template <typename T>
void Gemm(const Eigen::ThreadPoolDevice* device, const GemmArgs<T>& args) {
  GemmUsing(DefaultGemmLibrary<T>(), device, args);
}

template <typename T>
void GemmUsing(GemmLibrary library, const Eigen::ThreadPoolDevice* device,
               const GemmArgs<T>& args) {
  if (args.m == 0 || args.n == 0) return;
  if (args.k == 0) {
    // op(a) * op(b) is zero; BLAS leaves beta * c, which for beta == 0 must
    // not read c (it may hold NaN).
    for (int64_t i = 0; i < args.m; ++i) {
      T* row = args.c + i * args.ldc;
      for (int64_t j = 0; j < args.n; ++j) row[j] = args.beta == T(0) ? T(0) : args.beta * row[j];
    }
    return;
  }
  UseOneOpenBlasThread();
  const int64_t work = args.m * args.n * args.k;
  const int64_t threads = device == nullptr ? 1 : device->numThreads();
  const int64_t shards = std::min(threads, std::max<int64_t>(1, work / kMinMultiplyAddsPerShard));
  if (shards <= 1) {
    Blas(library, args);
    return;
  }
  // Split the longer side of c, so each block's product stays large.
  const bool by_rows = args.m >= args.n;
  const int64_t extent = by_rows ? args.m : args.n;
  const int64_t blocks = std::min(shards, extent);
  // The blocks run on the pool's threads, the calling thread waiting: were
  // it to compute a block too, two products running side by side (the
  // gradients of one layer, on two inter-op threads) would keep one thread
  // more than the pool has on the cores, each block sliced in time with
  // another and losing its cache. A caller that is one of the pool's own
  // threads takes the last block: its core would idle otherwise.
  const bool caller_computes = device->currentThreadId() >= 0;
  Eigen::Barrier done(static_cast<unsigned>(blocks));
  for (int64_t b = 0; b < blocks; ++b) {
    const int64_t begin = extent * b / blocks;
    const int64_t end = extent * (b + 1) / blocks;
    auto run = [library, &args, &done, by_rows, begin, end] {
      Blas(library, by_rows ? Rows(args, begin, end) : Columns(args, begin, end));
      done.Notify();
    };
    if (caller_computes && b + 1 == blocks) {
      run();
    } else {
      device->enqueueNoNotification(run);
    }
  }
  done.Wait();
}

template GemmLibrary DefaultGemmLibrary<float>();
template GemmLibrary DefaultGemmLibrary<double>();
template void Gemm<float>(const Eigen::ThreadPoolDevice*, const GemmArgs<float>&);
template void Gemm<double>(const Eigen::ThreadPoolDevice*, const GemmArgs<double>&);
template void GemmUsing<float>(GemmLibrary, const Eigen::ThreadPoolDevice*,
                               const GemmArgs<float>&);
template void GemmUsing<double>(GemmLibrary, const Eigen::ThreadPoolDevice*,
                                const GemmArgs<double>&);

std::string GemmCoreName() {
  const char* name = openblas_get_corename();
  return name == nullptr ? "unknown" : name;
}

std::string HostMatrixProductName() {
  const std::string openblas = absl::StrCat("OpenBLAS, ", GemmCoreName(), " kernels");
  if (!OneDnnEnabled()) return absl::StrCat(openblas, " (", WhyOneDnnOff(), ")");
  return absl::StrCat("float: ", OneDnnName(), "; double: ", openblas);
}

}  // namespace minitf::functor
