// SmPartition: a share of a GPU's streaming multiprocessors (SMs) that the
// streams made in it run on, as CUDA's green contexts (CUDA 12.4+: an SM
// split with cuDevSmResourceSplitByCount, a context over it with
// cuGreenCtxCreate, streams in it with cuGreenCtxStreamCreate). Kernels of
// the partition's streams hold at most `fraction` of the device's SMs
// together; kernels outside it are not limited by it.
//
//   auto part = std::make_shared<SmPartition>(0.25);
//   auto stream = *executor->CreateStreamInPartition(StreamPriority::kLowest, part);
//   part->set_fraction(0.5);   // kernels launched from now on may hold half
//
// A green context's SMs are fixed when it is made; changing the fraction
// stands for making a new one and moving the streams to it, which a job
// does at a step boundary. Thread-safe.
#ifndef MINITF_STREAM_SM_PARTITION_H_
#define MINITF_STREAM_SM_PARTITION_H_

#include <atomic>
#include <cstdint>

namespace minitf::se {

class SmPartition {
 public:
  // `fraction` is clamped to (0, 1] (kSmallest at least).
  explicit SmPartition(double fraction);

  SmPartition(const SmPartition&) = delete;
  SmPartition& operator=(const SmPartition&) = delete;

  static constexpr double kSmallest = 1e-3;

  // Unique in the process, never 0 (0 is "no partition").
  uint32_t id() const { return id_; }
  double fraction() const { return fraction_.load(std::memory_order_relaxed); }
  void set_fraction(double fraction);

 private:
  const uint32_t id_;
  std::atomic<double> fraction_;
};

}  // namespace minitf::se

#endif  // MINITF_STREAM_SM_PARTITION_H_
