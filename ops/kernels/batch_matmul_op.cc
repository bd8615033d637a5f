// Kernels: BatchMatMul (TensorFlow's v1 op: equal batch dimensions, no
// broadcasting) and BatchMatMulV2 (batch dimensions broadcast), on the CPU
// (float, double, int32, int64) and on CUDA GPUs (float: the executor's BLAS
// plugin, cuBLAS). Every device reads adj_x and adj_y, checks the operands
// the same way (ops/util/batch_matmul_geometry.h), allocates the output,
// skips an empty one and zeroes one with k = 0; only the products differ.
//
// x and y are viewed as stacks of matrices [B_x, rows, cols] and
// [B_y, rows, cols]; output matrix b multiplies the x and y matrices the
// geometry names (b itself, without broadcasting). On the CPU, with at least
// as many products as intra-op threads, the products are shared out over
// the pool, each one a matrix product on one thread; with fewer (one large
// product, say) they run one after the other, each spread over the whole
// pool. float and double products are OpenBLAS's (cpu_gemm.h), the others
// Eigen's. _MklFusedBatchMatMulV2 (the remapper's BatchMatMulV2 + Mul +
// AddV2, CPU only) scales each product and adds its addend as it is made.
// On CUDA, equal batch dimensions make all the products one
// cublasSgemmStridedBatched call; broadcast ones
// take one call per product. As in MatMul, BLAS is column-major and tensors
// row-major, so each call computes product^T = op(y)^T op(x)^T: the operands
// swap places and keep their adjoint flags (the adjoint is the transpose for
// float).
#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

#include "Eigen/Core"
#include "absl/container/inlined_vector.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "ops/kernels/cpu_gemm.h"
#include "ops/util/batch_matmul_geometry.h"
#include "runtime/kernel_registry.h"
#include "runtime/node_def_util.h"
#include "runtime/op_requires.h"

#ifdef MINITF_WITH_CUDA
#include "ops/kernels/cuda/cuda_kernel_helpers.h"
#include "platform/status_macros.h"
#include "stream/blas.h"
#endif

namespace minitf {
namespace {

// What BatchMatMul and BatchMatMulV2 do on every device: adj_x and adj_y
// read once when the kernel is built, the operands checked by
// BatchMatMulGeometryOf or, for BatchMatMulV2, BatchMatMulV2GeometryOf, the
// output allocated; `Device` supplies only
//   static absl::Status SetZero(OpKernelContext*, Tensor* out);
//   static absl::Status Multiply(OpKernelContext*, const BatchMatMulGeometry&, bool adj_x,
//                                bool adj_y, const Tensor& x, const Tensor& y,
//                                Tensor* out);  // REQUIRES: k > 0.
template <typename Device>
class BatchMatMulOp : public OpKernel {
 public:
  explicit BatchMatMulOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("adj_x", &adj_x_));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("adj_y", &adj_y_));
    broadcast_batch_ = ctx->def().op != "BatchMatMul";
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& x = ctx->input(0);
    const Tensor& y = ctx->input(1);
    absl::StatusOr<BatchMatMulGeometry> geometry = Geometry(x, y);
    OP_REQUIRES_OK(ctx, geometry.status());
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, geometry->output_shape, &out));
    if (out->NumElements() == 0) return;
    if (geometry->k == 0) {
      OP_REQUIRES_OK(ctx, Device::SetZero(ctx, out));
      return;
    }
    OP_REQUIRES_OK(ctx, Device::Multiply(ctx, *geometry, adj_x_, adj_y_, x, y, out));
  }

 protected:
  bool adj_x() const { return adj_x_; }
  bool adj_y() const { return adj_y_; }

  // BatchMatMulGeometryOf's (BatchMatMulV2GeometryOf's for BatchMatMulV2
  // and the fused op), its errors naming the node.
  absl::StatusOr<BatchMatMulGeometry> Geometry(const Tensor& x, const Tensor& y) const {
    absl::StatusOr<BatchMatMulGeometry> g =
        broadcast_batch_ ? BatchMatMulV2GeometryOf(x.shape(), y.shape(), adj_x_, adj_y_)
                         : BatchMatMulGeometryOf(x.shape(), y.shape(), adj_x_, adj_y_);
    if (!g.ok()) return AttachNodeName(g.status(), def());
    return g;
  }

 private:
  // Constant after construction.
  bool adj_x_ = false;
  bool adj_y_ = false;
  bool broadcast_batch_ = false;  // BatchMatMulV2.
};

template <typename T>
using RowMajorMatrix = Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
template <typename T>
using ConstMatrixMap = Eigen::Map<const RowMajorMatrix<T>>;
template <typename T>
using MatrixMap = Eigen::Map<RowMajorMatrix<T>>;

// The products, views of x [B, x_rows, x_cols], y [B, y_rows, y_cols] and
// out [B, m, n] as `g` says.
template <typename T>
struct BatchOperands {
  const T* x;
  const T* y;
  T* out;
  const BatchMatMulGeometry* g;
  bool adj_x, adj_y;
};

// out[b] = op(x[b]) * op(y[b]) on the calling thread. For real types the
// adjoint is the transpose.
template <typename T>
constexpr bool kHasBlas = std::is_same_v<T, float> || std::is_same_v<T, double>;

// out[b] = op(x[b]) * op(y[b]) as a BLAS product (cpu_gemm.h).
template <typename T>
functor::GemmArgs<T> BlasProduct(const BatchOperands<T>& p, int64_t b) {
  const BatchMatMulGeometry& g = *p.g;
  return functor::PackedGemm<T>(p.adj_x, p.adj_y, g.m, g.n, g.k,
                                p.x + g.x_index(b) * g.x_rows * g.x_cols,
                                p.y + g.y_index(b) * g.y_rows * g.y_cols, p.out + b * g.m * g.n);
}

template <typename T>
void MultiplyOne(const BatchOperands<T>& p, int64_t b) {
  if constexpr (kHasBlas<T>) {
    functor::Gemm<T>(nullptr, BlasProduct(p, b));
    return;
  }
  const BatchMatMulGeometry& g = *p.g;
  ConstMatrixMap<T> x(p.x + g.x_index(b) * g.x_rows * g.x_cols, g.x_rows, g.x_cols);
  ConstMatrixMap<T> y(p.y + g.y_index(b) * g.y_rows * g.y_cols, g.y_rows, g.y_cols);
  MatrixMap<T> out(p.out + b * g.m * g.n, g.m, g.n);
  if (p.adj_x && p.adj_y) {
    out.noalias() = x.transpose() * y.transpose();
  } else if (p.adj_x) {
    out.noalias() = x.transpose() * y;
  } else if (p.adj_y) {
    out.noalias() = x * y.transpose();
  } else {
    out.noalias() = x * y;
  }
}

// out[b] = op(x[b]) * op(y[b]) as a tensor contraction over `device`.
template <typename T>
void ContractOne(const Eigen::ThreadPoolDevice& device, const BatchOperands<T>& p, int64_t b) {
  if constexpr (kHasBlas<T>) {
    functor::Gemm<T>(&device, BlasProduct(p, b));
    return;
  }
  using ConstMap = Eigen::TensorMap<Eigen::Tensor<const T, 2, Eigen::RowMajor>>;
  const BatchMatMulGeometry& g = *p.g;
  ConstMap x(p.x + g.x_index(b) * g.x_rows * g.x_cols, g.x_rows, g.x_cols);
  ConstMap y(p.y + g.y_index(b) * g.y_rows * g.y_cols, g.y_rows, g.y_cols);
  Eigen::TensorMap<Eigen::Tensor<T, 2, Eigen::RowMajor>> out(p.out + b * g.m * g.n, g.m, g.n);
  const Eigen::array<Eigen::IndexPair<Eigen::DenseIndex>, 1> contract_dims = {
      Eigen::IndexPair<Eigen::DenseIndex>(p.adj_x ? 0 : 1, p.adj_y ? 1 : 0)};
  out.device(device) = x.contract(y, contract_dims);
}

struct NoEpilogue {
  void operator()(int64_t) const {}
};

template <typename T>
struct CpuBatchMatMul {
  static absl::Status SetZero(OpKernelContext* ctx, Tensor* out) {
    auto flat = out->flat<T>();
    flat.device(ctx->eigen_cpu_device()) = flat.constant(T(0));
    return absl::OkStatus();
  }

  // Each product b, then after(b) on the thread that made it, while the
  // product is in its cache.
  template <typename After = NoEpilogue>
  static absl::Status Multiply(OpKernelContext* ctx, const BatchMatMulGeometry& g, bool adj_x,
                               bool adj_y, const Tensor& x, const Tensor& y, Tensor* out,
                               const After& after = {}) {
    const Eigen::ThreadPoolDevice& device = ctx->eigen_cpu_device();
    const BatchOperands<T> p{x.data<T>(), y.data<T>(), out->data<T>(), &g, adj_x, adj_y};
    if (g.batch < device.numThreads()) {
      for (int64_t b = 0; b < g.batch; ++b) {
        ContractOne(device, p, b);
        after(b);
      }
      return absl::OkStatus();
    }
    // Per product: 2mnk arithmetic, its operands read and its output written.
    const int64_t m = g.m, n = g.n, k = g.k;
    const Eigen::TensorOpCost cost(static_cast<double>((m * k + k * n) * sizeof(T)),
                                   static_cast<double>(m * n * sizeof(T)),
                                   2.0 * static_cast<double>(m * n * k));
    device.parallelFor(g.batch, cost, [&p, &after](Eigen::Index first, Eigen::Index last) {
      for (Eigen::Index b = first; b < last; ++b) {
        MultiplyOne(p, b);
        after(b);
      }
    });
    return absl::OkStatus();
  }
};

// What _MklFusedBatchMatMulV2 does to product b: out[b] = out[b] * scale +
// the addend's matrix for b, the addend broadcast to the output's shape
// (a stride of 0 along a dimension it stretches).
class ScaleAndAdd {
 public:
  // InvalidArgument, without the node's name, when `scale` has not one
  // element or more dimensions than `output`, or the addend does not broadcast to `output` (more dimensions,
  // or one that is neither 1 nor the output's).
  static absl::StatusOr<ScaleAndAdd> Make(const TensorShape& output, const Tensor& scale,
                                          const Tensor* addend) {
    if (scale.NumElements() != 1 || scale.dims() > output.dims()) {
      return absl::InvalidArgumentError(
          absl::StrCat("the Mul's factor must have one element and at most the product's rank, ",
                       output.dims(), "; got shape ", scale.shape().DebugString()));
    }
    ScaleAndAdd e;
    e.scale_ = scale.flat<float>()(0);
    e.rank_ = output.dims();
    e.m_ = output.dim_size(e.rank_ - 2);
    e.n_ = output.dim_size(e.rank_ - 1);
    for (int d = 0; d < e.rank_; ++d) e.dims_.push_back(output.dim_size(d));
    if (addend == nullptr) return e;
    const int offset = e.rank_ - addend->dims();
    bool broadcasts = offset >= 0;
    int64_t stride = 1;
    e.strides_.assign(e.rank_, 0);
    for (int d = e.rank_ - 1; broadcasts && d >= offset; --d) {
      const int64_t size = addend->dim_size(d - offset);
      broadcasts = size == 1 || size == output.dim_size(d);
      if (size != 1) e.strides_[d] = stride;
      stride *= size;
    }
    if (!broadcasts) {
      return absl::InvalidArgumentError(absl::StrCat(
          "Incompatible shapes: ", output.DebugString(), " vs. ", addend->shape().DebugString(),
          " (the product and the addend)"));
    }
    e.addend_ = addend->flat<float>().data();
    return e;
  }

  void operator()(float* out, int64_t b) const {
    using Row = Eigen::Map<Eigen::ArrayXf>;
    if (addend_ == nullptr) {
      Row(out, m_ * n_) *= scale_;
      return;
    }
    int64_t base = 0;
    for (int d = rank_ - 3; d >= 0; --d) {
      base += (b % dims_[d]) * strides_[d];
      b /= dims_[d];
    }
    const int64_t row_stride = strides_[rank_ - 2];
    const bool one_column = strides_[rank_ - 1] == 0;
    for (int64_t i = 0; i < m_; ++i) {
      Row row(out + i * n_, n_);
      const float* add = addend_ + base + i * row_stride;
      if (one_column) {
        row = row * scale_ + add[0];
      } else {
        row = row * scale_ + Eigen::Map<const Eigen::ArrayXf>(add, n_);
      }
    }
  }

 private:
  float scale_ = 1;
  const float* addend_ = nullptr;  // Null: no Add.
  int rank_ = 0;
  int64_t m_ = 0, n_ = 0;
  absl::InlinedVector<int64_t, 6> dims_;     // The output's.
  absl::InlinedVector<int64_t, 6> strides_;  // The addend's, per output dimension.
};

// _MklFusedBatchMatMulV2 on the CPU, float: BatchMatMulV2's operands,
// checks and products, each product scaled (and added to) by ScaleAndAdd
// as it is made. fused_ops ["Mul", "Add"] with num_args 2 or ["Mul"] with
// num_args 1 (InvalidArgument naming the node otherwise).
class FusedBatchMatMulOp : public BatchMatMulOp<CpuBatchMatMul<float>> {
 public:
  explicit FusedBatchMatMulOp(OpKernelConstruction* ctx) : BatchMatMulOp(ctx) {
    std::vector<std::string> fused_ops;
    int64_t num_args = 0;
    OP_REQUIRES_OK(ctx, ctx->GetAttr("fused_ops", &fused_ops));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("num_args", &num_args));
    with_addend_ = fused_ops == std::vector<std::string>{"Mul", "Add"};
    OP_REQUIRES(ctx,
                (with_addend_ && num_args == 2) ||
                    (fused_ops == std::vector<std::string>{"Mul"} && num_args == 1),
                absl::InvalidArgumentError(absl::StrCat(
                    "fused_ops must be [Mul, Add] with num_args 2 or [Mul] with num_args 1; got [",
                    absl::StrJoin(fused_ops, ", "), "] with num_args ", num_args)));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& x = ctx->input(0);
    const Tensor& y = ctx->input(1);
    absl::StatusOr<BatchMatMulGeometry> geometry = Geometry(x, y);
    OP_REQUIRES_OK(ctx, geometry.status());
    absl::StatusOr<ScaleAndAdd> epilogue = ScaleAndAdd::Make(
        geometry->output_shape, ctx->input(2), with_addend_ ? &ctx->input(3) : nullptr);
    OP_REQUIRES_OK(ctx, AttachNodeName(epilogue.status(), def()));
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, geometry->output_shape, &out));
    if (out->NumElements() == 0) return;
    float* data = out->data<float>();
    const int64_t size = geometry->m * geometry->n;
    auto after = [&](int64_t b) { (*epilogue)(data + b * size, b); };
    if (geometry->k == 0) {
      OP_REQUIRES_OK(ctx, CpuBatchMatMul<float>::SetZero(ctx, out));
      for (int64_t b = 0; b < geometry->batch; ++b) after(b);
      return;
    }
    OP_REQUIRES_OK(ctx, CpuBatchMatMul<float>::Multiply(ctx, *geometry, adj_x(), adj_y(), x, y,
                                                        out, after));
  }

 private:
  bool with_addend_ = false;  // Constant after construction.
};

#define MINITF_REGISTER_BATCH_MATMUL(T)                                                    \
  REGISTER_KERNEL_BUILDER(Name("BatchMatMul").Device(DEVICE_CPU).TypeConstraint<T>("T"),   \
                          BatchMatMulOp<CpuBatchMatMul<T>>);                               \
  REGISTER_KERNEL_BUILDER(Name("BatchMatMulV2").Device(DEVICE_CPU).TypeConstraint<T>("T"), \
                          BatchMatMulOp<CpuBatchMatMul<T>>)
MINITF_REGISTER_BATCH_MATMUL(float);
MINITF_REGISTER_BATCH_MATMUL(double);
MINITF_REGISTER_BATCH_MATMUL(int32_t);
MINITF_REGISTER_BATCH_MATMUL(int64_t);
#undef MINITF_REGISTER_BATCH_MATMUL
REGISTER_KERNEL_BUILDER(
    Name("_MklFusedBatchMatMulV2").Device(DEVICE_CPU).TypeConstraint<float>("T"),
    FusedBatchMatMulOp);

#ifdef MINITF_WITH_CUDA
// Matrix `index` of `size` elements from `base`.
se::DeviceMemory<float> Matrix(float* base, int64_t index, int64_t size) {
  return se::DeviceMemory<float>::MakeFromByteSize(base + index * size, size * sizeof(float));
}

struct CudaBatchMatMul {
  static absl::Status SetZero(OpKernelContext* ctx, Tensor* out) {
    return ZeroOnComputeStream(ctx, out);
  }

  static absl::Status Multiply(OpKernelContext* ctx, const BatchMatMulGeometry& g, bool adj_x,
                               bool adj_y, const Tensor& x, const Tensor& y, Tensor* out) {
    return BlasOnComputeStream(ctx, [&](se::Stream* stream, se::BlasSupport* blas) {
      // `batch` consecutive products of op(x) and op(y) into c.
      const auto multiply = [&](const se::DeviceMemory<float>& x_matrices,
                                const se::DeviceMemory<float>& y_matrices,
                                se::DeviceMemory<float>* c, int64_t batch) {
        return blas->DoBlasGemmStridedBatched(
            stream, BlasTranspose(adj_y), BlasTranspose(adj_x), g.n, g.m, g.k, 1.0f, y_matrices,
            static_cast<int>(g.y_cols), g.y_rows * g.y_cols, x_matrices,
            static_cast<int>(g.x_cols), g.x_rows * g.x_cols, 0.0f, c, static_cast<int>(g.n),
            g.m * g.n, batch);
      };
      if (g.x_batch_index.empty()) {
        se::DeviceMemory<float> c = AsDeviceMemory(*out);
        return multiply(AsDeviceMemory(x), AsDeviceMemory(y), &c, g.batch);
      }
      // Broadcast batch dimensions (BatchMatMulV2): one product per matrix.
      const int64_t x_size = g.x_rows * g.x_cols, y_size = g.y_rows * g.y_cols;
      for (int64_t b = 0; b < g.batch; ++b) {
        se::DeviceMemory<float> out_b = Matrix(out->data<float>(), b, g.m * g.n);
        MINITF_RETURN_IF_ERROR(multiply(Matrix(x.data<float>(), g.x_index(b), x_size),
                                        Matrix(y.data<float>(), g.y_index(b), y_size), &out_b,
                                        1));
      }
      return absl::OkStatus();
    });
  }
};

REGISTER_KERNEL_BUILDER(
    Name("BatchMatMul").Device(DEVICE_GPU).Platform("CUDA").TypeConstraint<float>("T"),
    BatchMatMulOp<CudaBatchMatMul>);
REGISTER_KERNEL_BUILDER(
    Name("BatchMatMulV2").Device(DEVICE_GPU).Platform("CUDA").TypeConstraint<float>("T"),
    BatchMatMulOp<CudaBatchMatMul>);
#endif  // MINITF_WITH_CUDA

}  // namespace
}  // namespace minitf
