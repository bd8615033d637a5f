// Kernel: Cast on CPU, between any two of float, double, int32, int64 and
// bool. A cast to the same type forwards the input; floating to integer
// truncates toward zero (out-of-range values are undefined, as in C++ and
// TensorFlow); anything to bool is `x != 0`; bool to a number is 0 or 1.
#include "absl/strings/str_cat.h"
#include "runtime/kernel_registry.h"
#include "runtime/node_def_util.h"
#include "runtime/op_requires.h"

namespace minitf {
namespace {

using CastFn = void (*)(const Eigen::ThreadPoolDevice& d, const Tensor& x, Tensor* y);

template <typename Src, typename Dst>
void CastElements(const Eigen::ThreadPoolDevice& d, const Tensor& x, Tensor* y) {
  const auto in = x.flat<Src>();
  y->flat<Dst>().device(d) = in.template cast<Dst>();
}

// The element loop for one (SrcT, DstT) pair; nullptr for unsupported types.
CastFn FindCastFn(DataType src, DataType dst) {
  CastFn fn = nullptr;
  MINITF_SWITCH_ALL_TYPES(src, Src, break, {
    MINITF_SWITCH_ALL_TYPES(dst, Dst, break, { fn = &CastElements<Src, Dst>; });
  });
  return fn;
}

class CastOp : public OpKernel {
 public:
  explicit CastOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    DataType src = DT_INVALID, dst = DT_INVALID;
    OP_REQUIRES_OK(ctx, ctx->GetAttr("SrcT", &src));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("DstT", &dst));
    same_type_ = src == dst;
    cast_ = FindCastFn(src, dst);
    OP_REQUIRES(
        ctx, cast_ != nullptr,
        AttachNodeName(absl::UnimplementedError(absl::StrCat("no cast from ", DataTypeString(src),
                                                             " to ", DataTypeString(dst))),
                       def()));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& x = ctx->input(0);
    if (same_type_) {
      ctx->set_output(0, x);
      return;
    }
    Tensor* y = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, x.shape(), &y));
    cast_(ctx->eigen_cpu_device(), x, y);
  }

 private:
  bool same_type_ = false;
  CastFn cast_ = nullptr;
};
REGISTER_KERNEL_BUILDER(Name("Cast").Device(DEVICE_CPU), CastOp);

}  // namespace
}  // namespace minitf
