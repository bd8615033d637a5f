// Direct-loop references for the image-op tests: Conv2D, its two gradients,
// MaxPool and MaxPoolGrad, written for clarity and independently of the
// kernels (their own SAME / VALID arithmetic, no im2col), accumulating in
// double. Also random tensors with a fixed seed, SizesOf and NhwcToNchw.
//
//   Tensor x = RandomTensor<float>({2, 5, 5, 3}, /*seed=*/1);
//   Tensor y = RefConv2D<float>(x, filter, {.stride_rows = 2, .same = true});
#ifndef MINITF_TESTS_OPS_CONV_REFERENCE_H_
#define MINITF_TESTS_OPS_CONV_REFERENCE_H_

#include <algorithm>
#include <cstdint>
#include <random>
#include <vector>

#include "runtime/tensor.h"

namespace minitf::test {

struct ConvSpec {
  int64_t stride_rows = 1;
  int64_t stride_cols = 1;
  int64_t dilation_rows = 1;
  int64_t dilation_cols = 1;
  bool same = false;  // SAME padding, else VALID.
};

struct PoolSpec {
  int64_t window_rows = 1;
  int64_t window_cols = 1;
  int64_t stride_rows = 1;
  int64_t stride_cols = 1;
  bool same = false;
};

// Output size and leading padding of one dimension, TensorFlow's definition:
// VALID fits whole windows; SAME gives ceil(input / stride) outputs and puts
// the odd element of padding after. REQUIRES: VALID windows fit the input.
struct RefSize {
  int64_t output;
  int64_t pad_before;
};
inline RefSize RefWindowedSize(int64_t input, int64_t window, int64_t stride, int64_t dilation,
                               bool same) {
  const int64_t span = (window - 1) * dilation + 1;
  if (!same) return {(input - span) / stride + 1, 0};
  const int64_t output = (input + stride - 1) / stride;
  const int64_t total_padding = std::max<int64_t>(0, (output - 1) * stride + span - input);
  return {output, total_padding / 2};
}

template <typename T>
Tensor RandomTensor(const TensorShape& shape, uint32_t seed, double low = -1, double high = 1) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> dist(low, high);
  Tensor t(DataTypeToEnum<T>::value, shape);
  auto flat = t.flat<T>();
  for (int64_t i = 0; i < flat.size(); ++i) flat(i) = static_cast<T>(dist(rng));
  return t;
}

// Calls term(x_index, f_index, y_index) for every product input[x] *
// filter[f] that contributes to output[y] of the convolution of an input of
// shape `x` by a filter of shape `f`; indices are flat, row-major.
template <typename Fn>
void ForEachConvTerm(const TensorShape& x, const TensorShape& f, const ConvSpec& s, Fn&& term) {
  const int64_t batch = x.dim_size(0), rows = x.dim_size(1), cols = x.dim_size(2);
  const int64_t in_depth = x.dim_size(3);
  const int64_t f_rows = f.dim_size(0), f_cols = f.dim_size(1), out_depth = f.dim_size(3);
  const RefSize r = RefWindowedSize(rows, f_rows, s.stride_rows, s.dilation_rows, s.same);
  const RefSize c = RefWindowedSize(cols, f_cols, s.stride_cols, s.dilation_cols, s.same);
  for (int64_t b = 0; b < batch; ++b) {
    for (int64_t oh = 0; oh < r.output; ++oh) {
      for (int64_t ow = 0; ow < c.output; ++ow) {
        for (int64_t fh = 0; fh < f_rows; ++fh) {
          const int64_t ih = oh * s.stride_rows - r.pad_before + fh * s.dilation_rows;
          if (ih < 0 || ih >= rows) continue;
          for (int64_t fw = 0; fw < f_cols; ++fw) {
            const int64_t iw = ow * s.stride_cols - c.pad_before + fw * s.dilation_cols;
            if (iw < 0 || iw >= cols) continue;
            for (int64_t ci = 0; ci < in_depth; ++ci) {
              for (int64_t co = 0; co < out_depth; ++co) {
                term(((b * rows + ih) * cols + iw) * in_depth + ci,
                     ((fh * f_cols + fw) * in_depth + ci) * out_depth + co,
                     ((b * r.output + oh) * c.output + ow) * out_depth + co);
              }
            }
          }
        }
      }
    }
  }
}

inline TensorShape RefConvOutputShape(const TensorShape& x, const TensorShape& f,
                                      const ConvSpec& s) {
  return TensorShape(
      {x.dim_size(0),
       RefWindowedSize(x.dim_size(1), f.dim_size(0), s.stride_rows, s.dilation_rows, s.same).output,
       RefWindowedSize(x.dim_size(2), f.dim_size(1), s.stride_cols, s.dilation_cols, s.same).output,
       f.dim_size(3)});
}

template <typename T>
Tensor FromDoubles(const std::vector<double>& values, const TensorShape& shape) {
  Tensor t(DataTypeToEnum<T>::value, shape);
  for (size_t i = 0; i < values.size(); ++i) t.flat<T>()(i) = static_cast<T>(values[i]);
  return t;
}

template <typename T>
Tensor RefConv2D(const Tensor& x, const Tensor& f, const ConvSpec& s) {
  const TensorShape y_shape = RefConvOutputShape(x.shape(), f.shape(), s);
  std::vector<double> y(y_shape.num_elements(), 0.0);
  auto xv = x.flat<T>();
  auto fv = f.flat<T>();
  ForEachConvTerm(x.shape(), f.shape(), s, [&](int64_t xi, int64_t fi, int64_t yi) {
    y[yi] += static_cast<double>(xv(xi)) * fv(fi);
  });
  return FromDoubles<T>(y, y_shape);
}

// d(sum(Conv2D(x, f) * dy))/dx.
template <typename T>
Tensor RefConv2DBackpropInput(const TensorShape& x_shape, const Tensor& f, const Tensor& dy,
                              const ConvSpec& s) {
  std::vector<double> dx(x_shape.num_elements(), 0.0);
  auto fv = f.flat<T>();
  auto dyv = dy.flat<T>();
  ForEachConvTerm(x_shape, f.shape(), s, [&](int64_t xi, int64_t fi, int64_t yi) {
    dx[xi] += static_cast<double>(dyv(yi)) * fv(fi);
  });
  return FromDoubles<T>(dx, x_shape);
}

// d(sum(Conv2D(x, f) * dy))/df.
template <typename T>
Tensor RefConv2DBackpropFilter(const Tensor& x, const TensorShape& f_shape, const Tensor& dy,
                               const ConvSpec& s) {
  std::vector<double> df(f_shape.num_elements(), 0.0);
  auto xv = x.flat<T>();
  auto dyv = dy.flat<T>();
  ForEachConvTerm(x.shape(), f_shape, s, [&](int64_t xi, int64_t fi, int64_t yi) {
    df[fi] += static_cast<double>(xv(xi)) * dyv(yi);
  });
  return FromDoubles<T>(df, f_shape);
}

// Calls window(out_index, indices) for every output element of max pooling
// an input of shape `x`, with the flat input indices its window covers in
// row-major order (padding excluded).
template <typename Fn>
void ForEachPoolWindow(const TensorShape& x, const PoolSpec& s, Fn&& window) {
  const int64_t batch = x.dim_size(0), rows = x.dim_size(1), cols = x.dim_size(2);
  const int64_t depth = x.dim_size(3);
  const RefSize r = RefWindowedSize(rows, s.window_rows, s.stride_rows, 1, s.same);
  const RefSize c = RefWindowedSize(cols, s.window_cols, s.stride_cols, 1, s.same);
  std::vector<int64_t> indices;
  for (int64_t b = 0; b < batch; ++b) {
    for (int64_t oh = 0; oh < r.output; ++oh) {
      for (int64_t ow = 0; ow < c.output; ++ow) {
        for (int64_t ch = 0; ch < depth; ++ch) {
          indices.clear();
          for (int64_t kh = 0; kh < s.window_rows; ++kh) {
            const int64_t ih = oh * s.stride_rows - r.pad_before + kh;
            if (ih < 0 || ih >= rows) continue;
            for (int64_t kw = 0; kw < s.window_cols; ++kw) {
              const int64_t iw = ow * s.stride_cols - c.pad_before + kw;
              if (iw < 0 || iw >= cols) continue;
              indices.push_back(((b * rows + ih) * cols + iw) * depth + ch);
            }
          }
          window(((b * r.output + oh) * c.output + ow) * depth + ch, indices);
        }
      }
    }
  }
}

inline TensorShape RefPoolOutputShape(const TensorShape& x, const PoolSpec& s) {
  return TensorShape(
      {x.dim_size(0),
       RefWindowedSize(x.dim_size(1), s.window_rows, s.stride_rows, 1, s.same).output,
       RefWindowedSize(x.dim_size(2), s.window_cols, s.stride_cols, 1, s.same).output,
       x.dim_size(3)});
}

template <typename T>
Tensor RefMaxPool(const Tensor& x, const PoolSpec& s) {
  const TensorShape y_shape = RefPoolOutputShape(x.shape(), s);
  std::vector<double> y(y_shape.num_elements(), 0.0);
  auto xv = x.flat<T>();
  ForEachPoolWindow(x.shape(), s, [&](int64_t yi, const std::vector<int64_t>& window) {
    double best = xv(window[0]);
    for (int64_t i : window) best = std::max<double>(best, xv(i));
    y[yi] = best;
  });
  return FromDoubles<T>(y, y_shape);
}

// Each window's gradient goes to the first (row-major) maximum of the window.
template <typename T>
Tensor RefMaxPoolGrad(const Tensor& x, const Tensor& dy, const PoolSpec& s) {
  std::vector<double> dx(x.NumElements(), 0.0);
  auto xv = x.flat<T>();
  auto dyv = dy.flat<T>();
  ForEachPoolWindow(x.shape(), s, [&](int64_t yi, const std::vector<int64_t>& window) {
    int64_t argmax = window[0];
    for (int64_t i : window) {
      if (xv(i) > xv(argmax)) argmax = i;
    }
    dx[argmax] += dyv(yi);
  });
  return FromDoubles<T>(dx, x.shape());
}

// The int32 vector of a shape's dimensions (input_sizes, filter_sizes,
// orig_input_shape).
inline Tensor SizesOf(const TensorShape& shape) {
  Tensor t(DT_INT32, TensorShape({shape.dims()}));
  for (int i = 0; i < shape.dims(); ++i) t.vec<int32_t>()(i) = shape.dim_size(i);
  return t;
}

// A [N, H, W, C] tensor as [N, C, H, W] (TensorFlow's image tests make
// their NCHW cases so, from the NHWC ones).
template <typename T>
Tensor NhwcToNchw(const Tensor& nhwc) {
  const int64_t n = nhwc.dim_size(0), h = nhwc.dim_size(1), w = nhwc.dim_size(2),
                c = nhwc.dim_size(3);
  Tensor out(nhwc.dtype(), TensorShape({n, c, h, w}));
  const T* in = nhwc.data<T>();
  T* o = out.data<T>();
  for (int64_t b = 0; b < n; ++b) {
    for (int64_t y = 0; y < h; ++y) {
      for (int64_t x = 0; x < w; ++x) {
        for (int64_t k = 0; k < c; ++k) {
          o[((b * c + k) * h + y) * w + x] = in[((b * h + y) * w + x) * c + k];
        }
      }
    }
  }
  return out;
}

}  // namespace minitf::test

#endif  // MINITF_TESTS_OPS_CONV_REFERENCE_H_
