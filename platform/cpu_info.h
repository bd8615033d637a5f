// How many CPUs this process may run on: TensorFlow's
// port::NumSchedulableCPUs, the default size of the inter-op and intra-op
// thread pools (ConfigProto's inter_op_parallelism_threads and
// intra_op_parallelism_threads when 0). The count of the calling thread's
// CPU affinity mask (sched_getaffinity), so a job pinned to some cores by
// taskset, a cgroup cpuset or a container runtime sizes its pools to them,
// not to every core of the host as std::thread::hardware_concurrency()
// would; that when the mask cannot be read; at least 1.
#ifndef MINITF_PLATFORM_CPU_INFO_H_
#define MINITF_PLATFORM_CPU_INFO_H_

namespace minitf {

int NumSchedulableCPUs();

}  // namespace minitf

#endif  // MINITF_PLATFORM_CPU_INFO_H_
