// Environment variables: the one place minitf reads them.
//
//   std::optional<std::string> spec = GetEnv("MINITF_SIMGPU");
//   if (spec.has_value()) ...
//
// Every layer reads its variables through these functions (MINITF_SIMGPU,
// MINITF_CPU_ALLOCATOR, TF_FORCE_GPU_ALLOW_GROWTH, MINITF_LOG_LEVEL, ...), so
// a reader finds each variable by searching for GetEnv.
#ifndef MINITF_PLATFORM_ENV_H_
#define MINITF_PLATFORM_ENV_H_

#include <optional>
#include <string>

namespace minitf {

// The value of the variable `name`; nullopt when it is unset or empty (an
// empty variable means "not set" everywhere in minitf).
std::optional<std::string> GetEnv(const char* name);

// The value of `name`, or `fallback` when it is unset or empty.
std::string GetEnvOr(const char* name, const std::string& fallback);

}  // namespace minitf

#endif  // MINITF_PLATFORM_ENV_H_
