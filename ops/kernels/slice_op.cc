// Kernel: Slice on CPU (SimGPU twins wrap it) and on
// CUDA GPUs (element_mover.h). A block that is the whole
// input shares the input's buffer.
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
class SliceOp : public OpKernel {
 public:
  explicit SliceOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}

  void Compute(OpKernelContext* ctx) override {
    const Tensor& input = ctx->input(0);
    const int rank = input.dims();
    const Tensor& begin_t = ctx->input(1);
    const Tensor& size_t_ = ctx->input(2);
    OP_REQUIRES(ctx,
                begin_t.dims() == 1 && size_t_.dims() == 1 && begin_t.NumElements() == rank &&
                    size_t_.NumElements() == rank,
                Error(absl::StrCat("Expected begin and size arguments to be 1-D tensors of size ",
                                   rank, ", but got shapes ", begin_t.shape().DebugString(),
                                   " and ", size_t_.shape().DebugString(), " instead.")));
    absl::StatusOr<std::vector<int64_t>> begin = IndexValues(begin_t, "begin");
    absl::StatusOr<std::vector<int64_t>> size = IndexValues(size_t_, "size");
    OP_REQUIRES(ctx, begin.ok(), AttachNodeName(begin.status(), def()));
    OP_REQUIRES(ctx, size.ok(), AttachNodeName(size.status(), def()));
    std::vector<int64_t> out_dims(rank);
    bool whole = true;
    for (int d = 0; d < rank; ++d) {
      const int64_t dim = input.dim_size(d), b = (*begin)[d];
      const int64_t s = (*size)[d] == -1 ? dim - b : (*size)[d];
      OP_REQUIRES(ctx, b >= 0 && b <= dim,
                  Error(absl::StrCat("Expected begin[", d, "] in [0, ", dim, "], but got ", b)));
      OP_REQUIRES(ctx, s >= 0 && b + s <= dim,
                  Error(absl::StrCat("Expected size[", d, "] in [0, ", dim - b, "], but got ",
                                     (*size)[d])));
      out_dims[d] = s;
      whole = whole && b == 0 && s == dim;
    }
    if (whole) {
      ctx->set_output(0, input);
      return;
    }
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape(out_dims), &out));
    if (out->NumElements() == 0) return;
    const std::vector<int64_t> in_strides = RowMajorStrides(input.shape().dim_sizes());
    int64_t offset = 0;
    for (int d = 0; d < rank; ++d) offset += (*begin)[d] * in_strides[d];
    OP_REQUIRES_OK(ctx,
                   Mover::Copy(ctx, DataTypeSize(input.dtype()), out_dims, input.raw_data(), offset,
                               in_strides, out->raw_data(), 0, RowMajorStrides(out_dims)));
  }

 private:
  absl::Status Error(absl::string_view message) const {
    return AttachNodeName(absl::InvalidArgumentError(message), def());
  }
};

REGISTER_KERNEL_BUILDER(Name("Slice")
                            .Device(DEVICE_CPU)
                            .TypeConstraint("T", AllDataTypes())
                            .HostMemory("begin")
                            .HostMemory("size"),
                        SliceOp<HostMover>);

#ifdef MINITF_WITH_CUDA
REGISTER_KERNEL_BUILDER(Name("Slice")
                            .Device(DEVICE_GPU)
                            .Platform("CUDA")
                            .TypeConstraint("T", GpuArrayTypes())
                            .HostMemory("begin")
                            .HostMemory("size"),
                        SliceOp<CudaMover>);
#endif  // MINITF_WITH_CUDA

}  // namespace
}  // namespace minitf
