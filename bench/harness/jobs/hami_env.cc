#include "bench/harness/jobs/hami_env.h"

#include <algorithm>
#include <cctype>
#include <limits>

#include "absl/strings/ascii.h"
#include "absl/strings/escaping.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "platform/status_macros.h"

namespace minitf::harness {
namespace {

absl::Status Invalid(absl::string_view name, absl::string_view value, absl::string_view why) {
  return absl::InvalidArgumentError(
      absl::StrCat(name, "='", absl::CHexEscape(value), "': ", why));
}

// HAMi's size: digits, then k, m or g (either case: KiB, MiB, GiB) or
// nothing (bytes).
absl::StatusOr<int64_t> ParseSize(absl::string_view name, absl::string_view value) {
  absl::string_view digits = value;
  int shift = 0;
  if (!digits.empty() && std::isalpha(static_cast<unsigned char>(digits.back()))) {
    switch (absl::ascii_tolower(digits.back())) {
      case 'k': shift = 10; break;
      case 'm': shift = 20; break;
      case 'g': shift = 30; break;
      default:
        return Invalid(name, value, "wants a size: digits, then k, m or g (e.g. 4096m)");
    }
    digits.remove_suffix(1);
  }
  uint64_t number = 0;
  // Every character a digit: SimpleAtoi alone would take "4 " of "4 g".
  const bool all_digits = !digits.empty() && std::all_of(digits.begin(), digits.end(), [](char c) {
    return std::isdigit(static_cast<unsigned char>(c)) != 0;
  });
  if (!all_digits || !absl::SimpleAtoi(digits, &number)) {
    return Invalid(name, value, "wants a size: digits, then k, m or g (e.g. 4096m)");
  }
  if (number == 0) return Invalid(name, value, "a device memory limit must be positive");
  if (number > (static_cast<uint64_t>(std::numeric_limits<int64_t>::max()) >> shift)) {
    return Invalid(name, value, "is too large");
  }
  return static_cast<int64_t>(number << shift);
}

}  // namespace

absl::StatusOr<ClusterLimits> ReadClusterLimits(const GetEnv& getenv) {
  ClusterLimits limits;
  if (const char* visible = getenv("NVIDIA_VISIBLE_DEVICES"); visible != nullptr) {
    limits.visible_devices = visible;
    const std::string v = absl::AsciiStrToLower(absl::StripAsciiWhitespace(visible));
    if (v.empty() || v == "none" || v == "void") {
      return absl::FailedPreconditionError(absl::StrCat(
          "NVIDIA_VISIBLE_DEVICES='", absl::CHexEscape(visible),
          "' leaves this job no GPU; a minitf job needs one"));
    }
  }
  for (const char* name : {"CUDA_DEVICE_MEMORY_LIMIT_0", "CUDA_DEVICE_MEMORY_LIMIT"}) {
    const char* value = getenv(name);
    if (value == nullptr) continue;
    MINITF_ASSIGN_OR_RETURN(limits.memory_limit_bytes, ParseSize(name, value));
    break;
  }
  if (const char* sm = getenv("CUDA_DEVICE_SM_LIMIT"); sm != nullptr) {
    int percent = 0;
    if (!absl::SimpleAtoi(sm, &percent) || percent < 0 || percent > 100) {
      return Invalid("CUDA_DEVICE_SM_LIMIT", sm, "wants a percentage, 0 to 100");
    }
    // HAMi's 0 sets no limit; AntMan's perfControl 0 would suspend the job.
    limits.perf_control = percent == 0 ? 100 : percent;
  }
  return limits;
}

}  // namespace minitf::harness
