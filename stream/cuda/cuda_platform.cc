#include "stream/cuda/cuda_platform.h"

#include <cuda_runtime_api.h>

#include <utility>

#include "absl/strings/str_cat.h"
#include "stream/cuda/cuda_executor.h"
#include "stream/platform_manager.h"

namespace minitf::se::cuda {

CudaPlatform::CudaPlatform() = default;
CudaPlatform::~CudaPlatform() = default;

PlatformId CudaPlatform::Id() {
  static const char kIdTag = 0;
  return &kIdTag;
}

int CudaPlatform::VisibleDeviceCount() const {
  static const int count = [] {
    int n = 0;
    if (cudaGetDeviceCount(&n) != cudaSuccess) {
      cudaGetLastError();  // No driver or no device: not an error to keep.
      return 0;
    }
    return n;
  }();
  return count;
}

absl::StatusOr<StreamExecutor*> CudaPlatform::ExecutorForDevice(int ordinal) {
  const int count = VisibleDeviceCount();
  if (ordinal < 0 || ordinal >= count) {
    return absl::InvalidArgumentError(absl::StrCat("CUDA device ordinal ", ordinal,
                                                   " is out of range: ", count,
                                                   " CUDA device(s) visible"));
  }
  MutexLock lock(&mu_);
  if (executors_.empty()) executors_.resize(count);
  if (executors_[ordinal] == nullptr) {
    absl::StatusOr<std::unique_ptr<CudaExecutor>> executor = CudaExecutor::Create(this, ordinal);
    if (!executor.ok()) return executor.status();
    executors_[ordinal] = *std::move(executor);
  }
  return executors_[ordinal].get();
}

namespace {

// Registers the platform when the library is loaded. Its constructor makes no
// CUDA call, so loading stays cheap and safe without a GPU.
struct CudaPlatformRegistrar {
  CudaPlatformRegistrar() {
    // AlreadyExists only if someone registered "CUDA" first; theirs stays.
    PlatformManager::RegisterPlatform(std::make_unique<CudaPlatform>()).IgnoreError();
  }
};
const CudaPlatformRegistrar registrar;

}  // namespace

}  // namespace minitf::se::cuda
