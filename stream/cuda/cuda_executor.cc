#include "stream/cuda/cuda_executor.h"

#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "stream/cuda/cuda_blas.h"
#include "stream/cuda/cuda_dnn.h"
#include "stream/cuda/cuda_event.h"
#include "stream/cuda/cuda_platform.h"
#include "stream/cuda/cuda_status.h"
#include "stream/cuda/cuda_stream.h"

namespace minitf::se::cuda {
namespace {

// Peak device memory bandwidth from the memory clock (kHz) and bus width
// (bits), double data rate; 0 when the device does not say.
absl::StatusOr<double> MemoryBandwidthGbps(int ordinal) {
  int clock_khz = 0, bus_bits = 0;
  MINITF_RETURN_IF_CUDA_ERROR(
      cudaDeviceGetAttribute(&clock_khz, cudaDevAttrMemoryClockRate, ordinal));
  MINITF_RETURN_IF_CUDA_ERROR(
      cudaDeviceGetAttribute(&bus_bits, cudaDevAttrGlobalMemoryBusWidth, ordinal));
  return 2.0 * clock_khz * 1e3 * (bus_bits / 8.0) / 1e9;
}

absl::StatusOr<DeviceDescription> DescribeDevice(int ordinal) {
  cudaDeviceProp properties;
  MINITF_RETURN_IF_CUDA_ERROR(cudaGetDeviceProperties(&properties, ordinal));
  char bus_id[32] = {};
  MINITF_RETURN_IF_CUDA_ERROR(cudaDeviceGetPCIBusId(bus_id, sizeof(bus_id), ordinal));
  DeviceDescription description;
  description.platform = kCudaPlatformName;
  description.ordinal = ordinal;
  description.name = properties.name;
  description.pci_bus_id = absl::AsciiStrToLower(bus_id);
  description.total_memory = static_cast<int64_t>(properties.totalGlobalMem);
  absl::StatusOr<double> bandwidth = MemoryBandwidthGbps(ordinal);
  if (!bandwidth.ok()) return bandwidth.status();
  description.memory_bandwidth_gbps = *bandwidth;
  return description;
}

}  // namespace

absl::StatusOr<std::unique_ptr<CudaExecutor>> CudaExecutor::Create(Platform* platform,
                                                                   int ordinal) {
  MINITF_RETURN_IF_CUDA_ERROR(cudaSetDevice(ordinal));
  absl::StatusOr<DeviceDescription> description = DescribeDevice(ordinal);
  if (!description.ok()) return description.status();
  return std::unique_ptr<CudaExecutor>(
      new CudaExecutor(platform, ordinal, *std::move(description)));
}

CudaExecutor::CudaExecutor(Platform* platform, int ordinal, DeviceDescription description)
    : platform_(platform),
      ordinal_(ordinal),
      description_(std::move(description)),
      blas_(std::make_unique<CudaBlas>(this)),
      dnn_(std::make_unique<CudaDnn>(this)) {}

CudaExecutor::~CudaExecutor() = default;

absl::Status CudaExecutor::Activate() const {
  MINITF_RETURN_IF_CUDA_ERROR(cudaSetDevice(ordinal_));
  return absl::OkStatus();
}

DeviceMemoryBase CudaExecutor::Allocate(uint64_t size) {
  if (size == 0 || !Activate().ok()) return DeviceMemoryBase();
  void* ptr = nullptr;
  if (cudaMalloc(&ptr, size) != cudaSuccess) {
    cudaGetLastError();  // Out of memory is reported as null, not kept as an error.
    return DeviceMemoryBase();
  }
  memory_in_use_.fetch_add(static_cast<int64_t>(size), std::memory_order_relaxed);
  return DeviceMemoryBase(ptr, size);
}

void CudaExecutor::Deallocate(DeviceMemoryBase* mem) {
  if (mem->is_null()) return;
  if (Activate().ok() && cudaFree(mem->opaque()) == cudaSuccess) {
    memory_in_use_.fetch_sub(static_cast<int64_t>(mem->size()), std::memory_order_relaxed);
  }
  *mem = DeviceMemoryBase();
}

bool CudaExecutor::IsDeviceMemory(const void* ptr) const {
  cudaPointerAttributes attributes;
  if (cudaPointerGetAttributes(&attributes, ptr) != cudaSuccess) {
    cudaGetLastError();
    return false;
  }
  return attributes.type == cudaMemoryTypeDevice && attributes.device == ordinal_;
}

void* CudaExecutor::HostMemoryAllocate(uint64_t size) {
  if (size == 0 || !Activate().ok()) return nullptr;
  void* ptr = nullptr;
  if (cudaHostAlloc(&ptr, size, cudaHostAllocPortable) != cudaSuccess) {
    cudaGetLastError();
    return nullptr;
  }
  return ptr;
}

void CudaExecutor::HostMemoryDeallocate(void* ptr, uint64_t size) {
  if (ptr == nullptr) return;
  cudaFreeHost(ptr);
}

absl::Status CudaExecutor::SynchronousMemcpy(void* dst, const void* src, uint64_t size,
                                             cudaMemcpyKind kind) {
  if (size == 0) return absl::OkStatus();
  if (absl::Status active = Activate(); !active.ok()) return active;
  // The per-thread default stream does not wait for the device's other
  // (non-blocking) streams, and waiting for it waits for this copy alone.
  MINITF_RETURN_IF_CUDA_ERROR(cudaMemcpyAsync(dst, src, size, kind, cudaStreamPerThread));
  MINITF_RETURN_IF_CUDA_ERROR(cudaStreamSynchronize(cudaStreamPerThread));
  return absl::OkStatus();
}

absl::Status CudaExecutor::SynchronousMemcpyH2D(const void* host_src, uint64_t size,
                                                DeviceMemoryBase* gpu_dst) {
  return SynchronousMemcpy(gpu_dst->opaque(), host_src, size, cudaMemcpyHostToDevice);
}

absl::Status CudaExecutor::SynchronousMemcpyD2H(const DeviceMemoryBase& gpu_src, uint64_t size,
                                                void* host_dst) {
  return SynchronousMemcpy(host_dst, gpu_src.opaque(), size, cudaMemcpyDeviceToHost);
}

absl::Status CudaExecutor::SynchronousMemcpyD2D(const DeviceMemoryBase& gpu_src, uint64_t size,
                                                DeviceMemoryBase* gpu_dst) {
  return SynchronousMemcpy(gpu_dst->opaque(), gpu_src.opaque(), size, cudaMemcpyDeviceToDevice);
}

absl::StatusOr<std::unique_ptr<Stream>> CudaExecutor::CreateStream() {
  return CreateStreamWithPriority(StreamPriority::kDefault);
}

absl::StatusOr<std::unique_ptr<Stream>> CudaExecutor::CreateStreamWithPriority(
    StreamPriority priority) {
  absl::StatusOr<std::unique_ptr<CudaStream>> stream = CudaStream::Create(this, priority);
  if (!stream.ok()) return stream.status();
  return std::unique_ptr<Stream>(*std::move(stream));
}

absl::StatusOr<std::unique_ptr<Event>> CudaExecutor::CreateEvent() {
  absl::StatusOr<std::unique_ptr<CudaEvent>> event = CudaEvent::Create(this);
  if (!event.ok()) return event.status();
  return std::unique_ptr<Event>(*std::move(event));
}

absl::Status CudaExecutor::SynchronizeAllActivity() {
  if (absl::Status active = Activate(); !active.ok()) return active;
  MINITF_RETURN_IF_CUDA_ERROR(cudaDeviceSynchronize());
  return absl::OkStatus();
}

BlasSupport* CudaExecutor::AsBlas() { return blas_.get(); }
DnnSupport* CudaExecutor::AsDnn() { return dnn_.get(); }

absl::StatusOr<DeviceMemoryBase> CudaExecutor::AllocateScratch(cudaStream_t stream,
                                                               uint64_t size) {
  if (size == 0) return DeviceMemoryBase();
  if (absl::Status active = Activate(); !active.ok()) return active;
  void* ptr = nullptr;
  if (const cudaError_t error = cudaMallocAsync(&ptr, size, stream); error != cudaSuccess) {
    cudaGetLastError();
    return CudaStatus(error, absl::StrCat("cudaMallocAsync of ", size, " bytes of scratch on ",
                                          description_.name, " (CUDA device ", ordinal_, ")"));
  }
  memory_in_use_.fetch_add(static_cast<int64_t>(size), std::memory_order_relaxed);
  return DeviceMemoryBase(ptr, size);
}

absl::Status CudaExecutor::DeallocateScratch(cudaStream_t stream, DeviceMemoryBase* mem) {
  if (mem->is_null()) return absl::OkStatus();
  if (absl::Status active = Activate(); !active.ok()) return active;
  const uint64_t size = mem->size();
  const cudaError_t error = cudaFreeAsync(mem->opaque(), stream);
  *mem = DeviceMemoryBase();
  MINITF_RETURN_IF_CUDA_ERROR(error);
  memory_in_use_.fetch_sub(static_cast<int64_t>(size), std::memory_order_relaxed);
  return absl::OkStatus();
}

}  // namespace minitf::se::cuda
