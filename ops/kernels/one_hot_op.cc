// Kernel: OneHot on CPU (SimGPU twins wrap it) and on CUDA GPUs
// (one_hot_op_gpu.cu); depth is read on the host. With the output viewed as
// [prefix, depth, suffix] (prefix: the indices' dimensions before `axis`),
// out[p, d, s] is on_value where indices[p, s] == d and off_value elsewhere
// (an index outside [0, depth) is no error: its row is all off_value, as in
// TensorFlow); the values are copied as bytes, so one kernel serves every
// dtype.
//
// OneHotOp<Device> checks the inputs and allocates the output; a device
// supplies
//   static absl::Status OneHot(OpKernelContext*, const Tensor& indices, int64_t depth,
//                              int64_t suffix, const Tensor& on_value,
//                              const Tensor& off_value, Tensor* out);
#include <cstring>
#include <vector>

#include "absl/strings/str_cat.h"
#include "ops/kernels/strided_copy.h"
#include "ops/util/index_values.h"
#include "runtime/kernel_registry.h"
#include "runtime/op_requires.h"

#ifdef MINITF_WITH_CUDA
#include "ops/kernels/cuda/cuda_indices.h"
#include "ops/kernels/cuda/cuda_kernel_helpers.h"
#include "ops/kernels/one_hot_op_gpu.h"
#include "platform/status_macros.h"
#endif

namespace minitf {
namespace {

template <typename Device>
class OneHotOp : public OpKernel {
 public:
  explicit OneHotOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("axis", &axis_));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& indices = ctx->input(0);
    const Tensor& depth_t = ctx->input(1);
    const Tensor& on_value = ctx->input(2);
    const Tensor& off_value = ctx->input(3);
    const int rank = indices.dims();
    OP_REQUIRES(ctx, axis_ == -1 || (axis_ >= 0 && axis_ <= rank),
                Error(absl::StrCat("Expected axis to be -1 or between [0, ", rank + 1,
                                   ").  But received: ", axis_)));
    OP_REQUIRES(ctx, depth_t.dims() == 0,
                Error(absl::StrCat("depth must be a scalar, but got: ",
                                   depth_t.shape().DebugString())));
    OP_REQUIRES(ctx, on_value.dims() == 0,
                Error(absl::StrCat("on_value must be a scalar, but got: ",
                                   on_value.shape().DebugString())));
    OP_REQUIRES(ctx, off_value.dims() == 0,
                Error(absl::StrCat("off_value must be a scalar, but got: ",
                                   off_value.shape().DebugString())));
    const int64_t depth = depth_t.scalar<int32_t>()();
    OP_REQUIRES(ctx, depth >= 0,
                Error(absl::StrCat("depth must be non-negative, got: ", depth)));
    const int axis = static_cast<int>(axis_ == -1 ? rank : axis_);
    TensorShape out_shape = indices.shape();
    out_shape.InsertDim(axis, depth);
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, out_shape, &out));
    if (out->NumElements() == 0) return;
    int64_t suffix = 1;
    for (int d = axis; d < rank; ++d) suffix *= indices.dim_size(d);
    OP_REQUIRES_OK(ctx, Device::OneHot(ctx, indices, depth, suffix, on_value, off_value, out));
  }

 private:
  absl::Status Error(absl::string_view message) const {
    return AttachNodeName(absl::InvalidArgumentError(message), def());
  }
  int64_t axis_ = -1;
};

struct CpuOneHot {
  static absl::Status OneHot(OpKernelContext*, const Tensor& indices, int64_t depth, int64_t suffix,
                             const Tensor& on_value, const Tensor& off_value, Tensor* out) {
    FillWithScalar(off_value, out);
    absl::StatusOr<std::vector<int64_t>> ids = IndexValues(indices, "indices");
    if (!ids.ok()) return ids.status();
    const size_t esize = DataTypeSize(out->dtype());
    auto* dst = static_cast<char*>(out->raw_data());
    for (int64_t i = 0; i < static_cast<int64_t>(ids->size()); ++i) {
      const int64_t id = (*ids)[i];
      if (id < 0 || id >= depth) continue;
      const int64_t p = i / suffix, s = i % suffix;
      std::memcpy(dst + ((p * depth + id) * suffix + s) * static_cast<int64_t>(esize),
                  on_value.raw_data(), esize);
    }
    return absl::OkStatus();
  }
};

REGISTER_KERNEL_BUILDER(
    Name("OneHot").Device(DEVICE_CPU).TypeConstraint("T", AllDataTypes()).HostMemory("depth"),
    OneHotOp<CpuOneHot>);

#ifdef MINITF_WITH_CUDA
// on_value and off_value are read on the device. int32 indices stay in host
// memory (as every int32 tensor on a GPU: memory_types.h) and are copied
// over.
struct CudaOneHot {
  static absl::Status OneHot(OpKernelContext* ctx, const Tensor&, int64_t depth, int64_t suffix,
                             const Tensor& on_value, const Tensor& off_value, Tensor* out) {
    MINITF_ASSIGN_OR_RETURN(Tensor indices, IndicesOnDevice(ctx, 0));
    const int64_t prefix = out->NumElements() / (depth * suffix);
    return LaunchOnComputeStream(ctx, "OneHot", [&](cudaStream_t stream) {
      return gpu::LaunchOneHot(stream, DataTypeSize(out->dtype()), indices.raw_data(),
                               indices.dtype() == DT_INT64, prefix, depth, suffix,
                               on_value.raw_data(), off_value.raw_data(), out->raw_data());
    });
  }
};

REGISTER_KERNEL_BUILDER(Name("OneHot")
                            .Device(DEVICE_GPU)
                            .Platform("CUDA")
                            .TypeConstraint("T", {DT_FLOAT, DT_DOUBLE, DT_INT64, DT_BOOL})
                            .TypeConstraint<int32_t>("TI")
                            .HostMemory("indices")
                            .HostMemory("depth"),
                        OneHotOp<CudaOneHot>);
REGISTER_KERNEL_BUILDER(Name("OneHot")
                            .Device(DEVICE_GPU)
                            .Platform("CUDA")
                            .TypeConstraint("T", {DT_FLOAT, DT_DOUBLE, DT_INT64, DT_BOOL})
                            .TypeConstraint<int64_t>("TI")
                            .HostMemory("depth"),
                        OneHotOp<CudaOneHot>);
#endif  // MINITF_WITH_CUDA

}  // namespace
}  // namespace minitf
