// Kernels: Pad and PadV2 on CPU (SimGPU twins wrap them) and on CUDA GPUs
// (element_mover.h): the output is filled with the pad value, then the input
// is copied into the block that starts at paddings[:, 0].
#include <vector>

#include "absl/strings/str_cat.h"
#include "ops/kernels/element_mover.h"
#include "ops/kernels/strided_copy.h"
#include "ops/util/index_values.h"
#include "runtime/kernel_registry.h"
#include "runtime/op_requires.h"

namespace minitf {
namespace {

template <typename Mover>
class PadOp : public OpKernel {
 public:
  explicit PadOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}

  void Compute(OpKernelContext* ctx) override {
    const Tensor& input = ctx->input(0);
    const Tensor& paddings = ctx->input(1);
    const int rank = input.dims();
    OP_REQUIRES(ctx, paddings.dims() == 2 && paddings.dim_size(1) == 2,
                Error(absl::StrCat("paddings must be a matrix with 2 columns: ",
                                   paddings.shape().DebugString())));
    OP_REQUIRES(ctx, paddings.dim_size(0) == rank,
                Error(absl::StrCat("The first dimension of paddings must be the rank of inputs",
                                   paddings.shape().DebugString(), " ",
                                   input.shape().DebugString())));
    Tensor zero;
    const Tensor* pad_value = &zero;
    if (ctx->num_inputs() > 2) {
      pad_value = &ctx->input(2);
      OP_REQUIRES(ctx, pad_value->dims() == 0,
                  Error(absl::StrCat("constant_values must be a scalar. Got: ",
                                     pad_value->shape().DebugString())));
    }
    absl::StatusOr<std::vector<int64_t>> pads = IndexValues(paddings, "paddings");
    OP_REQUIRES(ctx, pads.ok(), AttachNodeName(pads.status(), def()));
    std::vector<int64_t> out_dims(rank);
    bool no_padding = true;
    for (int d = 0; d < rank; ++d) {
      const int64_t before = (*pads)[2 * d], after = (*pads)[2 * d + 1];
      OP_REQUIRES(ctx, before >= 0 && after >= 0,
                  Error(absl::StrCat("Paddings must be non-negative: ", before, " ", after)));
      out_dims[d] = input.dim_size(d) + before + after;
      no_padding = no_padding && before == 0 && after == 0;
    }
    if (no_padding) {
      ctx->set_output(0, input);
      return;
    }
    absl::StatusOr<TensorShape> out_shape = TensorShape::Build(out_dims);
    OP_REQUIRES(ctx, out_shape.ok(), Error(out_shape.status().message()));
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, *out_shape, &out));
    if (out->NumElements() == 0) return;
    OP_REQUIRES_OK(ctx,
                   pad_value == &zero ? Mover::Zero(ctx, out) : Mover::Fill(ctx, *pad_value, out));
    if (input.NumElements() == 0) return;
    const std::vector<int64_t> out_strides = RowMajorStrides(out_dims);
    int64_t offset = 0;
    for (int d = 0; d < rank; ++d) offset += (*pads)[2 * d] * out_strides[d];
    OP_REQUIRES_OK(ctx, Mover::Copy(ctx, DataTypeSize(input.dtype()), input.shape().dim_sizes(),
                                    input.raw_data(), 0, RowMajorStrides(input.shape().dim_sizes()),
                                    out->raw_data(), offset, out_strides));
  }

 private:
  absl::Status Error(absl::string_view message) const {
    return AttachNodeName(absl::InvalidArgumentError(message), def());
  }
};

REGISTER_KERNEL_BUILDER(
    Name("Pad").Device(DEVICE_CPU).TypeConstraint("T", AllDataTypes()).HostMemory("paddings"),
    PadOp<HostMover>);
REGISTER_KERNEL_BUILDER(
    Name("PadV2").Device(DEVICE_CPU).TypeConstraint("T", AllDataTypes()).HostMemory("paddings"),
    PadOp<HostMover>);
#ifdef MINITF_WITH_CUDA
// As TensorFlow's: the paddings and the pad value in host memory.
REGISTER_KERNEL_BUILDER(Name("Pad")
                            .Device(DEVICE_GPU)
                            .Platform("CUDA")
                            .TypeConstraint("T", GpuArrayTypes())
                            .HostMemory("paddings"),
                        PadOp<CudaMover>);
REGISTER_KERNEL_BUILDER(Name("PadV2")
                            .Device(DEVICE_GPU)
                            .Platform("CUDA")
                            .TypeConstraint("T", GpuArrayTypes())
                            .HostMemory("paddings")
                            .HostMemory("constant_values"),
                        PadOp<CudaMover>);
#endif  // MINITF_WITH_CUDA

}  // namespace
}  // namespace minitf
