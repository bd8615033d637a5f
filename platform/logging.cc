#include "platform/logging.h"

#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <optional>
#include <string>

#include "platform/env.h"

namespace minitf::logging {

int VerboseLevel() {
  static const int level = [] {
    std::optional<std::string> env = GetEnv("MINITF_VLOG");
    return env.has_value() ? std::atoi(env->c_str()) : 0;
  }();
  return level;
}

void InitOnce() {
  static std::once_flag once;
  std::call_once(once, [] {
    std::optional<std::string> env = GetEnv("MINITF_LOG_LEVEL");
    if (env.has_value()) spdlog::set_level(spdlog::level::from_str(*env));
  });
}

void SetDefaultLogLevel(absl::string_view level) {
  InitOnce();
  if (GetEnv("MINITF_LOG_LEVEL").has_value()) return;
  spdlog::level::level_enum threshold = spdlog::level::from_str(std::string(level));
  // MINITF_VLOG asks for the verbose lines, which print at info: a quieter
  // default would drop them all.
  if (VerboseLevel() > 0 && threshold > spdlog::level::info) threshold = spdlog::level::info;
  spdlog::set_level(threshold);
}

void CheckFailed(const char* file, int line, const char* condition) {
  std::fprintf(stderr, "%s:%d: check failed: %s\n", file, line, condition);
  std::abort();
}

}  // namespace minitf::logging
