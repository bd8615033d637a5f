#include "stream/cuda/host_callback_worker.h"

#include <utility>

namespace minitf::se::cuda {

HostCallbackWorker::HostCallbackWorker() : thread_([this] { Loop(); }) {}

HostCallbackWorker::~HostCallbackWorker() {
  {
    MutexLock lock(&mu_);
    stopping_ = true;
    work_available_.SignalAll();
  }
  thread_.join();
}

void HostCallbackWorker::Schedule(std::function<void()> callback) {
  MutexLock lock(&mu_);
  queue_.push_back(std::move(callback));
  work_available_.Signal();
}

void HostCallbackWorker::WaitUntilIdle() {
  MutexLock lock(&mu_);
  while (!queue_.empty() || running_callback_) idle_.Wait(&mu_);
}

void HostCallbackWorker::Loop() {
  std::function<void()> callback;
  while (true) {
    {
      MutexLock lock(&mu_);
      if (running_callback_) {
        running_callback_ = false;
        if (queue_.empty()) idle_.SignalAll();
      }
      while (queue_.empty() && !stopping_) work_available_.Wait(&mu_);
      if (queue_.empty()) return;  // Stopping, and nothing left to run.
      callback = std::move(queue_.front());
      queue_.pop_front();
      running_callback_ = true;
    }
    callback();
    callback = nullptr;  // Releases what it captured before reporting idle.
  }
}

}  // namespace minitf::se::cuda
