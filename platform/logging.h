// LOG / VLOG / MINITF_CHECK: a thin layer over spdlog.
//
//   LOG(INFO, "created session with {} devices", n);
//   VLOG(1, "node {} ready", name);       // printed when MINITF_VLOG >= 1
//   MINITF_CHECK(ptr != nullptr) ;         // broken internal invariant: abort
//
// Severity INFO, WARNING, ERROR. The environment variable MINITF_LOG_LEVEL
// (trace, debug, info, warn, error, off) sets the threshold; MINITF_VLOG sets
// the verbose level (default 0: no VLOG output).
#ifndef MINITF_PLATFORM_LOGGING_H_
#define MINITF_PLATFORM_LOGGING_H_

#include <string>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "spdlog/spdlog.h"

// Lets LOG/VLOG and fmt::format print absl::string_view and absl::Status.
template <>
struct fmt::formatter<absl::string_view> : fmt::formatter<fmt::string_view> {
  template <typename FormatContext>
  auto format(absl::string_view s, FormatContext& ctx) const {
    return fmt::formatter<fmt::string_view>::format(fmt::string_view(s.data(), s.size()), ctx);
  }
};
template <>
struct fmt::formatter<absl::Status> : fmt::formatter<std::string> {
  template <typename FormatContext>
  auto format(const absl::Status& s, FormatContext& ctx) const {
    return fmt::formatter<std::string>::format(s.ToString(), ctx);
  }
};

namespace minitf::logging {

// The verbose level from MINITF_VLOG, read once.
int VerboseLevel();
// Applies MINITF_LOG_LEVEL to spdlog once; called by the macros.
void InitOnce();
// Sets the threshold ("trace", "debug", "info", "warn", "error", "off") unless
// MINITF_LOG_LEVEL sets it: a program's default that the user can override.
// With MINITF_VLOG above 0 the threshold is at most info, where VLOG prints.
void SetDefaultLogLevel(absl::string_view level);
// Prints the message and aborts. Used by MINITF_CHECK.
[[noreturn]] void CheckFailed(const char* file, int line, const char* condition);

}  // namespace minitf::logging

#define MINITF_LOG_INFO_ ::spdlog::level::info
#define MINITF_LOG_WARNING_ ::spdlog::level::warn
#define MINITF_LOG_ERROR_ ::spdlog::level::err

#define LOG(severity, ...)                                       \
  do {                                                           \
    ::minitf::logging::InitOnce();                               \
    ::spdlog::log(MINITF_LOG_##severity##_, __VA_ARGS__);        \
  } while (0)

#define VLOG_IS_ON(verbosity) (::minitf::logging::VerboseLevel() >= (verbosity))

// (The parameter is not called `level`: that would rewrite spdlog::level.)
#define VLOG(verbosity, ...)                                                 \
  do {                                                                       \
    if (VLOG_IS_ON(verbosity)) {                                             \
      ::minitf::logging::InitOnce();                                         \
      ::spdlog::log(::spdlog::level::info, __VA_ARGS__);                     \
    }                                                                        \
  } while (0)

#define MINITF_CHECK(condition)                                              \
  do {                                                                       \
    if (!(condition)) ::minitf::logging::CheckFailed(__FILE__, __LINE__, #condition); \
  } while (0)

#endif  // MINITF_PLATFORM_LOGGING_H_
