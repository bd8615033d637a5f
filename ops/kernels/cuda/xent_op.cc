// Kernel: SparseSoftmaxCrossEntropyWithLogits on CUDA GPUs (float features,
// int32 or int64 labels). The labels are read in host memory, so a label
// out of range fails the node with the CPU kernel's error instead of
// producing NaN; they are then copied to the device on the compute stream.
#include "ops/kernels/cuda/cuda_kernel_helpers.h"
#include "ops/kernels/cuda/softmax_ops_gpu.h"
#include "ops/kernels/softmax_ops_common.h"
#include "runtime/kernel_registry.h"
#include "runtime/node_def_util.h"
#include "runtime/op_requires.h"

namespace minitf {
namespace {

template <typename Label>
class SparseSoftmaxXentOp : public OpKernel {
 public:
  explicit SparseSoftmaxXentOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}

  void Compute(OpKernelContext* ctx) override {
    const Tensor& features = ctx->input(0);
    const Tensor& labels = ctx->input(1);
    OP_REQUIRES_OK(ctx, ValidateSparseXentInputs(features, labels, *this));
    const int64_t batch = features.dim_size(0);
    const int64_t classes = features.dim_size(1);
    absl::StatusOr<se::Stream*> stream = ComputeStream(ctx);
    OP_REQUIRES_OK(ctx, stream.status());
    const se::cuda::ScopedKernelTiming timing(*stream);
    Tensor* loss = nullptr;
    Tensor* backprop = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape({batch}), &loss));
    OP_REQUIRES_OK(ctx, ctx->allocate_output(1, features.shape(), &backprop));
    if (batch == 0) return;

    Tensor device_labels;
    OP_REQUIRES_OK(ctx, ctx->allocate_temp(labels.dtype(), labels.shape(), &device_labels));
    se::DeviceMemoryBase labels_on_device(device_labels.raw_data(), device_labels.TotalBytes());
    OP_REQUIRES_OK(ctx, AttachNodeName((*stream)->Memcpy(&labels_on_device, labels.raw_data(),
                                                         labels.TotalBytes()),
                                       def()));
    // The host labels must outlive the copy: the stream lets go of them once
    // it has passed this point.
    OP_REQUIRES_OK(ctx, AttachNodeName((*stream)->DoHostCallback([labels] {}), def()));
    OP_REQUIRES_OK(ctx, LaunchStatus(gpu::LaunchSparseSoftmaxXent(
                                         CudaStreamOf(*stream), features.data<float>(),
                                         device_labels.data<Label>(), batch, classes,
                                         loss->data<float>(), backprop->data<float>()),
                                     "SparseSoftmaxXent", *this));
  }
};

#define MINITF_REGISTER_CUDA_SPARSE_XENT_(Label)                      \
  REGISTER_KERNEL_BUILDER(Name("SparseSoftmaxCrossEntropyWithLogits") \
                              .Device(DEVICE_GPU)                     \
                              .Platform("CUDA")                       \
                              .TypeConstraint<float>("T")             \
                              .TypeConstraint<Label>("Tlabels")       \
                              .HostMemory("labels"),                  \
                          SparseSoftmaxXentOp<Label>)
MINITF_REGISTER_CUDA_SPARSE_XENT_(int32_t);
MINITF_REGISTER_CUDA_SPARSE_XENT_(int64_t);
#undef MINITF_REGISTER_CUDA_SPARSE_XENT_

}  // namespace
}  // namespace minitf
