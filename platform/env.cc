#include "platform/env.h"

#include <cstdlib>

namespace minitf {

std::optional<std::string> GetEnv(const char* name) {
  const char* value = std::getenv(name);
  if (value == nullptr || *value == '\0') return std::nullopt;
  return std::string(value);
}

std::string GetEnvOr(const char* name, const std::string& fallback) {
  return GetEnv(name).value_or(fallback);
}

}  // namespace minitf
