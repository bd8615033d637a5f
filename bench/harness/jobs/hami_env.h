// The limits a GPU-sharing cluster hands a container through its
// environment, as HAMi's device plugin injects them:
//
//   CUDA_DEVICE_MEMORY_LIMIT_<i>  the device memory of visible GPU i
//                                 ("4096m", "4g", "512k" or bytes);
//                                 CUDA_DEVICE_MEMORY_LIMIT for every GPU
//   CUDA_DEVICE_SM_LIMIT          the compute share, a percentage 0..100
//                                 (0 and 100: unrestricted)
//   NVIDIA_VISIBLE_DEVICES        the GPUs the container sees ("none" and
//                                 "void": none)
//
// `minitf job` takes them as its starting limits: the memory limit of its
// GPU (visible GPU 0) and AntMan's perfControl.
//
//   MINITF_ASSIGN_OR_RETURN(ClusterLimits limits, ReadClusterLimits(std::getenv));
#ifndef MINITF_BENCH_HARNESS_JOBS_HAMI_ENV_H_
#define MINITF_BENCH_HARNESS_JOBS_HAMI_ENV_H_

#include <cstdint>
#include <functional>
#include <optional>
#include <string>

#include "absl/status/statusor.h"

namespace minitf::harness {

struct ClusterLimits {
  std::optional<int64_t> memory_limit_bytes;  // of visible GPU 0
  std::optional<int> perf_control;            // 1..100
  std::string visible_devices;                // as given; "" when unset
};

// A variable's value, or null when unset (std::getenv's contract).
using GetEnv = std::function<const char*(const char*)>;

// Reads the variables above. InvalidArgument naming the variable and its
// value when one does not parse or is out of range; FailedPrecondition when
// NVIDIA_VISIBLE_DEVICES leaves no GPU.
absl::StatusOr<ClusterLimits> ReadClusterLimits(const GetEnv& getenv);

}  // namespace minitf::harness

#endif  // MINITF_BENCH_HARNESS_JOBS_HAMI_ENV_H_
