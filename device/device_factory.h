// DeviceFactory: creates the devices of one type. Factories register with a
// priority; when a node could run on several device types, the type with the
// highest priority wins (GPU 210 before CPU 60, as in TensorFlow).
//
//   REGISTER_LOCAL_DEVICE_FACTORY("CPU", CPUDeviceFactory, 60);
//
//   std::vector<std::unique_ptr<Device>> devices;
//   MINITF_RETURN_IF_ERROR(DeviceFactory::AddDevices(options, &devices));
#ifndef MINITF_DEVICE_DEVICE_FACTORY_H_
#define MINITF_DEVICE_DEVICE_FACTORY_H_

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "device/device.h"
#include "device/gpu/gpu_options.h"

namespace minitf {

// What a session asks of its devices.
struct DeviceOptions {
  // Devices of each type to create, at most ("CPU" -> 1). Absent: the
  // factory's default (every visible device).
  std::map<std::string, int> device_count;
  // Threads of each device's intra-op pool; 0 means one per core.
  int intra_op_parallelism_threads = 0;
  // How GPU devices and their allocators are built.
  GPUOptions gpu_options;
};

class DeviceFactory {
 public:
  virtual ~DeviceFactory() = default;

  // Appends this factory's devices to `devices`.
  virtual absl::Status CreateDevices(const DeviceOptions& options,
                                     std::vector<std::unique_ptr<Device>>* devices) = 0;

  // Registers `factory` for `device_type`; the registry owns it.
  static void Register(const std::string& device_type, std::unique_ptr<DeviceFactory> factory,
                       int priority);
  // nullptr when no factory has that type.
  static DeviceFactory* GetFactory(const std::string& device_type);
  // Registered device types, highest priority first.
  static std::vector<std::string> GetDeviceTypes();
  // -1 for an unregistered type.
  static int DevicePriority(const std::string& device_type);
  // Runs every factory, CPU first so that it is device 0 of the list.
  static absl::Status AddDevices(const DeviceOptions& options,
                                 std::vector<std::unique_ptr<Device>>* devices);
};

namespace dfactory {
template <typename Factory>
struct Registrar {
  Registrar(const char* device_type, int priority) {
    DeviceFactory::Register(device_type, std::make_unique<Factory>(), priority);
  }
};
}  // namespace dfactory

#define MINITF_REGISTER_DEVICE_FACTORY_UNIQ_(ctr, type, Factory, priority) \
  static ::minitf::dfactory::Registrar<Factory> minitf_device_factory_##ctr \
      [[maybe_unused]](type, priority)
#define MINITF_REGISTER_DEVICE_FACTORY_IMPL_(ctr, type, Factory, priority) \
  MINITF_REGISTER_DEVICE_FACTORY_UNIQ_(ctr, type, Factory, priority)
#define REGISTER_LOCAL_DEVICE_FACTORY(type, Factory, priority) \
  MINITF_REGISTER_DEVICE_FACTORY_IMPL_(__COUNTER__, type, Factory, priority)

}  // namespace minitf

#endif  // MINITF_DEVICE_DEVICE_FACTORY_H_
