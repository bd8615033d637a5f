#include "stream/sim_gpu/sim_gpu_options.h"

#include <charconv>
#include <cmath>
#include <limits>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "platform/env.h"
#include "stream/sim_gpu/sim_gpu_shared_device.h"

namespace minitf::se {
namespace {

constexpr int kMaxCount = 64;
constexpr int kMaxSmCount = 1024;

struct SizeUnit {
  absl::string_view suffix;
  int64_t bytes;
};

// Longest suffixes first, so "KiB" is not read as "B".
constexpr SizeUnit kSizeUnits[] = {
    {"KiB", int64_t{1} << 10},   {"MiB", int64_t{1} << 20},   {"GiB", int64_t{1} << 30},
    {"TiB", int64_t{1} << 40},   {"KB", 1000},                {"MB", 1000 * 1000},
    {"GB", 1000 * 1000 * 1000},  {"TB", int64_t{1000} * 1000 * 1000 * 1000},
    {"B", 1},
};

// The shortest decimal string that reads back as `value`.
std::string ShortestDouble(double value) {
  char buffer[64];
  const auto result = std::to_chars(buffer, buffer + sizeof(buffer), value);
  return std::string(buffer, result.ptr);
}

std::string MemoryString(int64_t bytes) {
  constexpr std::pair<absl::string_view, int64_t> kBinary[] = {
      {"TiB", int64_t{1} << 40}, {"GiB", int64_t{1} << 30}, {"MiB", int64_t{1} << 20},
      {"KiB", int64_t{1} << 10}};
  for (const auto& [suffix, unit] : kBinary) {
    if (bytes > 0 && bytes % unit == 0) return absl::StrCat(bytes / unit, suffix);
  }
  return absl::StrCat(bytes, "B");
}

absl::Status BadValue(absl::string_view key, absl::string_view value, absl::string_view why,
                      absl::string_view options) {
  return absl::InvalidArgumentError(absl::StrCat("SimGPU option ", key, "=", value, " ", why,
                                                 " (in option string \"", options, "\")"));
}

// The figures of `options->gpu`'s profile for the keys not in `given`.
void ApplyGpuProfile(const absl::flat_hash_set<std::string>& given, SimGPUOptions* options) {
  const GpuProfile& profile = GetGpuProfile(options->gpu);
  auto fill = [&given](absl::string_view key, auto figure, auto* field) {
    if (!given.contains(key)) *field = figure;
  };
  fill("memory", profile.memory_bytes, &options->memory_bytes);
  fill("tflops", profile.tflops, &options->tflops);
  fill("hbm_gbps", profile.hbm_gbps, &options->hbm_gbps);
  fill("pcie_gbps", profile.pcie_gbps, &options->pcie_gbps);
  fill("launch_us", profile.launch_us, &options->launch_latency_us);
  fill("sm_count", profile.sm_count, &options->sm_count);
}

}  // namespace

bool ParseByteSize(absl::string_view text, int64_t* bytes) {
  int64_t unit = 1;
  for (const SizeUnit& u : kSizeUnits) {
    if (text.size() > u.suffix.size() && absl::EndsWithIgnoreCase(text, u.suffix)) {
      unit = u.bytes;
      text.remove_suffix(u.suffix.size());
      break;
    }
  }
  text = absl::StripAsciiWhitespace(text);
  int64_t whole = 0;
  if (absl::SimpleAtoi(text, &whole)) {
    if (whole < 0 || whole > std::numeric_limits<int64_t>::max() / unit) return false;
    *bytes = whole * unit;
    return true;
  }
  double number = 0;
  if (!absl::SimpleAtod(text, &number) || !std::isfinite(number) || number < 0) return false;
  const double value = std::round(number * static_cast<double>(unit));
  if (value >= 9.2e18) return false;
  *bytes = static_cast<int64_t>(value);
  return true;
}

absl::string_view SimGPUModeName(SimGPUOptions::Mode mode) {
  switch (mode) {
    case SimGPUOptions::Mode::kCompute:
      return "compute";
    case SimGPUOptions::Mode::kTiming:
      return "timing";
    case SimGPUOptions::Mode::kFunctional:
      return "functional";
  }
  return "unknown";
}

absl::string_view SimGPUKernelSetName(SimGPUOptions::KernelSet kernels) {
  return kernels == SimGPUOptions::KernelSet::kAll ? "all" : "cuda";
}

SimGPUOptions::KernelSet SimGPUKernelSetOfProcess() {
  static const SimGPUOptions::KernelSet kernels = [] {
    absl::StatusOr<SimGPUOptions> options =
        ParseSimGPUOptions(GetEnvOr("MINITF_SIMGPU", ""), SimGPUOptions::KernelSet::kCuda);
    return options.ok() ? options->kernels : SimGPUOptions::KernelSet::kCuda;
  }();
  return kernels;
}

std::string SimGPUOptions::ToString() const {
  return absl::StrCat("gpu=", GpuModelName(gpu), ",count=", count,
                      ",memory=", MemoryString(memory_bytes),
                      ",tflops=", ShortestDouble(tflops), ",hbm_gbps=", ShortestDouble(hbm_gbps),
                      ",pcie_gbps=", ShortestDouble(pcie_gbps),
                      ",launch_us=", ShortestDouble(launch_latency_us),
                      ",sm_count=", sm_count,
                      ",preempt_us=", ShortestDouble(preempt_us), ",mode=", SimGPUModeName(mode),
                      ",strict=", strict ? "true" : "false",
                      ",kernels=", SimGPUKernelSetName(kernels),
                      shared.empty() ? ""
                                     : absl::StrCat(",shared=", shared, ",share=",
                                                    SimGPUShareName(share), ",timeslice_us=",
                                                    ShortestDouble(timeslice_us),
                                                    defer ? ",defer=true" : "", ",defer_idle_us=",
                                                    ShortestDouble(defer_idle_us)));
}

absl::string_view SimGPUShareName(SimGPUOptions::Share share) {
  switch (share) {
    case SimGPUOptions::Share::kPriority:
      return "priority";
    case SimGPUOptions::Share::kMps:
      return "mps";
    case SimGPUOptions::Share::kTimeslice:
      break;
  }
  return "timeslice";
}

absl::Status ValidateSimGPUOptions(const SimGPUOptions& o) {
  auto bad = [](absl::string_view field, auto value, absl::string_view want) {
    return absl::InvalidArgumentError(
        absl::StrCat("SimGPU option ", field, "=", value, " is out of range: want ", want));
  };
  if (o.count < 0 || o.count > kMaxCount) return bad("count", o.count, "0..64");
  if (o.memory_bytes < 256) return bad("memory", o.memory_bytes, "at least 256 bytes");
  auto positive = [](double x) { return std::isfinite(x) && x > 0; };
  if (!positive(o.tflops)) return bad("tflops", o.tflops, "a positive number");
  if (!positive(o.hbm_gbps)) return bad("hbm_gbps", o.hbm_gbps, "a positive number");
  if (!positive(o.pcie_gbps)) return bad("pcie_gbps", o.pcie_gbps, "a positive number");
  if (!std::isfinite(o.launch_latency_us) || o.launch_latency_us < 0) {
    return bad("launch_us", o.launch_latency_us, "a non-negative number");
  }
  if (o.sm_count < 1 || o.sm_count > kMaxSmCount) return bad("sm_count", o.sm_count, "1..1024");
  if (!std::isfinite(o.preempt_us) || o.preempt_us < 0) {
    return bad("preempt_us", o.preempt_us, "a non-negative number");
  }
  if (!std::isfinite(o.timeslice_us) || o.timeslice_us < 1 || o.timeslice_us > 1e6) {
    return bad("timeslice_us", o.timeslice_us, "1..1000000");
  }
  if (!std::isfinite(o.defer_idle_us) || o.defer_idle_us < 0 || o.defer_idle_us > 1e6) {
    return bad("defer_idle_us", o.defer_idle_us, "0..1000000");
  }
  if (o.defer && o.mode != SimGPUOptions::Mode::kTiming) {
    return absl::InvalidArgumentError(absl::StrCat(
        "SimGPU option defer=true needs mode=timing (its SM model); mode=",
        SimGPUModeName(o.mode), " runs one kernel at a time"));
  }
  if (o.share == SimGPUOptions::Share::kMps && o.mode != SimGPUOptions::Mode::kTiming) {
    return absl::InvalidArgumentError(absl::StrCat(
        "SimGPU option share=mps needs mode=timing (its SM model); mode=",
        SimGPUModeName(o.mode), " runs one kernel at a time"));
  }
  if (!o.shared.empty()) return ValidateSharedSimGPUName(o.shared);
  return absl::OkStatus();
}

absl::StatusOr<SimGPUOptions> ParseSimGPUOptions(absl::string_view options) {
  return ParseSimGPUOptions(options, SimGPUKernelSetOfProcess());
}

absl::StatusOr<SimGPUOptions> ParseSimGPUOptions(absl::string_view options,
                                                 SimGPUOptions::KernelSet default_kernels) {
  SimGPUOptions result;
  result.kernels = default_kernels;
  absl::flat_hash_set<std::string> seen;
  for (absl::string_view item : absl::StrSplit(options, ',', absl::SkipWhitespace())) {
    item = absl::StripAsciiWhitespace(item);
    const size_t eq = item.find('=');
    if (eq == absl::string_view::npos) {
      return absl::InvalidArgumentError(absl::StrCat("SimGPU option \"", item,
                                                     "\" is not key=value (in option string \"",
                                                     options, "\")"));
    }
    const std::string key = absl::AsciiStrToLower(absl::StripAsciiWhitespace(item.substr(0, eq)));
    const absl::string_view value = absl::StripAsciiWhitespace(item.substr(eq + 1));
    if (!seen.insert(key).second) {
      return absl::InvalidArgumentError(absl::StrCat("SimGPU option ", key,
                                                     " is given twice (in option string \"",
                                                     options, "\")"));
    }
    auto parse_number = [&](double* out) -> absl::Status {
      if (!absl::SimpleAtod(value, out) || !std::isfinite(*out)) {
        return BadValue(key, value, "is not a number", options);
      }
      return absl::OkStatus();
    };
    absl::Status status;
    if (key == "gpu") {
      const std::optional<GpuModel> gpu = GpuModelFromName(value);
      if (!gpu.has_value()) {
        return BadValue(key, value, "is not a GPU profile (v100, a100 or h100)", options);
      }
      result.gpu = *gpu;
    } else if (key == "count") {
      if (!absl::SimpleAtoi(value, &result.count)) {
        return BadValue(key, value, "is not an integer", options);
      }
    } else if (key == "memory") {
      if (!ParseByteSize(value, &result.memory_bytes)) {
        return BadValue(key, value,
                        "is not a size (bytes, or a number with B, KiB, MiB, GiB, TiB, KB, MB, "
                        "GB or TB)",
                        options);
      }
    } else if (key == "tflops") {
      status = parse_number(&result.tflops);
    } else if (key == "hbm_gbps") {
      status = parse_number(&result.hbm_gbps);
    } else if (key == "pcie_gbps") {
      status = parse_number(&result.pcie_gbps);
    } else if (key == "launch_us") {
      status = parse_number(&result.launch_latency_us);
    } else if (key == "sm_count") {
      if (!absl::SimpleAtoi(value, &result.sm_count)) {
        return BadValue(key, value, "is not an integer", options);
      }
    } else if (key == "preempt_us") {
      status = parse_number(&result.preempt_us);
    } else if (key == "mode") {
      const std::string mode = absl::AsciiStrToLower(value);
      if (mode == "compute") {
        result.mode = SimGPUOptions::Mode::kCompute;
      } else if (mode == "timing") {
        result.mode = SimGPUOptions::Mode::kTiming;
      } else if (mode == "functional") {
        result.mode = SimGPUOptions::Mode::kFunctional;
      } else {
        return BadValue(key, value, "is not a mode (compute, timing or functional)", options);
      }
    } else if (key == "strict" || key == "defer") {
      const std::string flag = absl::AsciiStrToLower(value);
      bool* const field = key == "strict" ? &result.strict : &result.defer;
      if (flag == "true" || flag == "1") {
        *field = true;
      } else if (flag == "false" || flag == "0") {
        *field = false;
      } else {
        return BadValue(key, value, "is not a boolean (true, false, 1 or 0)", options);
      }
    } else if (key == "kernels") {
      const std::string kernels = absl::AsciiStrToLower(value);
      if (kernels == "cuda") {
        result.kernels = SimGPUOptions::KernelSet::kCuda;
      } else if (kernels == "all") {
        result.kernels = SimGPUOptions::KernelSet::kAll;
      } else {
        return BadValue(key, value, "is not a kernel set (cuda or all)", options);
      }
    } else if (key == "share") {
      const std::string share = absl::AsciiStrToLower(value);
      if (share == "timeslice") {
        result.share = SimGPUOptions::Share::kTimeslice;
      } else if (share == "priority") {
        result.share = SimGPUOptions::Share::kPriority;
      } else if (share == "mps") {
        result.share = SimGPUOptions::Share::kMps;
      } else {
        return BadValue(key, value, "is not a sharing mode (timeslice, priority or mps)",
                        options);
      }
    } else if (key == "timeslice_us") {
      status = parse_number(&result.timeslice_us);
    } else if (key == "defer_idle_us") {
      status = parse_number(&result.defer_idle_us);
    } else if (key == "shared") {
      result.shared = std::string(value);
      if (absl::Status valid = ValidateSharedSimGPUName(value); !valid.ok()) {
        return BadValue(key, value, valid.message(), options);
      }
    } else {
      return absl::InvalidArgumentError(absl::StrCat(
          "unknown SimGPU option \"", key, "\" (in option string \"", options,
          "\"); known: gpu, count, memory, tflops, hbm_gbps, pcie_gbps, launch_us, sm_count, "
          "preempt_us, mode, strict, kernels, shared, share, timeslice_us, defer, "
          "defer_idle_us"));
    }
    if (!status.ok()) return status;
  }
  // How processes share a device means nothing for a device of one process.
  for (const char* key : {"share", "timeslice_us", "defer", "defer_idle_us"}) {
    if (seen.contains(key) && result.shared.empty()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "SimGPU option ", key, " applies only to a device shared by processes (shared=NAME) "
          "(in option string \"", options, "\")"));
    }
  }
  ApplyGpuProfile(seen, &result);
  if (absl::Status valid = ValidateSimGPUOptions(result); !valid.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat(valid.message(), " (in option string \"", options, "\")"));
  }
  return result;
}

}  // namespace minitf::se
