#include "ops/kernels/onednn_host.h"

#include <mutex>
#include <optional>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "oneapi/dnnl/dnnl.hpp"
#include "platform/cpu_isa.h"
#include "platform/env.h"
#include "platform/logging.h"

// libgomp's, under which Debian's oneDNN runs (its C interface; the header
// would need -fopenmp).
extern "C" void omp_set_num_threads(int threads);

namespace minitf::functor {
namespace {

// Why oneDNN is off, or nullopt when it is on.
std::optional<std::string> WhyOff() {
  if (ActiveCpuIsa() == CpuIsa::kBaseline) return "MINITF_MAX_CPU_ISA caps at the baseline";
  const std::optional<std::string> opts = GetEnv("TF_ENABLE_ONEDNN_OPTS");
  if (!opts.has_value()) return std::nullopt;
  const absl::StatusOr<bool> on = ParseOneDnnOpts(*opts);
  if (!on.ok()) {
    LOG(ERROR, "{}; oneDNN stays on (the default)", on.status().message());
    return std::nullopt;
  }
  if (!*on) return "TF_ENABLE_ONEDNN_OPTS=" + *opts;
  return std::nullopt;
}

const std::optional<std::string>& CachedWhyOff() {
  static const std::optional<std::string> why = WhyOff();
  return why;
}

}  // namespace

absl::StatusOr<bool> ParseOnOff(absl::string_view variable, const std::string& value) {
  const std::string lower = absl::AsciiStrToLower(value);
  if (lower == "1" || lower == "true") return true;
  if (lower == "0" || lower == "false") return false;
  return absl::InvalidArgumentError(
      absl::StrCat(variable, "=\"", value, "\" is not one of 0, 1, false, true"));
}

absl::StatusOr<bool> ParseOneDnnOpts(const std::string& value) {
  return ParseOnOff("TF_ENABLE_ONEDNN_OPTS", value);
}

bool OneDnnWinogradEnabled() {
  static const bool on = [] {
    const std::optional<std::string> value = GetEnv("MINITF_ONEDNN_WINOGRAD");
    if (!value.has_value()) return true;
    const absl::StatusOr<bool> parsed = ParseOnOff("MINITF_ONEDNN_WINOGRAD", *value);
    if (!parsed.ok()) {
      LOG(ERROR, "{}; Winograd stays on (the default)", parsed.status().message());
      return true;
    }
    return *parsed;
  }();
  return on;
}

bool OneDnnEnabled() { return !CachedWhyOff().has_value(); }

std::string WhyOneDnnOff() { return CachedWhyOff().value_or(""); }

std::string OneDnnName() {
  const dnnl_version_t* v = dnnl::version();
  return absl::StrCat("oneDNN ", v->major, ".", v->minor, ".", v->patch, ", up to ",
                      CpuIsaName(ActiveCpuIsa()));
}

void PrepareOneDnnCall(int threads) {
  static std::once_flag capped;
  std::call_once(capped, [] {
    if (ActiveCpuIsa() == CpuIsa::kAvx2) dnnl::set_max_cpu_isa(dnnl::cpu_isa::avx2);
  });
  omp_set_num_threads(threads);
}

}  // namespace minitf::functor
