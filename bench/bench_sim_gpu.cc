// SimGPU cost-model sanity (Google Benchmark): how closely the simulator
// realises the throughput it is configured with.
//
//   build/bin/bench_sim_gpu
//
// BM_SimGPUGemmTiming/N:  an N x N x N SimGPUBlas gemm on a V100-like SimGPU
//                         in timing mode (no arithmetic: the engine is held
//                         for the modeled time), launched and waited for.
// BM_SimGPUGemmCompute/N: the same in compute mode (Eigen computes the
//                         product; the engine is held for at least the
//                         modeled time).
// Counters, per gemm:
//   modeled_us         the cost model's time (launch + flops/peak + bytes/HBM)
//   measured_us        wall time from launch to BlockHostUntilDone returning
//   achieved_tflops    2N^3 / measured time
//   configured_tflops  the platform's peak (15.7)
//   tflops_ratio       achieved / configured: below 1 by the launch latency
//                      and memory terms of the model, and by the simulator's
//                      own overhead (thread hand-offs, sleep granularity),
//                      which dominates at small N
//   model_ratio        modeled / measured: 1 is a perfect simulation
#include <memory>

#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "benchmark/benchmark.h"
#include "stream/blas.h"
#include "stream/sim_gpu/sim_gpu_cost_model.h"
#include "stream/sim_gpu/sim_gpu_platform.h"
#include "stream/stream.h"

namespace minitf::se {
namespace {

void RunGemm(benchmark::State& state, const char* options) {
  const uint64_t n = static_cast<uint64_t>(state.range(0));
  auto platform = *SimGPUPlatform::Create(*ParseSimGPUOptions(options));
  StreamExecutor* gpu = *platform->ExecutorForDevice(0);
  std::unique_ptr<Stream> stream = *gpu->CreateStream();
  DeviceMemory<float> a(gpu->Allocate(n * n * sizeof(float)));
  DeviceMemory<float> b(gpu->Allocate(n * n * sizeof(float)));
  DeviceMemory<float> c(gpu->Allocate(n * n * sizeof(float)));
  if (a.is_null() || b.is_null() || c.is_null()) {
    state.SkipWithError("SimGPU out of memory");
    return;
  }
  stream->MemZero(&a, a.size()).IgnoreError();
  stream->MemZero(&b, b.size()).IgnoreError();
  if (!stream->BlockHostUntilDone().ok()) state.SkipWithError("MemZero failed");

  const int ld = static_cast<int>(n);
  absl::Duration total = absl::ZeroDuration();
  for (auto _ : state) {
    const absl::Time start = absl::Now();
    absl::Status s = gpu->AsBlas()->DoBlasGemm(stream.get(), blas::Transpose::kNoTranspose,
                                               blas::Transpose::kNoTranspose, n, n, n, 1.0f, a,
                                               ld, b, ld, 0.0f, &c, ld);
    if (s.ok()) s = stream->BlockHostUntilDone();
    if (!s.ok()) {
      state.SkipWithError(s.ToString().c_str());
      break;
    }
    const absl::Duration elapsed = absl::Now() - start;
    total += elapsed;
    state.SetIterationTime(absl::ToDoubleSeconds(elapsed));
  }

  const double flops = 2.0 * n * n * n;
  const double dn = static_cast<double>(n);
  const absl::Duration modeled = ModeledKernelTime(
      platform->options(), {.flops = flops, .device_bytes = 4 * (3 * dn * dn + dn * dn)});
  const double measured_s = absl::ToDoubleSeconds(total) / static_cast<double>(state.iterations());
  const double achieved = flops / measured_s / 1e12;
  state.counters["modeled_us"] = absl::ToDoubleMicroseconds(modeled);
  state.counters["measured_us"] = measured_s * 1e6;
  state.counters["achieved_tflops"] = achieved;
  state.counters["configured_tflops"] = platform->options().tflops;
  state.counters["tflops_ratio"] = achieved / platform->options().tflops;
  state.counters["model_ratio"] = absl::ToDoubleSeconds(modeled) / measured_s;

  stream.reset();
  gpu->Deallocate(&a);
  gpu->Deallocate(&b);
  gpu->Deallocate(&c);
}

void BM_SimGPUGemmTiming(benchmark::State& state) { RunGemm(state, "memory=1GiB,mode=timing"); }
BENCHMARK(BM_SimGPUGemmTiming)
    ->RangeMultiplier(2)
    ->Range(256, 4096)
    ->UseManualTime()
    ->Unit(benchmark::kMicrosecond);

void BM_SimGPUGemmCompute(benchmark::State& state) {
  RunGemm(state, "memory=1GiB,mode=compute");
}
BENCHMARK(BM_SimGPUGemmCompute)
    ->RangeMultiplier(2)
    ->Range(256, 1024)
    ->UseManualTime()
    ->Unit(benchmark::kMicrosecond);

}  // namespace
}  // namespace minitf::se

BENCHMARK_MAIN();
