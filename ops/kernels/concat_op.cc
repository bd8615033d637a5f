// Kernels: ConcatV2 and ConcatOffset on CPU (SimGPU twins wrap them), and
// ConcatV2 on CUDA GPUs (element_mover.h).
//
// ConcatV2 views every input as [outer, inner_i] (outer: the dimensions
// before the axis) and copies it into columns [offset_i, offset_i + inner_i)
// of the output's [outer, sum of inner_i] view.
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
class ConcatV2Op : public OpKernel {
 public:
  explicit ConcatV2Op(OpKernelConstruction* ctx) : OpKernel(ctx) {}

  void Compute(OpKernelContext* ctx) override {
    const int n = ctx->num_inputs() - 1;
    absl::StatusOr<int64_t> axis_value = IndexScalar(ctx->input(n), "axis");
    OP_REQUIRES(ctx, axis_value.ok(), Error(axis_value.status().message()));
    const Tensor& first = ctx->input(0);
    const int rank = first.dims();
    OP_REQUIRES(ctx, rank > 0, Error("Can't concatenate scalars (use tf.stack instead)"));
    OP_REQUIRES(ctx, *axis_value >= -rank && *axis_value < rank,
                Error(absl::StrCat("ConcatOp : Expected concatenating dimensions in the range [",
                                   -rank, ", ", rank, "), but got ", *axis_value)));
    const int axis = static_cast<int>(*axis_value < 0 ? *axis_value + rank : *axis_value);
    TensorShape out_shape = first.shape();
    int64_t axis_size = 0;
    for (int i = 0; i < n; ++i) {
      const Tensor& in = ctx->input(i);
      OP_REQUIRES(ctx, in.dims() == rank,
                  Error(absl::StrCat("ConcatOp : Ranks of all input tensors should match: "
                                     "shape[0] = ", first.shape().DebugString(), " vs. shape[",
                                     i, "] = ", in.shape().DebugString())));
      for (int d = 0; d < rank; ++d) {
        OP_REQUIRES(ctx, d == axis || in.dim_size(d) == first.dim_size(d),
                    Error(absl::StrCat("ConcatOp : Dimension ", d,
                                       " in both shapes must be equal: shape[0] = ",
                                       first.shape().DebugString(), " vs. shape[", i,
                                       "] = ", in.shape().DebugString())));
      }
      axis_size += in.dim_size(axis);
    }
    out_shape.set_dim(axis, axis_size);
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, out_shape, &out));
    if (out->NumElements() == 0) return;
    int64_t outer = 1;
    for (int d = 0; d < axis; ++d) outer *= out_shape.dim_size(d);
    const int64_t out_inner = out->NumElements() / outer;
    const size_t esize = DataTypeSize(out->dtype());
    int64_t column = 0;
    for (int i = 0; i < n; ++i) {
      const Tensor& in = ctx->input(i);
      const int64_t inner = in.NumElements() / outer;
      if (inner == 0) continue;
      OP_REQUIRES_OK(ctx, Mover::Copy(ctx, esize, {outer, inner}, in.raw_data(), 0, {inner, 1},
                                      out->raw_data(), column, {out_inner, 1}));
      column += inner;
    }
  }

 private:
  absl::Status Error(absl::string_view message) const {
    return AttachNodeName(absl::InvalidArgumentError(message), def());
  }
};

REGISTER_KERNEL_BUILDER(
    Name("ConcatV2").Device(DEVICE_CPU).TypeConstraint("T", AllDataTypes()).HostMemory("axis"),
    ConcatV2Op<HostMover>);

// offset[i] = the start of input i in the output of a concatenation along
// concat_dim: zeros except at concat_dim.
template <typename Index>
class ConcatOffsetOp : public OpKernel {
 public:
  explicit ConcatOffsetOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}

  void Compute(OpKernelContext* ctx) override {
    const Tensor& concat_dim = ctx->input(0);
    OP_REQUIRES(ctx, concat_dim.dims() == 0,
                Error(absl::StrCat("Concat dim tensor should be a scalar integer, but got shape ",
                                   concat_dim.shape().DebugString())));
    const int n = ctx->num_inputs() - 1;
    const Tensor& first = ctx->input(1);
    OP_REQUIRES(ctx, first.dims() == 1,
                Error(absl::StrCat("input 0 should be a vector, but got shape ",
                                   first.shape().DebugString())));
    const int64_t rank = first.NumElements();
    const int64_t cdim = concat_dim.scalar<int32_t>()();
    OP_REQUIRES(ctx, cdim >= -rank && cdim < rank,
                Error(absl::StrCat("Concat dim is out of range: ", cdim, " vs. ", rank)));
    const int64_t axis = cdim < 0 ? cdim + rank : cdim;
    auto first_v = first.vec<Index>();
    Index offset = 0;
    for (int i = 0; i < n; ++i) {
      const Tensor& shape = ctx->input(1 + i);
      OP_REQUIRES(ctx, shape.dims() == 1 && shape.NumElements() == rank,
                  Error(absl::StrCat("input ", i, " should contain ", rank, " elements, but got ",
                                     shape.NumElements())));
      auto v = shape.vec<Index>();
      Tensor* out = nullptr;
      OP_REQUIRES_OK(ctx, ctx->allocate_output(i, TensorShape({rank}), &out));
      auto o = out->vec<Index>();
      for (int64_t d = 0; d < rank; ++d) {
        if (d == axis) {
          o(d) = offset;
          offset += v(d);
          continue;
        }
        OP_REQUIRES(ctx, v(d) == first_v(d),
                    Error(absl::StrCat("All dimensions except ", axis, " must match. Input ", i,
                                       " has shape ", shape.SummarizeValue(),
                                       " and doesn't match input 0 with shape ",
                                       first.SummarizeValue(), ".")));
        o(d) = 0;
      }
    }
  }

  bool IsExpensive() override { return false; }

 private:
  absl::Status Error(absl::string_view message) const {
    return AttachNodeName(absl::InvalidArgumentError(message), def());
  }
};

REGISTER_KERNEL_BUILDER(Name("ConcatOffset")
                            .Device(DEVICE_CPU)
                            .TypeConstraint<int32_t>("shape_type")
                            .HostMemory("concat_dim")
                            .HostMemory("shape")
                            .HostMemory("offset"),
                        ConcatOffsetOp<int32_t>);
REGISTER_KERNEL_BUILDER(Name("ConcatOffset")
                            .Device(DEVICE_CPU)
                            .TypeConstraint<int64_t>("shape_type")
                            .HostMemory("concat_dim")
                            .HostMemory("shape")
                            .HostMemory("offset"),
                        ConcatOffsetOp<int64_t>);

#ifdef MINITF_WITH_CUDA
REGISTER_KERNEL_BUILDER(Name("ConcatV2")
                            .Device(DEVICE_GPU)
                            .Platform("CUDA")
                            .TypeConstraint("T", GpuArrayTypes())
                            .HostMemory("axis"),
                        ConcatV2Op<CudaMover>);
#endif  // MINITF_WITH_CUDA

}  // namespace
}  // namespace minitf
