// A broadcasting binary op on the CPU walked one row at a time: the merged
// view of BCast (ops/util/bcast.h) is a grid of rows, its last dimension,
// in which each operand is either a run of consecutive values or one value
// repeated. BERT's layer normalization ([rows, 768] by [768] or by
// [rows, 1]) and attention mask ([8, 12, 128, 128] plus [8, 1, 1, 128]) are
// such views. Each row is then a flat Eigen expression over contiguous
// memory, where Eigen's own broadcast of a view it cannot prove to be a row
// or a column copies the repeated operand into a block buffer first.
//
//   std::optional<functor::BroadcastRows> rows = functor::BroadcastRowsOf(bcast);
//   if (rows) functor::CombineRows<float>(device, *rows, x, y, z,
//                                         [](const auto& a, const auto& b) { return a * b; });
#ifndef MINITF_OPS_KERNELS_CPU_BROADCAST_ROWS_H_
#define MINITF_OPS_KERNELS_CPU_BROADCAST_ROWS_H_

#include <array>
#include <cstdint>
#include <optional>

#include "ops/util/bcast.h"

#ifndef EIGEN_USE_THREADS
#define EIGEN_USE_THREADS
#endif
#include "unsupported/Eigen/CXX11/Tensor"

namespace minitf::functor {

struct BroadcastRows {
  // Below this many values a row costs more in bookkeeping than Eigen's
  // block evaluation of the whole view.
  static constexpr int64_t kMinColumns = 32;
  // The leading dimensions (all but the last) BCast's views have at most.
  static constexpr int kMaxLeading = 4;

  int64_t rows = 0;
  int64_t columns = 0;
  // Whether the operand holds one value per row (its last dimension is 1).
  bool x_repeated = false;
  bool y_repeated = false;
  int leading = 0;
  std::array<int64_t, kMaxLeading> dims{};
  // Elements between consecutive indices of a leading dimension; 0 where
  // the operand is stretched along it.
  std::array<int64_t, kMaxLeading> x_strides{};
  std::array<int64_t, kMaxLeading> y_strides{};

  // Where row `row` of the view starts in x and in y.
  void Offsets(int64_t row, int64_t* x_offset, int64_t* y_offset) const {
    int64_t xo = 0;
    int64_t yo = 0;
    for (int i = leading - 1; i >= 0; --i) {
      const int64_t index = row % dims[i];
      row /= dims[i];
      xo += index * x_strides[i];
      yo += index * y_strides[i];
    }
    *x_offset = xo;
    *y_offset = yo;
  }
};

// The rows of `bcast`'s view, when its last dimension has at least
// kMinColumns values and at most one operand repeats a value along it;
// nothing otherwise.
std::optional<BroadcastRows> BroadcastRowsOf(const BCast& bcast);

// z = combine(x, y) over the view `rows`, its rows split over `device`'s
// threads. `combine(a, b)` returns the Eigen expression of a row from two
// one-dimensional expressions of equal length. z may be the buffer of an
// operand that is not stretched (each element is read before it is
// written, at the same index).
template <typename T, typename Combine>
void CombineRows(const Eigen::ThreadPoolDevice& device, const BroadcastRows& rows, const T* x,
                 const T* y, T* z, Combine combine) {
  using Row = Eigen::TensorMap<Eigen::Tensor<const T, 1, Eigen::RowMajor, Eigen::Index>>;
  using OutRow = Eigen::TensorMap<Eigen::Tensor<T, 1, Eigen::RowMajor, Eigen::Index>>;
  const int64_t n = rows.columns;
  const double operands = (rows.x_repeated ? 0 : 1) + (rows.y_repeated ? 0 : 1);
  const Eigen::TensorOpCost cost(operands * n * sizeof(T), n * sizeof(T), n);
  device.parallelFor(rows.rows, cost, [&](Eigen::Index begin, Eigen::Index end) {
    for (Eigen::Index r = begin; r < end; ++r) {
      int64_t xo = 0;
      int64_t yo = 0;
      rows.Offsets(r, &xo, &yo);
      OutRow out(z + r * n, n);
      if (rows.y_repeated) {
        const Row xr(x + xo, n);
        out = combine(xr, xr.constant(y[yo]));
      } else if (rows.x_repeated) {
        const Row yr(y + yo, n);
        out = combine(yr.constant(x[xo]), yr);
      } else {
        const Row xr(x + xo, n);
        const Row yr(y + yo, n);
        out = combine(xr, yr);
      }
    }
  });
}

}  // namespace minitf::functor

#endif  // MINITF_OPS_KERNELS_CPU_BROADCAST_ROWS_H_
