// DeviceMemoryBase / DeviceMemory<T>: a typed-or-untyped handle to a range of
// a device's memory, as StreamExecutor hands it out. The handle owns nothing:
// memory is returned with StreamExecutor::Deallocate.
//
//   DeviceMemoryBase mem = executor->Allocate(1024);
//   if (mem.is_null()) { ... out of device memory ... }
//   DeviceMemory<float> floats(mem);            // 256 floats
//   executor->Deallocate(&mem);
#ifndef MINITF_STREAM_DEVICE_MEMORY_H_
#define MINITF_STREAM_DEVICE_MEMORY_H_

#include <cstdint>

namespace minitf::se {

class DeviceMemoryBase {
 public:
  explicit DeviceMemoryBase(void* opaque = nullptr, uint64_t size = 0)
      : opaque_(opaque), size_(size) {}

  bool is_null() const { return opaque_ == nullptr; }
  // The device address (on SimGPU and Host also a host address).
  void* opaque() const { return opaque_; }
  uint64_t size() const { return size_; }

  bool operator==(const DeviceMemoryBase& other) const {
    return opaque_ == other.opaque_ && size_ == other.size_;
  }

 private:
  void* opaque_;
  uint64_t size_;
};

template <typename T>
class DeviceMemory : public DeviceMemoryBase {
 public:
  DeviceMemory() = default;
  explicit DeviceMemory(const DeviceMemoryBase& other) : DeviceMemoryBase(other) {}
  static DeviceMemory<T> MakeFromByteSize(void* opaque, uint64_t bytes) {
    return DeviceMemory<T>(DeviceMemoryBase(opaque, bytes));
  }

  uint64_t ElementCount() const { return size() / sizeof(T); }
  T* base() const { return static_cast<T*>(opaque()); }
};

}  // namespace minitf::se

#endif  // MINITF_STREAM_DEVICE_MEMORY_H_
