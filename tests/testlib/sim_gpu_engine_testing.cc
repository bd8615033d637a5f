#include "tests/testlib/sim_gpu_engine_testing.h"

#include <unistd.h>

#include <atomic>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "gtest/gtest.h"

namespace minitf::se::testing {

void FinishOrder::Add(const std::string& name) {
  MutexLock lock(&mu_);
  names_.push_back(name);
}

std::vector<std::string> FinishOrder::names() const {
  MutexLock lock(&mu_);
  return names_;
}

HostKernel NotifyingKernel(const std::string& name, Notification* started) {
  HostKernel k;
  k.name = name;
  if (started != nullptr) {
    k.run_in_timing_mode = true;
    k.body = [started] {
      started->Notify();
      return absl::OkStatus();
    };
  }
  return k;
}

HostKernel BlockingKernel(const std::string& name, Notification* started, Notification* release) {
  HostKernel k;
  k.name = name;
  k.run_in_timing_mode = true;
  k.body = [started, release] {
    started->Notify();
    release->WaitForNotification();
    return absl::OkStatus();
  };
  return k;
}

std::thread LaunchKernel(SimGPUEngine* engine, HostKernel kernel, absl::Duration modeled,
                         StreamPriority priority, FinishOrder* finished, absl::Duration* charged) {
  return std::thread([=] {
    absl::Duration c;
    EXPECT_TRUE(engine->Execute(kernel, modeled, priority, &c).ok());
    if (charged != nullptr) *charged = c;
    finished->Add(kernel.name);
  });
}

void AwaitQueued(const SimGPUEngine& engine, int n) {
  while (engine.QueuedKernels() < n) absl::SleepFor(absl::Milliseconds(1));
}

std::string UniqueSharedSimGPUName(const std::string& prefix) {
  static std::atomic<int> counter{0};
  return absl::StrCat(prefix, "-", getpid(), "-", counter++);
}

}  // namespace minitf::se::testing
