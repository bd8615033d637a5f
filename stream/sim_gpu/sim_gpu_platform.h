// SimGPUPlatform: the "SimGPU" platform, a simulated GPU on which every GPU
// code path of minitf runs without a GPU (see docs/SIMGPU.md). It has
// options.count devices, each a SimGPUExecutor made on first use.
//
// Two ways to get one:
//   * a private instance, for tests and experiments that want their own
//     devices:  std::unique_ptr<SimGPUPlatform> p = *SimGPUPlatform::Create(o);
//   * a process-wide instance shared by everyone naming the same options:
//       SimGPUPlatform* p = *GetSimGPUPlatform("count=2,memory=8GiB");
//     GetSimGPUPlatform("") is the default instance, configured by the
//     MINITF_SIMGPU environment variable (or the defaults when unset), and is
//     what PlatformManager::PlatformWithName("SimGPU") returns. Option strings
//     are compared after normalisation (SimGPUOptions::ToString), so two
//     sessions spelling the same configuration differently, or one naming the
//     default configuration explicitly, share devices, memory capacity and
//     compute engines.
//
// Thread-safe. A private instance must outlive the streams and events made
// by its executors; process-wide instances live until the process exits.
#ifndef MINITF_STREAM_SIM_GPU_SIM_GPU_PLATFORM_H_
#define MINITF_STREAM_SIM_GPU_SIM_GPU_PLATFORM_H_

#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "platform/mutex.h"
#include "stream/platform.h"
#include "stream/sim_gpu/sim_gpu_executor.h"
#include "stream/sim_gpu/sim_gpu_options.h"

namespace minitf::se {

class SimGPUPlatform : public Platform {
 public:
  // InvalidArgument for options out of range (ValidateSimGPUOptions).
  static absl::StatusOr<std::unique_ptr<SimGPUPlatform>> Create(SimGPUOptions options);

  // The id of every SimGPUPlatform.
  static PlatformId Id();

  PlatformId id() const override { return Id(); }
  const std::string& Name() const override { return name_; }
  int VisibleDeviceCount() const override { return options_.count; }
  absl::StatusOr<StreamExecutor*> ExecutorForDevice(int ordinal) override;
  // As ExecutorForDevice, typed.
  absl::StatusOr<SimGPUExecutor*> SimGPUExecutorForDevice(int ordinal);

  const SimGPUOptions& options() const { return options_; }

 private:
  explicit SimGPUPlatform(SimGPUOptions options);

  // Constant after construction.
  const std::string name_ = "SimGPU";
  const SimGPUOptions options_;

  Mutex mu_;
  // One slot per device, filled on first use.
  std::vector<std::unique_ptr<SimGPUExecutor>> executors_ ABSL_GUARDED_BY(mu_);
};

// The process-wide SimGPU platform for `options` (an option string, see
// sim_gpu_options.h); "" is the default instance (MINITF_SIMGPU). Made on
// first request; never destroyed. InvalidArgument for a malformed option
// string, or for a malformed MINITF_SIMGPU (the message names the variable).
absl::StatusOr<SimGPUPlatform*> GetSimGPUPlatform(absl::string_view options);

}  // namespace minitf::se

#endif  // MINITF_STREAM_SIM_GPU_SIM_GPU_PLATFORM_H_
