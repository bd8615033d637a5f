// Kernels: SoftmaxCrossEntropyWithLogits on CPU (float, double), and
// SparseSoftmaxCrossEntropyWithLogits on CPU (float, double) and on CUDA
// GPUs (float, softmax_ops_gpu.cu), with int32 or int64 labels.
//
// Dense labels l (features and labels broadcast to [batch, classes]):
//                          loss[b] = sum_j l[b,j] * (log(sum_k exp(f[b,k])) - f[b,j])
//                          backprop[b,:] = softmax(f[b,:]) - l[b,:]
// Sparse, for row b with label y:  loss[b] = log(sum_j exp(f[b,j])) - f[b,y]
//                          backprop[b,:] = softmax(f[b,:]) - onehot(y)
// computed with each row shifted by its maximum so nothing overflows, the
// row sums added in SumAccumulator<T> (double for float; on CUDA too). The
// sparse labels are read in host memory on every device, so a label out of
// range fails the node (on CUDA too, instead of producing NaN); a CUDA
// kernel then copies them to the device on its compute stream.
#include "ops/kernels/softmax_ops_common.h"
#include "ops/kernels/sum_accumulator.h"
#include "platform/status_macros.h"
#include "runtime/kernel_registry.h"
#include "runtime/node_def_util.h"
#include "runtime/op_requires.h"

#ifdef MINITF_WITH_CUDA
#include "ops/kernels/cuda/cuda_kernel_helpers.h"
#include "ops/kernels/softmax_ops_gpu.h"
#endif

namespace minitf {
namespace {

// `in` (of rank at most 2) broadcast to [rows, cols]: itself when it has
// that shape, else a temporary holding the repeated values.
template <typename T>
absl::Status BroadcastToMatrix(OpKernelContext* ctx, const Tensor& in, int64_t rows,
                               int64_t cols, Tensor* out) {
  if (in.dims() == 2 && in.dim_size(0) == rows && in.dim_size(1) == cols) {
    *out = in;
    return absl::OkStatus();
  }
  MINITF_RETURN_IF_ERROR(
      ctx->allocate_temp(DataTypeToEnum<T>::value, TensorShape({rows, cols}), out));
  const int64_t in_cols = in.dims() >= 1 ? in.dim_size(in.dims() - 1) : 1;
  const int64_t in_rows = in.dims() == 2 ? in.dim_size(0) : 1;
  const int64_t row_stride = in_rows == 1 ? 0 : in_cols;
  const int64_t col_stride = in_cols == 1 ? 0 : 1;
  const T* from = in.flat<T>().data();
  T* to = out->flat<T>().data();
  for (int64_t r = 0; r < rows; ++r) {
    for (int64_t c = 0; c < cols; ++c) to[r * cols + c] = from[r * row_stride + c * col_stride];
  }
  return absl::OkStatus();
}

template <typename T>
class SoftmaxXentOp : public OpKernel {
 public:
  explicit SoftmaxXentOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}

  void Compute(OpKernelContext* ctx) override {
    absl::StatusOr<TensorShape> shape = XentShape(ctx->input(0), ctx->input(1), *this);
    OP_REQUIRES_OK(ctx, shape.status());
    const int64_t batch = shape->dim_size(0);
    const int64_t classes = shape->dim_size(1);
    Tensor features, labels;
    OP_REQUIRES_OK(ctx, BroadcastToMatrix<T>(ctx, ctx->input(0), batch, classes, &features));
    OP_REQUIRES_OK(ctx, BroadcastToMatrix<T>(ctx, ctx->input(1), batch, classes, &labels));
    Tensor* loss = nullptr;
    Tensor* backprop = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape({batch}), &loss));
    OP_REQUIRES_OK(ctx, ctx->allocate_output(1, *shape, &backprop));
    if (shape->num_elements() == 0) {
      // No classes: every loss is an empty sum.
      if (batch > 0) loss->vec<T>().setZero();
      return;
    }

    const auto& device = ctx->eigen_cpu_device();
    const auto f = features.matrix<T>();
    const auto l = labels.matrix<T>();
    auto grad = backprop->matrix<T>();
    const Eigen::array<Eigen::DenseIndex, 1> along_classes = {1};
    const Eigen::DSizes<Eigen::DenseIndex, 2> batch_by_one(batch, 1);
    const Eigen::DSizes<Eigen::DenseIndex, 2> one_by_classes(1, classes);
    // shifted = f - row max, kept in `grad` until it becomes the softmax.
    Eigen::Tensor<T, 1, Eigen::RowMajor> row_max(batch);
    row_max.device(device) = f.maximum(along_classes);
    grad.device(device) = f - row_max.reshape(batch_by_one).broadcast(one_by_classes);
    using Acc = SumAccumulator<T>;
    Eigen::Tensor<T, 1, Eigen::RowMajor> sum_exp(batch);
    sum_exp.device(device) = grad.exp().template cast<Acc>().sum(along_classes).template cast<T>();
    loss->vec<T>().device(device) =
        (l * (sum_exp.log().reshape(batch_by_one).broadcast(one_by_classes) - grad))
            .template cast<Acc>()
            .sum(along_classes)
            .template cast<T>();
    grad.device(device) =
        grad.exp() / sum_exp.reshape(batch_by_one).broadcast(one_by_classes) - l;
  }
};

// The skeleton every device shares for SparseSoftmaxCrossEntropyWithLogits:
// features and the (host) labels checked, loss and backprop allocated, an
// empty batch returned; `Device` supplies only
//   static absl::Status Launch(OpKernelContext*, const Tensor& features,
//                              const Tensor& labels, Tensor* loss, Tensor* backprop);
template <typename Device>
class SparseSoftmaxXentOp : public OpKernel {
 public:
  explicit SparseSoftmaxXentOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}

  void Compute(OpKernelContext* ctx) override {
    const Tensor& features = ctx->input(0);
    const Tensor& labels = ctx->input(1);
    OP_REQUIRES_OK(ctx, ValidateSparseXentInputs(features, labels, *this));
    const int64_t batch = features.dim_size(0);
    Tensor* loss = nullptr;
    Tensor* backprop = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape({batch}), &loss));
    OP_REQUIRES_OK(ctx, ctx->allocate_output(1, features.shape(), &backprop));
    if (batch == 0) return;
    OP_REQUIRES_OK(ctx, Device::Launch(ctx, features, labels, loss, backprop));
  }
};

template <typename T, typename Label>
struct CpuSparseXent {
  static absl::Status Launch(OpKernelContext* ctx, const Tensor& features, const Tensor& labels,
                             Tensor* loss, Tensor* backprop) {
    const int64_t batch = features.dim_size(0);
    const int64_t classes = features.dim_size(1);
    auto label = labels.vec<Label>();
    const auto& device = ctx->eigen_cpu_device();
    auto f = features.matrix<T>();
    auto grad = backprop->matrix<T>();
    const Eigen::array<Eigen::DenseIndex, 1> along_classes = {1};
    const Eigen::DSizes<Eigen::DenseIndex, 2> batch_by_one(batch, 1);
    const Eigen::DSizes<Eigen::DenseIndex, 2> one_by_classes(1, classes);
    // shifted = f - row max, kept in `grad` until it becomes the softmax.
    Eigen::Tensor<T, 1, Eigen::RowMajor> row_max(batch);
    row_max.device(device) = f.maximum(along_classes);
    grad.device(device) = f - row_max.reshape(batch_by_one).broadcast(one_by_classes);
    Eigen::Tensor<T, 1, Eigen::RowMajor> sum_exp(batch);
    sum_exp.device(device) =
        grad.exp().template cast<SumAccumulator<T>>().sum(along_classes).template cast<T>();
    // loss = log(sum exp(shifted)) - shifted[label], read before grad changes.
    auto l = loss->vec<T>();
    for (int64_t b = 0; b < batch; ++b) {
      l(b) = std::log(sum_exp(b)) - grad(b, static_cast<int64_t>(label(b)));
    }
    grad.device(device) = grad.exp() / sum_exp.reshape(batch_by_one).broadcast(one_by_classes);
    for (int64_t b = 0; b < batch; ++b) grad(b, static_cast<int64_t>(label(b))) -= T(1);
    return absl::OkStatus();
  }
};

#define MINITF_REGISTER_XENT(T)                                                        \
  REGISTER_KERNEL_BUILDER(                                                             \
      Name("SoftmaxCrossEntropyWithLogits").Device(DEVICE_CPU).TypeConstraint<T>("T"), \
      SoftmaxXentOp<T>)
MINITF_REGISTER_XENT(float);
MINITF_REGISTER_XENT(double);
#undef MINITF_REGISTER_XENT

#define MINITF_REGISTER_SPARSE_XENT(T, Label)                         \
  REGISTER_KERNEL_BUILDER(Name("SparseSoftmaxCrossEntropyWithLogits") \
                              .Device(DEVICE_CPU)                     \
                              .TypeConstraint<T>("T")                 \
                              .TypeConstraint<Label>("Tlabels"),      \
                          SparseSoftmaxXentOp<CpuSparseXent<T, Label>>)
MINITF_REGISTER_SPARSE_XENT(float, int32_t);
MINITF_REGISTER_SPARSE_XENT(float, int64_t);
MINITF_REGISTER_SPARSE_XENT(double, int32_t);
MINITF_REGISTER_SPARSE_XENT(double, int64_t);
#undef MINITF_REGISTER_SPARSE_XENT

#ifdef MINITF_WITH_CUDA
template <typename Label>
struct CudaSparseXent {
  static absl::Status Launch(OpKernelContext* ctx, const Tensor& features, const Tensor& labels,
                             Tensor* loss, Tensor* backprop) {
    MINITF_ASSIGN_OR_RETURN(se::Stream* stream, ComputeStream(ctx));
    // One timed scope over the labels' copy and the kernel.
    const se::cuda::ScopedKernelTiming timing(stream);
    const NodeDef& def = ctx->op_kernel().def();
    Tensor device_labels;
    MINITF_RETURN_IF_ERROR(ctx->allocate_temp(labels.dtype(), labels.shape(), &device_labels));
    se::DeviceMemoryBase labels_on_device(device_labels.raw_data(), device_labels.TotalBytes());
    MINITF_RETURN_IF_ERROR(
        AttachNodeName(stream->Memcpy(&labels_on_device, labels.raw_data(), labels.TotalBytes()),
                       def));
    // The host labels must outlive the copy: the stream lets go of them once
    // it has passed this point.
    MINITF_RETURN_IF_ERROR(AttachNodeName(stream->DoHostCallback([labels] {}), def));
    return LaunchStatus(gpu::LaunchSparseSoftmaxXent(
                            CudaStreamOf(stream), features.data<float>(),
                            device_labels.data<Label>(), features.dim_size(0),
                            features.dim_size(1), loss->data<float>(), backprop->data<float>()),
                        "SparseSoftmaxXent", ctx->op_kernel());
  }
};

#define MINITF_REGISTER_CUDA_SPARSE_XENT_(Label)                      \
  REGISTER_KERNEL_BUILDER(Name("SparseSoftmaxCrossEntropyWithLogits") \
                              .Device(DEVICE_GPU)                     \
                              .Platform("CUDA")                       \
                              .TypeConstraint<float>("T")             \
                              .TypeConstraint<Label>("Tlabels")       \
                              .HostMemory("labels"),                  \
                          SparseSoftmaxXentOp<CudaSparseXent<Label>>)
MINITF_REGISTER_CUDA_SPARSE_XENT_(int32_t);
MINITF_REGISTER_CUDA_SPARSE_XENT_(int64_t);
#undef MINITF_REGISTER_CUDA_SPARSE_XENT_
#endif  // MINITF_WITH_CUDA

}  // namespace
}  // namespace minitf
