// Kernels: Softmax and LogSoftmax on CPU (float, double; row by row over the
// intra-op pool), and Softmax on CUDA GPUs (float, softmax_ops_gpu.cu), over
// the last dimension.
//
// Each row is shifted by its maximum before exponentiating, so large logits
// do not overflow: softmax(x) = exp(x - max x) / sum(exp(x - max x)) and
// log_softmax(x) = (x - max x) - log(sum(exp(x - max x))). The row sums
// add in SumAccumulator<T> (double for float), on CUDA too.
#include <cmath>

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

// Row by row over the intra-op pool: each row's maximum, its shifted
// exponentials and their sum, then the row scaled (or shifted by the sum's
// log), all while the row is in cache.
template <typename T, bool kLog>
struct CpuSoftmax {
  static absl::Status Launch(OpKernelContext* ctx, const Tensor& logits, int64_t rows,
                             int64_t classes, Tensor* softmax) {
    using Row = Eigen::Array<T, Eigen::Dynamic, 1>;
    using Acc = SumAccumulator<T>;
    const T* in = logits.data<T>();
    T* out = softmax->data<T>();
    // `out` may share `in`'s buffer: each row is read before it is written.
    const auto rows_in = [&](int64_t begin, int64_t end) {
      for (int64_t r = begin; r < end; ++r) {
        const Eigen::Map<const Row> x(in + r * classes, classes);
        Eigen::Map<Row> y(out + r * classes, classes);
        const T max = x.maxCoeff();
        if constexpr (kLog) {
          y = x - max;
          const T log_sum = static_cast<T>(std::log(y.exp().template cast<Acc>().sum()));
          y -= log_sum;
        } else {
          y = (x - max).exp();
          y /= static_cast<T>(y.template cast<Acc>().sum());
        }
      }
    };
    const double bytes = static_cast<double>(classes * sizeof(T));
    ctx->eigen_cpu_device().parallelFor(
        rows, Eigen::TensorOpCost(2 * bytes, bytes, 30.0 * static_cast<double>(classes)), rows_in);
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
