// The element-wise float loops compiled per vector width (ops/kernels/
// cpu_elementwise_loops.h): every width this processor has gives the bits
// of the baseline, and the baseline the answers TensorFlow's kernels give
// (Tanh within Eigen's approximation of std::tanh; Select, the comparisons,
// Pow by a whole exponent and the max pools' steps exactly), NaN and
// infinities included. ctest
// also runs this binary and the element-wise op tests under
// MINITF_MAX_CPU_ISA=avx2 and =baseline.
#include "ops/kernels/cpu_elementwise_loops.h"

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <memory>
#include <random>
#include <vector>

#include "gtest/gtest.h"

namespace minitf::functor {
namespace {

constexpr float kInf = std::numeric_limits<float>::infinity();
constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();

std::vector<CpuIsa> AvailableIsas() {
  std::vector<CpuIsa> isas;
  for (CpuIsa isa : {CpuIsa::kBaseline, CpuIsa::kAvx2, CpuIsa::kAvx512}) {
    if (isa <= DetectedCpuIsa()) isas.push_back(isa);
  }
  return isas;
}

// 1000 values over [-10, 10] and the special ones, 1013 in all (no width
// divides it).
std::vector<float> Values(unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(-10, 10);
  std::vector<float> v(1000);
  for (float& x : v) x = dist(rng);
  for (float special : {0.0f, -0.0f, 1e-5f, -3e-4f, 7.9f, -8.5f, 20.0f, kInf, -kInf, kNaN,
                        1.0f, -1.0f, 3.0f}) {
    v.push_back(special);
  }
  return v;
}

template <typename T>
bool SameBits(const std::vector<T>& a, const std::vector<T>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(T)) == 0;
}

TEST(ElementwiseLoopsTest, TanhApproximatesStdTanhTheSameAtEveryWidth) {
  const std::vector<float> x = Values(1);
  const int64_t n = static_cast<int64_t>(x.size());
  std::vector<float> baseline(n);
  ElementwiseLoopsFor(CpuIsa::kBaseline).tanh_float(x.data(), baseline.data(), n);
  for (int64_t i = 0; i < n; ++i) {
    if (std::isnan(x[i])) {
      EXPECT_TRUE(std::isnan(baseline[i]));
    } else {
      EXPECT_NEAR(baseline[i], std::tanh(x[i]), 2e-6) << x[i];
      EXPECT_LE(std::abs(baseline[i]), 1.0f) << x[i];
    }
  }
  EXPECT_EQ(baseline[n - 13 + 1], -0.0f);  // tanh(-0) is x itself.
  for (CpuIsa isa : AvailableIsas()) {
    SCOPED_TRACE(CpuIsaName(isa));
    std::vector<float> y(n);
    ElementwiseLoopsFor(isa).tanh_float(x.data(), y.data(), n);
    EXPECT_TRUE(SameBits(y, baseline));
    std::vector<float> in_place = x;
    ElementwiseLoopsFor(isa).tanh_float(in_place.data(), in_place.data(), n);
    EXPECT_TRUE(SameBits(in_place, baseline));
  }
}

TEST(ElementwiseLoopsTest, SelectTakesThenWhereTheConditionHolds) {
  const std::vector<float> t = Values(2), e = Values(3);
  const int64_t n = static_cast<int64_t>(t.size());
  std::unique_ptr<bool[]> owned(new bool[n]);
  bool* cond = owned.get();
  for (int64_t i = 0; i < n; ++i) cond[i] = (i * 7) % 3 == 0;
  std::vector<float> expected(n);
  for (int64_t i = 0; i < n; ++i) expected[i] = cond[i] ? t[i] : e[i];
  for (CpuIsa isa : AvailableIsas()) {
    SCOPED_TRACE(CpuIsaName(isa));
    std::vector<float> out(n);
    ElementwiseLoopsFor(isa).select_float(cond, t.data(), e.data(), out.data(), n);
    EXPECT_TRUE(SameBits(out, expected));
    std::vector<float> in_place = e;  // The output in the 'else' buffer.
    ElementwiseLoopsFor(isa).select_float(cond, t.data(), in_place.data(), in_place.data(), n);
    EXPECT_TRUE(SameBits(in_place, expected));
  }
}

bool Reference(Comparison op, float a, float b) {
  switch (op) {
    case Comparison::kLess: return a < b;
    case Comparison::kLessEqual: return a <= b;
    case Comparison::kGreater: return a > b;
    case Comparison::kGreaterEqual: return a >= b;
    case Comparison::kEqual: return a == b;
    case Comparison::kNotEqual: return a != b;
  }
  return false;
}

TEST(ElementwiseLoopsTest, ComparisonsAgainstVectorsAndScalarsNaNIncluded) {
  std::vector<float> x = Values(4), y = Values(5);
  const int64_t n = static_cast<int64_t>(x.size());
  y[3] = x[3];  // Some equal pairs.
  y[n - 1] = x[n - 1];
  for (Comparison op : {Comparison::kLess, Comparison::kLessEqual, Comparison::kGreater,
                        Comparison::kGreaterEqual, Comparison::kEqual, Comparison::kNotEqual}) {
    for (const float scalar : {0.0f, 3.0f, kNaN}) {
      SCOPED_TRACE(testing::Message() << static_cast<int>(op) << " scalar " << scalar);
      std::vector<char> want_vector(n), want_scalar(n);
      for (int64_t i = 0; i < n; ++i) {
        want_vector[i] = Reference(op, x[i], y[i]);
        want_scalar[i] = Reference(op, x[i], scalar);
      }
      for (CpuIsa isa : AvailableIsas()) {
        SCOPED_TRACE(CpuIsaName(isa));
        std::unique_ptr<bool[]> owned(new bool[n]);
        bool* out = owned.get();
        ElementwiseLoopsFor(isa).compare_float(op, x.data(), y.data(), 1, out, n);
        for (int64_t i = 0; i < n; ++i) ASSERT_EQ(out[i], want_vector[i] != 0) << i;
        ElementwiseLoopsFor(isa).compare_float(op, x.data(), &scalar, 0, out, n);
        for (int64_t i = 0; i < n; ++i) ASSERT_EQ(out[i], want_scalar[i] != 0) << i;
      }
    }
  }
}

TEST(ElementwiseLoopsTest, WholePowerMultipliesAsRepeatedSquaring) {
  const std::vector<float> x = Values(6);
  const int64_t n = static_cast<int64_t>(x.size());
  for (int k = 0; k <= 16; ++k) {
    SCOPED_TRACE(k);
    std::vector<float> expected(n);
    for (int64_t i = 0; i < n; ++i) {
      float result = 1.0f, base = x[i];
      for (int e = k; e > 0; e >>= 1) {
        if (e & 1) result *= base;
        base *= base;
      }
      expected[i] = result;
    }
    if (k == 0) {
      EXPECT_EQ(expected[n - 4], 1.0f);  // NaN^0 is 1.
    }
    if (k == 3) {
      EXPECT_EQ(expected[n - 1], 27.0f);
    }
    for (CpuIsa isa : AvailableIsas()) {
      SCOPED_TRACE(CpuIsaName(isa));
      std::vector<float> y(n);
      ElementwiseLoopsFor(isa).whole_power_float(x.data(), k, y.data(), n);
      EXPECT_TRUE(SameBits(y, expected));
    }
  }
}

// MaxPool's step: the larger value, the one already there on a tie or a
// NaN in x, a NaN already there kept (as `if (x > out) out = x`).
TEST(ElementwiseLoopsTest, MaxIntoKeepsTheLargerAsAComparisonDoes) {
  const std::vector<float> x = Values(7);
  const std::vector<float> start = Values(8);
  const int64_t n = static_cast<int64_t>(x.size());
  std::vector<float> expected = start;
  for (int64_t i = 0; i < n; ++i) {
    if (x[i] > expected[i]) expected[i] = x[i];
  }
  EXPECT_TRUE(std::isnan(expected[n - 4]));  // NaN in both.
  for (CpuIsa isa : AvailableIsas()) {
    SCOPED_TRACE(CpuIsaName(isa));
    std::vector<float> out = start;
    ElementwiseLoopsFor(isa).max_into_float(x.data(), out.data(), n);
    EXPECT_TRUE(SameBits(out, expected));
    // A NaN in x does not replace a number; one in out stays.
    std::vector<float> a = {kNaN, 1.0f, -0.0f, 2.0f};
    std::vector<float> b = {1.0f, kNaN, 0.0f, 2.0f};
    ElementwiseLoopsFor(isa).max_into_float(a.data(), b.data(), 4);
    EXPECT_EQ(b[0], 1.0f);
    EXPECT_TRUE(std::isnan(b[1]));
    EXPECT_FALSE(std::signbit(b[2]));  // -0 is not greater than +0.
    EXPECT_EQ(b[3], 2.0f);
  }
}

// MaxPoolGrad's step: each channel's first maximum and where it is, over
// taps taken in turn; a tie keeps the earlier tap.
TEST(ElementwiseLoopsTest, ArgMaxIntoKeepsTheFirstMaximumAndItsPlace) {
  const int64_t n = 1013;
  const std::vector<std::vector<float>> taps = {Values(9), Values(10), Values(9), Values(11)};
  std::vector<float> expected_best = taps[0];
  std::vector<int64_t> expected_at(n);
  for (int64_t i = 0; i < n; ++i) expected_at[i] = i;
  for (size_t t = 1; t < taps.size(); ++t) {
    for (int64_t i = 0; i < n; ++i) {
      if (taps[t][i] > expected_best[i]) {
        expected_best[i] = taps[t][i];
        expected_at[i] = static_cast<int64_t>(t) * n + i;
      }
    }
  }
  // Tap 2 repeats tap 0: a tie, which never wins.
  for (int64_t i = 0; i < n; ++i) EXPECT_NE(expected_at[i] / n, 2) << i;
  for (CpuIsa isa : AvailableIsas()) {
    SCOPED_TRACE(CpuIsaName(isa));
    std::vector<float> best = taps[0];
    std::vector<int64_t> at(n);
    for (int64_t i = 0; i < n; ++i) at[i] = i;
    for (size_t t = 1; t < taps.size(); ++t) {
      ElementwiseLoopsFor(isa).argmax_into_float(taps[t].data(), static_cast<int64_t>(t) * n,
                                                 best.data(), at.data(), n);
    }
    EXPECT_TRUE(SameBits(best, expected_best));
    EXPECT_EQ(at, expected_at);
  }
}

TEST(ElementwiseLoopsTest, ActiveLoopsAreThoseOfTheActiveWidth) {
  EXPECT_EQ(&ActiveElementwiseLoops(), &ElementwiseLoopsFor(ActiveCpuIsa()));
}

}  // namespace
}  // namespace minitf::functor
