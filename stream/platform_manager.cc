#include "stream/platform_manager.h"

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "platform/mutex.h"
#include "stream/host/host_platform.h"
#include "stream/sim_gpu/sim_gpu_platform.h"

namespace minitf::se {
namespace {

// The process's platforms, keyed by lower-cased name. Built-ins are added on
// the first use of the registry, whatever the call, so a program cannot take
// their names.
class Registry {
 public:
  static Registry& Get() {
    static Registry* registry = new Registry();  // Lives until exit.
    return *registry;
  }

  absl::Status Register(std::unique_ptr<Platform> platform) {
    MutexLock lock(&mu_);
    EnsureBuiltins();
    Platform* raw = platform.get();
    if (absl::Status added = Add(raw); !added.ok()) return added;
    owned_.push_back(std::move(platform));
    return absl::OkStatus();
  }

  absl::StatusOr<Platform*> Find(absl::string_view name) {
    MutexLock lock(&mu_);
    EnsureBuiltins();
    const std::string key = absl::AsciiStrToLower(name);
    auto it = by_name_.find(key);
    if (it != by_name_.end()) return it->second;
    if (key == "simgpu" && !sim_gpu_error_.ok()) return sim_gpu_error_;
    return absl::NotFoundError(absl::StrCat("no platform named \"", name, "\"; registered: ",
                                            absl::StrJoin(NamesLocked(), ", ")));
  }

  std::vector<std::string> Names() {
    MutexLock lock(&mu_);
    EnsureBuiltins();
    return NamesLocked();
  }

 private:
  void EnsureBuiltins() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    if (builtins_added_) return;
    builtins_added_ = true;
    auto host = std::make_unique<HostPlatform>();
    Add(host.get()).IgnoreError();
    owned_.push_back(std::move(host));
    // The default SimGPU instance is owned by sim_gpu_platform.cc, which
    // shares it with GetSimGPUPlatform("").
    absl::StatusOr<SimGPUPlatform*> sim_gpu = GetSimGPUPlatform("");
    if (sim_gpu.ok()) {
      Add(*sim_gpu).IgnoreError();
    } else {
      sim_gpu_error_ = sim_gpu.status();
    }
  }

  absl::Status Add(Platform* platform) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    if (!by_name_.emplace(absl::AsciiStrToLower(platform->Name()), platform).second) {
      return absl::AlreadyExistsError(
          absl::StrCat("a platform named \"", platform->Name(), "\" is already registered"));
    }
    return absl::OkStatus();
  }

  std::vector<std::string> NamesLocked() const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    std::vector<std::string> names;
    for (const auto& [key, platform] : by_name_) names.push_back(platform->Name());
    std::sort(names.begin(), names.end());
    return names;
  }

  Mutex mu_;
  bool builtins_added_ ABSL_GUARDED_BY(mu_) = false;
  absl::flat_hash_map<std::string, Platform*> by_name_ ABSL_GUARDED_BY(mu_);
  std::vector<std::unique_ptr<Platform>> owned_ ABSL_GUARDED_BY(mu_);
  // Why the default SimGPU could not be made (a malformed MINITF_SIMGPU).
  absl::Status sim_gpu_error_ ABSL_GUARDED_BY(mu_);
};

}  // namespace

absl::Status PlatformManager::RegisterPlatform(std::unique_ptr<Platform> platform) {
  if (platform == nullptr) return absl::InvalidArgumentError("RegisterPlatform: null platform");
  return Registry::Get().Register(std::move(platform));
}

absl::StatusOr<Platform*> PlatformManager::PlatformWithName(absl::string_view name) {
  return Registry::Get().Find(name);
}

std::vector<std::string> PlatformManager::PlatformNames() { return Registry::Get().Names(); }

}  // namespace minitf::se
