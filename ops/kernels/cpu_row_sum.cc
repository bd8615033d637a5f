#include "ops/kernels/cpu_row_sum.h"

#include <algorithm>
#include <array>
#include <type_traits>
#include <vector>

#include "ops/kernels/cpu_vector_loops.h"

namespace minitf::functor {
namespace {

// The values of one row one thread adds at most (64 KiB of floats); a
// longer row is cut into chunks of this length.
constexpr int64_t kChunk = 16384;
// Rows of at most one chunk are added this many at a time (their sums kept
// on the stack before they are rounded to T).
constexpr int64_t kRowsPerCall = 256;

template <typename T>
void SumRows(const VectorLoops& loops, const T* x, int64_t rows, int64_t cols, double* out) {
  if constexpr (std::is_same_v<T, float>) {
    loops.sum_rows_float(x, rows, cols, out);
  } else {
    loops.sum_rows_double(x, rows, cols, out);
  }
}

}  // namespace

template <typename T>
void SumInnerAxis(const Eigen::ThreadPoolDevice& d, const T* in, int64_t outer, int64_t folded,
                  T* out) {
  static_assert(std::is_same_v<T, float> || std::is_same_v<T, double>);
  if (outer == 0) return;
  if (folded == 0) {  // The empty sum; `in` may hold no buffer at all.
    std::fill_n(out, outer, T(0));
    return;
  }
  const VectorLoops& loops = ActiveVectorLoops();
  if (folded <= kChunk) {
    const auto add = [&](Eigen::Index first, Eigen::Index last) {
      std::array<double, kRowsPerCall> sums;
      for (Eigen::Index r = first; r < last; r += kRowsPerCall) {
        const int64_t rows = std::min<int64_t>(kRowsPerCall, last - r);
        SumRows(loops, in + r * folded, rows, folded, sums.data());
        for (int64_t i = 0; i < rows; ++i) out[r + i] = static_cast<T>(sums[i]);
      }
    };
    const double values = static_cast<double>(folded);
    d.parallelFor(outer, Eigen::TensorOpCost(values * sizeof(T), sizeof(T), values), add);
    return;
  }
  const int64_t chunks = (folded + kChunk - 1) / kChunk;
  std::vector<double> partial(static_cast<size_t>(outer * chunks));
  const auto add = [&](Eigen::Index first, Eigen::Index last) {
    for (Eigen::Index b = first; b < last; ++b) {
      const int64_t o = b / chunks;
      const int64_t begin = (b % chunks) * kChunk;
      SumRows(loops, in + o * folded + begin, 1, std::min(kChunk, folded - begin), &partial[b]);
    }
  };
  const double values = static_cast<double>(kChunk);
  d.parallelFor(outer * chunks, Eigen::TensorOpCost(values * sizeof(T), sizeof(double), values),
                add);
  for (int64_t o = 0; o < outer; ++o) {
    double sum = 0;
    for (int64_t c = 0; c < chunks; ++c) sum += partial[o * chunks + c];
    out[o] = static_cast<T>(sum);
  }
}

template void SumInnerAxis<float>(const Eigen::ThreadPoolDevice&, const float*, int64_t, int64_t,
                                  float*);
template void SumInnerAxis<double>(const Eigen::ThreadPoolDevice&, const double*, int64_t,
                                   int64_t, double*);

}  // namespace minitf::functor
