#include "device/device_factory.h"

#include <algorithm>

#include "absl/base/thread_annotations.h"
#include "platform/logging.h"
#include "platform/mutex.h"

namespace minitf {

namespace {

struct FactoryEntry {
  std::unique_ptr<DeviceFactory> factory;
  int priority;
};

struct FactoryRegistry {
  Mutex mu;
  std::map<std::string, FactoryEntry> factories ABSL_GUARDED_BY(mu);
};

FactoryRegistry* Registry() {
  static FactoryRegistry* const registry = new FactoryRegistry();
  return registry;
}

}  // namespace

void DeviceFactory::Register(const std::string& device_type,
                             std::unique_ptr<DeviceFactory> factory, int priority) {
  FactoryRegistry* r = Registry();
  MutexLock lock(&r->mu);
  auto it = r->factories.find(device_type);
  // The higher priority wins, as in TensorFlow.
  if (it != r->factories.end() && it->second.priority >= priority) {
    LOG(WARNING, "device factory for {} with priority {} ignored: priority {} is registered",
        device_type, priority, it->second.priority);
    return;
  }
  r->factories[device_type] = FactoryEntry{std::move(factory), priority};
}

DeviceFactory* DeviceFactory::GetFactory(const std::string& device_type) {
  FactoryRegistry* r = Registry();
  MutexLock lock(&r->mu);
  auto it = r->factories.find(device_type);
  return it == r->factories.end() ? nullptr : it->second.factory.get();
}

int DeviceFactory::DevicePriority(const std::string& device_type) {
  FactoryRegistry* r = Registry();
  MutexLock lock(&r->mu);
  auto it = r->factories.find(device_type);
  return it == r->factories.end() ? -1 : it->second.priority;
}

std::vector<std::string> DeviceFactory::GetDeviceTypes() {
  FactoryRegistry* r = Registry();
  std::vector<std::pair<int, std::string>> entries;
  {
    MutexLock lock(&r->mu);
    for (const auto& [type, entry] : r->factories) entries.emplace_back(entry.priority, type);
  }
  std::sort(entries.begin(), entries.end(), [](const auto& a, const auto& b) {
    return a.first != b.first ? a.first > b.first : a.second < b.second;
  });
  std::vector<std::string> types;
  for (auto& [priority, type] : entries) types.push_back(std::move(type));
  return types;
}

absl::Status DeviceFactory::AddDevices(const DeviceOptions& options,
                                       std::vector<std::unique_ptr<Device>>* devices) {
  DeviceFactory* cpu = GetFactory(DEVICE_CPU);
  if (cpu == nullptr) return absl::InternalError("no CPU device factory is registered");
  if (absl::Status s = cpu->CreateDevices(options, devices); !s.ok()) return s;
  for (const std::string& type : GetDeviceTypes()) {
    if (type == DEVICE_CPU) continue;
    if (absl::Status s = GetFactory(type)->CreateDevices(options, devices); !s.ok()) return s;
  }
  return absl::OkStatus();
}

}  // namespace minitf
