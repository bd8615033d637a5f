// GPUUsageAdjustment: finds a session's GPU by the key a config file uses
// and moves its memory limit (AntMan's GPUUsageAdjustment).
//
//   MINITF_ASSIGN_OR_RETURN(GPUDevice* gpu, GPUUsageAdjustment::FindDevice(*mgr, "GPU:0"));
//   GPUUsageAdjustment::Result r = GPUUsageAdjustment::AdjustMemLimit(gpu, 2 << 30);
//   if (!r.reached) { /* live buffers hold more: try again after the next step */ }
//
// A limit above the one the device's allocator stack was built with is
// clamped to it: a job cannot grant itself more than its session was
// created with. A shrink below what live buffers occupy is only partly
// reached now (AdjustableAllocator frees what it can); the caller retries
// at later step boundaries. With VMem on, what no longer fits on the
// device is allocated on the host meanwhile. Nothing is logged here: the
// Result says what happened, and the caller, who knows whether the request
// is new or a retry, reports it.
#ifndef MINITF_SESSION_ANTMAN_GPU_USAGE_ADJUSTMENT_H_
#define MINITF_SESSION_ANTMAN_GPU_USAGE_ADJUSTMENT_H_

#include <cstdint>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "device/device_mgr.h"
#include "device/gpu/gpu_device.h"

namespace minitf {

class GPUUsageAdjustment {
 public:
  struct Result {
    int64_t requested = 0;  // what the config asked for
    int64_t target = 0;     // after clamping to the initial limit
    int64_t in_force = 0;   // the device allocator's limit now
    bool reached = false;   // in_force == target
  };

  // The GPU of `device_mgr` named by `key`: a PCI bus id ("0000:50:00.0",
  // case-insensitive) or a device name normalised to "GPU:<n>". NotFound
  // naming the key and listing the session's GPUs otherwise. Not owned.
  static absl::StatusOr<GPUDevice*> FindDevice(const DeviceMgr& device_mgr,
                                               absl::string_view key);

  // Moves `device`'s memory limit toward `bytes` (> 0).
  static Result AdjustMemLimit(GPUDevice* device, int64_t bytes);
};

}  // namespace minitf

#endif  // MINITF_SESSION_ANTMAN_GPU_USAGE_ADJUSTMENT_H_
