#include "stream/sim_gpu/sim_gpu_blas.h"

#include <Eigen/Core>
#include <utility>

#include "absl/strings/str_cat.h"
#include "stream/device_memory_protection.h"
#include "stream/kernel.h"
#include "stream/stream.h"

namespace minitf::se {
namespace {

using ColMajor = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::ColMajor>;
using ConstMatrixMap = Eigen::Map<const ColMajor, Eigen::Unaligned, Eigen::OuterStride<>>;
using MatrixMap = Eigen::Map<ColMajor, Eigen::Unaligned, Eigen::OuterStride<>>;

// Checks a column-major `rows` x `cols` matrix with leading dimension `ld`
// held in `elements` floats.
absl::Status CheckMatrix(absl::string_view name, uint64_t rows, uint64_t cols, int ld,
                         uint64_t elements) {
  if (ld < 1 || static_cast<uint64_t>(ld) < rows) {
    return absl::InvalidArgumentError(absl::StrCat("SimGPU gemm: leading dimension ld", name, "=",
                                                   ld, " is less than the ", rows,
                                                   " rows of ", name));
  }
  const uint64_t needed = cols == 0 ? 0 : (cols - 1) * static_cast<uint64_t>(ld) + rows;
  if (elements < needed) {
    return absl::InvalidArgumentError(absl::StrCat("SimGPU gemm: matrix ", name, " (", rows, "x",
                                                   cols, ", ld ", ld, ") needs ", needed,
                                                   " floats; its buffer holds ", elements));
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status SimGPUBlas::DoBlasGemm(Stream* stream, blas::Transpose transa,
                                    blas::Transpose transb, uint64_t m, uint64_t n, uint64_t k,
                                    float alpha, const DeviceMemory<float>& a, int lda,
                                    const DeviceMemory<float>& b, int ldb, float beta,
                                    DeviceMemory<float>* c, int ldc) {
  if (stream == nullptr || stream->parent() != executor_) {
    return absl::InvalidArgumentError("SimGPU gemm: the stream is not of this executor");
  }
  if (c == nullptr) return absl::InvalidArgumentError("SimGPU gemm: null output matrix C");
  const bool ta = transa == blas::Transpose::kTranspose;
  const bool tb = transb == blas::Transpose::kTranspose;
  // Stored shapes: A is m x k (k x m when transposed), B is k x n (n x k).
  for (absl::Status s : {CheckMatrix("a", ta ? k : m, ta ? m : k, lda, a.ElementCount()),
                         CheckMatrix("b", tb ? n : k, tb ? k : n, ldb, b.ElementCount()),
                         CheckMatrix("c", m, n, ldc, c->ElementCount())}) {
    if (!s.ok()) return s;
  }

  HostKernel kernel;
  kernel.name = "Gemm";
  const double dm = static_cast<double>(m), dn = static_cast<double>(n),
               dk = static_cast<double>(k);
  kernel.cost.family = KernelFamily::kMatMul;
  kernel.cost.flops = 2 * dm * dn * dk;
  kernel.cost.device_bytes = 4 * (dm * dk + dk * dn + 2 * dm * dn);
  const float* a_data = a.base();
  const float* b_data = b.base();
  float* c_data = c->base();
  kernel.body = [=]() -> absl::Status {
    if (m == 0 || n == 0) return absl::OkStatus();
    const auto em = static_cast<Eigen::Index>(m), en = static_cast<Eigen::Index>(n),
               ek = static_cast<Eigen::Index>(k);
    // The kernel runs with device access: the real addresses.
    const auto* a_real = static_cast<const float*>(DeviceAddressForThisThread(a_data));
    const auto* b_real = static_cast<const float*>(DeviceAddressForThisThread(b_data));
    auto* c_real = static_cast<float*>(DeviceAddressForThisThread(c_data));
    const ConstMatrixMap a_map(a_real, ta ? ek : em, ta ? em : ek, Eigen::OuterStride<>(lda));
    const ConstMatrixMap b_map(b_real, tb ? en : ek, tb ? ek : en, Eigen::OuterStride<>(ldb));
    MatrixMap c_map(c_real, em, en, Eigen::OuterStride<>(ldc));
    auto multiply = [&](const auto& op_a, const auto& op_b) {
      if (beta == 0.0f) {
        c_map.noalias() = alpha * (op_a * op_b);
      } else {
        c_map *= beta;
        c_map.noalias() += alpha * (op_a * op_b);
      }
    };
    if (!ta && !tb) multiply(a_map, b_map);
    if (!ta && tb) multiply(a_map, b_map.transpose());
    if (ta && !tb) multiply(a_map.transpose(), b_map);
    if (ta && tb) multiply(a_map.transpose(), b_map.transpose());
    return absl::OkStatus();
  };
  return stream->LaunchHostKernel(std::move(kernel));
}

}  // namespace minitf::se
