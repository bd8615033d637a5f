// Host <-> device copy path overhead (Google Benchmark), on a SimGPU in
// functional mode: copies take no modeled time, so what is measured is the
// runtime's own cost per tensor on top of moving the bytes.
//
//   build/bin/bench_gpu_copy
//
// BM_CopyCPUTensorToDevice/B: GPUDeviceContext::CopyCPUTensorToDevice of a
//                             B-byte tensor (cpu_allocator() to the GPU
//                             device's allocator), waiting for `done`.
// BM_CopyDeviceTensorToCPU/B: the same in the other direction.
// BM_Memcpy/B:                the baseline: std::memcpy between the same two
//                             buffers. Copy time - memcpy time is the copy
//                             path's overhead per tensor: the stream waits
//                             that order the copy against the compute
//                             stream, the copy stream's worker, the host
//                             callback that runs `done`, and the hand-offs
//                             between those threads.
// BM_CopyCPUTensorToDeviceNotStrict/B:
//                             BM_CopyCPUTensorToDevice on a SimGPU with
//                             strict=false (device memory not protected from
//                             host code): the ratio to the strict one is what
//                             strict mode's access switches cost.
// BM_StreamHostCallback:      the floor of any asynchronous stream operation:
//                             one DoHostCallback on the device's
//                             host-to-device stream, waited for (one hand-off
//                             to the stream's worker and one back).
// BM_SessionFetchFromGPU/elements:N/inter_op:T:
//                             Session::Run feeding x (N floats) and fetching
//                             y = Identity(x), with y pinned to GPU:0, so the
//                             value crosses _Send/_Recv and a copy twice
//                             (host -> device, device -> host); the session
//                             has T inter-op threads.
// BM_SessionFetchFromCpu/elements:N/inter_op:T:
//                             the baseline: the same graph in a CPU-only
//                             session (device_count["GPU"] = 0).
//
// `done` runs on a stream thread, so every benchmark measures wall time.
// Counter ctx_switches: the process's context switches (voluntary and not,
// all threads) per iteration; on a machine with fewer cores than busy
// threads every hand-off between threads is one or two of them.
#include <sys/resource.h>

#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/notification.h"
#include "allocator/allocator.h"
#include "benchmark/benchmark.h"
#include "device/device_factory.h"
#include "device/gpu/gpu_device.h"
#include "ops/cc/scope.h"
#include "ops/standard_ops.h"
#include "session/session.h"
#include "stream/device_memory_protection.h"
#include "stream/stream.h"

namespace minitf {
namespace {

constexpr char kSimGPUOptions[] = "mode=functional";
constexpr char kNotStrictSimGPUOptions[] = "mode=functional,strict=false";

// Context switches of every thread of the process so far.
int64_t ContextSwitches() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return usage.ru_nvcsw + usage.ru_nivcsw;
}

// Reports the context switches since `start` per iteration.
void ReportContextSwitches(benchmark::State& state, int64_t start) {
  state.counters["ctx_switches"] = benchmark::Counter(
      static_cast<double>(ContextSwitches() - start), benchmark::Counter::kAvgIterations);
}

// A SimGPU device (functional mode), and a host tensor and a device tensor
// of `bytes` bytes (a multiple of 4), both touched once so that no page
// faults are timed.
class CopyFixture {
 public:
  static absl::StatusOr<std::unique_ptr<CopyFixture>> Create(
      int64_t bytes, const char* simgpu_options = kSimGPUOptions) {
    DeviceOptions options;
    options.device_count = {{DEVICE_CPU, 1}, {DEVICE_GPU, 1}};
    options.intra_op_parallelism_threads = 1;
    options.gpu_options.platform = "SimGPU";
    options.gpu_options.simgpu_options = simgpu_options;
    std::vector<std::unique_ptr<Device>> devices;
    if (absl::Status s = DeviceFactory::AddDevices(options, &devices); !s.ok()) return s;
    for (std::unique_ptr<Device>& d : devices) {
      if (dynamic_cast<GPUDevice*>(d.get()) == nullptr) continue;
      std::unique_ptr<CopyFixture> fixture(new CopyFixture(std::move(d), bytes));
      if (!fixture->device_tensor_.ok()) return fixture->device_tensor_.status();
      return fixture;
    }
    return absl::NotFoundError("no SimGPU device was created");
  }

  GPUDevice* gpu() const { return static_cast<GPUDevice*>(gpu_.get()); }
  Tensor* host_tensor() { return &host_tensor_; }
  Tensor* device_tensor() { return &*device_tensor_; }

 private:
  CopyFixture(std::unique_ptr<Device> gpu, int64_t bytes)
      : gpu_(std::move(gpu)),
        host_tensor_(cpu_allocator(), DT_FLOAT, TensorShape({bytes / 4})),
        device_tensor_(Tensor::Allocate(gpu_->GetAllocator({}), DT_FLOAT,
                                        TensorShape({bytes / 4}))) {
    std::memset(host_tensor_.raw_data(), 1, host_tensor_.TotalBytes());
    if (device_tensor_.ok()) {
      // Device memory: written with the access a copy engine has.
      se::ScopedDeviceMemoryAccess access;
      std::memset(device_tensor_->raw_data(), 2, device_tensor_->TotalBytes());
    }
  }

  std::unique_ptr<Device> gpu_;
  Tensor host_tensor_;
  absl::StatusOr<Tensor> device_tensor_;
};

// Runs one copy through `copy` per iteration and waits for its `done`.
template <typename CopyFn>
void RunCopies(benchmark::State& state, CopyFn copy,
               const char* simgpu_options = kSimGPUOptions) {
  auto fixture = CopyFixture::Create(state.range(0), simgpu_options);
  if (!fixture.ok()) {
    state.SkipWithError(fixture.status().ToString().c_str());
    return;
  }
  GPUDevice* gpu = (*fixture)->gpu();
  GPUDeviceContext* context = gpu->gpu_device_context();
  Tensor* host = (*fixture)->host_tensor();
  Tensor* device = (*fixture)->device_tensor();
  const int64_t switches = ContextSwitches();
  for (auto _ : state) {
    absl::Notification copied;
    absl::Status status;
    copy(context, host, gpu, device, [&](const absl::Status& s) {
      status = s;
      copied.Notify();
    });
    copied.WaitForNotification();
    if (!status.ok()) {
      state.SkipWithError(status.ToString().c_str());
      break;
    }
  }
  ReportContextSwitches(state, switches);
  state.SetBytesProcessed(state.iterations() * state.range(0));
}

void BM_CopyCPUTensorToDevice(benchmark::State& state) {
  RunCopies(state, [](GPUDeviceContext* context, Tensor* host, GPUDevice* gpu, Tensor* device,
                      StatusCallback done) {
    context->CopyCPUTensorToDevice(host, gpu, device, std::move(done));
  });
}
BENCHMARK(BM_CopyCPUTensorToDevice)->RangeMultiplier(16)->Range(4, 16 << 20)->UseRealTime();

void BM_CopyDeviceTensorToCPU(benchmark::State& state) {
  RunCopies(state, [](GPUDeviceContext* context, Tensor* host, GPUDevice* gpu, Tensor* device,
                      StatusCallback done) {
    context->CopyDeviceTensorToCPU(device, gpu, host, std::move(done));
  });
}
BENCHMARK(BM_CopyDeviceTensorToCPU)->RangeMultiplier(16)->Range(4, 16 << 20)->UseRealTime();

void BM_CopyCPUTensorToDeviceNotStrict(benchmark::State& state) {
  RunCopies(
      state,
      [](GPUDeviceContext* context, Tensor* host, GPUDevice* gpu, Tensor* device,
         StatusCallback done) { context->CopyCPUTensorToDevice(host, gpu, device, std::move(done)); },
      kNotStrictSimGPUOptions);
}
BENCHMARK(BM_CopyCPUTensorToDeviceNotStrict)
    ->RangeMultiplier(16)
    ->Range(4, 16 << 20)
    ->UseRealTime();

void BM_Memcpy(benchmark::State& state) {
  auto fixture = CopyFixture::Create(state.range(0));
  if (!fixture.ok()) {
    state.SkipWithError(fixture.status().ToString().c_str());
    return;
  }
  // Into device memory, as the copy stream's worker does it (with access,
  // raw_data() is the device buffer's real address).
  se::ScopedDeviceMemoryAccess access;
  void* dst = (*fixture)->device_tensor()->raw_data();
  const void* src = (*fixture)->host_tensor()->raw_data();
  const size_t bytes = static_cast<size_t>(state.range(0));
  for (auto _ : state) {
    benchmark::DoNotOptimize(dst);
    std::memcpy(dst, src, bytes);
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(state.iterations() * state.range(0));
}
BENCHMARK(BM_Memcpy)->RangeMultiplier(16)->Range(4, 16 << 20)->UseRealTime();

void BM_StreamHostCallback(benchmark::State& state) {
  auto fixture = CopyFixture::Create(4);
  if (!fixture.ok()) {
    state.SkipWithError(fixture.status().ToString().c_str());
    return;
  }
  se::Stream* stream = (*fixture)->gpu()->gpu_device_context()->host_to_device_stream();
  const int64_t switches = ContextSwitches();
  for (auto _ : state) {
    absl::Notification called;
    absl::Status s = stream->DoHostCallback([&called] { called.Notify(); });
    if (!s.ok()) {
      state.SkipWithError(s.ToString().c_str());
      break;
    }
    called.WaitForNotification();
  }
  ReportContextSwitches(state, switches);
}
BENCHMARK(BM_StreamHostCallback)->UseRealTime();

// y = Identity(x), x a fed float vector; y on `device` ("" = the placer's
// choice).
GraphDef IdentityGraph(const std::string& device) {
  Scope root = Scope::NewRootScope();
  auto x = ops::Placeholder(root.WithOpName("x"), DT_FLOAT);
  ops::Identity(root.WithOpName("y").WithDevice(device), x);
  GraphDef def;
  if (!root.ToGraphDef(&def).ok()) std::abort();
  return def;
}

// Fetches y for x = range(0) floats, once per iteration. `expected_device`
// is a substring of the device y must have run on (checked once, outside
// the timed loop).
void RunFetches(benchmark::State& state, const SessionOptions& options, const GraphDef& graph,
                const std::string& expected_device) {
  auto session = NewSession(options);
  absl::Status s = session.status();
  if (s.ok()) s = (*session)->Create(graph);
  if (!s.ok()) {
    state.SkipWithError(s.ToString().c_str());
    return;
  }
  Tensor x(DT_FLOAT, TensorShape({state.range(0)}));
  std::memset(x.raw_data(), 0, x.TotalBytes());
  const std::vector<std::pair<std::string, Tensor>> feeds = {{"x", x}};
  std::vector<Tensor> out;

  RunOptions trace;
  trace.trace_level = RunOptions::FULL_TRACE;
  RunMetadata metadata;
  s = (*session)->Run(trace, feeds, {"y"}, {}, &out, &metadata);
  if (!s.ok()) {
    state.SkipWithError(s.ToString().c_str());
    return;
  }
  std::string y_device;
  for (const DeviceStepStats& dev : metadata.step_stats.dev_stats) {
    for (const NodeExecStats& n : dev.node_stats) {
      if (n.node_name == "y") y_device = dev.device;
    }
  }
  if (y_device.find(expected_device) == std::string::npos) {
    state.SkipWithError(("y ran on '" + y_device + "', not " + expected_device).c_str());
    return;
  }

  const int64_t switches = ContextSwitches();
  for (auto _ : state) {
    s = (*session)->Run(feeds, {"y"}, {}, &out);
    if (!s.ok()) {
      state.SkipWithError(s.ToString().c_str());
      break;
    }
  }
  ReportContextSwitches(state, switches);
  state.SetBytesProcessed(state.iterations() * static_cast<int64_t>(x.TotalBytes()));
}

SessionOptions FetchOptions(int inter_op_threads) {
  SessionOptions options;
  options.config.inter_op_parallelism_threads = inter_op_threads;
  options.config.intra_op_parallelism_threads = 1;
  options.config.gpu_options.platform = "SimGPU";
  options.config.gpu_options.simgpu_options = kSimGPUOptions;
  return options;
}

// Arguments: elements of x, inter-op threads.
void FetchArgs(benchmark::internal::Benchmark* b) {
  b->ArgNames({"elements", "inter_op"})->Args({1, 2})->Args({256 << 10, 2})->Args({1, 1});
}

void BM_SessionFetchFromGPU(benchmark::State& state) {
  RunFetches(state, FetchOptions(static_cast<int>(state.range(1))),
             IdentityGraph("/device:GPU:0"), "GPU:0");
}
BENCHMARK(BM_SessionFetchFromGPU)->Apply(FetchArgs)->UseRealTime();

void BM_SessionFetchFromCpu(benchmark::State& state) {
  SessionOptions options = FetchOptions(static_cast<int>(state.range(1)));
  options.config.device_count[DEVICE_GPU] = 0;
  RunFetches(state, options, IdentityGraph(""), "CPU:0");
}
BENCHMARK(BM_SessionFetchFromCpu)->Apply(FetchArgs)->UseRealTime();

}  // namespace
}  // namespace minitf

BENCHMARK_MAIN();
