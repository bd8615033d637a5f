// Tagged device addresses: the form in which SimGPU hands out device memory
// (stream/device_memory_protection.h says why and who may translate them).
// A device address is the real address with bit 53 set; user-space mappings
// lie below 2^47 (2^48 on AArch64), so no real address has it and a
// dereference of a tagged one faults. Every layer may do arithmetic on
// tagged addresses; the allocators use RealAddress where they hand the
// memory to tools that need the mapping (AddressSanitizer's poisoning).
//
//   void* device = TagAsDeviceAddress(real);
//   RealAddress(device) == real;   // and RealAddress(host_pointer) == host_pointer
#ifndef MINITF_PLATFORM_DEVICE_ADDRESS_H_
#define MINITF_PLATFORM_DEVICE_ADDRESS_H_

#include <cstdint>

namespace minitf {

inline constexpr uintptr_t kDeviceAddressTag = uintptr_t{1} << 53;

inline void* TagAsDeviceAddress(void* real) {
  return reinterpret_cast<void*>(reinterpret_cast<uintptr_t>(real) | kDeviceAddressTag);
}
// The address `p` names, tagged or not.
inline void* RealAddress(const void* p) {
  return reinterpret_cast<void*>(reinterpret_cast<uintptr_t>(p) & ~kDeviceAddressTag);
}
inline bool IsTaggedDeviceAddress(const void* p) {
  return (reinterpret_cast<uintptr_t>(p) & kDeviceAddressTag) != 0;
}

}  // namespace minitf

#endif  // MINITF_PLATFORM_DEVICE_ADDRESS_H_
