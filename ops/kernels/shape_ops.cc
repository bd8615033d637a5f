// Kernel: Shape on CPU. Reads only the input's shape, never its elements.
#include <limits>

#include "absl/strings/str_cat.h"
#include "runtime/kernel_registry.h"
#include "runtime/op_requires.h"

namespace minitf {
namespace {

// output[d] = input.dim_size(d), as int32 or int64 (`OutType`).
template <typename OutType>
class ShapeOp : public OpKernel {
 public:
  explicit ShapeOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}

  void Compute(OpKernelContext* ctx) override {
    const TensorShape& shape = ctx->input(0).shape();
    Tensor* output = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape({shape.dims()}), &output));
    auto out = output->vec<OutType>();
    for (int d = 0; d < shape.dims(); ++d) {
      const int64_t size = shape.dim_size(d);
      OP_REQUIRES(ctx, size <= std::numeric_limits<OutType>::max(),
                  AttachNodeName(
                      absl::InvalidArgumentError(absl::StrCat(
                          "dimension ", d, " of shape ", shape.DebugString(), " does not fit in ",
                          DataTypeString(output_type(0)), "; use out_type int64")),
                      def()));
      out(d) = static_cast<OutType>(size);
    }
  }

  bool IsExpensive() override { return false; }
};

REGISTER_KERNEL_BUILDER(Name("Shape")
                            .Device(DEVICE_CPU)
                            .TypeConstraint("T", AllDataTypes())
                            .TypeConstraint<int32_t>("out_type")
                            .HostMemory("output"),
                        ShapeOp<int32_t>);
REGISTER_KERNEL_BUILDER(Name("Shape")
                            .Device(DEVICE_CPU)
                            .TypeConstraint("T", AllDataTypes())
                            .TypeConstraint<int64_t>("out_type")
                            .HostMemory("output"),
                        ShapeOp<int64_t>);
// On a GPU the input's shape is all it reads, and the output is in host
// memory: one kernel serves every GPU platform.
REGISTER_KERNEL_BUILDER(Name("Shape")
                            .Device(DEVICE_GPU)
                            .TypeConstraint("T", AllDataTypes())
                            .TypeConstraint<int32_t>("out_type")
                            .HostMemory("output"),
                        ShapeOp<int32_t>);
REGISTER_KERNEL_BUILDER(Name("Shape")
                            .Device(DEVICE_GPU)
                            .TypeConstraint("T", AllDataTypes())
                            .TypeConstraint<int64_t>("out_type")
                            .HostMemory("output"),
                        ShapeOp<int64_t>);

}  // namespace
}  // namespace minitf
