#include "device/device_mgr.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "device/device_factory.h"

namespace minitf {

DeviceMgr::DeviceMgr(std::vector<std::unique_ptr<Device>> devices)
    : devices_(std::move(devices)) {
  for (const auto& d : devices_) by_name_[d->name()] = d.get();
}

absl::StatusOr<Device*> DeviceMgr::LookupDevice(absl::string_view name) const {
  if (auto it = by_name_.find(name); it != by_name_.end()) return it->second;
  auto parsed = ParseDeviceName(name);
  if (parsed.ok() && !parsed->type.empty()) {
    const int id = parsed->id < 0 ? 0 : parsed->id;
    for (const auto& d : devices_) {
      if (d->device_type() == parsed->type && d->id() == id) return d.get();
    }
  }
  std::vector<std::string> names;
  for (const auto& d : devices_) names.push_back(d->name());
  return absl::NotFoundError(absl::StrCat("unknown device '", name, "'; devices are [",
                                          absl::StrJoin(names, ", "), "]"));
}

std::vector<Device*> DeviceMgr::ListDevices() const {
  std::vector<Device*> out;
  for (const auto& d : devices_) out.push_back(d.get());
  return out;
}

Device* DeviceMgr::FirstDeviceOfType(absl::string_view type) const {
  for (const auto& d : devices_) {
    if (d->device_type() == type) return d.get();
  }
  return nullptr;
}

void DeviceSet::AddDevice(Device* device) { devices_.push_back(device); }

std::vector<Device*> DeviceSet::FindMatchingDevices(const ParsedDeviceName& spec) const {
  std::vector<Device*> out;
  for (Device* d : devices_) {
    if (spec.Matches(d->attributes(), d->id())) out.push_back(d);
  }
  return out;
}

std::vector<std::string> DeviceSet::PrioritizedDeviceTypeList() const {
  std::vector<std::string> types;
  for (Device* d : devices_) {
    if (std::find(types.begin(), types.end(), d->device_type()) == types.end()) {
      types.push_back(d->device_type());
    }
  }
  std::stable_sort(types.begin(), types.end(), [](const std::string& a, const std::string& b) {
    return DeviceFactory::DevicePriority(a) > DeviceFactory::DevicePriority(b);
  });
  return types;
}

Device* DeviceSet::client_device() const {
  for (Device* d : devices_) {
    if (d->device_type() == DEVICE_CPU) return d;
  }
  return devices_.empty() ? nullptr : devices_.front();
}

}  // namespace minitf
