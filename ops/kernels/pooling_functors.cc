#include "ops/kernels/pooling_functors.h"

#include <algorithm>
#include <type_traits>
#include <vector>

#include "ops/kernels/cpu_elementwise_loops.h"

namespace minitf::functor {
namespace {

// out[k] = max(out[k], x[k]) for k < n, a NaN in out kept: float at the
// machine's vector width (cpu_elementwise_loops.h).
template <typename T>
void MaxInto(const T* x, T* out, int64_t n) {
  if constexpr (std::is_same_v<T, float>) {
    ActiveElementwiseLoops().max_into_float(x, out, n);
  } else {
    for (int64_t k = 0; k < n; ++k) {
      if (x[k] > out[k]) out[k] = x[k];
    }
  }
}

// Where x[k] > best[k]: best[k] = x[k], best_at[k] = x_offset + k.
template <typename T>
void ArgMaxInto(const T* x, int64_t x_offset, T* best, int64_t* best_at, int64_t n) {
  if constexpr (std::is_same_v<T, float>) {
    ActiveElementwiseLoops().argmax_into_float(x, x_offset, best, best_at, n);
  } else {
    for (int64_t k = 0; k < n; ++k) {
      if (x[k] > best[k]) {
        best[k] = x[k];
        best_at[k] = x_offset + k;
      }
    }
  }
}

// The input rows [row_begin, row_end) and columns [col_begin, col_end) that
// the window of output (out_row, out_col) covers, the padding clipped off.
struct Window {
  int64_t row_begin, row_end, col_begin, col_end;
};

Window WindowOf(const Pool2DGeometry& g, int64_t out_row, int64_t out_col) {
  const int64_t top = out_row * g.stride_rows - g.pad_top;
  const int64_t left = out_col * g.stride_cols - g.pad_left;
  return {std::max<int64_t>(top, 0), std::min(top + g.window_rows, g.in_rows),
          std::max<int64_t>(left, 0), std::min(left + g.window_cols, g.in_cols)};
}

// The cost of pooling `outputs` output positions, for Eigen's sharding.
Eigen::TensorOpCost PoolingCost(const Pool2DGeometry& g, int64_t outputs, size_t element_bytes) {
  const double taps = static_cast<double>(outputs * g.depth * g.window_rows * g.window_cols);
  return Eigen::TensorOpCost(taps * element_bytes,
                             static_cast<double>(outputs * g.depth * element_bytes), taps);
}

}  // namespace

template <typename T>
void MaxPoolFunctor<T>::operator()(const Eigen::ThreadPoolDevice& d, const Pool2DGeometry& g,
                                   const T* input, T* output) const {
  if (g.output_elements() == 0) return;
  const int64_t image_elements = g.in_rows * g.in_cols * g.depth;
  // One unit: one output row of one image.
  auto pool_rows = [&](Eigen::Index first, Eigen::Index last) {
    for (Eigen::Index unit = first; unit < last; ++unit) {
      const int64_t image = unit / g.out_rows;
      const int64_t out_row = unit % g.out_rows;
      const T* in = input + image * image_elements;
      for (int64_t out_col = 0; out_col < g.out_cols; ++out_col) {
        T* out = output + (unit * g.out_cols + out_col) * g.depth;
        const Window w = WindowOf(g, out_row, out_col);
        bool first_tap = true;
        for (int64_t r = w.row_begin; r < w.row_end; ++r) {
          for (int64_t c = w.col_begin; c < w.col_end; ++c) {
            const T* x = in + (r * g.in_cols + c) * g.depth;
            if (first_tap) {
              std::copy_n(x, g.depth, out);
              first_tap = false;
              continue;
            }
            MaxInto(x, out, g.depth);
          }
        }
        // Unreachable while the geometry's invariants hold.
        if (first_tap) std::fill_n(out, g.depth, Eigen::NumTraits<T>::lowest());
      }
    }
  };
  d.parallelFor(g.batch * g.out_rows, PoolingCost(g, g.out_cols, sizeof(T)), pool_rows);
}

template <typename T>
void MaxPoolGradFunctor<T>::operator()(const Eigen::ThreadPoolDevice& d, const Pool2DGeometry& g,
                                       const T* input, const T* out_backprop,
                                       T* in_backprop) const {
  if (g.input_elements() == 0) return;
  const int64_t image_elements = g.in_rows * g.in_cols * g.depth;
  const int64_t image_outputs = g.out_rows * g.out_cols;
  // One unit: one image, whose gradient no other unit touches. Each
  // window's taps are walked once for all channels: best and best_at hold
  // each channel's first maximum in row-major order (later ties do not
  // win) and where it is.
  auto route_images = [&](Eigen::Index first, Eigen::Index last) {
    std::fill_n(in_backprop + first * image_elements, (last - first) * image_elements, T(0));
    std::vector<T> best(g.depth);
    std::vector<int64_t> best_at(g.depth);
    for (Eigen::Index image = first; image < last; ++image) {
      const T* in = input + image * image_elements;
      T* in_grad = in_backprop + image * image_elements;
      const T* out_grad = out_backprop + image * image_outputs * g.depth;
      for (int64_t out_row = 0; out_row < g.out_rows; ++out_row) {
        for (int64_t out_col = 0; out_col < g.out_cols; ++out_col) {
          const Window w = WindowOf(g, out_row, out_col);
          if (w.row_begin >= w.row_end || w.col_begin >= w.col_end) continue;
          const int64_t first_tap = (w.row_begin * g.in_cols + w.col_begin) * g.depth;
          std::copy_n(in + first_tap, g.depth, best.data());
          for (int64_t k = 0; k < g.depth; ++k) best_at[k] = first_tap + k;
          for (int64_t r = w.row_begin; r < w.row_end; ++r) {
            for (int64_t c = w.col_begin; c < w.col_end; ++c) {
              const int64_t tap = (r * g.in_cols + c) * g.depth;
              if (tap == first_tap) continue;
              ArgMaxInto(in + tap, tap, best.data(), best_at.data(), g.depth);
            }
          }
          const T* grad = out_grad + (out_row * g.out_cols + out_col) * g.depth;
          for (int64_t k = 0; k < g.depth; ++k) in_grad[best_at[k]] += grad[k];
        }
      }
    }
  };
  d.parallelFor(g.batch, PoolingCost(g, image_outputs, sizeof(T)), route_images);
}

template <typename T>
void AvgPoolFunctor<T>::operator()(const Eigen::ThreadPoolDevice& d, const Pool2DGeometry& g,
                                   const T* input, T* output) const {
  if (g.output_elements() == 0) return;
  const int64_t image_elements = g.in_rows * g.in_cols * g.depth;
  // One unit: one output row of one image.
  auto pool_rows = [&](Eigen::Index first, Eigen::Index last) {
    for (Eigen::Index unit = first; unit < last; ++unit) {
      const int64_t image = unit / g.out_rows;
      const int64_t out_row = unit % g.out_rows;
      const T* in = input + image * image_elements;
      for (int64_t out_col = 0; out_col < g.out_cols; ++out_col) {
        T* out = output + (unit * g.out_cols + out_col) * g.depth;
        const Window w = WindowOf(g, out_row, out_col);
        std::fill_n(out, g.depth, T(0));
        for (int64_t r = w.row_begin; r < w.row_end; ++r) {
          for (int64_t c = w.col_begin; c < w.col_end; ++c) {
            const T* x = in + (r * g.in_cols + c) * g.depth;
            for (int64_t k = 0; k < g.depth; ++k) out[k] += x[k];
          }
        }
        // At least one element while the geometry's invariants hold.
        const int64_t count = (w.row_end - w.row_begin) * (w.col_end - w.col_begin);
        if (count <= 0) continue;
        const T divisor = static_cast<T>(count);
        for (int64_t k = 0; k < g.depth; ++k) out[k] /= divisor;
      }
    }
  };
  d.parallelFor(g.batch * g.out_rows, PoolingCost(g, g.out_cols, sizeof(T)), pool_rows);
}

template <typename T>
void AvgPoolGradFunctor<T>::operator()(const Eigen::ThreadPoolDevice& d, const Pool2DGeometry& g,
                                       const T* out_backprop, T* in_backprop) const {
  if (g.input_elements() == 0) return;
  const int64_t image_elements = g.in_rows * g.in_cols * g.depth;
  const int64_t image_outputs = g.out_rows * g.out_cols;
  // One unit: one image, whose gradient no other unit touches.
  auto spread_images = [&](Eigen::Index first, Eigen::Index last) {
    std::fill_n(in_backprop + first * image_elements, (last - first) * image_elements, T(0));
    for (Eigen::Index image = first; image < last; ++image) {
      T* in_grad = in_backprop + image * image_elements;
      const T* out_grad = out_backprop + image * image_outputs * g.depth;
      for (int64_t out_row = 0; out_row < g.out_rows; ++out_row) {
        for (int64_t out_col = 0; out_col < g.out_cols; ++out_col) {
          const Window w = WindowOf(g, out_row, out_col);
          const int64_t count = (w.row_end - w.row_begin) * (w.col_end - w.col_begin);
          if (count <= 0) continue;
          const T divisor = static_cast<T>(count);
          const T* grad = out_grad + (out_row * g.out_cols + out_col) * g.depth;
          for (int64_t r = w.row_begin; r < w.row_end; ++r) {
            for (int64_t c = w.col_begin; c < w.col_end; ++c) {
              T* x_grad = in_grad + (r * g.in_cols + c) * g.depth;
              for (int64_t k = 0; k < g.depth; ++k) x_grad[k] += grad[k] / divisor;
            }
          }
        }
      }
    }
  };
  d.parallelFor(g.batch, PoolingCost(g, image_outputs, sizeof(T)), spread_images);
}

template struct MaxPoolFunctor<float>;
template struct MaxPoolFunctor<double>;
template struct MaxPoolGradFunctor<float>;
template struct MaxPoolGradFunctor<double>;
template struct AvgPoolFunctor<float>;
template struct AvgPoolFunctor<double>;
template struct AvgPoolGradFunctor<float>;
template struct AvgPoolGradFunctor<double>;

}  // namespace minitf::functor
