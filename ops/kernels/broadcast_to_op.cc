// Kernel: BroadcastTo on CPU (SimGPU twins wrap it) and on
// CUDA GPUs (element_mover.h): one strided copy whose
// source strides are 0 along the dimensions the input is stretched in.
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
class BroadcastToOp : public OpKernel {
 public:
  explicit BroadcastToOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}

  void Compute(OpKernelContext* ctx) override {
    const Tensor& input = ctx->input(0);
    absl::StatusOr<std::vector<int64_t>> dims = IndexVector(ctx->input(1), "shape");
    OP_REQUIRES(ctx, dims.ok(), AttachNodeName(dims.status(), def()));
    absl::StatusOr<TensorShape> out_shape = TensorShape::Build(*dims);
    OP_REQUIRES(ctx, out_shape.ok(), Error(out_shape.status().message()));
    const int out_rank = out_shape->dims();
    const int in_rank = input.dims();
    OP_REQUIRES(ctx, in_rank <= out_rank,
                Error(absl::StrCat("Rank of input (", in_rank,
                                   ") must be no greater than rank of output shape (", out_rank,
                                   ").")));
    const std::vector<int64_t> in_strides = RowMajorStrides(input.shape().dim_sizes());
    std::vector<int64_t> src_strides(out_rank, 0);
    for (int d = 0; d < in_rank; ++d) {
      const int od = d + out_rank - in_rank;
      const int64_t in_size = input.dim_size(d), out_size = out_shape->dim_size(od);
      OP_REQUIRES(ctx, in_size == out_size || in_size == 1,
                  Error(absl::StrCat("Incompatible shapes: ", input.shape().DebugString(),
                                     " vs. ", out_shape->DebugString())));
      src_strides[od] = in_size == 1 ? 0 : in_strides[d];
    }
    if (input.shape() == *out_shape) {
      ctx->set_output(0, input);
      return;
    }
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, *out_shape, &out));
    if (out->NumElements() == 0) return;
    OP_REQUIRES_OK(ctx, Mover::Copy(ctx, DataTypeSize(input.dtype()), *dims, input.raw_data(), 0,
                                    src_strides, out->raw_data(), 0, RowMajorStrides(*dims)));
  }

 private:
  absl::Status Error(absl::string_view message) const {
    return AttachNodeName(absl::InvalidArgumentError(message), def());
  }
};

REGISTER_KERNEL_BUILDER(
    Name("BroadcastTo").Device(DEVICE_CPU).TypeConstraint("T", AllDataTypes()).HostMemory("shape"),
    BroadcastToOp<HostMover>);

#ifdef MINITF_WITH_CUDA
REGISTER_KERNEL_BUILDER(Name("BroadcastTo")
                            .Device(DEVICE_GPU)
                            .Platform("CUDA")
                            .TypeConstraint("T", GpuArrayTypes())
                            .HostMemory("shape"),
                        BroadcastToOp<CudaMover>);
#endif  // MINITF_WITH_CUDA

}  // namespace
}  // namespace minitf
