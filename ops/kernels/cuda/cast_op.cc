// Kernel: Cast on CUDA GPUs, between any two of float, double, int64 and
// bool (int32 tensors stay in host memory on GPU devices, so they have no
// CUDA kernel). As on the CPU: a cast to the same type forwards the input,
// floating to integer truncates toward zero, anything to bool is x != 0,
// bool to a number is 0 or 1. Out-of-range floating to integer casts are
// undefined on both (CUDA saturates where the CPU need not). The op has no
// Truncate attr here, as on the CPU.
#include <optional>
#include <vector>

#include "absl/strings/str_cat.h"
#include "ops/kernels/cuda/cast_op_gpu.h"
#include "ops/kernels/cuda/cuda_kernel_helpers.h"
#include "runtime/kernel_registry.h"
#include "runtime/node_def_util.h"
#include "runtime/op_requires.h"

namespace minitf {
namespace {

using gpu::CastType;

// The element types Cast has CUDA kernels for.
const std::vector<DataType>& CudaCastTypes() {
  static const std::vector<DataType> types = {DT_FLOAT, DT_DOUBLE, DT_INT64, DT_BOOL};
  return types;
}

std::optional<CastType> ToCastType(DataType dtype) {
  switch (dtype) {
    case DT_FLOAT: return CastType::kFloat;
    case DT_DOUBLE: return CastType::kDouble;
    case DT_INT64: return CastType::kInt64;
    case DT_BOOL: return CastType::kBool;
    default: return std::nullopt;
  }
}

class CastOp : public OpKernel {
 public:
  explicit CastOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    DataType src_dtype = DT_INVALID, dst_dtype = DT_INVALID;
    OP_REQUIRES_OK(ctx, ctx->GetAttr("SrcT", &src_dtype));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("DstT", &dst_dtype));
    const std::optional<CastType> src = ToCastType(src_dtype);
    const std::optional<CastType> dst = ToCastType(dst_dtype);
    OP_REQUIRES(ctx, src.has_value() && dst.has_value(),
                AttachNodeName(absl::UnimplementedError(absl::StrCat(
                                   "no CUDA cast from ", DataTypeString(src_dtype), " to ",
                                   DataTypeString(dst_dtype))),
                               def()));
    src_ = *src;
    dst_ = *dst;
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& x = ctx->input(0);
    if (src_ == dst_) {
      ctx->set_output(0, x);
      return;
    }
    absl::StatusOr<se::Stream*> stream = ComputeStream(ctx);
    OP_REQUIRES_OK(ctx, stream.status());
    const se::cuda::ScopedKernelTiming timing(*stream);
    Tensor* y = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, x.shape(), &y));
    OP_REQUIRES_OK(ctx, LaunchStatus(gpu::LaunchCast(CudaStreamOf(*stream), src_, dst_,
                                                     x.NumElements(), x.raw_data(),
                                                     y->raw_data()),
                                     "Cast", *this));
  }

 private:
  CastType src_ = CastType::kFloat;
  CastType dst_ = CastType::kFloat;
};

REGISTER_KERNEL_BUILDER(Name("Cast")
                            .Device(DEVICE_GPU)
                            .Platform("CUDA")
                            .TypeConstraint("SrcT", CudaCastTypes())
                            .TypeConstraint("DstT", CudaCastTypes()),
                        CastOp);

}  // namespace
}  // namespace minitf
