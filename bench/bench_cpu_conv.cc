// The host's NHWC convolutions and their two gradients (ops/kernels/
// conv_functors.h: im2col products through OpenBLAS) on ResNet-50's shapes
// at batch 32, over an intra-op pool of every schedulable CPU, as a
// training step runs them. Counter: GFLOP (two per multiply-add of the
// convolution, whatever the method does in addition), shown per second.
//
//   build/bin/bench_cpu_conv --benchmark_min_time=1
#include <cstdint>
#include <string>
#include <vector>

#include "benchmark/benchmark.h"
#include "ops/kernels/conv_functors.h"
#include "platform/cpu_info.h"
#include "runtime/threadpool.h"

namespace minitf {
namespace {

using functor::Conv2DGeometry;

// A convolution of ResNet-50 v1.5 at batch 32: square input of `size`,
// `depth` in, square filter of `window`, `out` out, `stride`, SAME padding.
Conv2DGeometry ResNetConv(int64_t size, int64_t depth, int64_t window, int64_t out,
                          int64_t stride) {
  Conv2DGeometry g;
  g.batch = 32;
  g.in_rows = g.in_cols = size;
  g.in_depth = depth;
  g.filter_rows = g.filter_cols = window;
  g.out_depth = out;
  g.stride_rows = g.stride_cols = stride;
  g.out_rows = g.out_cols = (size + stride - 1) / stride;
  const int64_t pad = std::max<int64_t>(0, (g.out_rows - 1) * stride + window - size);
  g.pad_top = g.pad_left = pad / 2;
  return g;
}

Conv2DGeometry FromState(const benchmark::State& state) {
  return ResNetConv(state.range(0), state.range(1), state.range(2), state.range(3),
                    state.range(4));
}

ThreadPool& Pool() {
  static ThreadPool* pool = new ThreadPool("intra_op", NumSchedulableCPUs());
  return *pool;
}

void Report(benchmark::State& state, const Conv2DGeometry& g) {
  const double flops = 2.0 * static_cast<double>(g.output_elements()) *
                       static_cast<double>(g.patch_size());
  state.counters["GFLOP"] = benchmark::Counter(
      flops * static_cast<double>(state.iterations()) / 1e9, benchmark::Counter::kIsRate);
}

void BM_Conv2D(benchmark::State& state) {
  const Conv2DGeometry g = FromState(state);
  const auto& d = Pool().eigen_device();
  std::vector<float> input(g.input_elements(), 0.5f), filter(g.filter_elements(), 0.25f);
  std::vector<float> output(g.output_elements());
  std::vector<float> workspace(functor::Conv2DFunctor<float>::WorkspaceElements(d, g));
  for (auto _ : state) {
    functor::Conv2DFunctor<float>()(d, g, input.data(), filter.data(), output.data(),
                                    workspace.data());
    benchmark::DoNotOptimize(output.data());
  }
  Report(state, g);
}

void BM_Conv2DBackpropInput(benchmark::State& state) {
  const Conv2DGeometry g = FromState(state);
  const auto& d = Pool().eigen_device();
  std::vector<float> filter(g.filter_elements(), 0.25f), out_backprop(g.output_elements(), 0.5f);
  std::vector<float> in_backprop(g.input_elements());
  std::vector<float> workspace(functor::Conv2DBackpropInputFunctor<float>::WorkspaceElements(d, g));
  for (auto _ : state) {
    functor::Conv2DBackpropInputFunctor<float>()(d, g, filter.data(), out_backprop.data(),
                                                 in_backprop.data(), workspace.data());
    benchmark::DoNotOptimize(in_backprop.data());
  }
  Report(state, g);
}

void BM_Conv2DBackpropFilter(benchmark::State& state) {
  const Conv2DGeometry g = FromState(state);
  const auto& d = Pool().eigen_device();
  std::vector<float> input(g.input_elements(), 0.5f), out_backprop(g.output_elements(), 0.5f);
  std::vector<float> filter_backprop(g.filter_elements());
  std::vector<float> workspace(
      functor::Conv2DBackpropFilterFunctor<float>::WorkspaceElements(d, g));
  for (auto _ : state) {
    functor::Conv2DBackpropFilterFunctor<float>()(d, g, input.data(), out_backprop.data(),
                                                  filter_backprop.data(), workspace.data());
    benchmark::DoNotOptimize(filter_backprop.data());
  }
  Report(state, g);
}

// {size, in depth, window, out depth, stride}: the stem, a 3x3 of each
// stage, the strided 3x3 that opens stages 3-5, a 1x1 and a strided 1x1
// projection.
void ResNetShapes(benchmark::internal::Benchmark* b) {
  b->ArgNames({"size", "in", "window", "out", "stride"});
  b->Args({224, 3, 7, 64, 2});
  b->Args({56, 64, 3, 64, 1});
  b->Args({28, 128, 3, 128, 1});
  b->Args({14, 256, 3, 256, 1});
  b->Args({7, 512, 3, 512, 1});
  b->Args({56, 128, 3, 128, 2});
  b->Args({56, 64, 1, 256, 1});
  b->Args({56, 256, 1, 512, 2});
  b->Unit(benchmark::kMillisecond)->UseRealTime();
}

BENCHMARK(BM_Conv2D)->Apply(ResNetShapes);
BENCHMARK(BM_Conv2DBackpropInput)->Apply(ResNetShapes);
BENCHMARK(BM_Conv2DBackpropFilter)->Apply(ResNetShapes);

}  // namespace
}  // namespace minitf

BENCHMARK_MAIN();
