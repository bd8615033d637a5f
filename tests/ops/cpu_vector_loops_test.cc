// The host loops compiled per vector width (ops/kernels/cpu_vector_loops.h)
// and the sums built on them (cpu_column_sum.h, cpu_row_sum.h): every width
// this processor has gives the same bits as the baseline, and the baseline
// the answer of a plain loop written here; the sums against sums in long
// double, over shapes whose blocks do not divide the columns. ctest also
// runs the reduction, bias and training-op tests under MINITF_MAX_CPU_ISA
// =avx2 and =baseline (tests/CMakeLists.txt).
#include "ops/kernels/cpu_vector_loops.h"

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <type_traits>
#include <random>
#include <vector>

#include "gtest/gtest.h"
#include "ops/kernels/cpu_column_sum.h"
#include "ops/kernels/cpu_row_sum.h"
#include "runtime/threadpool.h"

namespace minitf::functor {
namespace {

std::vector<CpuIsa> AvailableIsas() {
  std::vector<CpuIsa> isas;
  for (CpuIsa isa : {CpuIsa::kBaseline, CpuIsa::kAvx2, CpuIsa::kAvx512}) {
    if (isa <= DetectedCpuIsa()) isas.push_back(isa);
  }
  return isas;
}

template <typename T>
std::vector<T> Random(int64_t n, unsigned seed, double low = -1, double high = 1) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> dist(low, high);
  std::vector<T> out(static_cast<size_t>(n));
  for (T& v : out) v = static_cast<T>(dist(rng));
  return out;
}

template <typename T>
bool SameBits(const std::vector<T>& a, const std::vector<T>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(T)) == 0;
}

// add_rows as its header says: each eight rows added in X, one row after
// another, that sum into the accumulator in double; the rest one by one.
template <typename X>
void ReferenceAddRows(const std::vector<X>& x, int64_t rows, int64_t stride, int64_t cols,
                      std::vector<double>* acc) {
  int64_t r = 0;
  for (; r + 8 <= rows; r += 8) {
    for (int64_t j = 0; j < cols; ++j) {
      X sum = x[r * stride + j];
      for (int64_t k = 1; k < 8; ++k) sum += x[(r + k) * stride + j];
      (*acc)[j] += static_cast<double>(sum);
    }
  }
  for (; r < rows; ++r) {
    for (int64_t j = 0; j < cols; ++j) (*acc)[j] += static_cast<double>(x[r * stride + j]);
  }
}

TEST(VectorLoopsTest, AddRowsIsTheSameAtEveryWidth) {
  // 37 columns of a 41-wide row, 29 rows (three blocks of eight and five
  // more): no width divides either.
  const int64_t rows = 29, stride = 41, cols = 37;
  const std::vector<float> x = Random<float>(rows * stride, 1, -1e3, 1e3);
  const std::vector<double> xd = Random<double>(rows * stride, 2, -1e3, 1e3);
  std::vector<double> expected(cols, 0.5), expected_d(cols, 0.5);
  ReferenceAddRows(x, rows, stride, cols, &expected);
  ReferenceAddRows(xd, rows, stride, cols, &expected_d);
  for (CpuIsa isa : AvailableIsas()) {
    SCOPED_TRACE(CpuIsaName(isa));
    std::vector<double> acc(cols, 0.5), acc_d(cols, 0.5);
    VectorLoopsFor(isa).add_rows_float(x.data(), rows, stride, cols, acc.data());
    VectorLoopsFor(isa).add_rows_double(xd.data(), rows, stride, cols, acc_d.data());
    EXPECT_TRUE(SameBits(acc, expected));
    EXPECT_TRUE(SameBits(acc_d, expected_d));
  }
}

// TensorFlow's ApplyAdam, element by element.
template <typename T>
void ReferenceAdam(const AdamStep<T>& s, const std::vector<T>& g, std::vector<T>* var,
                   std::vector<T>* m, std::vector<T>* v) {
  for (size_t i = 0; i < g.size(); ++i) {
    (*m)[i] = (*m)[i] + (g[i] - (*m)[i]) * (T(1) - s.beta1);
    (*v)[i] = (*v)[i] + (g[i] * g[i] - (*v)[i]) * (T(1) - s.beta2);
    const T numerator =
        s.use_nesterov ? (g[i] * (T(1) - s.beta1) + (*m)[i] * s.beta1) * s.lr_t : (*m)[i] * s.lr_t;
    (*var)[i] = (*var)[i] - numerator / (std::sqrt((*v)[i]) + s.epsilon);
  }
}

template <typename T>
void CheckAdam(bool nesterov) {
  const int64_t n = 1000 + 13;
  AdamStep<T> step;
  step.lr_t = T(0.00123);
  step.beta1 = T(0.9);
  step.beta2 = T(0.999);
  step.epsilon = T(1e-7);
  step.use_nesterov = nesterov;
  const std::vector<T> grad = Random<T>(n, 3, -2, 2);
  const std::vector<T> var0 = Random<T>(n, 4), m0 = Random<T>(n, 5);
  const std::vector<T> v0 = Random<T>(n, 6, 0, 1);
  std::vector<T> var = var0, m = m0, v = v0;
  ReferenceAdam(step, grad, &var, &m, &v);
  for (CpuIsa isa : AvailableIsas()) {
    SCOPED_TRACE(CpuIsaName(isa));
    std::vector<T> var1 = var0, m1 = m0, v1 = v0;
    if constexpr (std::is_same_v<T, float>) {
      VectorLoopsFor(isa).adam_float(step, grad.data(), var1.data(), m1.data(), v1.data(), n);
    } else {
      VectorLoopsFor(isa).adam_double(step, grad.data(), var1.data(), m1.data(), v1.data(), n);
    }
    EXPECT_TRUE(SameBits(m1, m));
    EXPECT_TRUE(SameBits(v1, v));
    for (int64_t i = 0; i < n; ++i) {
      ASSERT_NEAR(var1[i], var[i], std::abs(var[i]) * 4 * std::numeric_limits<T>::epsilon())
          << i;
    }
    if (isa != CpuIsa::kBaseline) {
      std::vector<T> var_b = var0, m_b = m0, v_b = v0;
      if constexpr (std::is_same_v<T, float>) {
        VectorLoopsFor(CpuIsa::kBaseline)
            .adam_float(step, grad.data(), var_b.data(), m_b.data(), v_b.data(), n);
      } else {
        VectorLoopsFor(CpuIsa::kBaseline)
            .adam_double(step, grad.data(), var_b.data(), m_b.data(), v_b.data(), n);
      }
      EXPECT_TRUE(SameBits(var1, var_b));
    }
  }
}

TEST(VectorLoopsTest, MomentumMatchesTensorFlowsUpdateAtEveryWidth) {
  const int64_t n = 1000 + 13;
  const std::vector<float> grad = Random<float>(n, 41, -2, 2);
  const std::vector<float> var0 = Random<float>(n, 42), accum0 = Random<float>(n, 43);
  for (bool nesterov : {false, true}) {
    SCOPED_TRACE(nesterov);
    const MomentumStep<float> step{0.1f, 0.9f, nesterov};
    // TensorFlow's ApplyMomentum, element by element, each product rounded.
    std::vector<float> var = var0, accum = accum0;
    for (int64_t i = 0; i < n; ++i) {
      const float scaled = accum[i] * step.momentum;
      accum[i] = scaled + grad[i];
      if (nesterov) {
        const float g_lr = grad[i] * step.lr;
        const float a_m = accum[i] * step.momentum;
        var[i] = var[i] - (g_lr + a_m * step.lr);
      } else {
        const float a_lr = accum[i] * step.lr;
        var[i] = var[i] - a_lr;
      }
    }
    for (CpuIsa isa : AvailableIsas()) {
      SCOPED_TRACE(CpuIsaName(isa));
      std::vector<float> var1 = var0, accum1 = accum0;
      VectorLoopsFor(isa).momentum_float(step, grad.data(), var1.data(), accum1.data(), n);
      EXPECT_TRUE(SameBits(accum1, accum));
      EXPECT_TRUE(SameBits(var1, var));
    }
  }
}

TEST(VectorLoopsTest, AdamMatchesTensorFlowsUpdateAtEveryWidth) {
  CheckAdam<float>(false);
  CheckAdam<float>(true);
  CheckAdam<double>(false);
  CheckAdam<double>(true);
}

// sum_rows as its header says: a row of fewer than 256 values one value
// after another in double; a longer one in 32 lanes, each block of 256
// values added per lane in X (eight values), into the lane in double, then
// the values left one by one into the lanes, then the lanes pairwise.
template <typename X>
double ReferenceSumRow(const X* row, int64_t cols) {
  if (cols < 256) {
    double sum = 0;
    for (int64_t j = 0; j < cols; ++j) sum += static_cast<double>(row[j]);
    return sum;
  }
  std::vector<double> lanes(32, 0.0);
  const int64_t blocks = cols / 256;
  for (int64_t b = 0; b < blocks; ++b) {
    for (int64_t l = 0; l < 32; ++l) {
      X sum = row[b * 256 + l];
      for (int64_t k = 1; k < 8; ++k) sum += row[b * 256 + k * 32 + l];
      lanes[l] += static_cast<double>(sum);
    }
  }
  for (int64_t j = blocks * 256; j < cols; ++j) lanes[(j - blocks * 256) % 32] += row[j];
  for (int64_t width = 16; width > 0; width /= 2) {
    for (int64_t l = 0; l < width; ++l) lanes[l] += lanes[l + width];
  }
  return lanes[0];
}

TEST(VectorLoopsTest, SumRowsIsTheSameAtEveryWidth) {
  for (const int64_t cols : {0, 1, 31, 255, 256, 257, 288, 1000, 2013}) {
    SCOPED_TRACE(cols);
    const int64_t rows = 3;
    const std::vector<float> x = Random<float>(rows * cols, 51, -1e3, 1e3);
    const std::vector<double> xd = Random<double>(rows * cols, 52, -1e3, 1e3);
    std::vector<double> expected(rows), expected_d(rows);
    for (int64_t r = 0; r < rows; ++r) {
      expected[r] = ReferenceSumRow(x.data() + r * cols, cols);
      expected_d[r] = ReferenceSumRow(xd.data() + r * cols, cols);
    }
    for (CpuIsa isa : AvailableIsas()) {
      SCOPED_TRACE(CpuIsaName(isa));
      std::vector<double> out(rows, -1.0), out_d(rows, -1.0);
      VectorLoopsFor(isa).sum_rows_float(x.data(), rows, cols, out.data());
      VectorLoopsFor(isa).sum_rows_double(xd.data(), rows, cols, out_d.data());
      EXPECT_TRUE(SameBits(out, expected));
      EXPECT_TRUE(SameBits(out_d, expected_d));
    }
  }
}

// Each batch-norm loop at every width against the formula its header
// gives, element by element, bit for bit: 19 channels (no width divides
// them) over 23 rows.
TEST(VectorLoopsTest, BatchNormRowsAreTheSameAtEveryWidth) {
  const int64_t rows = 23, channels = 19, n = rows * channels;
  const std::vector<float> x = Random<float>(n, 11, -3, 3), dy = Random<float>(n, 12, -1, 1);
  const std::vector<float> offset = Random<float>(channels, 13), mean_f = Random<float>(channels, 14);
  const std::vector<double> mean = Random<double>(channels, 15), multiplier = Random<double>(channels, 16);
  const std::vector<double> coef = Random<double>(channels, 17), mean_dy = Random<double>(channels, 18);
  const std::vector<double> xc_coef = Random<double>(channels, 19);
  std::vector<double> squares(channels, 0.25), sum_dy(channels, 0.5), sum_dy_xc(channels, -0.5);
  std::vector<float> y(n), dx(n), scaled(n);
  for (int64_t r = 0; r < rows; ++r) {
    for (int64_t c = 0; c < channels; ++c) {
      const int64_t i = r * channels + c;
      const double centered = x[i] - mean[c];
      squares[c] += centered * centered;
      y[i] = static_cast<float>((x[i] - mean[c]) * multiplier[c] + offset[c]);
      sum_dy[c] += dy[i];
      const float xc_f = x[i] - mean_f[c];
      sum_dy_xc[c] += static_cast<double>(dy[i]) * xc_f;
      const double xc = static_cast<double>(x[i]) - mean_f[c];
      const double inner = dy[i] - mean_dy[c] - xc * xc_coef[c];
      dx[i] = static_cast<float>(coef[c] * inner);
      scaled[i] = static_cast<float>(coef[c] * dy[i]);
    }
  }
  for (CpuIsa isa : AvailableIsas()) {
    SCOPED_TRACE(CpuIsaName(isa));
    const VectorLoops& loops = VectorLoopsFor(isa);
    std::vector<double> squares1(channels, 0.25), sum_dy1(channels, 0.5), sum_dy_xc1(channels, -0.5);
    std::vector<float> y1(n), dx1(n), scaled1(n);
    loops.add_centered_squares(x.data(), rows, channels, mean.data(), squares1.data());
    loops.normalize_rows(x.data(), rows, channels, mean.data(), multiplier.data(), offset.data(),
                         y1.data());
    loops.add_dy_and_dy_xc(dy.data(), x.data(), rows, channels, mean_f.data(), sum_dy1.data(),
                           sum_dy_xc1.data());
    loops.batch_norm_backprop_rows(dy.data(), x.data(), rows, channels, mean_f.data(),
                                   coef.data(), mean_dy.data(), xc_coef.data(), dx1.data());
    loops.scale_rows(dy.data(), rows, channels, coef.data(), scaled1.data());
    EXPECT_TRUE(SameBits(squares1, squares));
    EXPECT_TRUE(SameBits(y1, y));
    EXPECT_TRUE(SameBits(sum_dy1, sum_dy));
    EXPECT_TRUE(SameBits(sum_dy_xc1, sum_dy_xc));
    EXPECT_TRUE(SameBits(dx1, dx));
    EXPECT_TRUE(SameBits(scaled1, scaled));
  }
}

TEST(VectorLoopsTest, AccumulateAddsElementwiseAtEveryWidth) {
  const int64_t n = 64 * 3 + 5;
  const std::vector<float> x = Random<float>(n, 31), y0 = Random<float>(n, 32);
  std::vector<float> expected = y0;
  for (int64_t i = 0; i < n; ++i) expected[i] += x[i];
  for (CpuIsa isa : AvailableIsas()) {
    SCOPED_TRACE(CpuIsaName(isa));
    std::vector<float> y = y0;
    VectorLoopsFor(isa).accumulate_float(x.data(), y.data(), n);
    EXPECT_TRUE(SameBits(y, expected));
  }
}

TEST(VectorLoopsTest, ReluGradPassesGradientsOfPositiveFeaturesInPlace) {
  const int64_t n = 1000 + 7;
  std::vector<float> features = Random<float>(n, 21, -1, 1);
  features[3] = 0.0f;
  features[4] = -0.0f;
  features[5] = std::numeric_limits<float>::quiet_NaN();
  features[6] = std::numeric_limits<float>::infinity();
  const std::vector<float> gradients = Random<float>(n, 22, -5, 5);
  std::vector<float> expected(n);
  for (int64_t i = 0; i < n; ++i) expected[i] = features[i] > 0 ? gradients[i] : 0.0f;
  EXPECT_EQ(expected[5], 0.0f);  // A NaN feature passes nothing.
  for (CpuIsa isa : AvailableIsas()) {
    SCOPED_TRACE(CpuIsaName(isa));
    std::vector<float> out(n, -7.0f);
    VectorLoopsFor(isa).relu_grad_float(gradients.data(), features.data(), out.data(), n);
    EXPECT_TRUE(SameBits(out, expected));
    // Into the gradients' own buffer, as a forwarded input.
    std::vector<float> in_place = gradients;
    VectorLoopsFor(isa).relu_grad_float(in_place.data(), features.data(), in_place.data(), n);
    EXPECT_TRUE(SameBits(in_place, expected));
  }
}

TEST(VectorLoopsTest, ActiveLoopsAreThoseOfTheActiveWidth) {
  EXPECT_EQ(&ActiveVectorLoops(), &VectorLoopsFor(ActiveCpuIsa()));
}

// out[o, i] = sum over r of in[o, r, i], in long double, and how far a
// float sum may be from it: adding blocks of eight floats in float errs by at
// most 7 units of 2^-24 of the block's magnitudes, adding the blocks in
// double by far less, and rounding to float by half a unit in the last place.
struct ReferenceSums {
  std::vector<long double> sum;
  std::vector<long double> float_error_bound;
};

template <typename T>
ReferenceSums ReferenceSum(const std::vector<T>& in, int64_t outer, int64_t folded,
                           int64_t inner) {
  ReferenceSums ref;
  for (int64_t o = 0; o < outer; ++o) {
    for (int64_t i = 0; i < inner; ++i) {
      long double sum = 0, magnitude = 0;
      for (int64_t r = 0; r < folded; ++r) {
        sum += in[(o * folded + r) * inner + i];
        magnitude += std::abs(static_cast<long double>(in[(o * folded + r) * inner + i]));
      }
      ref.sum.push_back(sum);
      const long double half_ulp =
          std::abs(static_cast<long double>(std::nextafter(static_cast<float>(sum), 0.0f)) -
                   static_cast<float>(sum));
      ref.float_error_bound.push_back(half_ulp + 8 * std::ldexp(1.0L, -24) * magnitude);
    }
  }
  return ref;
}

// A plain float loop's error on the same sums, row after row: what the
// bound above rules out.
template <typename T>
long double NaiveFloatError(const std::vector<T>& in, int64_t folded, long double exact) {
  float sum = 0;
  for (int64_t r = 0; r < folded; ++r) sum += static_cast<float>(in[r]);
  return std::abs(static_cast<long double>(sum) - exact);
}

TEST(ColumnSumTest, SumsTheMiddleAxisOverBlocksAndThreads) {
  ThreadPool pool("intra_op", 3);
  struct Shape {
    int64_t outer, folded, inner;
  };
  for (const Shape s : {Shape{1, 1024, 768}, Shape{1, 7, 3}, Shape{5, 33, 17}, Shape{3, 1, 300},
                        Shape{2, 0, 40}, Shape{1, 5000, 2}, Shape{64, 9, 1000}}) {
    SCOPED_TRACE(testing::Message() << s.outer << "x" << s.folded << "x" << s.inner);
    const std::vector<float> in = Random<float>(s.outer * s.folded * s.inner, 7);
    const std::vector<double> in_d = Random<double>(s.outer * s.folded * s.inner, 8);
    std::vector<float> out(static_cast<size_t>(s.outer * s.inner), -1.0f);
    std::vector<double> out_d(static_cast<size_t>(s.outer * s.inner), -1.0);
    SumMiddleAxis<float>(pool.eigen_device(), in.data(), s.outer, s.folded, s.inner, out.data());
    SumMiddleAxis<double>(pool.eigen_device(), in_d.data(), s.outer, s.folded, s.inner,
                          out_d.data());
    const ReferenceSums expected = ReferenceSum(in, s.outer, s.folded, s.inner);
    const ReferenceSums expected_d = ReferenceSum(in_d, s.outer, s.folded, s.inner);
    for (size_t i = 0; i < out.size(); ++i) {
      ASSERT_LE(std::abs(out[i] - expected.sum[i]), expected.float_error_bound[i]) << i;
      ASSERT_NEAR(out_d[i], static_cast<double>(expected_d.sum[i]), 1e-12 * (1 + s.folded)) << i;
    }
  }
}

TEST(RowSumTest, SumsTheInnerAxisOverChunksAndThreads) {
  ThreadPool pool("intra_op", 3);
  struct Shape {
    int64_t outer, folded;
  };
  // Rows shorter than a lane block, longer than several, and longer than a
  // chunk (16384 values), which threads add separately.
  for (const Shape s : {Shape{1, 1}, Shape{7, 3}, Shape{5, 0}, Shape{300, 1000},
                        Shape{1, 100003}, Shape{3, 16385}, Shape{2000, 37}}) {
    SCOPED_TRACE(testing::Message() << s.outer << "x" << s.folded);
    const std::vector<float> in = Random<float>(s.outer * s.folded, 61);
    const std::vector<double> in_d = Random<double>(s.outer * s.folded, 62);
    std::vector<float> out(static_cast<size_t>(s.outer), -1.0f);
    std::vector<double> out_d(static_cast<size_t>(s.outer), -1.0);
    SumInnerAxis<float>(pool.eigen_device(), in.data(), s.outer, s.folded, out.data());
    SumInnerAxis<double>(pool.eigen_device(), in_d.data(), s.outer, s.folded, out_d.data());
    const ReferenceSums expected = ReferenceSum(in, s.outer, s.folded, 1);
    const ReferenceSums expected_d = ReferenceSum(in_d, s.outer, s.folded, 1);
    for (size_t i = 0; i < out.size(); ++i) {
      ASSERT_LE(std::abs(out[i] - expected.sum[i]), expected.float_error_bound[i]) << i;
      ASSERT_NEAR(out_d[i], static_cast<double>(expected_d.sum[i]), 1e-12 * (1 + s.folded)) << i;
    }
  }
}

TEST(RowSumTest, ALongSumKeepsWhatAFloatLoopLoses) {
  // 10^8 and then 2^20 ones: a float running sum stays at 10^8 (a float
  // there is a multiple of 8), so it loses all 2^20 of them.
  const int64_t n = (int64_t{1} << 20) + 1;
  std::vector<float> in(static_cast<size_t>(n), 1.0f);
  in[0] = 1e8f;
  ThreadPool pool("intra_op", 2);
  float out = -1;
  SumInnerAxis<float>(pool.eigen_device(), in.data(), 1, n, &out);
  const ReferenceSums expected = ReferenceSum(in, 1, n, 1);
  EXPECT_EQ(expected.sum[0], 1e8L + (1 << 20));
  const long double error = std::abs(out - expected.sum[0]);
  EXPECT_LE(error, expected.float_error_bound[0]);
  // Within two floats of the exact sum (only the first block of eight
  // loses its ones).
  EXPECT_LE(error, 16);
  EXPECT_EQ(NaiveFloatError(in, n, expected.sum[0]), 1 << 20);
}

TEST(RowSumTest, TheResultDoesNotDependOnTheThreads) {
  ThreadPool pool1("one", 1), pool4("four", 4);
  for (const int64_t outer : {1, 40}) {
    const int64_t folded = outer == 1 ? 200000 : 5000;
    const std::vector<float> in = Random<float>(outer * folded, 64, -1e4, 1e4);
    std::vector<float> one(outer), four(outer);
    SumInnerAxis<float>(pool1.eigen_device(), in.data(), outer, folded, one.data());
    SumInnerAxis<float>(pool4.eigen_device(), in.data(), outer, folded, four.data());
    EXPECT_TRUE(SameBits(one, four));
  }
}

TEST(ColumnSumTest, TheResultDoesNotDependOnTheThreads) {
  const int64_t outer = 3, folded = 200, inner = 1000;
  const std::vector<float> in = Random<float>(outer * folded * inner, 9, -1e4, 1e4);
  std::vector<float> one(outer * inner), four(outer * inner);
  ThreadPool pool1("one", 1), pool4("four", 4);
  SumMiddleAxis<float>(pool1.eigen_device(), in.data(), outer, folded, inner, one.data());
  SumMiddleAxis<float>(pool4.eigen_device(), in.data(), outer, folded, inner, four.data());
  EXPECT_TRUE(SameBits(one, four));
}

}  // namespace
}  // namespace minitf::functor
