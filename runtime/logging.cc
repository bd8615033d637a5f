#include "runtime/logging.h"

#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <string>

namespace minitf::logging {

int VerboseLevel() {
  static const int level = [] {
    const char* env = std::getenv("MINITF_VLOG");
    return env == nullptr ? 0 : std::atoi(env);
  }();
  return level;
}

void InitOnce() {
  static std::once_flag once;
  std::call_once(once, [] {
    const char* env = std::getenv("MINITF_LOG_LEVEL");
    if (env != nullptr) spdlog::set_level(spdlog::level::from_str(env));
  });
}

void CheckFailed(const char* file, int line, const char* condition) {
  std::fprintf(stderr, "%s:%d: check failed: %s\n", file, line, condition);
  std::abort();
}

}  // namespace minitf::logging
