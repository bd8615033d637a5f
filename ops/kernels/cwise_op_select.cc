// Kernels: Select and SelectV2 on CPU for float, double, int32, int64 and
// bool, and on CUDA GPUs for float, double, int64 and bool
// (cwise_op_select_gpu.cu): output = condition ? t : e, element by element.
// Every device checks the shapes alike; the CPU evaluates with its fast
// paths, a CUDA GPU walks the output with each operand's strides.
//
// Select (TensorFlow's v1 semantics) takes a condition of t's shape, a
// scalar condition (choosing all of t or all of e), or a condition vector
// as long as t's first dimension (choosing whole rows); t and e have one
// shape. SelectV2 broadcasts all three inputs NumPy-style.
#include <algorithm>
#include <cstdint>
#include <type_traits>
#include <vector>

#include "absl/strings/str_cat.h"
#include "ops/kernels/cpu_elementwise_loops.h"
#include "ops/util/bcast.h"
#include "runtime/kernel_registry.h"
#include "runtime/node_def_util.h"
#include "runtime/op_requires.h"

#ifdef MINITF_WITH_CUDA
#include "ops/kernels/cuda/cuda_kernel_helpers.h"
#include "ops/kernels/cwise_op_select_gpu.h"
#endif

namespace minitf {
namespace {

// How a device walks the output: its dimensions and each operand's element
// strides (0 along the dimensions it is stretched over).
struct SelectWalk {
  std::vector<int64_t> dims, cond_strides, t_strides, e_strides;
};

// The CPU evaluates in the kernels themselves.
struct CpuSelect {};

class SelectOpBase : public OpKernel {
 public:
  explicit SelectOpBase(OpKernelConstruction* ctx) : OpKernel(ctx) {}

 protected:
  absl::Status Error(const std::string& message) const {
    return AttachNodeName(absl::InvalidArgumentError(message), def());
  }
};

template <typename T, typename Device = CpuSelect>
class SelectOp : public SelectOpBase {
 public:
  using SelectOpBase::SelectOpBase;

  void Compute(OpKernelContext* ctx) override {
    const Tensor& cond = ctx->input(0);
    const Tensor& t = ctx->input(1);
    const Tensor& e = ctx->input(2);
    OP_REQUIRES(ctx, t.shape() == e.shape(),
                Error(absl::StrCat("'then' and 'else' must have the same size. but received: ",
                                   t.shape().DebugString(), " vs. ", e.shape().DebugString())));
    const bool rows = cond.dims() == 1 && t.dims() > 1;
    if (rows) {
      OP_REQUIRES(ctx, cond.NumElements() == t.dim_size(0),
                  Error(absl::StrCat("Number of batches of 'then' must match size of 'cond', ",
                                     "but saw: ", t.dim_size(0), " vs. ", cond.NumElements())));
    } else if (cond.dims() != 0) {
      OP_REQUIRES(ctx, cond.shape() == t.shape(),
                  Error(absl::StrCat("'condition' must be a scalar, a vector as long as the ",
                                     "first dimension of 'then', or of the shape of 'then', ",
                                     "but received: ", cond.shape().DebugString(), " vs. ",
                                     t.shape().DebugString())));
    }
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->forward_input_or_allocate_output({1, 2}, 0, t.shape(), &out));
    const int64_t n = t.NumElements();
    if (n == 0) return;
    if constexpr (!std::is_same_v<Device, CpuSelect>) {
      SelectWalk walk{{n}, {1}, {1}, {1}};
      if (cond.dims() == 0) {
        walk.cond_strides = {0};
      } else if (rows) {
        const int64_t row_size = n / t.dim_size(0);
        walk = {{t.dim_size(0), row_size}, {1, 0}, {row_size, 1}, {row_size, 1}};
      }
      OP_REQUIRES_OK(ctx, Device::Walk(ctx, walk, cond, t, e, out));
      return;
    }
    const T* tv = t.flat<T>().data();
    const T* ev = e.flat<T>().data();
    T* ov = out->flat<T>().data();
    const bool* cv = cond.flat<bool>().data();
    if (cond.dims() == 0) {
      const T* from = cv[0] ? tv : ev;
      if (from != ov) std::copy(from, from + n, ov);
    } else if (rows) {
      const int64_t row_size = n / t.dim_size(0);
      for (int64_t r = 0; r < t.dim_size(0); ++r) {
        const T* from = (cv[r] ? tv : ev) + r * row_size;
        if (from != ov + r * row_size) std::copy(from, from + row_size, ov + r * row_size);
      }
    } else if constexpr (std::is_same_v<T, float>) {
      // A blend at the machine's vector width (cpu_elementwise_loops.h).
      const functor::ElementwiseLoops& loops = functor::ActiveElementwiseLoops();
      ctx->eigen_cpu_device().parallelFor(
          n, Eigen::TensorOpCost(2 * sizeof(float) + 1, sizeof(float), 1),
          [&](Eigen::Index begin, Eigen::Index end) {
            loops.select_float(cv + begin, tv + begin, ev + begin, ov + begin, end - begin);
          });
    } else {
      const auto c = cond.flat<bool>();
      out->flat<T>().device(ctx->eigen_cpu_device()) = c.select(t.flat<T>(), e.flat<T>());
    }
  }
};

// The element strides of `shape` seen at the output's rank: 0 along the
// dimensions it is stretched over (missing or of size 1).
std::vector<int64_t> BroadcastStrides(const TensorShape& shape, const TensorShape& out) {
  const int rank = out.dims();
  const int offset = rank - shape.dims();
  std::vector<int64_t> strides(rank, 0);
  int64_t stride = 1;
  for (int d = rank - 1; d >= offset; --d) {
    const int64_t size = shape.dim_size(d - offset);
    strides[d] = size == 1 ? 0 : stride;
    stride *= size;
  }
  return strides;
}

template <typename T, typename Device = CpuSelect>
class SelectV2Op : public SelectOpBase {
 public:
  using SelectOpBase::SelectOpBase;

  void Compute(OpKernelContext* ctx) override {
    const Tensor& cond = ctx->input(0);
    const Tensor& t = ctx->input(1);
    const Tensor& e = ctx->input(2);
    absl::StatusOr<BCast> te = BCast::Make(t.shape(), e.shape());
    absl::StatusOr<BCast> all = te.ok() ? BCast::Make(cond.shape(), te->output_shape()) : te;
    OP_REQUIRES(ctx, all.ok(),
                Error(absl::StrCat("condition ", cond.shape().DebugString(), ", then ",
                                   t.shape().DebugString(), " and else ", e.shape().DebugString(),
                                   " must be broadcastable")));
    const TensorShape& shape = all->output_shape();
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->forward_input_or_allocate_output({1, 2}, 0, shape, &out));
    const int64_t n = shape.num_elements();
    if (n == 0) return;
    if constexpr (!std::is_same_v<Device, CpuSelect>) {
      const SelectWalk walk{std::vector<int64_t>(shape.dim_sizes().begin(), shape.dim_sizes().end()),
                            BroadcastStrides(cond.shape(), shape),
                            BroadcastStrides(t.shape(), shape), BroadcastStrides(e.shape(), shape)};
      OP_REQUIRES_OK(ctx, Device::Walk(ctx, walk, cond, t, e, out));
      return;
    }
    if (cond.shape() == shape && t.shape() == shape && e.shape() == shape) {
      const auto c = cond.flat<bool>();
      out->flat<T>().device(ctx->eigen_cpu_device()) = c.select(t.flat<T>(), e.flat<T>());
      return;
    }
    // Walk the output in order, keeping each operand's offset in step.
    const std::vector<int64_t> cs = BroadcastStrides(cond.shape(), shape);
    const std::vector<int64_t> ts = BroadcastStrides(t.shape(), shape);
    const std::vector<int64_t> es = BroadcastStrides(e.shape(), shape);
    const bool* cv = cond.flat<bool>().data();
    const T* tv = t.flat<T>().data();
    const T* ev = e.flat<T>().data();
    // The output may share t's or e's buffer only when that operand is not
    // stretched, so each element is read before it is written.
    T* ov = out->flat<T>().data();
    const int rank = shape.dims();
    std::vector<int64_t> index(rank, 0);
    int64_t ci = 0, ti = 0, ei = 0;
    for (int64_t k = 0; k < n; ++k) {
      ov[k] = cv[ci] ? tv[ti] : ev[ei];
      for (int d = rank - 1; d >= 0; --d) {
        ci += cs[d];
        ti += ts[d];
        ei += es[d];
        if (++index[d] < shape.dim_size(d)) break;
        ci -= cs[d] * index[d];
        ti -= ts[d] * index[d];
        ei -= es[d] * index[d];
        index[d] = 0;
      }
    }
  }
};

#define MINITF_REGISTER_SELECT_(T)                                                               \
  REGISTER_KERNEL_BUILDER(Name("Select").Device(DEVICE_CPU).TypeConstraint<T>("T"), SelectOp<T>); \
  REGISTER_KERNEL_BUILDER(Name("SelectV2").Device(DEVICE_CPU).TypeConstraint<T>("T"), SelectV2Op<T>)
MINITF_REGISTER_SELECT_(float);
MINITF_REGISTER_SELECT_(double);
MINITF_REGISTER_SELECT_(int32_t);
MINITF_REGISTER_SELECT_(int64_t);
MINITF_REGISTER_SELECT_(bool);
#undef MINITF_REGISTER_SELECT_

#ifdef MINITF_WITH_CUDA
struct CudaSelect {
  static absl::Status Walk(OpKernelContext* ctx, const SelectWalk& walk, const Tensor& cond,
                           const Tensor& t, const Tensor& e, Tensor* out) {
    const int rank = static_cast<int>(walk.dims.size());
    if (rank > gpu::kMaxSelectRank) {
      return AttachNodeName(
          absl::UnimplementedError(absl::StrCat("the CUDA Select walks at most ",
                                                gpu::kMaxSelectRank, " dimensions, not ", rank)),
          ctx->op_kernel().def());
    }
    gpu::SelectWalkParams p;
    p.rank = rank;
    for (int d = 0; d < rank; ++d) {
      p.dims[d] = walk.dims[d];
      p.cond_strides[d] = walk.cond_strides[d];
      p.t_strides[d] = walk.t_strides[d];
      p.e_strides[d] = walk.e_strides[d];
      p.count *= walk.dims[d];
    }
    return LaunchOnComputeStream(ctx, "Select", [&](cudaStream_t stream) {
      return gpu::LaunchSelect(stream, DataTypeSize(t.dtype()), p, cond.data<bool>(), t.raw_data(),
                               e.raw_data(), out->raw_data());
    });
  }
};

#define MINITF_REGISTER_CUDA_SELECT_(T)                                                   \
  REGISTER_KERNEL_BUILDER(                                                                \
      Name("Select").Device(DEVICE_GPU).Platform("CUDA").TypeConstraint<T>("T"),          \
      SelectOp<T, CudaSelect>);                                                           \
  REGISTER_KERNEL_BUILDER(                                                                \
      Name("SelectV2").Device(DEVICE_GPU).Platform("CUDA").TypeConstraint<T>("T"),        \
      SelectV2Op<T, CudaSelect>)
MINITF_REGISTER_CUDA_SELECT_(float);
MINITF_REGISTER_CUDA_SELECT_(double);
MINITF_REGISTER_CUDA_SELECT_(int64_t);
MINITF_REGISTER_CUDA_SELECT_(bool);
#undef MINITF_REGISTER_CUDA_SELECT_
#endif  // MINITF_WITH_CUDA

}  // namespace
}  // namespace minitf
