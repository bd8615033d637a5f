// HostCallbackWorker: the thread on which a CudaStream runs its host
// callbacks and host kernels. CUDA runs a stream's host functions on a driver
// thread that must not call the CUDA API; the stream's host function hands
// the callback to this worker and waits for it, so the callback may use CUDA
// (copies on other streams, allocations) while the stream still runs it in
// order.
//
//   HostCallbackWorker worker("cuda0_stream");
//   worker.Schedule([] { ... });
//   worker.WaitUntilIdle();
//
// Thread-safe. Callbacks run one at a time, in the order scheduled.
#ifndef MINITF_STREAM_CUDA_HOST_CALLBACK_WORKER_H_
#define MINITF_STREAM_CUDA_HOST_CALLBACK_WORKER_H_

#include <deque>
#include <functional>
#include <thread>

#include "absl/base/thread_annotations.h"
#include "platform/mutex.h"

namespace minitf::se::cuda {

class HostCallbackWorker {
 public:
  HostCallbackWorker();
  // Runs the callbacks still queued, then joins the thread.
  ~HostCallbackWorker();
  HostCallbackWorker(const HostCallbackWorker&) = delete;
  HostCallbackWorker& operator=(const HostCallbackWorker&) = delete;

  void Schedule(std::function<void()> callback);
  // Blocks until every callback scheduled before the call has run.
  // REQUIRES: not called from a callback of this worker.
  void WaitUntilIdle();

 private:
  void Loop();

  Mutex mu_;
  CondVar work_available_;
  CondVar idle_;
  std::deque<std::function<void()>> queue_ ABSL_GUARDED_BY(mu_);
  bool running_callback_ ABSL_GUARDED_BY(mu_) = false;
  bool stopping_ ABSL_GUARDED_BY(mu_) = false;
  // Started last in the constructor, joined first in the destructor.
  std::thread thread_;
};

}  // namespace minitf::se::cuda

#endif  // MINITF_STREAM_CUDA_HOST_CALLBACK_WORKER_H_
