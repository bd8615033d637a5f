// Kernel: Transpose on CUDA GPUs, for every dtype, with an int32 or int64
// perm kept in host memory. The perm is checked by TransposePermutation, as
// on the CPU, with the same errors. A perm that keeps every dimension in
// place returns x itself, and one that only moves dimensions of size 1
// returns x's buffer under the new shape; otherwise the transpose is reduced
// to the dimensions that move (transpose_layout.h) and transpose_op.cu
// writes the output on the compute stream.
#include <vector>

#include "absl/strings/str_cat.h"
#include "ops/kernels/cuda/cuda_kernel_helpers.h"
#include "ops/kernels/cuda/transpose_op_gpu.h"
#include "ops/kernels/transpose_perm.h"
#include "runtime/kernel_registry.h"
#include "runtime/logging.h"
#include "runtime/node_def_util.h"
#include "runtime/op_requires.h"

namespace minitf {
namespace {

class TransposeOp : public OpKernel {
 public:
  explicit TransposeOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}

  void Compute(OpKernelContext* ctx) override {
    const Tensor& x = ctx->input(0);
    absl::StatusOr<std::vector<int>> perm = TransposePermutation(ctx->input(1), x.dims());
    OP_REQUIRES(ctx, perm.ok(),
                AttachNodeName(absl::InvalidArgumentError(absl::StrCat(
                                   perm.status().message(), "; x has shape ",
                                   x.shape().DebugString())),
                               def()));
    bool identity = true;
    TensorShape out_shape;
    for (int i = 0; i < x.dims(); ++i) {
      identity = identity && (*perm)[i] == i;
      out_shape.AddDim(x.dim_size((*perm)[i]));
    }
    if (identity) {
      ctx->set_output(0, x);
      return;
    }
    OP_REQUIRES(ctx, x.dims() <= gpu::kMaxTransposeRank,
                AttachNodeName(absl::UnimplementedError(absl::StrCat(
                                   "Transpose of rank ", x.dims(), " (shape ",
                                   x.shape().DebugString(), "); ranks up to ",
                                   gpu::kMaxTransposeRank, " are implemented")),
                               def()));
    const size_t element_size = DataTypeSize(x.dtype());
    OP_REQUIRES(ctx,
                element_size == 1 || element_size == 2 || element_size == 4 || element_size == 8,
                AttachNodeName(absl::UnimplementedError(
                                   absl::StrCat("Transpose of ", DataTypeString(x.dtype()),
                                                " elements is not implemented")),
                               def()));
    absl::StatusOr<se::Stream*> stream = ComputeStream(ctx);
    OP_REQUIRES_OK(ctx, stream.status());
    if (x.NumElements() == 0) {
      Tensor* y = nullptr;
      OP_REQUIRES_OK(ctx, ctx->allocate_output(0, out_shape, &y));
      return;
    }
    const gpu::TransposeLayout layout =
        gpu::MakeTransposeLayout(x.dims(), x.shape().dim_sizes().data(), perm->data());
    if (layout.IsCopy()) {
      Tensor y;
      const bool shared = y.CopyFrom(x, out_shape);
      MINITF_CHECK(shared);
      ctx->set_output(0, y);
      return;
    }
    Tensor* y = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, out_shape, &y));
    OP_REQUIRES_OK(ctx, LaunchStatus(gpu::LaunchTranspose(CudaStreamOf(*stream), element_size,
                                                          layout, x.raw_data(), y->raw_data()),
                                     type_string(), *this));
  }
};

REGISTER_KERNEL_BUILDER(Name("Transpose")
                            .Device(DEVICE_GPU)
                            .Platform("CUDA")
                            .TypeConstraint("T", AllDataTypes())
                            .TypeConstraint<int32_t>("Tperm")
                            .HostMemory("perm"),
                        TransposeOp);
REGISTER_KERNEL_BUILDER(Name("Transpose")
                            .Device(DEVICE_GPU)
                            .Platform("CUDA")
                            .TypeConstraint("T", AllDataTypes())
                            .TypeConstraint<int64_t>("Tperm")
                            .HostMemory("perm"),
                        TransposeOp);

}  // namespace
}  // namespace minitf
