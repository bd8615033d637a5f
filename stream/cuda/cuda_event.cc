#include "stream/cuda/cuda_event.h"

#include "stream/cuda/cuda_executor.h"
#include "stream/cuda/cuda_status.h"

namespace minitf::se::cuda {

absl::StatusOr<std::unique_ptr<CudaEvent>> CudaEvent::Create(CudaExecutor* executor) {
  if (absl::Status active = executor->Activate(); !active.ok()) return active;
  cudaEvent_t handle = nullptr;
  MINITF_RETURN_IF_CUDA_ERROR(cudaEventCreateWithFlags(&handle, cudaEventDisableTiming));
  return std::unique_ptr<CudaEvent>(new CudaEvent(executor, handle));
}

CudaEvent::CudaEvent(CudaExecutor* executor, cudaEvent_t handle)
    : executor_(executor), handle_(handle) {}

CudaEvent::~CudaEvent() {
  if (executor_->Activate().ok()) cudaEventDestroy(handle_);
}

void CudaEvent::MarkRecorded(const absl::Status& stream_status) {
  MutexLock lock(&mu_);
  recorded_ = true;
  error_ = stream_status;
}

Event::Status CudaEvent::PollForStatus() {
  {
    MutexLock lock(&mu_);
    if (!recorded_) return Status::kUnknown;
    if (!error_.ok()) return Status::kError;
  }
  if (!executor_->Activate().ok()) return Status::kError;
  switch (cudaEventQuery(handle_)) {
    case cudaSuccess:
      return Status::kComplete;
    case cudaErrorNotReady:
      return Status::kPending;
    default:
      cudaGetLastError();
      return Status::kError;
  }
}

absl::Status CudaEvent::WaitForCompletion() {
  {
    MutexLock lock(&mu_);
    if (!recorded_) {
      return absl::FailedPreconditionError("cannot wait for a CUDA event that was never recorded");
    }
    if (!error_.ok()) return error_;
  }
  if (absl::Status active = executor_->Activate(); !active.ok()) return active;
  MINITF_RETURN_IF_CUDA_ERROR(cudaEventSynchronize(handle_));
  return absl::OkStatus();
}

}  // namespace minitf::se::cuda
