// The element loops of the host kernels whose time is in arithmetic rather
// than in memory traffic, compiled once for each x86-64 vector width
// (platform/cpu_isa.h: AVX-512, AVX2 with FMA, the SSE2 baseline) into one
// portable build; a kernel calls the set of the width the process runs at.
//
//   const functor::VectorLoops& loops = functor::ActiveVectorLoops();
//   loops.add_rows_float(x + begin, rows, row_stride, cols, acc);
//
// Every width gives the same bits: the loops are compiled without
// contracting a multiply and an add into one FMA, and each element's
// operations happen in the same order whatever the width (they vectorize
// across elements, never reassociating a sum), so MINITF_MAX_CPU_ISA changes
// only the speed. Plain functions of raw pointers: the caller splits the
// work over its threads. Thread-safe.
#ifndef MINITF_OPS_KERNELS_CPU_VECTOR_LOOPS_H_
#define MINITF_OPS_KERNELS_CPU_VECTOR_LOOPS_H_

#include <cstdint>

#include "platform/cpu_isa.h"

namespace minitf::functor {

// The scalars of one Adam update (TensorFlow's ApplyAdam):
//   m += (g - m) * (1 - beta1);  v += (g * g - v) * (1 - beta2);
//   var -= m * lr_t / (sqrt(v) + epsilon), or with Nesterov's momentum
//   var -= (g * (1 - beta1) + m * beta1) * lr_t / (sqrt(v) + epsilon),
// lr_t being lr * sqrt(1 - beta2^t) / (1 - beta1^t).
template <typename T>
struct AdamStep {
  T lr_t = 0;
  T beta1 = 0;
  T beta2 = 0;
  T epsilon = 0;
  bool use_nesterov = false;
};

// The scalars of one Momentum update (TensorFlow's ApplyMomentum):
//   accum = accum * momentum + g;
//   var -= accum * lr, or with Nesterov's momentum
//   var -= g * lr + accum * momentum * lr.
template <typename T>
struct MomentumStep {
  T lr = 0;
  T momentum = 0;
  bool use_nesterov = false;
};

struct VectorLoops {
  // acc[j] += x[r * row_stride + j] for r < rows and j < cols: each eight
  // rows' values added in the input's type, one row after another, and that
  // sum added to acc in double; the last rows (fewer than eight) one by one
  // in double.
  void (*add_rows_float)(const float* x, int64_t rows, int64_t row_stride, int64_t cols,
                         double* acc);
  void (*add_rows_double)(const double* x, int64_t rows, int64_t row_stride, int64_t cols,
                          double* acc);
  // out[r] = the sum of x[r * cols + j] over j < cols, in double, for
  // r < rows (in an order that depends only on cols).
  void (*sum_rows_float)(const float* x, int64_t rows, int64_t cols, double* out);
  void (*sum_rows_double)(const double* x, int64_t rows, int64_t cols, double* out);
  // Batch normalization over rows of `channels` values (NHWC), the
  // per-channel statistics in double:
  //   squares[c] += (x - mean[c])^2, the difference in double;
  void (*add_centered_squares)(const float* x, int64_t rows, int64_t channels,
                               const double* mean, double* squares);
  //   y = (x - mean[c]) * multiplier[c] + offset[c], in double, rounded;
  void (*normalize_rows)(const float* x, int64_t rows, int64_t channels, const double* mean,
                         const double* multiplier, const float* offset, float* y);
  //   sum_dy[c] += dy; sum_dy_xc[c] += dy * (x - mean[c]), the difference
  //   in float, the product in double;
  void (*add_dy_and_dy_xc)(const float* dy, const float* x, int64_t rows, int64_t channels,
                           const float* mean, double* sum_dy, double* sum_dy_xc);
  //   dx = coef[c] * (dy - mean_dy[c] - (x - mean[c]) * xc_coef[c]), in
  //   double, rounded (the training gradient);
  void (*batch_norm_backprop_rows)(const float* dy, const float* x, int64_t rows,
                                   int64_t channels, const float* mean, const double* coef,
                                   const double* mean_dy, const double* xc_coef, float* dx);
  //   dx = coef[c] * dy, in double, rounded (the inference gradient).
  void (*scale_rows)(const float* dy, int64_t rows, int64_t channels, const double* coef,
                     float* dx);
  // y[i] += x[i] (col2im's scatter of a patch row back into the input).
  void (*accumulate_float)(const float* x, float* y, int64_t n);
  // ReluGrad: out[i] = features[i] > 0 ? gradients[i] : 0 (0 for a NaN
  // feature).
  void (*relu_grad_float)(const float* gradients, const float* features, float* out, int64_t n);
  // One Momentum update of n elements, in place in var and accum.
  void (*momentum_float)(const MomentumStep<float>& step, const float* grad, float* var,
                         float* accum, int64_t n);
  // One Adam update of n elements, in place in var, m and v.
  void (*adam_float)(const AdamStep<float>& step, const float* grad, float* var, float* m,
                     float* v, int64_t n);
  void (*adam_double)(const AdamStep<double>& step, const double* grad, double* var, double* m,
                      double* v, int64_t n);
};

// The loops compiled for `isa`. REQUIRES: isa <= DetectedCpuIsa() before
// calling any of them (a wider set would execute instructions this
// processor lacks).
const VectorLoops& VectorLoopsFor(CpuIsa isa);

// VectorLoopsFor(ActiveCpuIsa()).
const VectorLoops& ActiveVectorLoops();

}  // namespace minitf::functor

#endif  // MINITF_OPS_KERNELS_CPU_VECTOR_LOOPS_H_
