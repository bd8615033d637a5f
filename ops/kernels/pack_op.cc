// Kernels: Pack and Unpack on CPU (SimGPU twins wrap them) and
// on CUDA GPUs (element_mover.h). With `outer`
// the product of the dimensions before the axis and `inner` the elements
// from the axis on of one piece, piece i is columns [i * inner, (i+1) *
// inner) of the packed tensor's [outer, N * inner] view.
#include <vector>

#include "absl/strings/str_cat.h"
#include "ops/kernels/element_mover.h"
#include "ops/kernels/strided_copy.h"
#include "runtime/kernel_registry.h"
#include "runtime/op_requires.h"

namespace minitf {
namespace {

template <typename Mover>
class PackOp : public OpKernel {
 public:
  explicit PackOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("axis", &axis_));
  }

  void Compute(OpKernelContext* ctx) override {
    const int n = ctx->num_inputs();
    const TensorShape& shape = ctx->input(0).shape();
    const int out_rank = shape.dims() + 1;
    OP_REQUIRES(ctx, axis_ >= -out_rank && axis_ < out_rank,
                Error(absl::StrCat("axis = ", axis_, " not in [", -out_rank, ", ", out_rank,
                                   ")")));
    const int axis = static_cast<int>(axis_ < 0 ? axis_ + out_rank : axis_);
    for (int i = 1; i < n; ++i) {
      OP_REQUIRES(ctx, ctx->input(i).shape() == shape,
                  Error(absl::StrCat("Shapes of all inputs must match: values[0].shape = ",
                                     shape.DebugString(), " != values[", i, "].shape = ",
                                     ctx->input(i).shape().DebugString())));
    }
    TensorShape out_shape = shape;
    out_shape.InsertDim(axis, n);
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, out_shape, &out));
    if (out->NumElements() == 0) return;
    int64_t outer = 1;
    for (int d = 0; d < axis; ++d) outer *= shape.dim_size(d);
    const int64_t inner = shape.num_elements() / outer;
    const size_t esize = DataTypeSize(out->dtype());
    for (int i = 0; i < n; ++i) {
      OP_REQUIRES_OK(ctx, Mover::Copy(ctx, esize, {outer, inner}, ctx->input(i).raw_data(), 0,
                                      {inner, 1}, out->raw_data(), i * inner, {n * inner, 1}));
    }
  }

 private:
  absl::Status Error(absl::string_view message) const {
    return AttachNodeName(absl::InvalidArgumentError(message), def());
  }
  int64_t axis_ = 0;
};

REGISTER_KERNEL_BUILDER(Name("Pack").Device(DEVICE_CPU).TypeConstraint("T", AllDataTypes()),
                        PackOp<HostMover>);

template <typename Mover>
class UnpackOp : public OpKernel {
 public:
  explicit UnpackOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("axis", &axis_));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& value = ctx->input(0);
    const int rank = value.dims();
    const int num = ctx->num_outputs();
    OP_REQUIRES(ctx, axis_ >= -rank && axis_ < rank,
                Error(absl::StrCat("axis = ", axis_, " not in [", -rank, ", ", rank, ")")));
    const int axis = static_cast<int>(axis_ < 0 ? axis_ + rank : axis_);
    OP_REQUIRES(ctx, value.dim_size(axis) == num,
                Error(absl::StrCat("Input shape axis ", axis, " must equal ", num,
                                   ", got shape ", value.shape().DebugString())));
    TensorShape piece_shape = value.shape();
    piece_shape.RemoveDim(axis);
    int64_t outer = 1;
    for (int d = 0; d < axis; ++d) outer *= value.dim_size(d);
    const int64_t inner = outer == 0 ? 0 : piece_shape.num_elements() / outer;
    const size_t esize = DataTypeSize(value.dtype());
    for (int i = 0; i < num; ++i) {
      Tensor* out = nullptr;
      OP_REQUIRES_OK(ctx, ctx->allocate_output(i, piece_shape, &out));
      if (out->NumElements() == 0) continue;
      OP_REQUIRES_OK(ctx, Mover::Copy(ctx, esize, {outer, inner}, value.raw_data(), i * inner,
                                      {num * inner, 1}, out->raw_data(), 0, {inner, 1}));
    }
  }

 private:
  absl::Status Error(absl::string_view message) const {
    return AttachNodeName(absl::InvalidArgumentError(message), def());
  }
  int64_t axis_ = 0;
};

REGISTER_KERNEL_BUILDER(Name("Unpack").Device(DEVICE_CPU).TypeConstraint("T", AllDataTypes()),
                        UnpackOp<HostMover>);

#ifdef MINITF_WITH_CUDA
REGISTER_KERNEL_BUILDER(
    Name("Pack").Device(DEVICE_GPU).Platform("CUDA").TypeConstraint("T", GpuArrayTypes()),
    PackOp<CudaMover>);
REGISTER_KERNEL_BUILDER(
    Name("Unpack").Device(DEVICE_GPU).Platform("CUDA").TypeConstraint("T", GpuArrayTypes()),
    UnpackOp<CudaMover>);
#endif  // MINITF_WITH_CUDA

}  // namespace
}  // namespace minitf
