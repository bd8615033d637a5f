// Kernels: StridedSlice and StridedSliceGrad on CPU (SimGPU twins wrap
// them) and on CUDA GPUs (element_mover.h). The index math is PlanStridedSlice's
// (ops/util/strided_slice.h); the data moves over the plan's processing shape: input element
// begin[d] + i_d * strides[d] in each dimension d.
#include <cstring>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "ops/kernels/element_mover.h"
#include "ops/kernels/strided_copy.h"
#include "ops/util/index_values.h"
#include "ops/util/strided_slice.h"
#include "runtime/kernel_registry.h"
#include "runtime/op_requires.h"

namespace minitf {
namespace {

absl::Status GetMasks(OpKernelConstruction* ctx, StridedSliceMasks* masks) {
  for (auto [name, field] : {std::pair{"begin_mask", &masks->begin_mask},
                             std::pair{"end_mask", &masks->end_mask},
                             std::pair{"ellipsis_mask", &masks->ellipsis_mask},
                             std::pair{"new_axis_mask", &masks->new_axis_mask},
                             std::pair{"shrink_axis_mask", &masks->shrink_axis_mask}}) {
    if (absl::Status s = ctx->GetAttr(name, field); !s.ok()) return s;
  }
  return absl::OkStatus();
}

// The plan of slicing a tensor of `dims` by begin, end and strides,
// inputs 1, 2 and 3 (in both ops).
absl::StatusOr<StridedSlicePlan> Plan(OpKernelContext* ctx, absl::Span<const int64_t> dims,
                                      const StridedSliceMasks& masks) {
  absl::StatusOr<std::vector<int64_t>> begin = IndexVector(ctx->input(1), "begin");
  if (!begin.ok()) return begin.status();
  absl::StatusOr<std::vector<int64_t>> end = IndexVector(ctx->input(2), "end");
  if (!end.ok()) return end.status();
  absl::StatusOr<std::vector<int64_t>> strides = IndexVector(ctx->input(3), "strides");
  if (!strides.ok()) return strides.status();
  return PlanStridedSlice(dims, *begin, *end, *strides, masks);
}

// Where the plan's first element is in a row-major tensor of `dims`, and
// the element stride of each processing dimension there.
void SliceAddressing(const StridedSlicePlan& plan, absl::Span<const int64_t> dims,
                     int64_t* offset, std::vector<int64_t>* strides) {
  const std::vector<int64_t> row_major = RowMajorStrides(dims);
  *offset = 0;
  strides->resize(dims.size());
  for (size_t d = 0; d < dims.size(); ++d) {
    *offset += plan.begin[d] * row_major[d];
    (*strides)[d] = plan.strides[d] * row_major[d];
  }
}

template <typename Mover>
class StridedSliceOp : public OpKernel {
 public:
  explicit StridedSliceOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, GetMasks(ctx, &masks_));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& input = ctx->input(0);
    absl::StatusOr<StridedSlicePlan> plan = Plan(ctx, input.shape().dim_sizes(), masks_);
    OP_REQUIRES(ctx, plan.ok(), AttachNodeName(plan.status(), def()));
    const TensorShape final_shape(plan->final_shape);
    if (plan->is_identity) {
      Tensor out;
      const bool shared = out.CopyFrom(input, final_shape);
      MINITF_CHECK(shared);
      ctx->set_output(0, out);
      return;
    }
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, final_shape, &out));
    if (out->NumElements() == 0) return;
    int64_t offset;
    std::vector<int64_t> src_strides;
    SliceAddressing(*plan, input.shape().dim_sizes(), &offset, &src_strides);
    OP_REQUIRES_OK(ctx, Mover::Copy(ctx, DataTypeSize(input.dtype()), plan->processing_shape,
                                    input.raw_data(), offset, src_strides, out->raw_data(), 0,
                                    RowMajorStrides(plan->processing_shape)));
  }

 private:
  StridedSliceMasks masks_;
};

REGISTER_KERNEL_BUILDER(Name("StridedSlice")
                            .Device(DEVICE_CPU)
                            .TypeConstraint("T", AllDataTypes())
                            .HostMemory("begin")
                            .HostMemory("end")
                            .HostMemory("strides"),
                        StridedSliceOp<HostMover>);

// output = zeros of shape `shape`; output[slice] = dy.
template <typename Mover>
class StridedSliceGradOp : public OpKernel {
 public:
  explicit StridedSliceGradOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, GetMasks(ctx, &masks_));
  }

  void Compute(OpKernelContext* ctx) override {
    absl::StatusOr<std::vector<int64_t>> dims = IndexVector(ctx->input(0), "shape");
    OP_REQUIRES(ctx, dims.ok(), AttachNodeName(dims.status(), def()));
    absl::StatusOr<TensorShape> shape = TensorShape::Build(*dims);
    OP_REQUIRES(ctx, shape.ok(),
                AttachNodeName(absl::InvalidArgumentError(shape.status().message()), def()));
    absl::StatusOr<StridedSlicePlan> plan = Plan(ctx, *dims, masks_);
    OP_REQUIRES(ctx, plan.ok(), AttachNodeName(plan.status(), def()));
    const Tensor& dy = ctx->input(4);
    const TensorShape final_shape(plan->final_shape);
    OP_REQUIRES(ctx, dy.shape() == final_shape,
                AttachNodeName(absl::InvalidArgumentError(absl::StrCat(
                                   "shape of dy was ", dy.shape().DebugString(), " instead of ",
                                   final_shape.DebugString())),
                               def()));
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, *shape, &out));
    if (out->NumElements() == 0) return;
    OP_REQUIRES_OK(ctx, Mover::Zero(ctx, out));
    if (dy.NumElements() == 0) return;
    int64_t offset;
    std::vector<int64_t> dst_strides;
    SliceAddressing(*plan, *dims, &offset, &dst_strides);
    OP_REQUIRES_OK(ctx, Mover::Copy(ctx, DataTypeSize(dy.dtype()), plan->processing_shape,
                                    dy.raw_data(), 0, RowMajorStrides(plan->processing_shape),
                                    out->raw_data(), offset, dst_strides));
  }

 private:
  StridedSliceMasks masks_;
};

REGISTER_KERNEL_BUILDER(Name("StridedSliceGrad")
                            .Device(DEVICE_CPU)
                            .TypeConstraint("T", AllDataTypes())
                            .HostMemory("shape")
                            .HostMemory("begin")
                            .HostMemory("end")
                            .HostMemory("strides"),
                        StridedSliceGradOp<HostMover>);

#ifdef MINITF_WITH_CUDA
REGISTER_KERNEL_BUILDER(Name("StridedSlice")
                            .Device(DEVICE_GPU)
                            .Platform("CUDA")
                            .TypeConstraint("T", GpuArrayTypes())
                            .HostMemory("begin")
                            .HostMemory("end")
                            .HostMemory("strides"),
                        StridedSliceOp<CudaMover>);
REGISTER_KERNEL_BUILDER(Name("StridedSliceGrad")
                            .Device(DEVICE_GPU)
                            .Platform("CUDA")
                            .TypeConstraint("T", GpuArrayTypes())
                            .HostMemory("shape")
                            .HostMemory("begin")
                            .HostMemory("end")
                            .HostMemory("strides"),
                        StridedSliceGradOp<CudaMover>);
#endif  // MINITF_WITH_CUDA

}  // namespace
}  // namespace minitf
