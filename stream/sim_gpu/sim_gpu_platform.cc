#include "stream/sim_gpu/sim_gpu_platform.h"

#include <cstdlib>
#include <string>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"

namespace minitf::se {
namespace {

constexpr char kEnvVar[] = "MINITF_SIMGPU";

// The options of the default instance: MINITF_SIMGPU, or the defaults.
absl::StatusOr<SimGpuOptions> DefaultOptions() {
  const char* env = std::getenv(kEnvVar);
  if (env == nullptr) return SimGpuOptions();
  absl::StatusOr<SimGpuOptions> parsed = ParseSimGpuOptions(env);
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

  absl::StatusOr<SimGpuPlatform*> Find(absl::string_view option_string) {
    absl::StatusOr<SimGpuOptions> options =
        option_string.empty() ? DefaultOptions() : ParseSimGpuOptions(option_string);
    if (!options.ok()) return options.status();
    const std::string key = options->ToString();
    MutexLock lock(&mu_);
    std::unique_ptr<SimGpuPlatform>& slot = by_options_[key];
    if (slot == nullptr) {
      absl::StatusOr<std::unique_ptr<SimGpuPlatform>> created = SimGpuPlatform::Create(*options);
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
  absl::flat_hash_map<std::string, std::unique_ptr<SimGpuPlatform>> by_options_
      ABSL_GUARDED_BY(mu_);
};

}  // namespace

absl::StatusOr<std::unique_ptr<SimGpuPlatform>> SimGpuPlatform::Create(SimGpuOptions options) {
  if (absl::Status valid = ValidateSimGpuOptions(options); !valid.ok()) return valid;
  return std::unique_ptr<SimGpuPlatform>(new SimGpuPlatform(std::move(options)));
}

SimGpuPlatform::SimGpuPlatform(SimGpuOptions options)
    : options_(std::move(options)), executors_(options_.count) {}

PlatformId SimGpuPlatform::Id() {
  static const char kId = 0;
  return &kId;
}

absl::StatusOr<SimGpuExecutor*> SimGpuPlatform::SimGpuExecutorForDevice(int ordinal) {
  if (ordinal < 0 || ordinal >= options_.count) {
    return absl::InvalidArgumentError(absl::StrCat("SimGPU has ", options_.count,
                                                   " device(s); no device with ordinal ",
                                                   ordinal));
  }
  MutexLock lock(&mu_);
  std::unique_ptr<SimGpuExecutor>& executor = executors_[ordinal];
  if (executor == nullptr) executor = std::make_unique<SimGpuExecutor>(this, ordinal, options_);
  return executor.get();
}

absl::StatusOr<StreamExecutor*> SimGpuPlatform::ExecutorForDevice(int ordinal) {
  absl::StatusOr<SimGpuExecutor*> executor = SimGpuExecutorForDevice(ordinal);
  if (!executor.ok()) return executor.status();
  return *executor;
}

absl::StatusOr<SimGpuPlatform*> GetSimGpuPlatform(absl::string_view options) {
  return Instances::Get().Find(options);
}

}  // namespace minitf::se
