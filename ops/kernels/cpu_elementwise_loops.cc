#include "ops/kernels/cpu_elementwise_loops.h"

// As cpu_vector_loops.cc: bodies written once as always-inlined functions
// with internal linkage, instantiated per width under MINITF_TARGET_*;
// compiled without FMA contraction (ops/CMakeLists.txt).

namespace minitf::functor {
namespace {

#define MINITF_ALWAYS_INLINE_ [[gnu::always_inline]] inline

// Eigen's generic_fast_tanh_float, without FMA: its clamp, its cut-off
// below which tanh(x) is x, and its coefficients.
constexpr float kTanhClamp = 7.90531110763549805f;
constexpr float kTanhTiny = 0.0004f;
constexpr float kAlpha1 = 4.89352455891786e-03f, kAlpha3 = 6.37261928875436e-04f,
                kAlpha5 = 1.48572235717979e-05f, kAlpha7 = 5.12229709037114e-08f,
                kAlpha9 = -8.60467152213735e-11f, kAlpha11 = 2.00018790482477e-13f,
                kAlpha13 = -2.76076847742355e-16f;
constexpr float kBeta0 = 4.89352518554385e-03f, kBeta2 = 2.26843463243900e-03f,
                kBeta4 = 1.18534705686654e-04f, kBeta6 = 1.19825839466702e-06f;

MINITF_ALWAYS_INLINE_ void Tanh(const float* x, float* y, int64_t n) {
  for (int64_t i = 0; i < n; ++i) {
    const float a = x[i];
    float c = a > kTanhClamp ? kTanhClamp : a;  // A NaN passes both clamps.
    c = c < -kTanhClamp ? -kTanhClamp : c;
    const float c2 = c * c;
    float p = c2 * kAlpha13 + kAlpha11;
    p = c2 * p + kAlpha9;
    p = c2 * p + kAlpha7;
    p = c2 * p + kAlpha5;
    p = c2 * p + kAlpha3;
    p = c2 * p + kAlpha1;
    p = c * p;
    float q = c2 * kBeta6 + kBeta4;
    q = c2 * q + kBeta2;
    q = c2 * q + kBeta0;
    const float r = p / q;
    y[i] = (a < kTanhTiny && a > -kTanhTiny) ? a : r;
  }
}

MINITF_ALWAYS_INLINE_ void Select(const bool* cond, const float* t, const float* e, float* out,
                                  int64_t n) {
  // Both values read first, the condition as bytes: a blend, which the
  // compiler vectorizes (a conditional read, or a bool, it does not).
  const unsigned char* c = reinterpret_cast<const unsigned char*>(cond);
  for (int64_t i = 0; i < n; ++i) {
    const float a = t[i];
    const float b = e[i];
    out[i] = c[i] != 0 ? a : b;
  }
}

// One comparison, y a vector or (kStep 0) a scalar.
template <int kStep, typename Op>
MINITF_ALWAYS_INLINE_ void CompareWith(const float* __restrict x, const float* __restrict y,
                                       bool* __restrict out, int64_t n, Op op) {
  if constexpr (kStep == 0) {
    const float s = y[0];
    for (int64_t i = 0; i < n; ++i) out[i] = op(x[i], s);
  } else {
    for (int64_t i = 0; i < n; ++i) out[i] = op(x[i], y[i]);
  }
}

template <int kStep>
MINITF_ALWAYS_INLINE_ void CompareStep(Comparison op, const float* x, const float* y, bool* out,
                                       int64_t n) {
  switch (op) {
    case Comparison::kLess:
      return CompareWith<kStep>(x, y, out, n, [](float a, float b) { return a < b; });
    case Comparison::kLessEqual:
      return CompareWith<kStep>(x, y, out, n, [](float a, float b) { return a <= b; });
    case Comparison::kGreater:
      return CompareWith<kStep>(x, y, out, n, [](float a, float b) { return a > b; });
    case Comparison::kGreaterEqual:
      return CompareWith<kStep>(x, y, out, n, [](float a, float b) { return a >= b; });
    case Comparison::kEqual:
      return CompareWith<kStep>(x, y, out, n, [](float a, float b) { return a == b; });
    case Comparison::kNotEqual:
      return CompareWith<kStep>(x, y, out, n, [](float a, float b) { return a != b; });
  }
}

MINITF_ALWAYS_INLINE_ void Compare(Comparison op, const float* x, const float* y, int64_t y_step,
                                   bool* out, int64_t n) {
  if (y_step == 0) {
    CompareStep<0>(op, x, y, out, n);
  } else {
    CompareStep<1>(op, x, y, out, n);
  }
}

// WholePower's multiplications and squarings, in its order, with the five
// bits of k unrolled so that the element loop vectorizes (each bit's
// multiplication becomes a blend); squarings past k's highest bit change
// nothing.
MINITF_ALWAYS_INLINE_ void WholePower(const float* x, int k, float* y, int64_t n) {
  const bool b0 = k & 1, b1 = k & 2, b2 = k & 4, b3 = k & 8, b4 = k & 16;
  for (int64_t i = 0; i < n; ++i) {
    float base = x[i];
    float result = 1.0f;
    if (b0) result *= base;
    base *= base;
    if (b1) result *= base;
    base *= base;
    if (b2) result *= base;
    base *= base;
    if (b3) result *= base;
    base *= base;
    if (b4) result *= base;
    y[i] = result;
  }
}

MINITF_ALWAYS_INLINE_ void MaxInto(const float* __restrict x, float* __restrict out, int64_t n) {
  for (int64_t i = 0; i < n; ++i) {
    const float a = x[i];
    const float b = out[i];
    out[i] = a > b ? a : b;
  }
}

// Both values chosen by one comparison, computed unconditionally: blends.
MINITF_ALWAYS_INLINE_ void ArgMaxInto(const float* __restrict x, int64_t x_offset,
                                      float* __restrict best, int64_t* __restrict best_at,
                                      int64_t n) {
  for (int64_t i = 0; i < n; ++i) {
    const float a = x[i];
    const float b = best[i];
    const int64_t at = best_at[i];
    const bool greater = a > b;
    best[i] = greater ? a : b;
    best_at[i] = greater ? x_offset + i : at;
  }
}

#define MINITF_ELEMENTWISE_LOOPS_(suffix, target)                                              \
  target void Tanh##suffix(const float* x, float* y, int64_t n) { Tanh(x, y, n); }             \
  target void Select##suffix(const bool* cond, const float* t, const float* e, float* out,     \
                             int64_t n) {                                                      \
    Select(cond, t, e, out, n);                                                                \
  }                                                                                            \
  target void Compare##suffix(Comparison op, const float* x, const float* y, int64_t y_step,   \
                              bool* out, int64_t n) {                                          \
    Compare(op, x, y, y_step, out, n);                                                         \
  }                                                                                            \
  target void WholePower##suffix(const float* x, int k, float* y, int64_t n) {                 \
    WholePower(x, k, y, n);                                                                    \
  }                                                                                            \
  target void MaxInto##suffix(const float* x, float* out, int64_t n) { MaxInto(x, out, n); }   \
  target void ArgMaxInto##suffix(const float* x, int64_t x_offset, float* best,              \
                                 int64_t* best_at, int64_t n) {                              \
    ArgMaxInto(x, x_offset, best, best_at, n);                                                 \
  }                                                                                            \
  constexpr ElementwiseLoops kLoops##suffix = {&Tanh##suffix,       &Select##suffix,           \
                                               &Compare##suffix,    &WholePower##suffix,       \
                                               &MaxInto##suffix,    &ArgMaxInto##suffix};

MINITF_ELEMENTWISE_LOOPS_(Baseline, )
#if defined(__x86_64__)
MINITF_ELEMENTWISE_LOOPS_(Avx2, MINITF_TARGET_AVX2)
MINITF_ELEMENTWISE_LOOPS_(Avx512, MINITF_TARGET_AVX512)
#endif

#undef MINITF_ELEMENTWISE_LOOPS_
#undef MINITF_ALWAYS_INLINE_

}  // namespace

const ElementwiseLoops& ElementwiseLoopsFor(CpuIsa isa) {
#if defined(__x86_64__)
  return ForCpuIsa(isa, kLoopsBaseline, &kLoopsAvx2, &kLoopsAvx512);
#else
  return ForCpuIsa<ElementwiseLoops>(isa, kLoopsBaseline, nullptr, nullptr);
#endif
}

const ElementwiseLoops& ActiveElementwiseLoops() {
  static const ElementwiseLoops& loops = ElementwiseLoopsFor(ActiveCpuIsa());
  return loops;
}

}  // namespace minitf::functor
