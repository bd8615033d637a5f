// A broadcasting Mul on the host, BERT's three shapes of it, two ways over
// an intra-op pool of every schedulable CPU: row by row
// (ops/kernels/cpu_broadcast_rows.h, what the kernels run) and as Eigen's
// broadcast expression of the merged view (what they ran before, the
// baseline). Counter: result elements per second.
//
//   build/bin/bench_cpu_broadcast --benchmark_min_time=1
#include <cstdint>
#include <vector>

#include "benchmark/benchmark.h"
#include "ops/kernels/cpu_broadcast_rows.h"
#include "ops/kernels/cwise_ops_common.h"
#include "ops/util/bcast.h"
#include "platform/cpu_info.h"
#include "runtime/threadpool.h"

namespace minitf {
namespace {

ThreadPool& Pool() {
  static ThreadPool* pool = new ThreadPool("intra_op", NumSchedulableCPUs());
  return *pool;
}

// 0: layer normalization's scale, [1024, 768] by [768]; 1: its
// normalization, [1024, 768] by [1024, 1]; 2: the attention mask,
// [8, 12, 128, 128] by [8, 1, 1, 128].
BCast Shapes(int64_t which) {
  const TensorShape x = which == 2 ? TensorShape({8, 12, 128, 128}) : TensorShape({1024, 768});
  const TensorShape y = which == 0   ? TensorShape({768})
                        : which == 1 ? TensorShape({1024, 1})
                                     : TensorShape({8, 1, 1, 128});
  return *BCast::Make(x, y);
}

int64_t Product(const BCast::Dims& dims) {
  int64_t n = 1;
  for (int64_t d : dims) n *= d;
  return n;
}

void BM_Rows(benchmark::State& state) {
  const BCast b = Shapes(state.range(0));
  const std::vector<float> x(Product(b.x_reshape()), 1.5f), y(Product(b.y_reshape()), 0.5f);
  std::vector<float> z(Product(b.result_dims()));
  const functor::BroadcastRows rows = *functor::BroadcastRowsOf(b);
  for (auto _ : state) {
    functor::CombineRows<float>(Pool().eigen_device(), rows, x.data(), y.data(), z.data(),
                                [](const auto& p, const auto& q) { return p * q; });
    benchmark::DoNotOptimize(z.data());
  }
  state.SetItemsProcessed(state.iterations() * static_cast<int64_t>(z.size()));
}
BENCHMARK(BM_Rows)->Arg(0)->Arg(1)->Arg(2)->UseRealTime();

template <int N>
void EigenBroadcast(const BCast& b, const float* x, const float* y, float* z) {
  const Eigen::TensorMap<Eigen::Tensor<const float, N, Eigen::RowMajor>> xm(
      x, ToEigenArray<N>(b.x_reshape()));
  const Eigen::TensorMap<Eigen::Tensor<const float, N, Eigen::RowMajor>> ym(
      y, ToEigenArray<N>(b.y_reshape()));
  Eigen::TensorMap<Eigen::Tensor<float, N, Eigen::RowMajor>> zm(z,
                                                                ToEigenArray<N>(b.result_dims()));
  zm.device(Pool().eigen_device()) =
      xm.broadcast(ToEigenArray<N>(b.x_bcast())) * ym.broadcast(ToEigenArray<N>(b.y_bcast()));
}

void BM_EigenBroadcast(benchmark::State& state) {
  const BCast b = Shapes(state.range(0));
  const std::vector<float> x(Product(b.x_reshape()), 1.5f), y(Product(b.y_reshape()), 0.5f);
  std::vector<float> z(Product(b.result_dims()));
  for (auto _ : state) {
    if (b.rank() == 2) {
      EigenBroadcast<2>(b, x.data(), y.data(), z.data());
    } else {
      EigenBroadcast<3>(b, x.data(), y.data(), z.data());
    }
    benchmark::DoNotOptimize(z.data());
  }
  state.SetItemsProcessed(state.iterations() * static_cast<int64_t>(z.size()));
}
BENCHMARK(BM_EigenBroadcast)->Arg(0)->Arg(1)->Arg(2)->UseRealTime();

}  // namespace
}  // namespace minitf

BENCHMARK_MAIN();
