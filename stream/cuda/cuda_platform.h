// CudaPlatform: the "CUDA" platform, the NVIDIA GPUs the CUDA runtime sees.
// It registers itself with the PlatformManager when minitf is loaded; with
// no GPU (or no driver) it reports 0 devices and never aborts.
//
//   absl::StatusOr<Platform*> cuda = PlatformManager::PlatformWithName("CUDA");
//   if ((*cuda)->VisibleDeviceCount() > 0) {
//     StreamExecutor* gpu0 = *(*cuda)->ExecutorForDevice(0);
//   }
//
// Thread-safe. Executors are created on first use and live as long as the
// platform (the process).
#ifndef MINITF_STREAM_CUDA_CUDA_PLATFORM_H_
#define MINITF_STREAM_CUDA_CUDA_PLATFORM_H_

#include <memory>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "platform/mutex.h"
#include "stream/platform.h"

namespace minitf::se::cuda {

class CudaExecutor;

inline constexpr char kCudaPlatformName[] = "CUDA";

class CudaPlatform : public Platform {
 public:
  CudaPlatform();
  ~CudaPlatform() override;

  // The id every CudaPlatform reports.
  static PlatformId Id();

  PlatformId id() const override { return Id(); }
  const std::string& Name() const override { return name_; }
  // cudaGetDeviceCount, asked once; 0 when it fails.
  int VisibleDeviceCount() const override;
  absl::StatusOr<StreamExecutor*> ExecutorForDevice(int ordinal) override;

 private:
  const std::string name_ = kCudaPlatformName;
  Mutex mu_;
  // Index: device ordinal; null until the device is first used.
  std::vector<std::unique_ptr<CudaExecutor>> executors_ ABSL_GUARDED_BY(mu_);
};

}  // namespace minitf::se::cuda

#endif  // MINITF_STREAM_CUDA_CUDA_PLATFORM_H_
