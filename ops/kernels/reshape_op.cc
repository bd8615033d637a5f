// Kernel: Reshape on CPU. The output shares the input's buffer: no element
// is copied.
#include <vector>

#include "absl/strings/str_cat.h"
#include "runtime/kernel_registry.h"
#include "runtime/op_requires.h"

namespace minitf {
namespace {

template <typename Index>
class ReshapeOp : public OpKernel {
 public:
  explicit ReshapeOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}

  void Compute(OpKernelContext* ctx) override {
    const Tensor& input = ctx->input(0);
    const Tensor& sizes = ctx->input(1);
    OP_REQUIRES(
        ctx, sizes.dims() == 1,
        Error(absl::StrCat("shape must be a vector, got shape ", sizes.shape().DebugString())));
    auto requested = sizes.vec<Index>();
    // The requested sizes with the (at most one) -1 counted as 1 for now;
    // TensorShape::Build rejects other negative sizes and overflow.
    std::vector<int64_t> dims(requested.size());
    int infer_index = -1;
    for (int d = 0; d < static_cast<int>(dims.size()); ++d) {
      dims[d] = static_cast<int64_t>(requested(d));
      if (dims[d] != -1) continue;
      OP_REQUIRES(
          ctx, infer_index < 0,
          Error(absl::StrCat("can only infer one dimension, shape is ", sizes.SummarizeValue())));
      infer_index = d;
      dims[d] = 1;
    }
    auto known = TensorShape::Build(dims);
    OP_REQUIRES(ctx, known.ok(), Error(known.status().message()));
    const int64_t count = input.NumElements();
    TensorShape shape = *known;
    if (infer_index >= 0) {
      const int64_t known_product = known->num_elements();
      OP_REQUIRES(
          ctx, known_product == 0 ? count == 0 : count % known_product == 0,
          Error(absl::StrCat("Input to reshape is a tensor with ", count,
                             " values, which cannot be reshaped to ", sizes.SummarizeValue())));
      shape.set_dim(infer_index, known_product == 0 ? 0 : count / known_product);
    }
    OP_REQUIRES(ctx, shape.num_elements() == count,
                Error(absl::StrCat("Input to reshape is a tensor with ", count,
                                   " values, but the requested shape ", shape.DebugString(),
                                   " has ", shape.num_elements())));
    Tensor output;
    const bool shared = output.CopyFrom(input, shape);
    MINITF_CHECK(shared);
    ctx->set_output(0, output);
  }

  bool IsExpensive() override { return false; }

 private:
  absl::Status Error(absl::string_view message) const {
    return AttachNodeName(absl::InvalidArgumentError(message), def());
  }
};

REGISTER_KERNEL_BUILDER(Name("Reshape")
                            .Device(DEVICE_CPU)
                            .TypeConstraint("T", AllDataTypes())
                            .TypeConstraint<int32_t>("Tshape")
                            .HostMemory("shape"),
                        ReshapeOp<int32_t>);
REGISTER_KERNEL_BUILDER(Name("Reshape")
                            .Device(DEVICE_CPU)
                            .TypeConstraint("T", AllDataTypes())
                            .TypeConstraint<int64_t>("Tshape")
                            .HostMemory("shape"),
                        ReshapeOp<int64_t>);
// On a GPU the shape is read on the host and the buffer is shared, not
// touched: one kernel serves every GPU platform.
REGISTER_KERNEL_BUILDER(Name("Reshape")
                            .Device(DEVICE_GPU)
                            .TypeConstraint("T", AllDataTypes())
                            .TypeConstraint<int32_t>("Tshape")
                            .HostMemory("shape"),
                        ReshapeOp<int32_t>);
REGISTER_KERNEL_BUILDER(Name("Reshape")
                            .Device(DEVICE_GPU)
                            .TypeConstraint("T", AllDataTypes())
                            .TypeConstraint<int64_t>("Tshape")
                            .HostMemory("shape"),
                        ReshapeOp<int64_t>);

}  // namespace
}  // namespace minitf
