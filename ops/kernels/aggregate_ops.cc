// Kernel: AddN, the elementwise sum of N tensors of one shape, on CPU
// (float, double, int32, int64) and on CUDA GPUs (float: the first two
// inputs added into the output, then each further one added to it, as flat
// element-wise Adds, cwise_ops_gpu.h). The output reuses input 0's buffer
// when nothing else holds it.
#include "absl/strings/str_cat.h"
#include "runtime/kernel_registry.h"
#include "runtime/node_def_util.h"
#include "runtime/op_requires.h"

#ifdef MINITF_WITH_CUDA
#include "ops/kernels/cuda/cuda_kernel_helpers.h"
#include "ops/kernels/cwise_ops_gpu.h"
#endif

namespace minitf {
namespace {

// The skeleton every device shares: every input checked to have input 0's
// shape (with TensorFlow's wording), the sum allocated (in input 0's buffer
// when nothing else holds it), an empty one returned; `Device` supplies only
//   static absl::Status Launch(OpKernelContext*, Tensor* sum);
template <typename Device>
class AddNOp : public OpKernel {
 public:
  explicit AddNOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}

  void Compute(OpKernelContext* ctx) override {
    const Tensor& first = ctx->input(0);
    for (int i = 1; i < ctx->num_inputs(); ++i) {
      OP_REQUIRES(ctx, ctx->input(i).shape() == first.shape(),
                  AttachNodeName(absl::InvalidArgumentError(absl::StrCat(
                                     "Inputs to operation AddN must have the same size and "
                                     "shape.  Input 0: ",
                                     first.shape().DebugString(), " != input ", i, ": ",
                                     ctx->input(i).shape().DebugString())),
                                 def()));
    }
    Tensor* sum = nullptr;
    OP_REQUIRES_OK(ctx, ctx->forward_input_or_allocate_output({0}, 0, first.shape(), &sum));
    if (first.NumElements() == 0) return;
    OP_REQUIRES_OK(ctx, Device::Launch(ctx, sum));
  }
};

template <typename T>
struct CpuAddN {
  static absl::Status Launch(OpKernelContext* ctx, Tensor* sum) {
    const Tensor& first = ctx->input(0);
    auto out = sum->flat<T>();
    const Eigen::ThreadPoolDevice& device = ctx->eigen_cpu_device();
    if (ctx->num_inputs() == 1) {
      out.device(device) = first.flat<T>();
      return absl::OkStatus();
    }
    out.device(device) = first.flat<T>() + ctx->input(1).flat<T>();
    for (int i = 2; i < ctx->num_inputs(); ++i) {
      out.device(device) = out + ctx->input(i).flat<T>();
    }
    return absl::OkStatus();
  }
};

#define MINITF_REGISTER_ADDN_(T)                                                  \
  REGISTER_KERNEL_BUILDER(Name("AddN").Device(DEVICE_CPU).TypeConstraint<T>("T"), \
                          AddNOp<CpuAddN<T>>)
MINITF_REGISTER_ADDN_(float);
MINITF_REGISTER_ADDN_(double);
MINITF_REGISTER_ADDN_(int32_t);
MINITF_REGISTER_ADDN_(int64_t);
#undef MINITF_REGISTER_ADDN_

#ifdef MINITF_WITH_CUDA
struct CudaAddN {
  static absl::Status Launch(OpKernelContext* ctx, Tensor* sum) {
    const Tensor& first = ctx->input(0);
    if (ctx->num_inputs() == 1) {
      if (sum->data<float>() == first.data<float>()) return absl::OkStatus();
      return LaunchOnComputeStream(ctx, "cudaMemcpyAsync", [&](cudaStream_t stream) {
        return cudaMemcpyAsync(sum->data<float>(), first.data<float>(), first.TotalBytes(),
                               cudaMemcpyDeviceToDevice, stream);
      });
    }
    return LaunchOnComputeStream(ctx, "AddN", [&](cudaStream_t stream) {
      const gpu::BroadcastLayout flat = gpu::FlatLayout(first.NumElements());
      const float* partial = first.data<float>();
      for (int i = 1; i < ctx->num_inputs(); ++i) {
        const cudaError_t error =
            gpu::LaunchBinaryOp(stream, gpu::BinaryOpKind::kAdd, flat, partial,
                                ctx->input(i).data<float>(), sum->data<float>());
        if (error != cudaSuccess) return error;
        partial = sum->data<float>();
      }
      return cudaSuccess;
    });
  }
};
REGISTER_KERNEL_BUILDER(
    Name("AddN").Device(DEVICE_GPU).Platform("CUDA").TypeConstraint<float>("T"),
    AddNOp<CudaAddN>);
#endif  // MINITF_WITH_CUDA

}  // namespace
}  // namespace minitf
