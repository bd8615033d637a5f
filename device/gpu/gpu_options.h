// GPUOptions: how a session's GPU devices and their allocator stacks are
// built (TensorFlow's ConfigProto.gpu_options, plus what co-location needs).
//
// Environment variables, read when the stack is built, override the fields
// as they do in TensorFlow and AntMan:
//   TF_FORCE_GPU_ALLOW_GROWTH=true|false   allow_growth
//   TF_GPU_VMEM=true|false                 vmem (default on)
//   TF_CUDA_HOST_MEM_LIMIT_IN_MB=<n>       host_memory_limit_mb (default 64 GiB, lowered to
//                                          the host memory the process may have)
//   TF_GPU_THREAD_MODE=global|gpu_private|gpu_shared
//   MINITF_SIMGPU=<options>                the SimGPU platform's options
//   MINITF_GPU_PLATFORM=SimGPU|CUDA        platform, when the session names none
//                                          (tests: no test may depend on it)
#ifndef MINITF_DEVICE_GPU_GPU_OPTIONS_H_
#define MINITF_DEVICE_GPU_GPU_OPTIONS_H_

#include <cstdint>
#include <string>

#include "absl/status/statusor.h"
#include "stream/stream_priority.h"

namespace minitf {

struct GPUOptions {
  // Fraction of each GPU's memory the session's allocator may use (0 means
  // the default, the whole device less a reserve for the runtime).
  double per_process_gpu_memory_fraction = 0;
  // An explicit limit in bytes; wins over the fraction when non-zero.
  int64_t memory_limit_bytes = 0;
  // Reserve device memory as needed, doubling, rather than all at once.
  bool allow_growth = false;
  // Spill allocations that do not fit on the device to pinned host memory
  // (AntMan's VMem) instead of failing.
  bool vmem = true;
  // Limit of the pinned host pool behind VMem, in MiB.
  int64_t host_memory_limit_mb = int64_t{64} << 10;
  // "" picks MINITF_GPU_PLATFORM when set, else CUDA when it has devices,
  // else SimGPU; or "SimGPU", "CUDA".
  std::string platform;
  // SimGPU option string ("count=1,memory=16GiB,mode=compute", see
  // docs/SIMGPU.md). Sessions giving the same string share the simulated
  // devices; "" is the process default (MINITF_SIMGPU, else the defaults).
  std::string simgpu_options;
  // Comma-separated ordinals of the platform's devices to use ("" = all).
  std::string visible_device_list;
  // When true the session's GPU devices get allocator stacks of their own
  // (their own memory limit) over the shared physical device, instead of
  // the process-wide stack GPUProcessState::Default() keeps per GPU. The
  // co-location harness gives every job its own.
  bool private_allocators = false;
  // Which threads launch GPU kernels: "global" (the session's inter-op
  // pool), "gpu_private" (two threads per GPU device), "gpu_shared" (one
  // pool shared by all GPU devices). "" = TF_GPU_THREAD_MODE or "global".
  std::string thread_mode;
  // The priority of the GPU devices' streams (stream_priority.h;
  // TensorFlow's VirtualDevices.priority): the device serves a
  // higher-priority session's kernels first. The co-location harness gives
  // a guaranteed job kHighest and an opportunistic one kLowest.
  se::StreamPriority stream_priority = se::StreamPriority::kDefault;
  // The share of each GPU's SMs the session's streams run on, in (0, 1]: a
  // green context (stream/sm_partition.h), whose share a job's perfControl
  // sets under the 'sms' pacing policy. 0: every SM, no partition. Only
  // SimGPU's timing mode models SMs; elsewhere a non-zero value is an error
  // when the devices are made.
  double sm_fraction = 0;
};

// `options` with the environment variables above applied. InvalidArgument
// naming the variable when one holds a value that cannot be parsed.
absl::StatusOr<GPUOptions> ApplyGPUEnvironment(GPUOptions options);

}  // namespace minitf

#endif  // MINITF_DEVICE_GPU_GPU_OPTIONS_H_
