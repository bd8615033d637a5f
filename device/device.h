// Device: a DeviceBase with a name, attributes and a lifetime managed by a
// DeviceMgr. device/ implements the concrete ones (CPU now, GPU later).
//
// Names follow TensorFlow: "/job:localhost/replica:0/task:0/device:CPU:0".
// ParseDeviceName also accepts the short forms "/device:CPU:0", "/cpu:0" and
// "CPU:0".
#ifndef MINITF_DEVICE_DEVICE_H_
#define MINITF_DEVICE_DEVICE_H_

#include <cstdint>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "runtime/device_base.h"
#include "runtime/resource_mgr.h"

namespace minitf {

struct DeviceAttributes {
  std::string name;          // Full name.
  std::string device_type;   // "CPU", "GPU".
  int64_t memory_limit = 0;  // Bytes; 0 when unbounded.
  std::string physical_device_desc;
};

// A parsed device name; empty type / id -1 mean "any".
struct ParsedDeviceName {
  std::string type;
  int id = -1;

  bool Matches(const DeviceAttributes& attrs, int device_id) const;
};
absl::StatusOr<ParsedDeviceName> ParseDeviceName(absl::string_view name);
// "/job:localhost/replica:0/task:0/device:<type>:<id>".
std::string FullDeviceName(absl::string_view type, int id);

class Device : public DeviceBase {
 public:
  Device(DeviceAttributes attributes, int id);
  ~Device() override;

  const std::string& name() const override { return attributes_.name; }
  const std::string& device_type() const override { return attributes_.device_type; }
  const DeviceAttributes& attributes() const { return attributes_; }
  // The index among devices of the same type (the 0 of "CPU:0").
  int id() const { return id_; }
  ResourceMgr* resource_manager() override { return &resource_manager_; }

 private:
  const DeviceAttributes attributes_;
  const int id_;
  ResourceMgr resource_manager_;
};

}  // namespace minitf

#endif  // MINITF_DEVICE_DEVICE_H_
