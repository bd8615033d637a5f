// Element-wise float loops of the CPU kernels that Eigen walks one value at
// a time or with narrow vectors (Tanh, Select, the comparisons, Pow by a
// whole exponent, MaxPool's and MaxPoolGrad's steps over the channels),
// compiled for each x86-64 vector width as cpu_vector_loops.h's are, with
// the same guarantees: the width of ActiveCpuIsa() runs, every width gives
// the same bits, plain functions of raw pointers (the caller splits the
// work over its threads). An output may be the buffer of an input of its
// own type (a forwarded input), except in the max pools' steps.
//
//   functor::ActiveElementwiseLoops().tanh_float(x, y, n);
#ifndef MINITF_OPS_KERNELS_CPU_ELEMENTWISE_LOOPS_H_
#define MINITF_OPS_KERNELS_CPU_ELEMENTWISE_LOOPS_H_

#include <cstdint>

#include "platform/cpu_isa.h"

namespace minitf::functor {

enum class Comparison { kLess, kLessEqual, kGreater, kGreaterEqual, kEqual, kNotEqual };

struct ElementwiseLoops {
  // y = tanh(x) by Eigen's rational approximation (the one TensorFlow's CPU
  // kernel evaluates: a 13th over a 6th degree polynomial of x clamped to
  // +-7.905311, x itself below 0.0004 in magnitude; NaN stays NaN).
  void (*tanh_float)(const float* x, float* y, int64_t n);
  // out = cond ? t : e, element by element.
  void (*select_float)(const bool* cond, const float* t, const float* e, float* out, int64_t n);
  // out[i] = x[i] `op` y[i * y_step], y_step 0 (a scalar) or 1.
  void (*compare_float)(Comparison op, const float* x, const float* y, int64_t y_step,
                        bool* out, int64_t n);
  // y = x^k for a whole 0 <= k <= 31 by squaring and multiplying (1 for
  // k = 0, NaN included).
  void (*whole_power_float)(const float* x, int k, float* y, int64_t n);
  // out[i] = x[i] > out[i] ? x[i] : out[i]: one tap of a max pool (a NaN
  // already in out stays; a NaN in x does not replace a number).
  void (*max_into_float)(const float* x, float* out, int64_t n);
  // Where x[i] > best[i]: best[i] = x[i], best_at[i] = x_offset + i. One tap
  // of MaxPoolGrad's search for each channel's first maximum.
  void (*argmax_into_float)(const float* x, int64_t x_offset, float* best, int64_t* best_at,
                            int64_t n);
};

// The loops compiled for `isa`. REQUIRES: isa <= DetectedCpuIsa() before
// calling any of them.
const ElementwiseLoops& ElementwiseLoopsFor(CpuIsa isa);

// ElementwiseLoopsFor(ActiveCpuIsa()).
const ElementwiseLoops& ActiveElementwiseLoops();

}  // namespace minitf::functor

#endif  // MINITF_OPS_KERNELS_CPU_ELEMENTWISE_LOOPS_H_
