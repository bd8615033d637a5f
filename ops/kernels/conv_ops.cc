// Kernels: Conv2D, Conv2DBackpropInput and Conv2DBackpropFilter on CPU, NHWC.
// Each checks its shapes, allocates its output and an im2col workspace, and
// calls the device-agnostic functors of conv_functors.h on the intra-op pool.
#include "absl/strings/str_cat.h"
#include "ops/kernels/conv_functors.h"
#include "ops/kernels/window_geometry.h"
#include "ops/util/window_attrs.h"
#include "runtime/kernel_registry.h"
#include "runtime/op_requires.h"

namespace minitf {
namespace {

// Reads the window attrs once, when the kernel is built.
class Conv2DOpBase : public OpKernel {
 public:
  explicit Conv2DOpBase(OpKernelConstruction* ctx) : OpKernel(ctx) {
    absl::StatusOr<Conv2DParameters> params = ReadConv2DParameters(ctx->def());
    OP_REQUIRES_OK(ctx, params.status());
    params_ = *params;
  }

 protected:
  // The convolution of `input` by `filter`; errors name the node.
  absl::StatusOr<functor::Conv2DGeometry> Geometry(const TensorShape& input,
                                                   const TensorShape& filter) const {
    absl::StatusOr<functor::Conv2DGeometry> g = MakeConv2DGeometry(params_, input, filter);
    if (!g.ok()) return AttachNodeName(g.status(), def());
    return g;
  }

  // The shape an int32 sizes input (input_sizes, filter_sizes) holds.
  absl::StatusOr<TensorShape> ShapeFromSizes(const Tensor& sizes, absl::string_view name) const {
    if (sizes.dims() != 1 || sizes.NumElements() != 4) {
      return AttachNodeName(
          absl::InvalidArgumentError(absl::StrCat(name, " must be a vector of 4 sizes, got shape ",
                                                  sizes.shape().DebugString())),
          def());
    }
    auto v = sizes.vec<int32_t>();
    for (int i = 0; i < 4; ++i) {
      if (v(i) < 0) {
        return AttachNodeName(absl::InvalidArgumentError(absl::StrCat(
                                  name, " must not be negative, got ", sizes.SummarizeValue())),
                              def());
      }
    }
    return TensorShape({v(0), v(1), v(2), v(3)});
  }

  // out_backprop must have the shape of the convolution's output.
  absl::Status CheckOutBackprop(const functor::Conv2DGeometry& g,
                                const Tensor& out_backprop) const {
    const TensorShape expected = Conv2DOutputShape(g);
    if (out_backprop.shape() == expected) return absl::OkStatus();
    return AttachNodeName(absl::InvalidArgumentError(absl::StrCat(
                              "out_backprop has shape ", out_backprop.shape().DebugString(),
                              " but the convolution's output has shape ", expected.DebugString())),
                          def());
  }

  Conv2DParameters params_;
};

template <typename T>
absl::Status AllocateWorkspace(OpKernelContext* ctx, int64_t elements, Tensor* workspace) {
  return ctx->allocate_temp(DataTypeToEnum<T>::value, TensorShape({elements}), workspace);
}

// output = conv2d(input, filter).
template <typename T>
class Conv2DOp : public Conv2DOpBase {
 public:
  using Conv2DOpBase::Conv2DOpBase;

  void Compute(OpKernelContext* ctx) override {
    const Tensor& input = ctx->input(0);
    const Tensor& filter = ctx->input(1);
    absl::StatusOr<functor::Conv2DGeometry> g = Geometry(input.shape(), filter.shape());
    OP_REQUIRES_OK(ctx, g.status());
    Tensor* output = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, Conv2DOutputShape(*g), &output));
    const Eigen::ThreadPoolDevice& d = ctx->eigen_cpu_device();
    Tensor workspace;
    OP_REQUIRES_OK(ctx, AllocateWorkspace<T>(
                            ctx, functor::Conv2DFunctor<T>::WorkspaceElements(d, *g), &workspace));
    functor::Conv2DFunctor<T>()(d, *g, input.data<T>(), filter.data<T>(), output->data<T>(),
                                workspace.data<T>());
  }
};

// The gradient of Conv2D with respect to its input, whose shape input_sizes gives.
template <typename T>
class Conv2DBackpropInputOp : public Conv2DOpBase {
 public:
  using Conv2DOpBase::Conv2DOpBase;

  void Compute(OpKernelContext* ctx) override {
    const Tensor& filter = ctx->input(1);
    const Tensor& out_backprop = ctx->input(2);
    absl::StatusOr<TensorShape> input_shape = ShapeFromSizes(ctx->input(0), "input_sizes");
    OP_REQUIRES_OK(ctx, input_shape.status());
    absl::StatusOr<functor::Conv2DGeometry> g = Geometry(*input_shape, filter.shape());
    OP_REQUIRES_OK(ctx, g.status());
    OP_REQUIRES_OK(ctx, CheckOutBackprop(*g, out_backprop));
    Tensor* in_backprop = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, *input_shape, &in_backprop));
    const Eigen::ThreadPoolDevice& d = ctx->eigen_cpu_device();
    Tensor workspace;
    OP_REQUIRES_OK(ctx, AllocateWorkspace<T>(
                            ctx, functor::Conv2DBackpropInputFunctor<T>::WorkspaceElements(d, *g),
                            &workspace));
    functor::Conv2DBackpropInputFunctor<T>()(d, *g, filter.data<T>(), out_backprop.data<T>(),
                                             in_backprop->data<T>(), workspace.data<T>());
  }
};

// The gradient of Conv2D with respect to its filter, whose shape filter_sizes gives.
template <typename T>
class Conv2DBackpropFilterOp : public Conv2DOpBase {
 public:
  using Conv2DOpBase::Conv2DOpBase;

  void Compute(OpKernelContext* ctx) override {
    const Tensor& input = ctx->input(0);
    const Tensor& out_backprop = ctx->input(2);
    absl::StatusOr<TensorShape> filter_shape = ShapeFromSizes(ctx->input(1), "filter_sizes");
    OP_REQUIRES_OK(ctx, filter_shape.status());
    absl::StatusOr<functor::Conv2DGeometry> g = Geometry(input.shape(), *filter_shape);
    OP_REQUIRES_OK(ctx, g.status());
    OP_REQUIRES_OK(ctx, CheckOutBackprop(*g, out_backprop));
    Tensor* filter_backprop = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, *filter_shape, &filter_backprop));
    const Eigen::ThreadPoolDevice& d = ctx->eigen_cpu_device();
    Tensor workspace;
    OP_REQUIRES_OK(ctx, AllocateWorkspace<T>(
                            ctx, functor::Conv2DBackpropFilterFunctor<T>::WorkspaceElements(d, *g),
                            &workspace));
    functor::Conv2DBackpropFilterFunctor<T>()(d, *g, input.data<T>(), out_backprop.data<T>(),
                                              filter_backprop->data<T>(), workspace.data<T>());
  }
};

#define MINITF_REGISTER_CONV(T)                                                                   \
  REGISTER_KERNEL_BUILDER(Name("Conv2D").Device(DEVICE_CPU).TypeConstraint<T>("T"), Conv2DOp<T>); \
  REGISTER_KERNEL_BUILDER(Name("Conv2DBackpropInput").Device(DEVICE_CPU).TypeConstraint<T>("T"),  \
                          Conv2DBackpropInputOp<T>);                                              \
  REGISTER_KERNEL_BUILDER(Name("Conv2DBackpropFilter").Device(DEVICE_CPU).TypeConstraint<T>("T"), \
                          Conv2DBackpropFilterOp<T>)
MINITF_REGISTER_CONV(float);
MINITF_REGISTER_CONV(double);
#undef MINITF_REGISTER_CONV

}  // namespace
}  // namespace minitf
