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
// Eigen's. On CUDA, equal batch dimensions
// make all the products one cublasSgemmStridedBatched call; broadcast ones
// take one call per product. As in MatMul, BLAS is column-major and tensors
// row-major, so each call computes product^T = op(y)^T op(x)^T: the operands
// swap places and keep their adjoint flags (the adjoint is the transpose for
// float).
#include <cstdint>
#include <type_traits>

#include "Eigen/Core"
#include "absl/status/statusor.h"
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
    broadcast_batch_ = ctx->def().op == "BatchMatMulV2";
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

 private:
  // BatchMatMulGeometryOf's (BatchMatMulV2GeometryOf's for BatchMatMulV2),
  // its errors naming the node.
  absl::StatusOr<BatchMatMulGeometry> Geometry(const Tensor& x, const Tensor& y) const {
    absl::StatusOr<BatchMatMulGeometry> g =
        broadcast_batch_ ? BatchMatMulV2GeometryOf(x.shape(), y.shape(), adj_x_, adj_y_)
                         : BatchMatMulGeometryOf(x.shape(), y.shape(), adj_x_, adj_y_);
    if (!g.ok()) return AttachNodeName(g.status(), def());
    return g;
  }

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

template <typename T>
struct CpuBatchMatMul {
  static absl::Status SetZero(OpKernelContext* ctx, Tensor* out) {
    auto flat = out->flat<T>();
    flat.device(ctx->eigen_cpu_device()) = flat.constant(T(0));
    return absl::OkStatus();
  }

  static absl::Status Multiply(OpKernelContext* ctx, const BatchMatMulGeometry& g, bool adj_x,
                               bool adj_y, const Tensor& x, const Tensor& y, Tensor* out) {
    const Eigen::ThreadPoolDevice& device = ctx->eigen_cpu_device();
    const BatchOperands<T> p{x.data<T>(), y.data<T>(), out->data<T>(), &g, adj_x, adj_y};
    if (g.batch < device.numThreads()) {
      for (int64_t b = 0; b < g.batch; ++b) ContractOne(device, p, b);
      return absl::OkStatus();
    }
    // Per product: 2mnk arithmetic, its operands read and its output written.
    const int64_t m = g.m, n = g.n, k = g.k;
    const Eigen::TensorOpCost cost(static_cast<double>((m * k + k * n) * sizeof(T)),
                                   static_cast<double>(m * n * sizeof(T)),
                                   2.0 * static_cast<double>(m * n * k));
    device.parallelFor(g.batch, cost, [&p](Eigen::Index first, Eigen::Index last) {
      for (Eigen::Index b = first; b < last; ++b) MultiplyOne(p, b);
    });
    return absl::OkStatus();
  }
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
