// Kernels: Split and SplitV on CPU (SimGPU twins wrap them) and
// on CUDA GPUs (element_mover.h). Piece i of a
// split along dimension `axis` is columns [start_i, start_i + inner_i) of
// the input's [outer, inner] view (outer: the dimensions before the axis).
#include <vector>

#include "absl/strings/str_cat.h"
#include "ops/kernels/element_mover.h"
#include "ops/kernels/strided_copy.h"
#include "ops/util/index_values.h"
#include "runtime/kernel_registry.h"
#include "runtime/op_requires.h"

namespace minitf {
namespace {

// Writes the pieces of `value` along `axis` with the given sizes to the
// outputs of `ctx`; one piece of everything forwards the input.
template <typename Mover>
void WritePieces(OpKernelContext* ctx, const Tensor& value, int axis,
                 const std::vector<int64_t>& sizes) {
  if (sizes.size() == 1) {
    ctx->set_output(0, value);
    return;
  }
  int64_t outer = 1;
  for (int d = 0; d < axis; ++d) outer *= value.dim_size(d);
  int64_t row = 1;  // Elements per index of the axis.
  for (int d = axis + 1; d < value.dims(); ++d) row *= value.dim_size(d);
  const int64_t in_inner = value.dim_size(axis) * row;
  const size_t esize = DataTypeSize(value.dtype());
  int64_t start = 0;
  for (size_t i = 0; i < sizes.size(); ++i) {
    TensorShape shape = value.shape();
    shape.set_dim(axis, sizes[i]);
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(static_cast<int>(i), shape, &out));
    const int64_t inner = sizes[i] * row;
    if (out->NumElements() > 0) {
      OP_REQUIRES_OK(ctx, Mover::Copy(ctx, esize, {outer, inner}, value.raw_data(), start,
                                      {in_inner, 1}, out->raw_data(), 0, {inner, 1}));
    }
    start += inner;
  }
}

absl::StatusOr<int> SplitAxis(const Tensor& split_dim, const Tensor& value) {
  absl::StatusOr<int64_t> dim = IndexScalar(split_dim, "split_dim");
  if (!dim.ok()) return dim.status();
  return CanonicalAxis(*dim, value.dims(), "split_dim");
}

template <typename Mover>
class SplitOp : public OpKernel {
 public:
  explicit SplitOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}

  void Compute(OpKernelContext* ctx) override {
    const Tensor& value = ctx->input(1);
    absl::StatusOr<int> axis = SplitAxis(ctx->input(0), value);
    OP_REQUIRES(ctx, axis.ok(), AttachNodeName(axis.status(), def()));
    const int num_split = ctx->num_outputs();
    const int64_t size = value.dim_size(*axis);
    OP_REQUIRES(ctx, size % num_split == 0,
                AttachNodeName(absl::InvalidArgumentError(absl::StrCat(
                                   "Number of ways to split should evenly divide the split "
                                   "dimension, but got split_dim ", *axis, " (size = ", size,
                                   ") and num_split ", num_split)),
                               def()));
    WritePieces<Mover>(ctx, value, *axis, std::vector<int64_t>(num_split, size / num_split));
  }
};

REGISTER_KERNEL_BUILDER(
    Name("Split").Device(DEVICE_CPU).TypeConstraint("T", AllDataTypes()).HostMemory("split_dim"),
    SplitOp<HostMover>);

template <typename Mover>
class SplitVOp : public OpKernel {
 public:
  explicit SplitVOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}

  void Compute(OpKernelContext* ctx) override {
    const Tensor& value = ctx->input(0);
    absl::StatusOr<int> axis = SplitAxis(ctx->input(2), value);
    OP_REQUIRES(ctx, axis.ok(), AttachNodeName(axis.status(), def()));
    absl::StatusOr<std::vector<int64_t>> sizes = IndexVector(ctx->input(1), "size_splits");
    OP_REQUIRES(ctx, sizes.ok(), AttachNodeName(sizes.status(), def()));
    const int num_split = ctx->num_outputs();
    OP_REQUIRES(ctx, static_cast<int>(sizes->size()) == num_split,
                Error(absl::StrCat("size_splits has ", sizes->size(),
                                   " elements, but num_split is ", num_split)));
    const int64_t size = value.dim_size(*axis);
    int inferred = -1;
    int64_t known = 0;
    for (int i = 0; i < num_split; ++i) {
      const int64_t s = (*sizes)[i];
      if (s == -1) {
        OP_REQUIRES(ctx, inferred < 0, Error("There can only be one -1 in the input."));
        inferred = i;
        continue;
      }
      OP_REQUIRES(ctx, s >= 0,
                  Error(absl::StrCat("size_splits[", i, "] = ", s, " is negative (only one -1 "
                                     "is allowed, meaning the rest of the dimension)")));
      known += s;
    }
    OP_REQUIRES(ctx, inferred < 0 ? known == size : known <= size,
                Error(absl::StrCat("Determined shape must either match input shape along "
                                   "split_dim exactly if fully specified, or be less than the "
                                   "size of the input along split_dim if not fully specified.  "
                                   "Got: ", known, " for split_dim ", *axis, " of size ", size)));
    if (inferred >= 0) (*sizes)[inferred] = size - known;
    WritePieces<Mover>(ctx, value, *axis, *sizes);
  }

 private:
  absl::Status Error(absl::string_view message) const {
    return AttachNodeName(absl::InvalidArgumentError(message), def());
  }
};

REGISTER_KERNEL_BUILDER(Name("SplitV")
                            .Device(DEVICE_CPU)
                            .TypeConstraint("T", AllDataTypes())
                            .HostMemory("size_splits")
                            .HostMemory("split_dim"),
                        SplitVOp<HostMover>);

#ifdef MINITF_WITH_CUDA
REGISTER_KERNEL_BUILDER(Name("Split")
                            .Device(DEVICE_GPU)
                            .Platform("CUDA")
                            .TypeConstraint("T", GpuArrayTypes())
                            .HostMemory("split_dim"),
                        SplitOp<CudaMover>);
REGISTER_KERNEL_BUILDER(Name("SplitV")
                            .Device(DEVICE_GPU)
                            .Platform("CUDA")
                            .TypeConstraint("T", GpuArrayTypes())
                            .HostMemory("size_splits")
                            .HostMemory("split_dim"),
                        SplitVOp<CudaMover>);
#endif  // MINITF_WITH_CUDA

}  // namespace
}  // namespace minitf
