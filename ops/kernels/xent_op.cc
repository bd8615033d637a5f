// Kernel: SparseSoftmaxCrossEntropyWithLogits on CPU.
//
// For row b with label y:  loss[b] = log(sum_j exp(f[b,j])) - f[b,y]
//                          backprop[b,:] = softmax(f[b,:]) - onehot(y)
// computed with each row shifted by its maximum so nothing overflows.
#include "ops/kernels/softmax_ops_common.h"
#include "runtime/kernel_registry.h"
#include "runtime/op_requires.h"

namespace minitf {
namespace {

template <typename T, typename Label>
class SparseSoftmaxXentOp : public OpKernel {
 public:
  explicit SparseSoftmaxXentOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}

  void Compute(OpKernelContext* ctx) override {
    const Tensor& features = ctx->input(0);
    const Tensor& labels = ctx->input(1);
    OP_REQUIRES_OK(ctx, ValidateSparseXentInputs(features, labels, *this));
    const int64_t batch = features.dim_size(0);
    const int64_t classes = features.dim_size(1);
    auto label = labels.vec<Label>();
    Tensor* loss = nullptr;
    Tensor* backprop = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape({batch}), &loss));
    OP_REQUIRES_OK(ctx, ctx->allocate_output(1, features.shape(), &backprop));
    if (batch == 0) return;

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
    sum_exp.device(device) = grad.exp().sum(along_classes);
    // loss = log(sum exp(shifted)) - shifted[label], read before grad changes.
    auto l = loss->vec<T>();
    for (int64_t b = 0; b < batch; ++b) {
      l(b) = std::log(sum_exp(b)) - grad(b, static_cast<int64_t>(label(b)));
    }
    grad.device(device) = grad.exp() / sum_exp.reshape(batch_by_one).broadcast(one_by_classes);
    for (int64_t b = 0; b < batch; ++b) grad(b, static_cast<int64_t>(label(b))) -= T(1);
  }
};

#define MINITF_REGISTER_SPARSE_XENT(T, Label)                         \
  REGISTER_KERNEL_BUILDER(Name("SparseSoftmaxCrossEntropyWithLogits") \
                              .Device(DEVICE_CPU)                     \
                              .TypeConstraint<T>("T")                 \
                              .TypeConstraint<Label>("Tlabels"),      \
                          SparseSoftmaxXentOp<T, Label>)
MINITF_REGISTER_SPARSE_XENT(float, int32_t);
MINITF_REGISTER_SPARSE_XENT(float, int64_t);
MINITF_REGISTER_SPARSE_XENT(double, int32_t);
MINITF_REGISTER_SPARSE_XENT(double, int64_t);
#undef MINITF_REGISTER_SPARSE_XENT

}  // namespace
}  // namespace minitf
