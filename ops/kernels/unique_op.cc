// Kernel: Unique on CPU (its SimGPU twin wraps it: y's length is only known
// by running it, so it runs in timing mode too) and on CUDA GPUs. y keeps
// the order in which values first appear, as TensorFlow's does, on every
// device.
//
// UniqueOp<T, TIndex, Device> checks x; a device computes and allocates
// both outputs:
//   static absl::Status Unique(OpKernelContext*, const Tensor& x);
//   CpuUnique   one pass over x with a hash map from value to its position
//               in y. Also the CUDA kernel for int32 values, which live in
//               host memory on a GPU (memory_types.h), as TensorFlow's
//               integer GPU kernels do.
//   CudaUnique  float and int64 values in device memory: a sort on the
//               device (unique_op_gpu.cu). y's length is copied back, so
//               the kernel waits for its stream.
#include <cstdint>
#include <limits>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "runtime/kernel_registry.h"
#include "runtime/op_requires.h"

#ifdef MINITF_WITH_CUDA
#include "ops/kernels/cuda/cuda_kernel_helpers.h"
#include "ops/kernels/cuda/op_scratch_allocator.h"
#include "ops/kernels/unique_op_gpu.h"
#include "platform/status_macros.h"
#endif

namespace minitf {
namespace {

template <typename T, typename TIndex, typename Device>
class UniqueOp : public OpKernel {
 public:
  explicit UniqueOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}

  void Compute(OpKernelContext* ctx) override {
    const Tensor& x = ctx->input(0);
    OP_REQUIRES(ctx, x.dims() == 1,
                AttachNodeName(absl::InvalidArgumentError(absl::StrCat(
                                   "unique expects a 1D vector, got shape ",
                                   x.shape().DebugString())),
                               def()));
    const int64_t n = x.NumElements();
    OP_REQUIRES(ctx, n <= static_cast<int64_t>(std::numeric_limits<TIndex>::max()),
                AttachNodeName(absl::InvalidArgumentError(absl::StrCat(
                                   "unique of ", n, " elements does not fit out_idx ",
                                   DataTypeString(DataTypeToEnum<TIndex>::value))),
                               def()));
    OP_REQUIRES_OK(ctx, Device::Unique(ctx, x));
  }
};

template <typename T, typename TIndex>
struct CpuUnique {
  static absl::Status Unique(OpKernelContext* ctx, const Tensor& x) {
    const int64_t n = x.NumElements();
    Tensor* idx = nullptr;
    if (absl::Status s = ctx->allocate_output(1, x.shape(), &idx); !s.ok()) return s;
    const T* in = x.flat<T>().data();
    TIndex* positions = idx->flat<TIndex>().data();
    absl::flat_hash_map<T, TIndex> seen;
    std::vector<T> distinct;
    for (int64_t i = 0; i < n; ++i) {
      auto [it, inserted] = seen.try_emplace(in[i], static_cast<TIndex>(distinct.size()));
      if (inserted) distinct.push_back(in[i]);
      positions[i] = it->second;
    }
    Tensor* y = nullptr;
    if (absl::Status s =
            ctx->allocate_output(0, TensorShape({static_cast<int64_t>(distinct.size())}), &y);
        !s.ok()) {
      return s;
    }
    T* out = y->flat<T>().data();
    for (size_t i = 0; i < distinct.size(); ++i) out[i] = distinct[i];
    return absl::OkStatus();
  }
};

#define MINITF_REGISTER_UNIQUE_(T)                                                                 \
  REGISTER_KERNEL_BUILDER(                                                                         \
      Name("Unique").Device(DEVICE_CPU).TypeConstraint<T>("T").TypeConstraint<int32_t>("out_idx"), \
      UniqueOp<T, int32_t, CpuUnique<T, int32_t>>);                                                \
  REGISTER_KERNEL_BUILDER(                                                                         \
      Name("Unique").Device(DEVICE_CPU).TypeConstraint<T>("T").TypeConstraint<int64_t>("out_idx"), \
      UniqueOp<T, int64_t, CpuUnique<T, int64_t>>)
MINITF_REGISTER_UNIQUE_(float);
MINITF_REGISTER_UNIQUE_(double);
MINITF_REGISTER_UNIQUE_(int32_t);
MINITF_REGISTER_UNIQUE_(int64_t);
MINITF_REGISTER_UNIQUE_(bool);
#undef MINITF_REGISTER_UNIQUE_

#ifdef MINITF_WITH_CUDA
// Sorts on the device; idx is written there and, for out_idx int32 (in host
// memory on a GPU), copied back with y's length.
template <typename T, typename TIndex>
struct CudaUnique {
  static absl::Status Unique(OpKernelContext* ctx, const Tensor& x) {
    const int64_t n = x.NumElements();
    const NodeDef& def = ctx->op_kernel().def();
    if (n == 0) {
      Tensor* out = nullptr;
      MINITF_RETURN_IF_ERROR(ctx->allocate_output(0, TensorShape({0}), &out));
      return ctx->allocate_output(1, TensorShape({0}), &out);
    }
    if (n > std::numeric_limits<int>::max()) {
      return AttachNodeName(absl::UnimplementedError(absl::StrCat("the CUDA Unique sorts at most ",
                                                                  std::numeric_limits<int>::max(),
                                                                  " values; x has ", n)),
                            def);
    }
    const int count = static_cast<int>(n);
    MINITF_ASSIGN_OR_RETURN(se::Stream * stream, ComputeStream(ctx));
    const se::cuda::ScopedKernelTiming timing(stream);
    size_t scratch_bytes = 0;
    MINITF_RETURN_IF_ERROR(LaunchStatus(gpu::UniqueScratchBytes<T>(count, &scratch_bytes), "Unique",
                                        ctx->op_kernel()));
    OpScratchAllocator scratch_allocator(ctx);
    MINITF_ASSIGN_OR_RETURN(se::DeviceMemoryBase scratch,
                            scratch_allocator.AllocateBytes(scratch_bytes));
    Tensor y_all, num_unique_on_device;
    MINITF_RETURN_IF_ERROR(ctx->allocate_temp(x.dtype(), x.shape(), &y_all));
    // On a GPU device the temp is device memory, whatever its dtype.
    MINITF_RETURN_IF_ERROR(ctx->allocate_temp(DT_INT32, TensorShape({}), &num_unique_on_device));
    const bool idx_on_host = ctx->output_alloc_attr(1).on_host;
    Tensor* idx = nullptr;
    MINITF_RETURN_IF_ERROR(ctx->allocate_output(1, x.shape(), &idx));
    Tensor idx_on_device = *idx;
    if (idx_on_host) {
      MINITF_RETURN_IF_ERROR(
          ctx->allocate_temp(DataTypeToEnum<TIndex>::value, x.shape(), &idx_on_device));
    }
    MINITF_RETURN_IF_ERROR(LaunchStatus(
        gpu::LaunchUnique<T, TIndex>(CudaStreamOf(stream), x.data<T>(), count, scratch.opaque(),
                                     scratch_bytes, y_all.data<T>(), idx_on_device.data<TIndex>(),
                                     num_unique_on_device.data<int32_t>()),
        "Unique", ctx->op_kernel()));
    int32_t num_unique = 0;
    MINITF_RETURN_IF_ERROR(AttachNodeName(
        stream->Memcpy(&num_unique,
                       se::DeviceMemoryBase(num_unique_on_device.raw_data(), sizeof(int32_t)),
                       sizeof(int32_t)),
        def));
    if (idx_on_host) {
      MINITF_RETURN_IF_ERROR(AttachNodeName(
          stream->Memcpy(idx->raw_data(),
                         se::DeviceMemoryBase(idx_on_device.raw_data(), idx_on_device.TotalBytes()),
                         idx_on_device.TotalBytes()),
          def));
    }
    MINITF_RETURN_IF_ERROR(AttachNodeName(stream->BlockHostUntilDone(), def));
    Tensor* y = nullptr;
    MINITF_RETURN_IF_ERROR(ctx->allocate_output(0, TensorShape({num_unique}), &y));
    se::DeviceMemoryBase y_memory(y->raw_data(), y->TotalBytes());
    return AttachNodeName(
        stream->Memcpy(&y_memory, se::DeviceMemoryBase(y_all.raw_data(), y->TotalBytes()),
                       y->TotalBytes()),
        def);
  }
};

// An int32 idx is in host memory, as every int32 tensor on a GPU.
#define MINITF_REGISTER_CUDA_UNIQUE_(T)                                  \
  REGISTER_KERNEL_BUILDER(Name("Unique")                                 \
                              .Device(DEVICE_GPU)                        \
                              .Platform("CUDA")                          \
                              .TypeConstraint<T>("T")                    \
                              .TypeConstraint<int32_t>("out_idx")        \
                              .HostMemory("idx"),                        \
                          UniqueOp<T, int32_t, CudaUnique<T, int32_t>>); \
  REGISTER_KERNEL_BUILDER(Name("Unique")                                 \
                              .Device(DEVICE_GPU)                        \
                              .Platform("CUDA")                          \
                              .TypeConstraint<T>("T")                    \
                              .TypeConstraint<int64_t>("out_idx"),       \
                          UniqueOp<T, int64_t, CudaUnique<T, int64_t>>)
MINITF_REGISTER_CUDA_UNIQUE_(float);
MINITF_REGISTER_CUDA_UNIQUE_(int64_t);
#undef MINITF_REGISTER_CUDA_UNIQUE_

// int32 values: the CPU kernel on host memory.
#define MINITF_REGISTER_CUDA_HOST_UNIQUE_(TIndex)                \
  REGISTER_KERNEL_BUILDER(Name("Unique")                         \
                              .Device(DEVICE_GPU)                \
                              .Platform("CUDA")                  \
                              .TypeConstraint<int32_t>("T")      \
                              .TypeConstraint<TIndex>("out_idx") \
                              .HostMemory("x")                   \
                              .HostMemory("y")                   \
                              .HostMemory("idx"),                \
                          UniqueOp<int32_t, TIndex, CpuUnique<int32_t, TIndex>>)
MINITF_REGISTER_CUDA_HOST_UNIQUE_(int32_t);
MINITF_REGISTER_CUDA_HOST_UNIQUE_(int64_t);
#undef MINITF_REGISTER_CUDA_HOST_UNIQUE_
#endif  // MINITF_WITH_CUDA

}  // namespace
}  // namespace minitf
