// DeviceMgr owns a session's devices and finds them by name; DeviceSet is the
// non-owning list placement chooses from, ordered by device-type priority.
#ifndef MINITF_DEVICE_DEVICE_MGR_H_
#define MINITF_DEVICE_DEVICE_MGR_H_

#include <memory>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "device/device.h"

namespace minitf {

// Immutable after construction, hence thread-safe.
class DeviceMgr {
 public:
  explicit DeviceMgr(std::vector<std::unique_ptr<Device>> devices);

  // Accepts full names and the short forms ("CPU:0", "/device:CPU:0",
  // "/cpu:0"). NotFound lists the devices there are.
  absl::StatusOr<Device*> LookupDevice(absl::string_view name) const;
  // Devices in creation order (CPU:0 first). Pointers stay valid for the
  // DeviceMgr's life.
  std::vector<Device*> ListDevices() const;
  int NumDevices() const { return static_cast<int>(devices_.size()); }
  // The first device of `type`, or nullptr.
  Device* FirstDeviceOfType(absl::string_view type) const;

 private:
  std::vector<std::unique_ptr<Device>> devices_;
  absl::flat_hash_map<std::string, Device*> by_name_;
};

class DeviceSet {
 public:
  DeviceSet() = default;
  void AddDevice(Device* device);  // Not owned.
  // The devices matching `spec` (a parsed, possibly partial name).
  std::vector<Device*> FindMatchingDevices(const ParsedDeviceName& spec) const;
  const std::vector<Device*>& devices() const { return devices_; }
  // Device types present, highest registered priority first.
  std::vector<std::string> PrioritizedDeviceTypeList() const;
  // The device feeds and fetches live on (the first CPU).
  Device* client_device() const;

 private:
  std::vector<Device*> devices_;
};

}  // namespace minitf

#endif  // MINITF_DEVICE_DEVICE_MGR_H_
