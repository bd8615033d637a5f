// Kernel: Tile on CPU (SimGPU twins wrap it) and on
// CUDA GPUs (element_mover.h). The output of shape
// [m_0 * d_0, ..., m_{n-1} * d_{n-1}] is viewed as [m_0, d_0, ..., m_{n-1},
// d_{n-1}], whose element (t_0, i_0, ...) is input element (i_0, ...): one
// strided copy whose source strides are 0 along the repeat dimensions.
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
class TileOp : public OpKernel {
 public:
  explicit TileOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}

  void Compute(OpKernelContext* ctx) override {
    const Tensor& input = ctx->input(0);
    const int rank = input.dims();
    const Tensor& multiples_t = ctx->input(1);
    OP_REQUIRES(ctx, multiples_t.dims() == 1 && multiples_t.NumElements() == rank,
                Error(absl::StrCat("Expected multiples argument to be a vector of length ", rank,
                                   " but got length ",
                                   multiples_t.dims() == 1 ? multiples_t.NumElements() : -1)));
    absl::StatusOr<std::vector<int64_t>> multiples = IndexValues(multiples_t, "multiples");
    OP_REQUIRES(ctx, multiples.ok(), AttachNodeName(multiples.status(), def()));
    std::vector<int64_t> out_dims(rank);
    bool identity = true;
    for (int d = 0; d < rank; ++d) {
      const int64_t m = (*multiples)[d];
      OP_REQUIRES(ctx, m >= 0,
                  Error(absl::StrCat("Expected multiples[", d, "] >= 0, but got ", m)));
      out_dims[d] = input.dim_size(d) * m;
      identity = identity && m == 1;
    }
    if (identity) {
      ctx->set_output(0, input);
      return;
    }
    absl::StatusOr<TensorShape> out_shape = TensorShape::Build(out_dims);
    OP_REQUIRES(ctx, out_shape.ok(), Error(out_shape.status().message()));
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, *out_shape, &out));
    if (out->NumElements() == 0) return;
    const std::vector<int64_t> in_strides = RowMajorStrides(input.shape().dim_sizes());
    std::vector<int64_t> view, src_strides;
    for (int d = 0; d < rank; ++d) {
      view.push_back((*multiples)[d]);
      src_strides.push_back(0);
      view.push_back(input.dim_size(d));
      src_strides.push_back(in_strides[d]);
    }
    OP_REQUIRES_OK(ctx, Mover::Copy(ctx, DataTypeSize(input.dtype()), view, input.raw_data(), 0,
                                    src_strides, out->raw_data(), 0, RowMajorStrides(view)));
  }

 private:
  absl::Status Error(absl::string_view message) const {
    return AttachNodeName(absl::InvalidArgumentError(message), def());
  }
};

REGISTER_KERNEL_BUILDER(
    Name("Tile").Device(DEVICE_CPU).TypeConstraint("T", AllDataTypes()).HostMemory("multiples"),
    TileOp<HostMover>);

#ifdef MINITF_WITH_CUDA
REGISTER_KERNEL_BUILDER(Name("Tile")
                            .Device(DEVICE_GPU)
                            .Platform("CUDA")
                            .TypeConstraint("T", GpuArrayTypes())
                            .HostMemory("multiples"),
                        TileOp<CudaMover>);
#endif  // MINITF_WITH_CUDA

}  // namespace
}  // namespace minitf
