// SimGPUOptions: the configuration of a SimGPU platform (the GPU it models,
// how many devices, how much memory each has, the throughput figures of the
// cost model and the execution mode), and the option string that spells it.
//
//   absl::StatusOr<SimGPUOptions> o =
//       ParseSimGPUOptions("count=2,memory=64MiB,mode=functional");
//   o->ToString();  // "gpu=v100,count=2,memory=64MiB,tflops=15.7,...,mode=functional"
//
// The option string is a comma-separated list of key=value pairs, any subset
// in any order (keys absent keep their defaults):
//
//   gpu=G            v100 | a100 | h100: the GPU profile (sim_gpu_profile.h)
//                    whose figures the keys memory, tflops, hbm_gbps,
//                    pcie_gbps, launch_us and sm_count default to, and
//                    whose per-op-family efficiencies the cost model uses.
//                    Those keys, given too, override the profile's figure
//                    whatever their order.
//   count=N          devices (0..64)
//   memory=SIZE      device memory per device: plain bytes or a number with
//                    B, KiB, MiB, GiB, TiB, KB, MB, GB, TB (case-insensitive)
//   tflops=X         peak arithmetic throughput, 10^12 flop/s
//   hbm_gbps=X       device-memory bandwidth, 10^9 byte/s
//   pcie_gbps=X      host <-> device bandwidth, 10^9 byte/s
//   launch_us=X      kernel launch latency, microseconds
//   sm_count=N       streaming multiprocessors (1..1024): in timing mode,
//                    kernels run side by side on them (sim_gpu_sm_pool.h)
//   preempt_us=X     how long a running kernel takes to hand the compute
//                    engine to a higher-priority stream's kernel (its thread
//                    blocks in flight drain), microseconds; 0 = at once, a
//                    value longer than any kernel = never
//   mode=M           compute | timing | functional
//   strict=B         true | false: device memory unreachable from host code
//                    (device_memory_protection.h), as on a real GPU; on by
//                    default, so a kernel that reads a device pointer on the
//                    host faults here as it would on CUDA
//   kernels=K        cuda | all: which GPU kernels SimGPU has. cuda (the
//                    default): exactly the (op, dtype, HostMemory args)
//                    the CUDA platform has (ops/kernels/cuda_kernel_set.h),
//                    so a graph places on SimGPU as on a real GPU; all: a
//                    SimGPU twin of every CPU kernel, for experiments that
//                    want every op on the device. The kernel registry is
//                    process-wide: the set comes from MINITF_SIMGPU, read
//                    once (SimGPUKernelSetOfProcess); a platform whose
//                    options ask for the other set is an error.
//   shared=NAME      one device shared by every process that names it
//                    (sim_gpu_shared_device.h): their memory together fits
//                    the capacity and their kernels take turns on one
//                    engine, as processes on a real GPU. Absent: the
//                    process's own device. Letters, digits, '.', '_', '-'.
//   share=S          timeslice | priority | mps (with shared= only): how the
//                    processes' kernels take turns (sim_gpu_shared_device.h):
//                    timeslice (the default) as an NVIDIA GPU time-slices
//                    the contexts of processes without MPS; priority, stream
//                    priorities across processes (SimGPU's earlier model);
//                    mps (mode=timing only), as MPS clients: the processes'
//                    kernels side by side on the SMs, each process capped
//                    at CUDA_MPS_ACTIVE_THREAD_PERCENTAGE of them
//   timeslice_us=X   the length of a timeslice (with shared= only; 1..10^6,
//                    default 2000)
//   defer=B          true | false (with shared= and mode=timing only): this
//                    process's kernels wait to join the SMs while a process
//                    that does not defer has a kernel there, as an
//                    opportunistic job's framework holds its launches while
//                    the guarantee job's GPU work is queued (AntMan's GPU
//                    operator manager); kernels already running go on
//   defer_idle_us=X  with defer=true: how long the others must have had no
//                    kernel on the device before this process's join
//                    (with shared= only; 0..10^6, default 5000): a step's
//                    short host gaps do not open the gate
//
// The defaults (gpu=v100) model an NVIDIA Tesla V100-PCIe 16 GB, the GPU of
// the AntMan paper (OSDI 2020): 15.7 TFLOP/s single precision, 900 GB/s
// HBM2, PCIe 3.0 x16 at an effective 12 GB/s, 5 us launch latency, 80 SMs,
// and 100 us for the thread blocks of a running kernel to drain. The process-wide default
// SimGPU platform reads the environment variable MINITF_SIMGPU.
//
// Modes (see sim_gpu_cost_model.h for the modeled time of a kernel):
//   compute     run the kernel body and hold the device's compute engine for
//               max(modeled time, measured body time);
//   timing      skip the body, hold the engine for exactly the modeled time
//               (large co-location experiments: no arithmetic, no RAM);
//   functional  run the body, no modeled hold (fast tests).
#ifndef MINITF_STREAM_SIM_GPU_SIM_GPU_OPTIONS_H_
#define MINITF_STREAM_SIM_GPU_SIM_GPU_OPTIONS_H_

#include <cstdint>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "stream/sim_gpu/sim_gpu_profile.h"

namespace minitf::se {

struct SimGPUOptions {
  enum class Mode { kCompute, kTiming, kFunctional };
  enum class KernelSet { kCuda, kAll };
  enum class Share { kTimeslice, kPriority, kMps };

  // The profile's figures are the defaults of the fields after it: the
  // defaults here are v100's (a test checks they match).
  GpuModel gpu = GpuModel::kV100;
  int count = 1;
  int64_t memory_bytes = int64_t{16} << 30;
  double tflops = 15.7;
  double hbm_gbps = 900;
  double pcie_gbps = 12;
  double launch_latency_us = 5;
  int sm_count = 80;
  double preempt_us = 100;
  Mode mode = Mode::kCompute;
  bool strict = true;
  // Absent from an option string: the process's set.
  KernelSet kernels = KernelSet::kCuda;
  // "": not shared.
  std::string shared;
  // With `shared`: how its processes take turns, and the timeslice.
  Share share = Share::kTimeslice;
  double timeslice_us = 2000;
  // With `shared`, timing mode: this process's kernels defer to those of
  // the processes that do not.
  bool defer = false;
  double defer_idle_us = 5000;

  // The canonical option string: every key, in the order of the list above
  // (shared only when set; the profile's figures spelled out, so a reader
  // sees them and an override survives),
  // memory in the largest binary unit that divides it exactly, numbers in
  // their shortest exact form. Parsing it gives back equal options, so two
  // strings naming the same configuration have the same ToString.
  std::string ToString() const;

  bool operator==(const SimGPUOptions&) const = default;
};

// Parses an option string (see above). "" gives the defaults. InvalidArgument
// naming the bad key or value and quoting `options` otherwise.
absl::StatusOr<SimGPUOptions> ParseSimGPUOptions(absl::string_view options);
// The same, with `kernels` defaulting to `default_kernels` when absent.
absl::StatusOr<SimGPUOptions> ParseSimGPUOptions(absl::string_view options,
                                                 SimGPUOptions::KernelSet default_kernels);

// Ok when every field is in range (count 0..64, memory >= 256 bytes, positive
// finite throughputs, a finite non-negative latency, sm_count 1..1024);
// InvalidArgument naming the field otherwise.
absl::Status ValidateSimGPUOptions(const SimGPUOptions& options);

// "compute", "timing", "functional".
absl::string_view SimGPUModeName(SimGPUOptions::Mode mode);
// "cuda", "all".
absl::string_view SimGPUKernelSetName(SimGPUOptions::KernelSet kernels);
// "timeslice", "priority", "mps".
absl::string_view SimGPUShareName(SimGPUOptions::Share share);

// The SimGPU kernel set of this process: the `kernels` key of MINITF_SIMGPU
// (cuda when it is absent or the variable does not parse), read once.
SimGPUOptions::KernelSet SimGPUKernelSetOfProcess();

// A size as the option string spells it: plain bytes, or a number (integer
// or decimal) with B, KiB, MiB, GiB, TiB, KB, MB, GB or TB
// (case-insensitive). False, leaving `*bytes` alone, when it does not parse
// or is negative or too large.
bool ParseByteSize(absl::string_view text, int64_t* bytes);

}  // namespace minitf::se

#endif  // MINITF_STREAM_SIM_GPU_SIM_GPU_OPTIONS_H_
