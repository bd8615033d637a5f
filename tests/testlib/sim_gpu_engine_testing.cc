#include "tests/testlib/sim_gpu_engine_testing.h"

#include <unistd.h>

#include <algorithm>
#include <atomic>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "gtest/gtest.h"

namespace minitf::se::testing {

void FinishOrder::Add(const std::string& name, absl::Time end) {
  MutexLock lock(&mu_);
  ends_.emplace_back(end, name);
}

std::vector<std::string> FinishOrder::names() const {
  std::vector<std::pair<absl::Time, std::string>> ends;
  {
    MutexLock lock(&mu_);
    ends = ends_;
  }
  std::stable_sort(ends.begin(), ends.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  std::vector<std::string> names;
  for (const auto& [end, name] : ends) names.push_back(name);
  return names;
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
    absl::Time end;
    EXPECT_TRUE(engine->Execute(kernel, modeled, priority, absl::Now(), &c, &end).ok());
    if (charged != nullptr) *charged = c;
    finished->Add(kernel.name, end);
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
