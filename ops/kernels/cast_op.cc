// Kernels: Cast on the CPU, between any two of float, double, int32, int64
// and bool, and on CUDA GPUs between any two of float, double, int64 and
// bool (int32 tensors stay in host memory on GPU devices, so they have no
// CUDA kernel; cast_op_gpu.cu). A cast to the same type forwards the input;
// floating to integer truncates toward zero (out-of-range values are
// undefined, as in C++ and TensorFlow; CUDA saturates where the CPU need
// not); anything to bool is `x != 0`; bool to a number is 0 or 1. The op has
// no Truncate attr.
#include <optional>
#include <vector>

#include "absl/strings/str_cat.h"
#include "runtime/kernel_registry.h"
#include "runtime/node_def_util.h"
#include "runtime/op_requires.h"

#ifdef MINITF_WITH_CUDA
#include "ops/kernels/cast_op_gpu.h"
#include "ops/kernels/cuda/cuda_kernel_helpers.h"
#endif

namespace minitf {
namespace {

// The skeleton every device shares: the attrs checked once, a same-type
// cast forwarded, the output allocated; `Device` supplies only
//   static bool Supports(DataType src, DataType dst);
//   static absl::Status Launch(OpKernelContext*, DataType src, DataType dst,
//                              const Tensor& x, Tensor* y);
template <typename Device>
class CastOp : public OpKernel {
 public:
  explicit CastOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("SrcT", &src_));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("DstT", &dst_));
    OP_REQUIRES(ctx, Device::Supports(src_, dst_),
                AttachNodeName(absl::UnimplementedError(absl::StrCat(
                                   "no ", Device::kName, " cast from ", DataTypeString(src_),
                                   " to ", DataTypeString(dst_))),
                               def()));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& x = ctx->input(0);
    if (src_ == dst_) {
      ctx->set_output(0, x);
      return;
    }
    Tensor* y = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, x.shape(), &y));
    if (x.NumElements() == 0) return;
    OP_REQUIRES_OK(ctx, Device::Launch(ctx, src_, dst_, x, y));
  }

 private:
  DataType src_ = DT_INVALID;
  DataType dst_ = DT_INVALID;
};

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

struct CpuCast {
  static constexpr const char* kName = "CPU";
  static bool Supports(DataType src, DataType dst) { return FindCastFn(src, dst) != nullptr; }
  static absl::Status Launch(OpKernelContext* ctx, DataType src, DataType dst, const Tensor& x,
                             Tensor* y) {
    FindCastFn(src, dst)(ctx->eigen_cpu_device(), x, y);
    return absl::OkStatus();
  }
};
REGISTER_KERNEL_BUILDER(Name("Cast").Device(DEVICE_CPU), CastOp<CpuCast>);

#ifdef MINITF_WITH_CUDA
std::optional<gpu::CastType> ToCastType(DataType dtype) {
  switch (dtype) {
    case DT_FLOAT: return gpu::CastType::kFloat;
    case DT_DOUBLE: return gpu::CastType::kDouble;
    case DT_INT64: return gpu::CastType::kInt64;
    case DT_BOOL: return gpu::CastType::kBool;
    default: return std::nullopt;
  }
}

struct CudaCast {
  static constexpr const char* kName = "CUDA";
  static bool Supports(DataType src, DataType dst) {
    return ToCastType(src).has_value() && ToCastType(dst).has_value();
  }
  static absl::Status Launch(OpKernelContext* ctx, DataType src, DataType dst, const Tensor& x,
                             Tensor* y) {
    return LaunchOnComputeStream(ctx, "Cast", [&](cudaStream_t stream) {
      return gpu::LaunchCast(stream, *ToCastType(src), *ToCastType(dst), x.NumElements(),
                             x.raw_data(), y->raw_data());
    });
  }
};
const std::vector<DataType>& CudaCastTypes() {
  static const auto* types = new std::vector<DataType>{DT_FLOAT, DT_DOUBLE, DT_INT64, DT_BOOL};
  return *types;
}
REGISTER_KERNEL_BUILDER(Name("Cast")
                            .Device(DEVICE_GPU)
                            .Platform("CUDA")
                            .TypeConstraint("SrcT", CudaCastTypes())
                            .TypeConstraint("DstT", CudaCastTypes()),
                        CastOp<CudaCast>);
#endif  // MINITF_WITH_CUDA

}  // namespace
}  // namespace minitf
