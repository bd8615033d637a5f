#include "ops/kernels/cpu_column_sum.h"

#include <algorithm>
#include <array>
#include <type_traits>

#include "ops/kernels/cpu_vector_loops.h"

namespace minitf::functor {
namespace {

// The widest block of columns one thread folds (its accumulators, 8 KiB,
// stay in the first-level cache), and the narrowest worth a thread.
constexpr int64_t kMaxBlock = 1024;
constexpr int64_t kMinBlock = 16;

// Blocks as wide as one per thread allows: a wider block reads longer runs
// of every row, which the processor's prefetchers follow (256 columns of a
// [2000, 2000] column sum ran at half the speed of 1000).
int64_t BlockWidth(int64_t outer, int64_t inner, int threads) {
  const int64_t wanted_blocks = static_cast<int64_t>(threads);
  const int64_t per_outer = std::max<int64_t>(1, wanted_blocks / std::max<int64_t>(outer, 1));
  int64_t width = (inner + per_outer - 1) / per_outer;
  width = (width + kMinBlock - 1) / kMinBlock * kMinBlock;
  return std::clamp(width, kMinBlock, kMaxBlock);
}

}  // namespace

template <typename T>
void SumMiddleAxis(const Eigen::ThreadPoolDevice& d, const T* in, int64_t outer, int64_t folded,
                   int64_t inner, T* out) {
  static_assert(std::is_same_v<T, float> || std::is_same_v<T, double>);
  if (outer == 0 || inner == 0) return;
  if (folded == 0) {  // The empty sum; `in` may hold no buffer at all.
    std::fill_n(out, outer * inner, T(0));
    return;
  }
  const VectorLoops& loops = ActiveVectorLoops();
  const int64_t width = BlockWidth(outer, inner, d.numThreads());
  const int64_t blocks_per_outer = (inner + width - 1) / width;
  const auto fold = [&](Eigen::Index first, Eigen::Index last) {
    std::array<double, kMaxBlock> acc;
    for (Eigen::Index b = first; b < last; ++b) {
      const int64_t o = b / blocks_per_outer;
      const int64_t begin = (b % blocks_per_outer) * width;
      const int64_t cols = std::min(width, inner - begin);
      std::fill_n(acc.begin(), cols, 0.0);
      const T* x = in + o * folded * inner + begin;
      if constexpr (std::is_same_v<T, float>) {
        loops.add_rows_float(x, folded, inner, cols, acc.data());
      } else {
        loops.add_rows_double(x, folded, inner, cols, acc.data());
      }
      T* y = out + o * inner + begin;
      for (int64_t j = 0; j < cols; ++j) y[j] = static_cast<T>(acc[j]);
    }
  };
  const double values = static_cast<double>(folded) * static_cast<double>(width);
  d.parallelFor(outer * blocks_per_outer,
                Eigen::TensorOpCost(values * sizeof(T), width * sizeof(T), values), fold);
}

template void SumMiddleAxis<float>(const Eigen::ThreadPoolDevice&, const float*, int64_t, int64_t,
                                   int64_t, float*);
template void SumMiddleAxis<double>(const Eigen::ThreadPoolDevice&, const double*, int64_t,
                                    int64_t, int64_t, double*);

}  // namespace minitf::functor
