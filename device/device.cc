#include "device/device.h"

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"

namespace minitf {

Device::Device(DeviceAttributes attributes, int id)
    : attributes_(std::move(attributes)), id_(id) {}

Device::~Device() = default;

bool ParsedDeviceName::Matches(const DeviceAttributes& attrs, int device_id) const {
  return (type.empty() || type == attrs.device_type) && (id < 0 || id == device_id);
}

std::string FullDeviceName(absl::string_view type, int id) {
  return absl::StrCat("/job:localhost/replica:0/task:0/device:", type, ":", id);
}

absl::StatusOr<ParsedDeviceName> ParseDeviceName(absl::string_view name) {
  ParsedDeviceName parsed;
  auto bad = [&](absl::string_view why) {
    return absl::InvalidArgumentError(
        absl::StrCat("malformed device name '", absl::CHexEscape(name), "': ", why));
  };
  if (name.empty()) return parsed;
  // Keep the part after "device:" when present; drop job/replica/task.
  absl::string_view rest = name;
  if (size_t pos = rest.rfind("device:"); pos != absl::string_view::npos) {
    rest = rest.substr(pos + 7);
  } else {
    std::vector<absl::string_view> parts = absl::StrSplit(rest, '/', absl::SkipEmpty());
    if (parts.empty()) return bad("no device");
    rest = parts.back();
    if (absl::StartsWith(rest, "job:") || absl::StartsWith(rest, "replica:") ||
        absl::StartsWith(rest, "task:")) {
      return parsed;
    }
  }
  std::vector<absl::string_view> fields = absl::StrSplit(rest, ':');
  if (fields.empty() || fields.size() > 2 || fields[0].empty()) return bad("expected TYPE:ID");
  parsed.type = absl::AsciiStrToUpper(fields[0]);
  if (fields.size() == 2 && fields[1] != "*") {
    if (!absl::SimpleAtoi(fields[1], &parsed.id) || parsed.id < 0) {
      return bad("the device id must be a non-negative integer");
    }
  }
  return parsed;
}

}  // namespace minitf
