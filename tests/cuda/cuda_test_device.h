// Test support for the CUDA platform, built from the stream layer alone (no
// device/gpu): VisibleCudaDevices() for the skip guard, CudaTestDevice (a
// minimal GPU DeviceBase over CUDA device 0: one compute stream, an
// allocator straight over the executor), RunOnCuda (one kernel on host
// inputs, outputs copied back) and ExpectCudaMatchesCpu (the CPU and CUDA
// kernels of one node agree on the same inputs, or fail with the same error).
//
//   if (VisibleCudaDevices() == 0) GTEST_SKIP() << "no CUDA device visible";
//   ExpectCudaMatchesCpu(MakeNodeDef("n", "Exp", {{"T", DT_FLOAT}}), {RandomTensor({4, 5})});
#ifndef MINITF_TESTS_CUDA_CUDA_TEST_DEVICE_H_
#define MINITF_TESTS_CUDA_CUDA_TEST_DEVICE_H_

#include <stdlib.h>

#include <algorithm>
#include <memory>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "platform/mutex.h"
#include "platform/status_macros.h"
#include "platform/tensor_float_32.h"
#include "runtime/device_base.h"
#include "runtime/kernel_registry.h"
#include "runtime/node_def_util.h"
#include "runtime/op_kernel.h"
#include "runtime/op_registry.h"
#include "runtime/resource_mgr.h"
#include "runtime/tensor.h"
#include "stream/platform_manager.h"
#include "stream/stream.h"
#include "stream/stream_executor.h"
#include "tests/testlib/kernel_runner.h"

namespace minitf::test {

// The CUDA tests compare a GPU's numbers with the CPU's FP32 to rounding, so
// they run with TF32 off (as TensorFlow's TensorFlowTestCase turns it off),
// and several share one GPU, so their GPU memory grows on demand. ctest's
// environment says both (tests/CMakeLists.txt); these say them again for a
// binary run by hand (compute-sanitizer, cuda-gdb), keeping a
// TF_FORCE_GPU_ALLOW_GROWTH the caller set. The test of TF32 itself defines
// MINITF_CUDA_TESTS_KEEP_TF32 before including this header.
#ifndef MINITF_CUDA_TESTS_KEEP_TF32
inline const bool kCudaTestsRunInFp32 = [] {
  EnableTensorFloat32Execution(false);
  return true;
}();
#endif
inline const bool kCudaTestsGrowGpuMemory = [] {
  return setenv("TF_FORCE_GPU_ALLOW_GROWTH", "true", /*overwrite=*/0) == 0;
}();

// CUDA devices the CUDA platform sees (0 without a GPU or driver).
inline int VisibleCudaDevices() {
  absl::StatusOr<se::Platform*> cuda = se::PlatformManager::PlatformWithName("CUDA");
  return cuda.ok() ? (*cuda)->VisibleDeviceCount() : 0;
}

// Device memory straight from the executor. Freeing waits for the device to
// be idle first, so a buffer is never reused under queued work.
class CudaTestAllocator : public Allocator {
 public:
  explicit CudaTestAllocator(se::StreamExecutor* executor) : executor_(executor) {}

  std::string Name() const override { return "cuda_test"; }
  void* AllocateRaw(size_t alignment, size_t num_bytes, const AllocationAttributes&) override {
    se::DeviceMemoryBase mem = executor_->Allocate(num_bytes == 0 ? 1 : num_bytes);
    if (mem.is_null()) return nullptr;
    MutexLock lock(&mu_);
    sizes_[mem.opaque()] = mem.size();
    return mem.opaque();
  }
  void DeallocateRaw(void* ptr) override {
    uint64_t size = 0;
    {
      MutexLock lock(&mu_);
      size = sizes_[ptr];
      sizes_.erase(ptr);
    }
    EXPECT_TRUE(executor_->SynchronizeAllActivity().ok());
    se::DeviceMemoryBase mem(ptr, size);
    executor_->Deallocate(&mem);
  }

 private:
  se::StreamExecutor* const executor_;
  Mutex mu_;
  absl::flat_hash_map<void*, uint64_t> sizes_ ABSL_GUARDED_BY(mu_);
};

class CudaTestDevice : public DeviceBase {
 public:
  // REQUIRES: VisibleCudaDevices() > 0.
  // GPU 0 with a stream of its own. A failure (a sticky error an earlier
  // kernel left on the device, say) is a status for the test to report,
  // not an abort of the whole test binary.
  static absl::StatusOr<std::unique_ptr<CudaTestDevice>> Create() {
    MINITF_ASSIGN_OR_RETURN(se::Platform * cuda, se::PlatformManager::PlatformWithName("CUDA"));
    MINITF_ASSIGN_OR_RETURN(se::StreamExecutor * executor, cuda->ExecutorForDevice(0));
    MINITF_ASSIGN_OR_RETURN(std::unique_ptr<se::Stream> stream, executor->CreateStream());
    return std::unique_ptr<CudaTestDevice>(new CudaTestDevice(executor, std::move(stream)));
  }

  const std::string& name() const override { return name_; }
  const std::string& device_type() const override { return type_; }
  Allocator* GetAllocator(AllocatorAttributes attrs) override {
    return attrs.on_host ? cpu_allocator() : &allocator_;
  }
  ResourceMgr* resource_manager() override { return nullptr; }
  ThreadPool* intra_op_thread_pool() override { return &pool_; }
  const GPUDeviceInfo* gpu_device_info() const override { return &info_; }
  const std::string& platform_name() const override { return platform_; }

  se::StreamExecutor* executor() const { return info_.executor; }
  se::Stream* stream() const { return stream_.get(); }

 private:
  CudaTestDevice(se::StreamExecutor* executor, std::unique_ptr<se::Stream> stream)
      : stream_(std::move(stream)), allocator_(executor) {
    info_.stream = stream_.get();
    info_.executor = executor;
  }

  const std::string name_ = "/job:localhost/replica:0/task:0/device:GPU:0";
  const std::string type_ = DEVICE_GPU;
  const std::string platform_ = "CUDA";
  std::unique_ptr<se::Stream> stream_;
  CudaTestAllocator allocator_;
  ThreadPool pool_{"cuda_test", 1};
  GPUDeviceInfo info_;
};

// Uniform values in [lo, hi).
inline Tensor RandomTensor(const TensorShape& shape, float lo = -2.0f, float hi = 2.0f,
                           unsigned seed = 1) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(lo, hi);
  Tensor t(DT_FLOAT, shape);
  float* data = t.data<float>();
  for (int64_t i = 0; i < t.NumElements(); ++i) data[i] = dist(rng);
  return t;
}

// Runs the CUDA kernel of `def` (attr defaults added) on host `inputs`:
// inputs the kernel keeps in host memory stay there, the others are copied
// to the device; outputs in device memory come back to the host after the
// stream is done.
inline absl::StatusOr<std::vector<Tensor>> RunOnCuda(CudaTestDevice* device, NodeDef def,
                                                     const std::vector<Tensor>& inputs) {
  const OpDef* op_def = OpRegistry::Global()->LookUp(def.op);
  if (op_def == nullptr) return absl::NotFoundError(absl::StrCat("no op ", def.op));
  AddDefaultsToNodeDef(*op_def, &def);
  if (def.input.empty()) {
    for (size_t i = 0; i < inputs.size(); ++i) def.input.push_back(absl::StrCat("in", i));
  }
  absl::StatusOr<const KernelRegistration*> registration =
      KernelRegistry::Global()->FindKernel(DEVICE_GPU, def, device->platform_name());
  if (!registration.ok()) return registration.status();
  absl::StatusOr<std::unique_ptr<OpKernel>> kernel = CreateOpKernel(DEVICE_GPU, device, def);
  if (!kernel.ok()) return kernel.status();

  // The kernel's memory types have one slot per input, list args expanded
  // (ConcatV2's N values, then axis), with TensorFlow's int32 rule.
  const MemoryTypeVector& input_types = (*kernel)->input_memory_types();
  if (input_types.size() != inputs.size()) {
    return absl::InvalidArgumentError(absl::StrCat(def.op, " takes ", input_types.size(),
                                                   " inputs, given ", inputs.size()));
  }
  std::vector<Tensor> device_inputs;
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (input_types[i] == HOST_MEMORY) {
      device_inputs.push_back(inputs[i]);
      continue;
    }
    absl::StatusOr<Tensor> on_device = Tensor::Allocate(
        device->GetAllocator(AllocatorAttributes()), inputs[i].dtype(), inputs[i].shape());
    if (!on_device.ok()) return on_device.status();
    se::DeviceMemoryBase dst(on_device->raw_data(), on_device->TotalBytes());
    if (absl::Status s = device->executor()->SynchronousMemcpyH2D(inputs[i].raw_data(),
                                                                  inputs[i].TotalBytes(), &dst);
        !s.ok()) {
      return s;
    }
    device_inputs.push_back(*std::move(on_device));
  }
  std::vector<TensorValue> values;
  for (Tensor& t : device_inputs) values.push_back(TensorValue{&t, nullptr});

  OpKernelContext::Params params;
  params.device = device;
  params.op_kernel = kernel->get();
  params.inputs = values;
  OpKernelContext ctx(&params);
  (*kernel)->Compute(&ctx);
  if (absl::Status s = device->stream()->BlockHostUntilDone(); !s.ok()) return s;
  if (!ctx.status().ok()) return ctx.status();

  std::vector<Tensor> outputs;
  for (int i = 0; i < ctx.num_outputs(); ++i) {
    const Tensor& out = ctx.mutable_output_slot(i)->value;
    if ((*kernel)->output_memory_types()[i] == HOST_MEMORY) {
      outputs.push_back(out);
      continue;
    }
    Tensor host(out.dtype(), out.shape());
    se::DeviceMemoryBase src(out.raw_data(), out.TotalBytes());
    if (absl::Status s = device->executor()->SynchronousMemcpyD2H(src, out.TotalBytes(),
                                                                  host.raw_data());
        !s.ok()) {
      return s;
    }
    outputs.push_back(std::move(host));
  }
  return outputs;
}

// The CPU and CUDA kernels of `def` agree on `inputs`: outputs within
// tolerance, or the same error.
inline void ExpectCudaMatchesCpu(const NodeDef& def, const std::vector<Tensor>& inputs,
                                 double atol = 1e-5, double rtol = 1e-5) {
  absl::StatusOr<std::unique_ptr<CudaTestDevice>> device = CudaTestDevice::Create();
  ASSERT_TRUE(device.ok()) << def.op << ": " << device.status();
  KernelRunner cpu(def);
  absl::StatusOr<std::vector<Tensor>> expected = cpu.Run(inputs);
  absl::StatusOr<std::vector<Tensor>> actual = RunOnCuda(device->get(), def, inputs);
  ASSERT_EQ(expected.ok(), actual.ok())
      << def.op << ": CPU " << expected.status() << " vs CUDA " << actual.status();
  if (!expected.ok()) {
    EXPECT_EQ(actual.status(), expected.status()) << def.op;
    return;
  }
  ASSERT_EQ(actual->size(), expected->size());
  for (size_t i = 0; i < expected->size(); ++i) {
    SCOPED_TRACE(absl::StrCat(def.op, " output ", i));
    ExpectTensorNear((*actual)[i], (*expected)[i], atol, rtol);
  }
}

}  // namespace minitf::test

#endif  // MINITF_TESTS_CUDA_CUDA_TEST_DEVICE_H_
