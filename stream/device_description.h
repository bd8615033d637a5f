// DeviceDescription: what a StreamExecutor's device is (name, bus id, memory,
// throughput), fixed when the executor is created.
#ifndef MINITF_STREAM_DEVICE_DESCRIPTION_H_
#define MINITF_STREAM_DEVICE_DESCRIPTION_H_

#include <cstdint>
#include <string>

namespace minitf::se {

struct DeviceDescription {
  std::string platform;      // "SimGPU".
  int ordinal = 0;           // The device's index on its platform.
  std::string name;          // "SimGPU (H100-like)", "NVIDIA H100 80GB HBM3".
  // PCI bus id, "0000:00:00.0" form. SimGPU device i is "0000:5i:00.0"
  // formatted as "0000:%02x:00.0" with bus 0x50 + i (stable, documented).
  std::string pci_bus_id;
  int64_t total_memory = 0;  // Bytes of device memory.
  // Throughput figures the cost model uses (0 where unknown).
  double peak_tflops = 0;         // Arithmetic, 10^12 flop/s.
  double memory_bandwidth_gbps = 0;  // Device memory, 10^9 byte/s.
  double pcie_bandwidth_gbps = 0;    // Host <-> device, 10^9 byte/s.
  int sm_count = 0;                  // Streaming multiprocessors.
};

}  // namespace minitf::se

#endif  // MINITF_STREAM_DEVICE_DESCRIPTION_H_
