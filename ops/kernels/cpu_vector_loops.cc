#include "ops/kernels/cpu_vector_loops.h"

#include <cmath>

// Each loop's body is written once, as an always-inlined template with
// internal linkage, and instantiated inside one function per width, each
// compiled for its instruction set (GCC's and Clang's target attribute):
// nothing compiled for a wider set has external linkage, so the linker can
// never pick an AVX-512 copy of a shared function for the rest of the
// program. ops/CMakeLists.txt compiles this file with -ffp-contract=off
// (the same bits at every width) and -fno-math-errno (sqrt vectorizes).

namespace minitf::functor {
namespace {

// Eight rows at a time: their values are added in X, one row after another,
// and that sum is added to the accumulator in double; the rows after the
// last eight are added one by one in double. Each accumulator is loaded and
// stored once per eight rows, eight streams of the input are read at once
// (a column sum reads rows far apart, where one stream waits on memory), and
// a float is converted to double once per eight values.
template <typename X>
[[gnu::always_inline]] inline void AddRows(const X* __restrict x, int64_t rows,
                                           int64_t row_stride, int64_t cols,
                                           double* __restrict acc) {
  int64_t r = 0;
  for (; r + 8 <= rows; r += 8) {
    const X* __restrict r0 = x + r * row_stride;
    const X* __restrict r1 = r0 + row_stride;
    const X* __restrict r2 = r1 + row_stride;
    const X* __restrict r3 = r2 + row_stride;
    const X* __restrict r4 = r3 + row_stride;
    const X* __restrict r5 = r4 + row_stride;
    const X* __restrict r6 = r5 + row_stride;
    const X* __restrict r7 = r6 + row_stride;
    for (int64_t j = 0; j < cols; ++j) {
      X sum = r0[j] + r1[j];
      sum += r2[j];
      sum += r3[j];
      sum += r4[j];
      sum += r5[j];
      sum += r6[j];
      sum += r7[j];
      acc[j] += static_cast<double>(sum);
    }
  }
  for (; r < rows; ++r) {
    const X* __restrict row = x + r * row_stride;
    for (int64_t j = 0; j < cols; ++j) acc[j] += static_cast<double>(row[j]);
  }
}


// out[r] = the sum of row r's `cols` values. A long row is added in 32
// lanes: lane l takes the values l, l + 32, l + 64, ..., eight at a time,
// added in X and that sum added to the lane in double; the values after the
// last eight blocks of 32 are added to the lanes one by one in double, and
// the lanes pairwise. A short row is added one value after another in double.
// The order depends only on `cols`.
template <typename X>
[[gnu::always_inline]] inline void SumRows(const X* __restrict x, int64_t rows, int64_t cols,
                                           double* __restrict out) {
  constexpr int64_t kLanes = 32;
  constexpr int64_t kBlock = 8 * kLanes;
  for (int64_t r = 0; r < rows; ++r) {
    const X* __restrict row = x + r * cols;
    if (cols < kBlock) {
      double sum = 0;
      for (int64_t j = 0; j < cols; ++j) sum += static_cast<double>(row[j]);
      out[r] = sum;
      continue;
    }
    double lanes[kLanes] = {};
    const int64_t blocks = cols / kBlock;
    for (int64_t b = 0; b < blocks; ++b) {
      const X* __restrict p = row + b * kBlock;
      for (int64_t l = 0; l < kLanes; ++l) {
        X sum = p[l] + p[l + kLanes];
        sum += p[l + 2 * kLanes];
        sum += p[l + 3 * kLanes];
        sum += p[l + 4 * kLanes];
        sum += p[l + 5 * kLanes];
        sum += p[l + 6 * kLanes];
        sum += p[l + 7 * kLanes];
        lanes[l] += static_cast<double>(sum);
      }
    }
    int64_t j = blocks * kBlock;
    for (; j + kLanes <= cols; j += kLanes) {
      const X* __restrict p = row + j;
      for (int64_t l = 0; l < kLanes; ++l) lanes[l] += static_cast<double>(p[l]);
    }
    for (int64_t l = 0; j + l < cols; ++l) lanes[l] += static_cast<double>(row[j + l]);
    for (int64_t width = kLanes / 2; width > 0; width /= 2) {
      for (int64_t l = 0; l < width; ++l) lanes[l] += lanes[l + width];
    }
    out[r] = lanes[0];
  }
}

#define MINITF_ALWAYS_INLINE_ [[gnu::always_inline]] inline

MINITF_ALWAYS_INLINE_ void AddCenteredSquares(const float* __restrict x, int64_t rows,
                                              int64_t channels, const double* __restrict mean,
                                              double* __restrict squares) {
  for (int64_t r = 0; r < rows; ++r) {
    const float* __restrict row = x + r * channels;
    for (int64_t c = 0; c < channels; ++c) {
      const double centered = row[c] - mean[c];
      squares[c] += centered * centered;
    }
  }
}

MINITF_ALWAYS_INLINE_ void NormalizeRows(const float* __restrict x, int64_t rows,
                                         int64_t channels, const double* __restrict mean,
                                         const double* __restrict multiplier,
                                         const float* __restrict offset, float* __restrict y) {
  for (int64_t r = 0; r < rows; ++r) {
    const float* __restrict in = x + r * channels;
    float* __restrict out = y + r * channels;
    for (int64_t c = 0; c < channels; ++c) {
      out[c] = static_cast<float>((in[c] - mean[c]) * multiplier[c] + offset[c]);
    }
  }
}

MINITF_ALWAYS_INLINE_ void AddDyAndDyXc(const float* __restrict dy, const float* __restrict x,
                                        int64_t rows, int64_t channels,
                                        const float* __restrict mean, double* __restrict sum_dy,
                                        double* __restrict sum_dy_xc) {
  for (int64_t r = 0; r < rows; ++r) {
    const float* __restrict g = dy + r * channels;
    const float* __restrict in = x + r * channels;
    for (int64_t c = 0; c < channels; ++c) {
      sum_dy[c] += g[c];
      sum_dy_xc[c] += static_cast<double>(g[c]) * (in[c] - mean[c]);
    }
  }
}

MINITF_ALWAYS_INLINE_ void BatchNormBackpropRows(
    const float* __restrict dy, const float* __restrict x, int64_t rows, int64_t channels,
    const float* __restrict mean, const double* __restrict coef,
    const double* __restrict mean_dy, const double* __restrict xc_coef, float* __restrict dx) {
  for (int64_t r = 0; r < rows; ++r) {
    const float* __restrict g = dy + r * channels;
    const float* __restrict in = x + r * channels;
    float* __restrict out = dx + r * channels;
    for (int64_t c = 0; c < channels; ++c) {
      const double xc = static_cast<double>(in[c]) - mean[c];
      out[c] = static_cast<float>(coef[c] * (g[c] - mean_dy[c] - xc * xc_coef[c]));
    }
  }
}

MINITF_ALWAYS_INLINE_ void ScaleRows(const float* __restrict dy, int64_t rows, int64_t channels,
                                     const double* __restrict coef, float* __restrict dx) {
  for (int64_t r = 0; r < rows; ++r) {
    const float* __restrict g = dy + r * channels;
    float* __restrict out = dx + r * channels;
    for (int64_t c = 0; c < channels; ++c) out[c] = static_cast<float>(coef[c] * g[c]);
  }
}

MINITF_ALWAYS_INLINE_ void Accumulate(const float* __restrict x, float* __restrict y,
                                      int64_t n) {
  for (int64_t i = 0; i < n; ++i) y[i] += x[i];
}

// Not restrict: ReluGrad may write into either input's buffer.
MINITF_ALWAYS_INLINE_ void ReluGrad(const float* gradients, const float* features, float* out,
                                    int64_t n) {
  for (int64_t i = 0; i < n; ++i) out[i] = features[i] > 0.0f ? gradients[i] : 0.0f;
}

MINITF_ALWAYS_INLINE_ void Momentum(const MomentumStep<float>& step,
                                    const float* __restrict grad, float* __restrict var,
                                    float* __restrict accum, int64_t n) {
  const float lr = step.lr, momentum = step.momentum;
  if (step.use_nesterov) {
    for (int64_t i = 0; i < n; ++i) {
      const float a = accum[i] * momentum + grad[i];
      accum[i] = a;
      var[i] = var[i] - (grad[i] * lr + a * momentum * lr);
    }
  } else {
    for (int64_t i = 0; i < n; ++i) {
      const float a = accum[i] * momentum + grad[i];
      accum[i] = a;
      var[i] = var[i] - a * lr;
    }
  }
}

template <typename T>
[[gnu::always_inline]] inline void Adam(const AdamStep<T>& step, const T* __restrict grad,
                                        T* __restrict var, T* __restrict m, T* __restrict v,
                                        int64_t n) {
  const T lr_t = step.lr_t, beta1 = step.beta1, epsilon = step.epsilon;
  const T one_minus_beta1 = T(1) - step.beta1;
  const T one_minus_beta2 = T(1) - step.beta2;
  const bool nesterov = step.use_nesterov;
  for (int64_t i = 0; i < n; ++i) {
    const T g = grad[i];
    const T mi = m[i] + (g - m[i]) * one_minus_beta1;
    const T vi = v[i] + (g * g - v[i]) * one_minus_beta2;
    m[i] = mi;
    v[i] = vi;
    const T update = nesterov ? g * one_minus_beta1 + mi * beta1 : mi;
    var[i] = var[i] - (update * lr_t) / (std::sqrt(vi) + epsilon);
  }
}

// The functions of one width, named by `suffix`, compiled with `target`.
#define MINITF_VECTOR_LOOPS_(suffix, target)                                                   \
  target void AddRowsFloat##suffix(const float* x, int64_t rows, int64_t row_stride,           \
                                   int64_t cols, double* acc) {                                \
    AddRows(x, rows, row_stride, cols, acc);                                                   \
  }                                                                                            \
  target void AddRowsDouble##suffix(const double* x, int64_t rows, int64_t row_stride,         \
                                    int64_t cols, double* acc) {                               \
    AddRows(x, rows, row_stride, cols, acc);                                                   \
  }                                                                                            \
  target void SumRowsFloat##suffix(const float* x, int64_t rows, int64_t cols, double* out) {  \
    SumRows(x, rows, cols, out);                                                               \
  }                                                                                            \
  target void SumRowsDouble##suffix(const double* x, int64_t rows, int64_t cols, double* out) { \
    SumRows(x, rows, cols, out);                                                               \
  }                                                                                            \
  target void MomentumFloat##suffix(const MomentumStep<float>& step, const float* grad,       \
                                    float* var, float* accum, int64_t n) {                     \
    Momentum(step, grad, var, accum, n);                                                       \
  }                                                                                            \
  target void AdamFloat##suffix(const AdamStep<float>& step, const float* grad, float* var,    \
                                float* m, float* v, int64_t n) {                               \
    Adam(step, grad, var, m, v, n);                                                            \
  }                                                                                            \
  target void AdamDouble##suffix(const AdamStep<double>& step, const double* grad,             \
                                 double* var, double* m, double* v, int64_t n) {               \
    Adam(step, grad, var, m, v, n);                                                            \
  }                                                                                            \
  target void AddCenteredSquares##suffix(const float* x, int64_t rows, int64_t channels,       \
                                         const double* mean, double* squares) {                \
    AddCenteredSquares(x, rows, channels, mean, squares);                                      \
  }                                                                                            \
  target void NormalizeRows##suffix(const float* x, int64_t rows, int64_t channels,            \
                                    const double* mean, const double* multiplier,              \
                                    const float* offset, float* y) {                           \
    NormalizeRows(x, rows, channels, mean, multiplier, offset, y);                             \
  }                                                                                            \
  target void AddDyAndDyXc##suffix(const float* dy, const float* x, int64_t rows,              \
                                   int64_t channels, const float* mean, double* sum_dy,        \
                                   double* sum_dy_xc) {                                        \
    AddDyAndDyXc(dy, x, rows, channels, mean, sum_dy, sum_dy_xc);                              \
  }                                                                                            \
  target void BatchNormBackpropRows##suffix(const float* dy, const float* x, int64_t rows,     \
                                            int64_t channels, const float* mean,               \
                                            const double* coef, const double* mean_dy,         \
                                            const double* xc_coef, float* dx) {                \
    BatchNormBackpropRows(dy, x, rows, channels, mean, coef, mean_dy, xc_coef, dx);            \
  }                                                                                            \
  target void ScaleRows##suffix(const float* dy, int64_t rows, int64_t channels,               \
                                const double* coef, float* dx) {                               \
    ScaleRows(dy, rows, channels, coef, dx);                                                   \
  }                                                                                            \
  target void Accumulate##suffix(const float* x, float* y, int64_t n) { Accumulate(x, y, n); }  \
  target void ReluGrad##suffix(const float* gradients, const float* features, float* out,      \
                               int64_t n) {                                                    \
    ReluGrad(gradients, features, out, n);                                                     \
  }                                                                                            \
  constexpr VectorLoops kLoops##suffix = {                                                     \
      &AddRowsFloat##suffix,       &AddRowsDouble##suffix,         &SumRowsFloat##suffix,       \
      &SumRowsDouble##suffix,      &AddCenteredSquares##suffix,                                 \
      &NormalizeRows##suffix,      &AddDyAndDyXc##suffix,          &BatchNormBackpropRows##suffix, \
      &ScaleRows##suffix,          &Accumulate##suffix,            &ReluGrad##suffix,           \
      &MomentumFloat##suffix,      &AdamFloat##suffix,                                         \
      &AdamDouble##suffix};

MINITF_VECTOR_LOOPS_(Baseline, )
#if defined(__x86_64__)
MINITF_VECTOR_LOOPS_(Avx2, MINITF_TARGET_AVX2)
MINITF_VECTOR_LOOPS_(Avx512, MINITF_TARGET_AVX512)
#endif

#undef MINITF_VECTOR_LOOPS_
#undef MINITF_ALWAYS_INLINE_

}  // namespace

const VectorLoops& VectorLoopsFor(CpuIsa isa) {
#if defined(__x86_64__)
  return ForCpuIsa(isa, kLoopsBaseline, &kLoopsAvx2, &kLoopsAvx512);
#else
  return ForCpuIsa<VectorLoops>(isa, kLoopsBaseline, nullptr, nullptr);
#endif
}

const VectorLoops& ActiveVectorLoops() {
  static const VectorLoops& loops = VectorLoopsFor(ActiveCpuIsa());
  return loops;
}

}  // namespace minitf::functor
