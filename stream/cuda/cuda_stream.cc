#include "stream/cuda/cuda_stream.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "stream/cuda/cuda_event.h"
#include "stream/cuda/cuda_executor.h"
#include "stream/cuda/cuda_status.h"
#include "stream/cuda/layout_kernels.h"

namespace minitf::se::cuda {
namespace {

// What a CUDA host function carries to the worker. Owned by the host
// function's argument from cudaLaunchHostFunc until the function runs.
struct WorkerCall {
  HostCallbackWorker* worker;  // Not owned.
  std::function<void()> run;
};

// Runs on CUDA's host-function thread, where the CUDA API is off limits:
// hands the call to the worker and holds the stream until it has run.
void CUDART_CB RunOnWorkerAndWait(void* arg) {
  std::unique_ptr<WorkerCall> call(static_cast<WorkerCall*>(arg));
  Notification done;
  call->worker->Schedule([&call, &done] {
    call->run();
    done.Notify();
  });
  done.WaitForNotification();
}

}  // namespace

absl::StatusOr<std::unique_ptr<CudaStream>> CudaStream::Create(CudaExecutor* executor,
                                                               StreamPriority priority) {
  if (absl::Status active = executor->Activate(); !active.ok()) return active;
  int least = 0;
  int greatest = 0;
  MINITF_RETURN_IF_CUDA_ERROR(cudaDeviceGetStreamPriorityRange(&least, &greatest));
  const int cuda_priority = priority == StreamPriority::kHighest ? greatest : least;
  cudaStream_t handle = nullptr;
  MINITF_RETURN_IF_CUDA_ERROR(
      cudaStreamCreateWithPriority(&handle, cudaStreamNonBlocking, cuda_priority));
  return std::unique_ptr<CudaStream>(new CudaStream(executor, handle));
}

CudaStream::CudaStream(CudaExecutor* executor, cudaStream_t handle)
    : Stream(executor),
      executor_(executor),
      handle_(handle),
      worker_(std::make_unique<HostCallbackWorker>()),
      busy_timer_(std::make_unique<KernelBusyTimer>()) {}

CudaStream::~CudaStream() {
  if (executor_->Activate().ok()) cudaStreamSynchronize(handle_);
  worker_.reset();
  cudaStreamDestroy(handle_);
}

CudaStream* CudaStream::FromStream(Stream* stream) { return dynamic_cast<CudaStream*>(stream); }

absl::Status CudaStream::status() const {
  MutexLock lock(&mu_);
  return status_;
}

absl::Status CudaStream::SetError(absl::Status error) {
  MutexLock lock(&mu_);
  if (status_.ok()) status_ = std::move(error);
  return status_;
}

absl::Status CudaStream::CheckReady() const {
  if (absl::Status s = status(); !s.ok()) return s;
  return executor_->Activate();
}

absl::Status CudaStream::RecordEnqueue(cudaError_t error, const char* call) {
  if (error == cudaSuccess) return absl::OkStatus();
  return SetError(CudaStatus(error, call));
}

absl::Status CudaStream::Memcpy(DeviceMemoryBase* gpu_dst, const void* host_src, uint64_t size) {
  if (absl::Status s = CheckReady(); !s.ok()) return s;
  if (size == 0) return absl::OkStatus();
  return RecordEnqueue(
      cudaMemcpyAsync(gpu_dst->opaque(), host_src, size, cudaMemcpyHostToDevice, handle_),
      "cudaMemcpyAsync (host to device)");
}

absl::Status CudaStream::Memcpy(void* host_dst, const DeviceMemoryBase& gpu_src, uint64_t size) {
  if (absl::Status s = CheckReady(); !s.ok()) return s;
  if (size == 0) return absl::OkStatus();
  return RecordEnqueue(
      cudaMemcpyAsync(host_dst, gpu_src.opaque(), size, cudaMemcpyDeviceToHost, handle_),
      "cudaMemcpyAsync (device to host)");
}

absl::Status CudaStream::Memcpy(DeviceMemoryBase* gpu_dst, const DeviceMemoryBase& gpu_src,
                                uint64_t size) {
  if (absl::Status s = CheckReady(); !s.ok()) return s;
  if (size == 0) return absl::OkStatus();
  return RecordEnqueue(cudaMemcpyAsync(gpu_dst->opaque(), gpu_src.opaque(), size,
                                       cudaMemcpyDeviceToDevice, handle_),
                       "cudaMemcpyAsync (device to device)");
}

absl::Status CudaStream::Memset32(DeviceMemoryBase* location, uint32_t pattern, uint64_t size) {
  if (absl::Status s = CheckReady(); !s.ok()) return s;
  if (size % 4 != 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("Memset32 of ", size, " bytes: the size must be a multiple of 4"));
  }
  if (size == 0) return absl::OkStatus();
  const uint32_t byte = pattern & 0xff;
  if (pattern == byte * 0x01010101u) {
    return RecordEnqueue(cudaMemsetAsync(location->opaque(), static_cast<int>(byte), size, handle_),
                         "cudaMemsetAsync");
  }
  return RecordEnqueue(
      LaunchFill32(handle_, static_cast<uint32_t*>(location->opaque()), pattern, size / 4),
      "Fill32 kernel launch");
}

absl::Status CudaStream::EnqueueOnWorker(std::function<absl::Status()> callback) {
  auto run = [this, callback = std::move(callback)] {
    if (absl::Status s = callback(); !s.ok()) SetError(std::move(s)).IgnoreError();
  };
  auto call = std::make_unique<WorkerCall>(WorkerCall{worker_.get(), std::move(run)});
  if (absl::Status s = CheckReady(); !s.ok()) {
    // Released waiters matter more than order once the stream has failed.
    worker_->Schedule(std::move(call->run));
    return s;
  }
  const cudaError_t error = cudaLaunchHostFunc(handle_, RunOnWorkerAndWait, call.get());
  if (error != cudaSuccess) {
    absl::Status s = SetError(CudaStatus(error, "cudaLaunchHostFunc"));
    worker_->Schedule(std::move(call->run));
    return s;
  }
  call.release();  // Owned by RunOnWorkerAndWait from here.
  return absl::OkStatus();
}

absl::Status CudaStream::LaunchHostKernel(HostKernel kernel) {
  if (!kernel.body) {
    return absl::InvalidArgumentError(
        absl::StrCat("host kernel '", kernel.name, "' has no body to run"));
  }
  if (absl::Status s = status(); !s.ok()) return s;
  return EnqueueOnWorker([kernel = std::move(kernel)]() -> absl::Status {
    absl::Status s = kernel.body();
    if (s.ok()) return s;
    return absl::Status(s.code(), absl::StrCat("host kernel '", kernel.name, "': ", s.message()));
  });
}

absl::Status CudaStream::DoHostCallback(std::function<void()> callback) {
  return EnqueueOnWorker([callback = std::move(callback)] {
    callback();
    return absl::OkStatus();
  });
}

absl::Status CudaStream::DoHostCallbackWithStatus(std::function<absl::Status()> callback) {
  return EnqueueOnWorker(std::move(callback));
}

absl::Status CudaStream::WaitFor(Stream* other) {
  CudaStream* other_cuda = FromStream(other);
  if (other_cuda == nullptr) {
    return absl::InvalidArgumentError("a CUDA stream can only wait for another CUDA stream");
  }
  if (absl::Status s = CheckReady(); !s.ok()) return s;
  if (absl::Status s = other_cuda->status(); !s.ok()) return SetError(s);
  if (other_cuda == this) return absl::OkStatus();
  cudaEvent_t event = nullptr;
  if (cudaError_t e = cudaEventCreateWithFlags(&event, cudaEventDisableTiming); e != cudaSuccess) {
    return RecordEnqueue(e, "cudaEventCreateWithFlags");
  }
  absl::Status s = RecordEnqueue(cudaEventRecord(event, other_cuda->handle_), "cudaEventRecord");
  if (s.ok()) s = RecordEnqueue(cudaStreamWaitEvent(handle_, event, 0), "cudaStreamWaitEvent");
  // Destroying a pending event is allowed: CUDA frees it once it completes.
  cudaEventDestroy(event);
  return s;
}

absl::Status CudaStream::WaitFor(Event* event) {
  auto* cuda_event = dynamic_cast<CudaEvent*>(event);
  if (cuda_event == nullptr) {
    return absl::InvalidArgumentError("a CUDA stream can only wait for a CUDA event");
  }
  if (absl::Status s = CheckReady(); !s.ok()) return s;
  return RecordEnqueue(cudaStreamWaitEvent(handle_, cuda_event->handle(), 0),
                       "cudaStreamWaitEvent");
}

absl::Status CudaStream::RecordEvent(Event* event) {
  auto* cuda_event = dynamic_cast<CudaEvent*>(event);
  if (cuda_event == nullptr) {
    return absl::InvalidArgumentError("a CUDA stream can only record a CUDA event");
  }
  if (absl::Status s = CheckReady(); !s.ok()) {
    cuda_event->MarkRecorded(s);
    return s;
  }
  absl::Status s = RecordEnqueue(cudaEventRecord(cuda_event->handle(), handle_), "cudaEventRecord");
  cuda_event->MarkRecorded(s);
  return s;
}

absl::Status CudaStream::BlockHostUntilDone() {
  if (absl::Status active = executor_->Activate(); !active.ok()) return active;
  if (const cudaError_t error = cudaStreamSynchronize(handle_); error != cudaSuccess) {
    SetError(CudaStatus(error, "cudaStreamSynchronize")).IgnoreError();
  }
  // Callbacks run directly on the worker (stream in error) are part of "so far".
  worker_->WaitUntilIdle();
  busy_timer_->Poll();
  return status();
}

absl::Duration CudaStream::BusyTime() const {
  // Event queries from a thread whose current device is another one.
  if (!executor_->Activate().ok()) return absl::ZeroDuration();
  return busy_timer_->BusyTime();
}

}  // namespace minitf::se::cuda
