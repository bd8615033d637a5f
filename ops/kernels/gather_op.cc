// Kernel: GatherV2 on CPU (SimGPU twins wrap it) and on CUDA GPUs
// (gather_op_gpu.cu); `axis` is read on the host. With b = batch_dims,
// params is viewed as [batch, outer, limit, inner] (batch: dims [0, b);
// outer: [b, axis); limit: the axis; inner: the rest) and indices as
// [batch, n]; the output is [batch, outer, n, inner] with
// out[i, o, j, :] = params[i, o, indices[i, j], :].
//
// GatherV2Op<Device> checks the inputs, the indices included (a bad index
// fails the node on every device; TensorFlow's GPU kernel writes zeros
// instead), and allocates the output; a device supplies
//   FindBadIndex, by inheriting HostIndexCheck or CudaIndexCheck;
//   static absl::Status Gather(OpKernelContext*, const GatherShape&, const Tensor& params,
//                              const Tensor& indices, Tensor* out);
#include <cstring>
#include <optional>
#include <vector>

#include "absl/strings/str_cat.h"
#include "ops/kernels/index_checks.h"
#include "ops/util/index_values.h"
#include "runtime/kernel_registry.h"
#include "runtime/op_requires.h"

#ifdef MINITF_WITH_CUDA
#include "ops/kernels/cuda/cuda_indices.h"
#include "ops/kernels/cuda/cuda_kernel_helpers.h"
#include "ops/kernels/gather_op_gpu.h"
#include "platform/status_macros.h"
#endif

namespace minitf {
namespace {

struct GatherShape {
  int64_t batch = 1;
  int64_t outer = 1;
  int64_t limit = 0;
  int64_t inner = 1;
  int64_t n = 1;  // indices per batch
};

template <typename Device>
class GatherV2Op : public OpKernel {
 public:
  explicit GatherV2Op(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("batch_dims", &batch_dims_));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& params = ctx->input(0);
    const Tensor& indices = ctx->input(1);
    absl::StatusOr<int64_t> axis_value = IndexScalar(ctx->input(2), "axis");
    OP_REQUIRES(ctx, axis_value.ok(), AttachNodeName(axis_value.status(), def()));
    OP_REQUIRES(ctx, params.dims() >= 1, Error("params must be at least 1 dimensional"));
    absl::StatusOr<int> axis = CanonicalAxis(*axis_value, params.dims(), "axis");
    OP_REQUIRES(ctx, axis.ok(), AttachNodeName(axis.status(), def()));
    int64_t b = batch_dims_;
    OP_REQUIRES(ctx, b >= -indices.dims() && b <= indices.dims(),
                Error(absl::StrCat("Expected batch_dims in the range [", -indices.dims(), ", ",
                                   indices.dims(), "], but got ", batch_dims_)));
    if (b < 0) b += indices.dims();
    OP_REQUIRES(ctx, b <= *axis,
                Error(absl::StrCat("batch_dims (", b, ") must be less than or equal to axis (",
                                   *axis, ").")));
    int64_t batch = 1, outer = 1, inner = 1, n = 1;
    for (int d = 0; d < b; ++d) {
      OP_REQUIRES(ctx, params.dim_size(d) == indices.dim_size(d),
                  Error(absl::StrCat("params.shape[", d, "]: ", params.dim_size(d),
                                     " should be equal to indices.shape[", d,
                                     "]: ", indices.dim_size(d))));
      batch *= params.dim_size(d);
    }
    for (int d = static_cast<int>(b); d < *axis; ++d) outer *= params.dim_size(d);
    for (int d = *axis + 1; d < params.dims(); ++d) inner *= params.dim_size(d);
    for (int d = static_cast<int>(b); d < indices.dims(); ++d) n *= indices.dim_size(d);
    const int64_t limit = params.dim_size(*axis);

    TensorShape out_shape;
    for (int d = 0; d < *axis; ++d) out_shape.AddDim(params.dim_size(d));
    for (int d = static_cast<int>(b); d < indices.dims(); ++d) out_shape.AddDim(indices.dim_size(d));
    for (int d = *axis + 1; d < params.dims(); ++d) out_shape.AddDim(params.dim_size(d));

    absl::StatusOr<std::optional<BadIndex>> bad = Device::FindBadIndex(ctx, 1, 0, limit);
    OP_REQUIRES(ctx, bad.ok(), bad.status());
    OP_REQUIRES(ctx, !bad->has_value(),
                Error(absl::StrCat("indices[", (*bad)->position, "] = ", (*bad)->value,
                                   " is not in [0, ", limit, ")")));
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, out_shape, &out));
    if (out->NumElements() == 0) return;
    OP_REQUIRES_OK(
        ctx, Device::Gather(ctx, GatherShape{batch, outer, limit, inner, n}, params, indices, out));
  }

 private:
  absl::Status Error(absl::string_view message) const {
    return AttachNodeName(absl::InvalidArgumentError(message), def());
  }
  int64_t batch_dims_ = 0;
};

// Each row one memcpy.
struct CpuGather : HostIndexCheck {
  static absl::Status Gather(OpKernelContext*, const GatherShape& s, const Tensor& params,
                             const Tensor& indices, Tensor* out) {
    absl::StatusOr<std::vector<int64_t>> ids = IndexValues(indices, "indices");
    if (!ids.ok()) return ids.status();
    const int64_t row_bytes = s.inner * static_cast<int64_t>(DataTypeSize(params.dtype()));
    const auto* src = static_cast<const char*>(params.raw_data());
    auto* dst = static_cast<char*>(out->raw_data());
    for (int64_t i = 0; i < s.batch; ++i) {
      for (int64_t o = 0; o < s.outer; ++o) {
        const char* block = src + ((i * s.outer + o) * s.limit) * row_bytes;
        for (int64_t j = 0; j < s.n; ++j) {
          std::memcpy(dst, block + (*ids)[i * s.n + j] * row_bytes, static_cast<size_t>(row_bytes));
          dst += row_bytes;
        }
      }
    }
    return absl::OkStatus();
  }
};

REGISTER_KERNEL_BUILDER(Name("GatherV2")
                            .Device(DEVICE_CPU)
                            .TypeConstraint("Tparams", AllDataTypes())
                            .HostMemory("axis"),
                        GatherV2Op<CpuGather>);

#ifdef MINITF_WITH_CUDA
struct CudaGather : CudaIndexCheck {
  static absl::Status Gather(OpKernelContext* ctx, const GatherShape& s, const Tensor& params,
                             const Tensor&, Tensor* out) {
    MINITF_ASSIGN_OR_RETURN(Tensor indices, IndicesOnDevice(ctx, 1));
    const gpu::GatherParams p{s.batch, s.outer, s.limit, s.inner, s.n};
    return LaunchOnComputeStream(ctx, "Gather", [&](cudaStream_t stream) {
      return gpu::LaunchGather(stream, DataTypeSize(params.dtype()), p, params.raw_data(),
                               indices.raw_data(), indices.dtype() == DT_INT64, out->raw_data());
    });
  }
};

// int32 indices stay in host memory (as every int32 tensor on a GPU:
// memory_types.h), are checked there and copied over.
REGISTER_KERNEL_BUILDER(Name("GatherV2")
                            .Device(DEVICE_GPU)
                            .Platform("CUDA")
                            .TypeConstraint("Tparams", {DT_FLOAT, DT_DOUBLE, DT_INT64, DT_BOOL})
                            .TypeConstraint<int32_t>("Tindices")
                            .HostMemory("indices")
                            .HostMemory("axis"),
                        GatherV2Op<CudaGather>);
REGISTER_KERNEL_BUILDER(Name("GatherV2")
                            .Device(DEVICE_GPU)
                            .Platform("CUDA")
                            .TypeConstraint("Tparams", {DT_FLOAT, DT_DOUBLE, DT_INT64, DT_BOOL})
                            .TypeConstraint<int64_t>("Tindices")
                            .HostMemory("axis"),
                        GatherV2Op<CudaGather>);
#endif  // MINITF_WITH_CUDA

}  // namespace
}  // namespace minitf
