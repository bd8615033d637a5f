#include "stream/sim_gpu/sim_gpu_platform.h"

#include <optional>
#include <string>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "platform/env.h"

namespace minitf::se {
namespace {

constexpr char kEnvVar[] = "MINITF_SIMGPU";

// The options of the default instance: MINITF_SIMGPU, or the defaults.
absl::StatusOr<SimGPUOptions> DefaultOptions() {
  std::optional<std::string> env = GetEnv(kEnvVar);
  if (!env.has_value()) return SimGPUOptions();
  absl::StatusOr<SimGPUOptions> parsed = ParseSimGPUOptions(*env);
  if (!parsed.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat("environment variable ", kEnvVar, " is malformed: ",
                     parsed.status().message()));
  }
  return parsed;
}

// The process-wide instances, keyed by normalised option string.
class Instances {
 public:
  static Instances& Get() {
    static Instances* instances = new Instances();  // Lives until exit.
    return *instances;
  }

  absl::StatusOr<SimGPUPlatform*> Find(absl::string_view option_string) {
    absl::StatusOr<SimGPUOptions> options =
        option_string.empty() ? DefaultOptions() : ParseSimGPUOptions(option_string);
    if (!options.ok()) return options.status();
    const std::string key = options->ToString();
    MutexLock lock(&mu_);
    std::unique_ptr<SimGPUPlatform>& slot = by_options_[key];
    if (slot == nullptr) {
      absl::StatusOr<std::unique_ptr<SimGPUPlatform>> created = SimGPUPlatform::Create(*options);
      if (!created.ok()) {
        by_options_.erase(key);
        return created.status();
      }
      slot = *std::move(created);
    }
    return slot.get();
  }

 private:
  Mutex mu_;
  absl::flat_hash_map<std::string, std::unique_ptr<SimGPUPlatform>> by_options_
      ABSL_GUARDED_BY(mu_);
};

}  // namespace

absl::StatusOr<std::unique_ptr<SimGPUPlatform>> SimGPUPlatform::Create(SimGPUOptions options) {
  if (absl::Status valid = ValidateSimGPUOptions(options); !valid.ok()) return valid;
  if (const SimGPUOptions::KernelSet process = SimGPUKernelSetOfProcess();
      options.kernels != process) {
    return absl::InvalidArgumentError(absl::StrCat(
        "SimGPU option kernels=", SimGPUKernelSetName(options.kernels),
        " differs from this process's SimGPU kernels, kernels=", SimGPUKernelSetName(process),
        ": the kernel registry is process-wide, so the set comes from the MINITF_SIMGPU "
        "environment variable when the process starts"));
  }
  return std::unique_ptr<SimGPUPlatform>(new SimGPUPlatform(std::move(options)));
}

SimGPUPlatform::SimGPUPlatform(SimGPUOptions options)
    : options_(std::move(options)), executors_(options_.count) {}

PlatformId SimGPUPlatform::Id() {
  static const char kId = 0;
  return &kId;
}

absl::StatusOr<SimGPUExecutor*> SimGPUPlatform::SimGPUExecutorForDevice(int ordinal) {
  if (ordinal < 0 || ordinal >= options_.count) {
    return absl::InvalidArgumentError(absl::StrCat("SimGPU has ", options_.count,
                                                   " device(s); no device with ordinal ",
                                                   ordinal));
  }
  MutexLock lock(&mu_);
  std::unique_ptr<SimGPUExecutor>& executor = executors_[ordinal];
  if (executor == nullptr) {
    absl::StatusOr<std::unique_ptr<SimGPUExecutor>> created =
        SimGPUExecutor::Create(this, ordinal, options_);
    if (!created.ok()) return created.status();
    executor = *std::move(created);
  }
  return executor.get();
}

absl::StatusOr<StreamExecutor*> SimGPUPlatform::ExecutorForDevice(int ordinal) {
  absl::StatusOr<SimGPUExecutor*> executor = SimGPUExecutorForDevice(ordinal);
  if (!executor.ok()) return executor.status();
  return *executor;
}

absl::StatusOr<SimGPUPlatform*> GetSimGPUPlatform(absl::string_view options) {
  return Instances::Get().Find(options);
}

}  // namespace minitf::se
