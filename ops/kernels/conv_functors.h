// The arithmetic of the NHWC 2-D convolution and its two gradients, on raw
// pointers, split over the threads of an Eigen::ThreadPoolDevice. The CPU
// kernels (conv_ops.cc) call these on host tensors; any device whose memory
// the host can address may call them on its own buffers.
//
//   Conv2DGeometry g = ...;   // window_geometry.h builds it from shapes and attrs
//   std::vector<float> workspace(Conv2DFunctor<float>::WorkspaceElements(device, g));
//   Conv2DFunctor<float>()(device, g, input, filter, output, workspace.data());
//
// Layouts, row-major: input and its gradient [batch, in_rows, in_cols,
// in_depth]; filter and its gradient [filter_rows, filter_cols, in_depth,
// out_depth]; output and its gradient [batch, out_rows, out_cols, out_depth].
//
// Method (im2col): the receptive field of one output position, zeros where it
// overlaps the padding, is one row of a patch matrix [positions, patch_size()]
// whose product with the filter seen as a [patch_size(), out_depth] matrix is
// the output. The gradient for the input multiplies the output gradient by the
// transposed filter and scatters the patch rows back (col2im); the gradient
// for the filter is the transposed patch matrix times the output gradient.
// Positions are processed in tiles, so at most one tile of the patch matrix
// per worker thread exists at a time; it lives in the caller's workspace.
//
// Thread safety: each call blocks until done and writes only its output and
// workspace; calls with distinct buffers may run concurrently.
#ifndef MINITF_OPS_KERNELS_CONV_FUNCTORS_H_
#define MINITF_OPS_KERNELS_CONV_FUNCTORS_H_

#include <cstdint>

#ifndef EIGEN_USE_THREADS
#define EIGEN_USE_THREADS
#endif
#include "unsupported/Eigen/CXX11/Tensor"

namespace minitf::functor {

// One convolution's sizes. Invariants (established by MakeConv2DGeometry):
// every size >= 0, strides and dilations >= 1, and out_rows / out_cols
// follow from the input, filter, strides, dilations and padding.
struct Conv2DGeometry {
  int64_t batch = 0;
  int64_t in_rows = 0;
  int64_t in_cols = 0;
  int64_t in_depth = 0;
  int64_t filter_rows = 0;
  int64_t filter_cols = 0;
  int64_t out_depth = 0;
  int64_t stride_rows = 1;
  int64_t stride_cols = 1;
  int64_t dilation_rows = 1;
  int64_t dilation_cols = 1;
  int64_t pad_top = 0;   // Zero rows above the input; those below are implied.
  int64_t pad_left = 0;  // Zero columns left of the input.
  int64_t out_rows = 0;
  int64_t out_cols = 0;

  // Elements of one receptive field: filter_rows * filter_cols * in_depth.
  int64_t patch_size() const { return filter_rows * filter_cols * in_depth; }
  int64_t input_elements() const { return batch * in_rows * in_cols * in_depth; }
  int64_t filter_elements() const { return patch_size() * out_depth; }
  int64_t output_elements() const { return batch * out_rows * out_cols * out_depth; }
};

// output = conv2d(input, filter).
template <typename T>
struct Conv2DFunctor {
  // Elements of T the workspace must hold (may be 0).
  static int64_t WorkspaceElements(const Eigen::ThreadPoolDevice& d, const Conv2DGeometry& g);
  // REQUIRES: `workspace` holds WorkspaceElements(d, g) elements; no buffer
  // overlaps another.
  void operator()(const Eigen::ThreadPoolDevice& d, const Conv2DGeometry& g, const T* input,
                  const T* filter, T* output, T* workspace) const;
};

// in_backprop = d(loss)/d(input), given out_backprop = d(loss)/d(output).
template <typename T>
struct Conv2DBackpropInputFunctor {
  static int64_t WorkspaceElements(const Eigen::ThreadPoolDevice& d, const Conv2DGeometry& g);
  // REQUIRES: as for Conv2DFunctor. Overwrites all of in_backprop.
  void operator()(const Eigen::ThreadPoolDevice& d, const Conv2DGeometry& g, const T* filter,
                  const T* out_backprop, T* in_backprop, T* workspace) const;
};

// filter_backprop = d(loss)/d(filter), given out_backprop = d(loss)/d(output).
template <typename T>
struct Conv2DBackpropFilterFunctor {
  static int64_t WorkspaceElements(const Eigen::ThreadPoolDevice& d, const Conv2DGeometry& g);
  // REQUIRES: as for Conv2DFunctor. Overwrites all of filter_backprop.
  void operator()(const Eigen::ThreadPoolDevice& d, const Conv2DGeometry& g, const T* input,
                  const T* out_backprop, T* filter_backprop, T* workspace) const;
};

// Instantiated for float and double in conv_functors.cc.
extern template struct Conv2DFunctor<float>;
extern template struct Conv2DFunctor<double>;
extern template struct Conv2DBackpropInputFunctor<float>;
extern template struct Conv2DBackpropInputFunctor<double>;
extern template struct Conv2DBackpropFilterFunctor<float>;
extern template struct Conv2DBackpropFilterFunctor<double>;

}  // namespace minitf::functor

#endif  // MINITF_OPS_KERNELS_CONV_FUNCTORS_H_
