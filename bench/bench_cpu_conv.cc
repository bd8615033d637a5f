// The host's NHWC convolutions and their two gradients, by both of the CPU
// kernels' methods (ops/kernels/conv_functors.h: im2col products through
// OpenBLAS; ops/kernels/onednn_conv.h: oneDNN) on ResNet-50's shapes
// at batch 32, over an intra-op pool of every schedulable CPU, as a
// training step runs them. Counter: GFLOP (two per multiply-add of the
// convolution, whatever the method does in addition), shown per second. The
// label names oneDNN's algorithm (Winograd for the 3x3 stride-1 windows;
// MINITF_ONEDNN_WINOGRAD=0 keeps them direct).
//
//   build/bin/bench_cpu_conv --benchmark_min_time=1
#include <algorithm>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "benchmark/benchmark.h"
#include "ops/kernels/conv_functors.h"
#include "ops/kernels/onednn_conv.h"
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

using Direction = functor::OneDnnConv::Direction;

// One direction's arguments, by OneDnnConv's convention: a and b in, out
// written.
struct Buffers {
  std::vector<float> a, b, out;
};

Buffers Allocate(Direction direction, const Conv2DGeometry& g) {
  const int64_t in = g.input_elements(), filter = g.filter_elements(),
                out = g.output_elements();
  switch (direction) {
    case Direction::kForward:
      return {std::vector<float>(in, 0.5f), std::vector<float>(filter, 0.25f),
              std::vector<float>(out)};
    case Direction::kBackpropInput:
      return {std::vector<float>(filter, 0.25f), std::vector<float>(out, 0.5f),
              std::vector<float>(in)};
    case Direction::kBackpropFilter:
      break;
  }
  return {std::vector<float>(in, 0.5f), std::vector<float>(out, 0.5f),
          std::vector<float>(filter)};
}

// The im2col functors (impl 0) or oneDNN (impl 1), as the CPU kernels call
// them.
void BM_Conv(benchmark::State& state, Direction direction) {
  const Conv2DGeometry g = FromState(state);
  const bool onednn = state.range(5) == 1;
  const auto& d = Pool().eigen_device();
  Buffers buffers = Allocate(direction, g);
  const float* a = buffers.a.data();
  const float* b = buffers.b.data();
  float* out = buffers.out.data();
  if (onednn) {
    functor::OneDnnConv conv(direction, g);
    const absl::StatusOr<int64_t> bytes = conv.WorkspaceBytes();
    if (!bytes.ok()) {
      state.SkipWithError(std::string(bytes.status().message()).c_str());
      return;
    }
    state.SetLabel(conv.winograd() ? "oneDNN Winograd" : "oneDNN direct");
    std::vector<float> workspace(*bytes / sizeof(float) + 16);
    void* aligned = workspace.data();
    size_t space = workspace.size() * sizeof(float);
    std::align(64, *bytes, aligned, space);
    for (auto _ : state) {
      const absl::Status s = conv.Run(d.numThreads(), a, b, out, aligned);
      if (!s.ok()) {
        state.SkipWithError(std::string(s.message()).c_str());
        return;
      }
      benchmark::DoNotOptimize(out);
    }
  } else {
    switch (direction) {
      case Direction::kForward: {
        std::vector<float> ws(functor::Conv2DFunctor<float>::WorkspaceElements(d, g));
        for (auto _ : state) {
          functor::Conv2DFunctor<float>()(d, g, a, b, out, ws.data());
          benchmark::DoNotOptimize(out);
        }
        break;
      }
      case Direction::kBackpropInput: {
        std::vector<float> ws(functor::Conv2DBackpropInputFunctor<float>::WorkspaceElements(d, g));
        for (auto _ : state) {
          functor::Conv2DBackpropInputFunctor<float>()(d, g, a, b, out, ws.data());
          benchmark::DoNotOptimize(out);
        }
        break;
      }
      case Direction::kBackpropFilter: {
        std::vector<float> ws(
            functor::Conv2DBackpropFilterFunctor<float>::WorkspaceElements(d, g));
        for (auto _ : state) {
          functor::Conv2DBackpropFilterFunctor<float>()(d, g, a, b, out, ws.data());
          benchmark::DoNotOptimize(out);
        }
        break;
      }
    }
  }
  Report(state, g);
}

void BM_Conv2D(benchmark::State& state) { BM_Conv(state, Direction::kForward); }
void BM_Conv2DBackpropInput(benchmark::State& state) {
  BM_Conv(state, Direction::kBackpropInput);
}
void BM_Conv2DBackpropFilter(benchmark::State& state) {
  BM_Conv(state, Direction::kBackpropFilter);
}

// {size, in depth, window, out depth, stride, oneDNN}: the stem, a 3x3 of
// each stage, the strided 3x3 that opens stages 3-5, a 1x1 and a strided
// 1x1 projection, each by im2col (0) and by oneDNN (1).
void ResNetShapes(benchmark::internal::Benchmark* b) {
  b->ArgNames({"size", "in", "window", "out", "stride", "onednn"});
  for (int64_t onednn : {0, 1}) {
    b->Args({224, 3, 7, 64, 2, onednn});
    b->Args({56, 64, 3, 64, 1, onednn});
    b->Args({28, 128, 3, 128, 1, onednn});
    b->Args({14, 256, 3, 256, 1, onednn});
    b->Args({7, 512, 3, 512, 1, onednn});
    b->Args({56, 128, 3, 128, 2, onednn});
    b->Args({56, 64, 1, 256, 1, onednn});
    b->Args({56, 256, 1, 512, 2, onednn});
  }
  b->Unit(benchmark::kMillisecond)->UseRealTime();
}

BENCHMARK(BM_Conv2D)->Apply(ResNetShapes);
BENCHMARK(BM_Conv2DBackpropInput)->Apply(ResNetShapes);
BENCHMARK(BM_Conv2DBackpropFilter)->Apply(ResNetShapes);

}  // namespace
}  // namespace minitf

BENCHMARK_MAIN();
