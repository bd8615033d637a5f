#include "platform/cpu_isa.h"

#include <algorithm>
#include <optional>
#include <string>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "platform/env.h"
#include "platform/logging.h"

namespace minitf {

CpuIsa DetectedCpuIsa() {
#if defined(__x86_64__)
  static const CpuIsa detected = [] {
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512dq") &&
        __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512vl") &&
        __builtin_cpu_supports("fma")) {
      return CpuIsa::kAvx512;
    }
    if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) return CpuIsa::kAvx2;
    return CpuIsa::kBaseline;
  }();
  return detected;
#else
  return CpuIsa::kBaseline;
#endif
}

const char* CpuIsaName(CpuIsa isa) {
  switch (isa) {
    case CpuIsa::kAvx512: return "avx512";
    case CpuIsa::kAvx2: return "avx2";
    case CpuIsa::kBaseline: break;
  }
  return "baseline";
}

absl::StatusOr<CpuIsa> ParseCpuIsa(const std::string& value) {
  const std::string lower = absl::AsciiStrToLower(value);
  if (lower == "baseline" || lower == "sse2") return CpuIsa::kBaseline;
  if (lower == "avx2") return CpuIsa::kAvx2;
  if (lower == "avx512") return CpuIsa::kAvx512;
  return absl::InvalidArgumentError(absl::StrCat(
      "MINITF_MAX_CPU_ISA=\"", value, "\" is not one of baseline, sse2, avx2, avx512"));
}

CpuIsa ActiveCpuIsa() {
  static const CpuIsa active = [] {
    const std::optional<std::string> cap = GetEnv("MINITF_MAX_CPU_ISA");
    if (!cap.has_value()) return DetectedCpuIsa();
    const absl::StatusOr<CpuIsa> parsed = ParseCpuIsa(*cap);
    if (!parsed.ok()) {
      LOG(ERROR, "{}; the host loops run at the baseline", parsed.status().message());
      return CpuIsa::kBaseline;
    }
    return std::min(*parsed, DetectedCpuIsa());
  }();
  return active;
}

}  // namespace minitf
