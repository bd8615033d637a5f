// Kernels: Transpose on the CPU, for every dtype, and on CUDA GPUs, for
// float, double, int64 and bool (int32 tensors stay in host memory on GPU
// devices, so int32 has no CUDA kernel: it used to have one, which wrote
// to those host buffers from the device); the perm is int32 or int64, in
// host memory. InvertPermutation (which Transpose's gradient emits; on CUDA
// GPUs the CPU kernel, on host memory) is at the end.
//
// Every device shares TransposeOp: the perm is checked by PlanTranspose,
// with the same errors; a perm that keeps every dimension in place (rank 0
// and 1 always do) returns x itself, sharing its buffer; an empty x gets an
// empty output. Only moving the elements differs. The CPU shuffles with
// Eigen on the intra-op pool; the shuffle moves elements without looking
// at them, so it runs on unsigned integers of the element's size: one
// instantiation per size (1, 4, 8 bytes) and rank (2..8) serves every
// dtype. The CUDA kernel reduces the transpose to the dimensions that move
// (transpose_layout.h): when only dimensions of size 1 move, the output is
// x's buffer under the new shape; otherwise transpose_op_gpu.cu writes it
// on the compute stream.
#include <cstdint>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "ops/util/transpose_perm.h"
#include "platform/logging.h"
#include "runtime/kernel_registry.h"
#include "runtime/node_def_util.h"
#include "runtime/op_requires.h"

#ifdef MINITF_WITH_CUDA
#include "ops/kernels/cuda/cuda_kernel_helpers.h"
#include "ops/kernels/transpose_op_gpu.h"
#endif

namespace minitf {
namespace {

// The skeleton every device shares: the perm planned and checked, the
// identity forwarded, an empty output allocated, the output allocated or
// x's buffer shared; `Device` supplies only
//   static constexpr int kMaxRank;  // the highest rank it moves
//   static bool SharesBuffer(const Tensor& x, const TransposePlan& plan);
//   static absl::Status Launch(OpKernelContext*, const Tensor& x,
//                              const TransposePlan& plan, Tensor* y);
// SharesBuffer says whether the output is to be x's buffer under
// plan.out_shape (true only where the elements keep their order); Launch
// moves the elements of x into `y`, allocated with plan.out_shape. Neither
// is called for the identity or an empty x.
template <typename Device>
class TransposeOp : public OpKernel {
 public:
  explicit TransposeOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}

  void Compute(OpKernelContext* ctx) override {
    const Tensor& x = ctx->input(0);
    absl::StatusOr<TransposePlan> plan = PlanTranspose(x, ctx->input(1), Device::kMaxRank);
    OP_REQUIRES(ctx, plan.ok(), AttachNodeName(plan.status(), def()));
    if (plan->identity) {
      ctx->set_output(0, x);
      return;
    }
    Tensor* y = nullptr;
    if (x.NumElements() == 0) {
      OP_REQUIRES_OK(ctx, ctx->allocate_output(0, plan->out_shape, &y));
      return;
    }
    if (Device::SharesBuffer(x, *plan)) {
      Tensor shared;
      MINITF_CHECK(shared.CopyFrom(x, plan->out_shape));
      ctx->set_output(0, shared);
      return;
    }
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, plan->out_shape, &y));
    OP_REQUIRES_OK(ctx, Device::Launch(ctx, x, *plan, y));
  }
};

// out = in with dimension i of out being dimension perm[i] of in, for
// `Word`-sized elements of tensors of rank `kRank`.
template <typename Word, int kRank>
void Shuffle(const Eigen::ThreadPoolDevice& device, const Tensor& in, const std::vector<int>& perm,
             Tensor* out) {
  Eigen::array<Eigen::DenseIndex, kRank> in_dims, out_dims, shuffle;
  for (int d = 0; d < kRank; ++d) {
    in_dims[d] = in.dim_size(d);
    out_dims[d] = out->dim_size(d);
    shuffle[d] = perm[d];
  }
  Eigen::TensorMap<Eigen::Tensor<const Word, kRank, Eigen::RowMajor>> x(
      static_cast<const Word*>(in.raw_data()), in_dims);
  Eigen::TensorMap<Eigen::Tensor<Word, kRank, Eigen::RowMajor>> y(
      static_cast<Word*>(out->raw_data()), out_dims);
  y.device(device) = x.shuffle(shuffle);
}

template <typename Word>
void ShuffleOfRank(const Eigen::ThreadPoolDevice& device, const Tensor& in,
                   const std::vector<int>& perm, Tensor* out) {
  switch (in.dims()) {
    case 2:
      return Shuffle<Word, 2>(device, in, perm, out);
    case 3:
      return Shuffle<Word, 3>(device, in, perm, out);
    case 4:
      return Shuffle<Word, 4>(device, in, perm, out);
    case 5:
      return Shuffle<Word, 5>(device, in, perm, out);
    case 6:
      return Shuffle<Word, 6>(device, in, perm, out);
    case 7:
      return Shuffle<Word, 7>(device, in, perm, out);
    case 8:
      return Shuffle<Word, 8>(device, in, perm, out);
    default:
      MINITF_CHECK(false);  // PlanTranspose checks the rank.
  }
}

struct CpuTranspose {
  static constexpr int kMaxRank = 8;
  // The shuffle writes a new buffer even when only size-1 dimensions move.
  static bool SharesBuffer(const Tensor& x, const TransposePlan& plan) { return false; }
  static absl::Status Launch(OpKernelContext* ctx, const Tensor& x, const TransposePlan& plan,
                             Tensor* y) {
    const Eigen::ThreadPoolDevice& device = ctx->eigen_cpu_device();
    switch (DataTypeSize(x.dtype())) {
      case 1:
        ShuffleOfRank<uint8_t>(device, x, plan.perm, y);
        return absl::OkStatus();
      case 4:
        ShuffleOfRank<uint32_t>(device, x, plan.perm, y);
        return absl::OkStatus();
      case 8:
        ShuffleOfRank<uint64_t>(device, x, plan.perm, y);
        return absl::OkStatus();
      default:
        return AttachNodeName(
            absl::UnimplementedError(absl::StrCat("Transpose of ", DataTypeString(x.dtype()),
                                                  " elements is not implemented")),
            ctx->op_kernel().def());
    }
  }
};

REGISTER_KERNEL_BUILDER(Name("Transpose")
                            .Device(DEVICE_CPU)
                            .TypeConstraint("T", AllDataTypes())
                            .TypeConstraint<int32_t>("Tperm")
                            .HostMemory("perm"),
                        TransposeOp<CpuTranspose>);
REGISTER_KERNEL_BUILDER(Name("Transpose")
                            .Device(DEVICE_CPU)
                            .TypeConstraint("T", AllDataTypes())
                            .TypeConstraint<int64_t>("Tperm")
                            .HostMemory("perm"),
                        TransposeOp<CpuTranspose>);

#ifdef MINITF_WITH_CUDA
gpu::TransposeLayout LayoutOf(const Tensor& x, const TransposePlan& plan) {
  return gpu::MakeTransposeLayout(x.dims(), x.shape().dim_sizes().data(), plan.perm.data());
}

struct CudaTranspose {
  static constexpr int kMaxRank = gpu::kMaxTransposeRank;
  static bool SharesBuffer(const Tensor& x, const TransposePlan& plan) {
    return LayoutOf(x, plan).IsCopy();
  }
  // Every registered dtype's size is one the kernel moves; another would be
  // cudaErrorInvalidValue, reported naming the node.
  static absl::Status Launch(OpKernelContext* ctx, const Tensor& x, const TransposePlan& plan,
                             Tensor* y) {
    return LaunchOnComputeStream(ctx, "Transpose", [&](cudaStream_t stream) {
      return gpu::LaunchTranspose(stream, DataTypeSize(x.dtype()), LayoutOf(x, plan),
                                  x.raw_data(), y->raw_data());
    });
  }
};

// Not int32: see the file comment.
const std::vector<DataType>& CudaTransposeTypes() {
  static const auto* types = new std::vector<DataType>{DT_FLOAT, DT_DOUBLE, DT_INT64, DT_BOOL};
  return *types;
}
REGISTER_KERNEL_BUILDER(Name("Transpose")
                            .Device(DEVICE_GPU)
                            .Platform("CUDA")
                            .TypeConstraint("T", CudaTransposeTypes())
                            .TypeConstraint<int32_t>("Tperm")
                            .HostMemory("perm"),
                        TransposeOp<CudaTranspose>);
REGISTER_KERNEL_BUILDER(Name("Transpose")
                            .Device(DEVICE_GPU)
                            .Platform("CUDA")
                            .TypeConstraint("T", CudaTransposeTypes())
                            .TypeConstraint<int64_t>("Tperm")
                            .HostMemory("perm"),
                        TransposeOp<CudaTranspose>);
#endif  // MINITF_WITH_CUDA

// y[x[i]] = i for a permutation x of [0, n), int32 or int64.
template <typename T>
class InvertPermutationOp : public OpKernel {
 public:
  explicit InvertPermutationOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}

  void Compute(OpKernelContext* ctx) override {
    const Tensor& x = ctx->input(0);
    OP_REQUIRES(ctx, x.dims() == 1,
                Error(absl::StrCat("invert_permutation expects a 1D vector, got shape ",
                                   x.shape().DebugString())));
    const int64_t n = x.NumElements();
    Tensor* y = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, x.shape(), &y));
    auto in = x.vec<T>();
    auto out = y->vec<T>();
    std::vector<bool> seen(n, false);
    for (int64_t i = 0; i < n; ++i) {
      const T d = in(i);
      OP_REQUIRES(ctx, d >= 0 && d < n,
                  Error(absl::StrCat("x[", i, "] = ", d, " is not in [0, ", n, ")")));
      OP_REQUIRES(ctx, !seen[d], Error(absl::StrCat(d, " is duplicated in the input.")));
      seen[d] = true;
      out(d) = static_cast<T>(i);
    }
  }

  bool IsExpensive() override { return false; }

 private:
  absl::Status Error(absl::string_view message) const {
    return AttachNodeName(absl::InvalidArgumentError(message), def());
  }
};

// TensorFlow's GPU kernel keeps both in host memory; so do the SimGPU twins.
REGISTER_KERNEL_BUILDER(Name("InvertPermutation")
                            .Device(DEVICE_CPU)
                            .TypeConstraint<int32_t>("T")
                            .HostMemory("x")
                            .HostMemory("y"),
                        InvertPermutationOp<int32_t>);
REGISTER_KERNEL_BUILDER(Name("InvertPermutation")
                            .Device(DEVICE_CPU)
                            .TypeConstraint<int64_t>("T")
                            .HostMemory("x")
                            .HostMemory("y"),
                        InvertPermutationOp<int64_t>);
#ifdef MINITF_WITH_CUDA
// TensorFlow's GPU kernel: the CPU kernel, its int32 input and output in
// host memory, so a Transpose gradient's permutation never crosses PCIe.
REGISTER_KERNEL_BUILDER(Name("InvertPermutation")
                            .Device(DEVICE_GPU)
                            .Platform("CUDA")
                            .TypeConstraint<int32_t>("T")
                            .HostMemory("x")
                            .HostMemory("y"),
                        InvertPermutationOp<int32_t>);
#endif  // MINITF_WITH_CUDA

}  // namespace
}  // namespace minitf
