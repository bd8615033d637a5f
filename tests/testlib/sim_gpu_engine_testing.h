// Helpers for tests of the SimGPU compute engine (sim_gpu_engine.h) and of
// a device shared by processes (sim_gpu_shared_device.h): kernels that say
// when they start or wait to be released, a thread per launch, the order
// kernels finish in, and a shared device name of a test's own.
//
//   FinishOrder finished;
//   Notification started;
//   std::thread t = LaunchKernel(&engine, NotifyingKernel("low", &started),
//                                absl::Seconds(1), StreamPriority::kLowest, &finished);
//   started.WaitForNotification();
#ifndef MINITF_TESTS_TESTLIB_SIM_GPU_ENGINE_TESTING_H_
#define MINITF_TESTS_TESTLIB_SIM_GPU_ENGINE_TESTING_H_

#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "absl/time/time.h"
#include "platform/mutex.h"
#include "stream/kernel.h"
#include "stream/sim_gpu/sim_gpu_engine.h"

namespace minitf::se::testing {

// The kernels finished so far, in the order they finished on the device's
// clock (their holds' ends, sim_gpu_engine.h), not the order their threads
// got back: a kernel queued behind another may end its hold before the
// other's thread has woken.
class FinishOrder {
 public:
  void Add(const std::string& name, absl::Time end);
  std::vector<std::string> names() const;

 private:
  mutable Mutex mu_;
  std::vector<std::pair<absl::Time, std::string>> ends_ ABSL_GUARDED_BY(mu_);
};

// A kernel without a body; with `started`, a body (run in timing mode too)
// that notifies it.
HostKernel NotifyingKernel(const std::string& name, Notification* started = nullptr);
// A kernel whose body (run in timing mode too) notifies `started`, then
// holds the engine until `release` is notified.
HostKernel BlockingKernel(const std::string& name, Notification* started, Notification* release);

// Runs the kernel on a thread of its own, expecting OK; records it in
// `finished` and its charge in `*charged` (when given).
std::thread LaunchKernel(SimGPUEngine* engine, HostKernel kernel, absl::Duration modeled,
                         StreamPriority priority, FinishOrder* finished,
                         absl::Duration* charged = nullptr);

// Returns once `n` kernels wait for the engine.
void AwaitQueued(const SimGPUEngine& engine, int n);

// A shared SimGPU name no other test process uses ("<prefix>-<pid>-<n>").
std::string UniqueSharedSimGPUName(const std::string& prefix);

}  // namespace minitf::se::testing

#endif  // MINITF_TESTS_TESTLIB_SIM_GPU_ENGINE_TESTING_H_
