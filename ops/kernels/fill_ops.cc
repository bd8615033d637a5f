// Kernels: Fill, ZerosLike and OnesLike on CPU: tensors whose every element
// is one value.
#include "ops/util/fill_shape.h"
#include "runtime/kernel_registry.h"
#include "runtime/op_requires.h"

namespace minitf {
namespace {

// output = a tensor of shape `dims` filled with the scalar `value`.
template <typename T>
class FillOp : public OpKernel {
 public:
  explicit FillOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}

  void Compute(OpKernelContext* ctx) override {
    const Tensor& value = ctx->input(1);
    absl::StatusOr<TensorShape> shape = FillShape(ctx->input(0), value);
    OP_REQUIRES(ctx, shape.ok(), Error(shape.status().message()));
    Tensor* output = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, *shape, &output));
    auto out = output->flat<T>();
    out.device(ctx->eigen_cpu_device()) = out.constant(value.scalar<T>()());
  }

  bool IsExpensive() override { return false; }

 private:
  absl::Status Error(absl::string_view message) const {
    return AttachNodeName(absl::InvalidArgumentError(message), def());
  }
};

// y = a tensor shaped like x whose every element is kValue (0 or 1).
template <typename T, int kValue>
class ConstantLikeOp : public OpKernel {
 public:
  explicit ConstantLikeOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}

  void Compute(OpKernelContext* ctx) override {
    const Tensor& x = ctx->input(0);
    Tensor* y = nullptr;
    OP_REQUIRES_OK(ctx, ctx->forward_input_or_allocate_output({0}, 0, x.shape(), &y));
    auto out = y->flat<T>();
    out.device(ctx->eigen_cpu_device()) = out.constant(static_cast<T>(kValue));
  }
};

#define MINITF_REGISTER_FILL(T)                                      \
  REGISTER_KERNEL_BUILDER(Name("Fill")                               \
                              .Device(DEVICE_CPU)                    \
                              .TypeConstraint<T>("T")                \
                              .TypeConstraint<int32_t>("index_type") \
                              .HostMemory("dims"),                   \
                          FillOp<T>);                                \
  REGISTER_KERNEL_BUILDER(Name("Fill")                               \
                              .Device(DEVICE_CPU)                    \
                              .TypeConstraint<T>("T")                \
                              .TypeConstraint<int64_t>("index_type") \
                              .HostMemory("dims"),                   \
                          FillOp<T>)
MINITF_REGISTER_FILL(float);
MINITF_REGISTER_FILL(double);
MINITF_REGISTER_FILL(int32_t);
MINITF_REGISTER_FILL(int64_t);
MINITF_REGISTER_FILL(bool);
#undef MINITF_REGISTER_FILL

#define MINITF_REGISTER_CONSTANT_LIKE(T)                                               \
  REGISTER_KERNEL_BUILDER(Name("ZerosLike").Device(DEVICE_CPU).TypeConstraint<T>("T"), \
                          ConstantLikeOp<T, 0>);                                       \
  REGISTER_KERNEL_BUILDER(Name("OnesLike").Device(DEVICE_CPU).TypeConstraint<T>("T"),  \
                          ConstantLikeOp<T, 1>)
MINITF_REGISTER_CONSTANT_LIKE(float);
MINITF_REGISTER_CONSTANT_LIKE(double);
MINITF_REGISTER_CONSTANT_LIKE(int32_t);
MINITF_REGISTER_CONSTANT_LIKE(int64_t);
#undef MINITF_REGISTER_CONSTANT_LIKE

}  // namespace
}  // namespace minitf
