// Kernels: Softmax and LogSoftmax on CPU (float, double), and Softmax on
// CUDA GPUs (float, softmax_ops_gpu.cu), over the last dimension.
//
// Each row is shifted by its maximum before exponentiating, so large logits
// do not overflow: softmax(x) = exp(x - max x) / sum(exp(x - max x)) and
// log_softmax(x) = (x - max x) - log(sum(exp(x - max x))). The row sums
// add in SumAccumulator<T> (double for float), on CUDA too.
#include "ops/kernels/softmax_ops_common.h"
#include "ops/kernels/sum_accumulator.h"
#include "runtime/kernel_registry.h"
#include "runtime/op_requires.h"

#ifdef MINITF_WITH_CUDA
#include "ops/kernels/cuda/cuda_kernel_helpers.h"
#include "ops/kernels/softmax_ops_gpu.h"
#endif

namespace minitf {
namespace {

// The skeleton every device shares: logits checked, the output allocated
// (in logits' buffer when nothing else holds it), an empty one returned;
// `Device` supplies only
//   static absl::Status Launch(OpKernelContext*, const Tensor& logits,
//                              int64_t rows, int64_t classes, Tensor* softmax);
// with logits and softmax seen as [rows, classes].
template <typename Device>
class SoftmaxOp : public OpKernel {
 public:
  explicit SoftmaxOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}

  void Compute(OpKernelContext* ctx) override {
    const Tensor& logits = ctx->input(0);
    OP_REQUIRES_OK(ctx, ValidateSoftmaxInput(logits, *this));
    Tensor* softmax = nullptr;
    OP_REQUIRES_OK(ctx, ctx->forward_input_or_allocate_output({0}, 0, logits.shape(), &softmax));
    if (logits.NumElements() == 0) return;
    const int64_t classes = logits.dim_size(logits.dims() - 1);
    OP_REQUIRES_OK(ctx,
                   Device::Launch(ctx, logits, logits.NumElements() / classes, classes, softmax));
  }
};

template <typename T, bool kLog>
struct CpuSoftmax {
  static absl::Status Launch(OpKernelContext* ctx, const Tensor& logits, int64_t rows,
                             int64_t classes, Tensor* softmax) {
    const auto& device = ctx->eigen_cpu_device();
    auto in = logits.shaped<T, 2>({rows, classes});
    auto out = softmax->shaped<T, 2>({rows, classes});

    // Per-row reductions come back as [rows]; seen as [rows, 1] and repeated
    // across the classes they line up with the [rows, classes] input.
    const Eigen::array<Eigen::DenseIndex, 1> along_classes = {1};
    const Eigen::DSizes<Eigen::DenseIndex, 2> rows_by_one(rows, 1);
    const Eigen::DSizes<Eigen::DenseIndex, 2> one_by_classes(1, classes);
    Eigen::Tensor<T, 1, Eigen::RowMajor> row_max(rows);
    row_max.device(device) = in.maximum(along_classes);
    // `out` may share `in`'s buffer: each element is read before it is written.
    using Acc = SumAccumulator<T>;
    Eigen::Tensor<T, 1, Eigen::RowMajor> row_sum(rows);
    if constexpr (kLog) {
      out.device(device) = in - row_max.reshape(rows_by_one).broadcast(one_by_classes);
      row_sum.device(device) =
          out.exp().template cast<Acc>().sum(along_classes).log().template cast<T>();
      out.device(device) = out - row_sum.reshape(rows_by_one).broadcast(one_by_classes);
    } else {
      out.device(device) = (in - row_max.reshape(rows_by_one).broadcast(one_by_classes)).exp();
      row_sum.device(device) = out.template cast<Acc>().sum(along_classes).template cast<T>();
      out.device(device) = out / row_sum.reshape(rows_by_one).broadcast(one_by_classes);
    }
    return absl::OkStatus();
  }
};

#define MINITF_REGISTER_SOFTMAX(T)                                                      \
  REGISTER_KERNEL_BUILDER(Name("Softmax").Device(DEVICE_CPU).TypeConstraint<T>("T"),    \
                          SoftmaxOp<CpuSoftmax<T, false>>);                             \
  REGISTER_KERNEL_BUILDER(Name("LogSoftmax").Device(DEVICE_CPU).TypeConstraint<T>("T"), \
                          SoftmaxOp<CpuSoftmax<T, true>>)
MINITF_REGISTER_SOFTMAX(float);
MINITF_REGISTER_SOFTMAX(double);
#undef MINITF_REGISTER_SOFTMAX

#ifdef MINITF_WITH_CUDA
struct CudaSoftmax {
  static absl::Status Launch(OpKernelContext* ctx, const Tensor& logits, int64_t rows,
                             int64_t classes, Tensor* softmax) {
    return LaunchOnComputeStream(ctx, "Softmax", [&](cudaStream_t stream) {
      return gpu::LaunchSoftmax(stream, logits.data<float>(), rows, classes,
                                softmax->data<float>());
    });
  }
};
REGISTER_KERNEL_BUILDER(
    Name("Softmax").Device(DEVICE_GPU).Platform("CUDA").TypeConstraint<float>("T"),
    SoftmaxOp<CudaSoftmax>);
#endif  // MINITF_WITH_CUDA

}  // namespace
}  // namespace minitf
