// The host's max pool and its gradient (ops/kernels/pooling_functors.h) on
// ResNet-50's one pooling layer at batch 32 (3x3, stride 2, SAME, over a
// 112x112x64 input), over an intra-op pool of every schedulable CPU, as a
// training step runs them. Counter: input elements per second.
//
//   build/bin/bench_cpu_pool --benchmark_min_time=1
#include <cstdint>
#include <random>
#include <vector>

#include "benchmark/benchmark.h"
#include "ops/kernels/pooling_functors.h"
#include "platform/cpu_info.h"
#include "runtime/threadpool.h"

namespace minitf {
namespace {

using functor::Pool2DGeometry;

Pool2DGeometry ResNetPool() {
  Pool2DGeometry g;
  g.batch = 32;
  g.in_rows = g.in_cols = 112;
  g.depth = 64;
  g.window_rows = g.window_cols = 3;
  g.stride_rows = g.stride_cols = 2;
  g.out_rows = g.out_cols = 56;
  // SAME: (56 - 1) * 2 + 3 - 112 = 1 row of padding, none of it on top.
  g.pad_top = g.pad_left = 0;
  return g;
}

ThreadPool& Pool() {
  static ThreadPool* pool = new ThreadPool("intra_op", NumSchedulableCPUs());
  return *pool;
}

std::vector<float> Random(int64_t n) {
  std::mt19937 rng(1);
  std::uniform_real_distribution<float> dist(-1, 1);
  std::vector<float> v(n);
  for (float& x : v) x = dist(rng);
  return v;
}

void BM_MaxPool(benchmark::State& state) {
  const Pool2DGeometry g = ResNetPool();
  const std::vector<float> input = Random(g.input_elements());
  std::vector<float> output(g.output_elements());
  for (auto _ : state) {
    functor::MaxPoolFunctor<float>()(Pool().eigen_device(), g, input.data(), output.data());
    benchmark::DoNotOptimize(output.data());
  }
  state.SetItemsProcessed(state.iterations() * g.input_elements());
}
BENCHMARK(BM_MaxPool)->UseRealTime();

void BM_MaxPoolGrad(benchmark::State& state) {
  const Pool2DGeometry g = ResNetPool();
  const std::vector<float> input = Random(g.input_elements());
  const std::vector<float> out_backprop = Random(g.output_elements());
  std::vector<float> in_backprop(g.input_elements());
  for (auto _ : state) {
    functor::MaxPoolGradFunctor<float>()(Pool().eigen_device(), g, input.data(),
                                         out_backprop.data(), in_backprop.data());
    benchmark::DoNotOptimize(in_backprop.data());
  }
  state.SetItemsProcessed(state.iterations() * g.input_elements());
}
BENCHMARK(BM_MaxPoolGrad)->UseRealTime();

}  // namespace
}  // namespace minitf

BENCHMARK_MAIN();
