// CudaEvent: an Event over a cudaEvent_t (timing disabled). Recorded by
// CudaStream::RecordEvent; other streams wait for it on the device
// (cudaStreamWaitEvent) without blocking the host.
//
//   std::unique_ptr<Event> done = *executor->CreateEvent();
//   MINITF_RETURN_IF_ERROR(compute->RecordEvent(done.get()));
//   MINITF_RETURN_IF_ERROR(copy->WaitFor(done.get()));
//
// Thread-safe.
#ifndef MINITF_STREAM_CUDA_CUDA_EVENT_H_
#define MINITF_STREAM_CUDA_CUDA_EVENT_H_

#include <cuda_runtime_api.h>

#include <memory>

#include "absl/base/thread_annotations.h"
#include "absl/status/statusor.h"
#include "platform/mutex.h"
#include "stream/event.h"

namespace minitf::se::cuda {

class CudaExecutor;

class CudaEvent : public Event {
 public:
  // `executor` is not owned and outlives the event.
  static absl::StatusOr<std::unique_ptr<CudaEvent>> Create(CudaExecutor* executor);
  ~CudaEvent() override;

  Status PollForStatus() override;
  absl::Status WaitForCompletion() override;

  cudaEvent_t handle() const { return handle_; }

  // Called by CudaStream::RecordEvent after recording the event (ok), or
  // instead of recording it when the stream is in its error state.
  void MarkRecorded(const absl::Status& stream_status);

 private:
  CudaEvent(CudaExecutor* executor, cudaEvent_t handle);

  CudaExecutor* const executor_;  // Not owned.
  const cudaEvent_t handle_;
  mutable Mutex mu_;
  bool recorded_ ABSL_GUARDED_BY(mu_) = false;
  // The error of the stream the last record was made on.
  absl::Status error_ ABSL_GUARDED_BY(mu_);
};

}  // namespace minitf::se::cuda

#endif  // MINITF_STREAM_CUDA_CUDA_EVENT_H_
