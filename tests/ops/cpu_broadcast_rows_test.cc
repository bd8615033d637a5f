// Tests of the row-by-row walk of a broadcasting binary op on the CPU
// (ops/kernels/cpu_broadcast_rows.h): which merged views it takes, where
// each row of each operand starts, and the binary kernels' answers through
// it, element for element against a walk of the broadcast by indices, for
// the shapes of BERT's layer normalization and attention mask and for
// either operand repeated or stretched.
#include "ops/kernels/cpu_broadcast_rows.h"

#include <cmath>
#include <cstdint>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "ops/util/bcast.h"
#include "tests/testlib/kernel_runner.h"

namespace minitf {
namespace {

using functor::BroadcastRows;
using functor::BroadcastRowsOf;
using test::KernelRunner;
using test::MakeNodeDef;

BCast Make(const std::vector<int64_t>& x, const std::vector<int64_t>& y) {
  absl::StatusOr<BCast> b =
      BCast::Make(TensorShape(absl::MakeConstSpan(x)), TensorShape(absl::MakeConstSpan(y)));
  EXPECT_TRUE(b.ok()) << b.status();
  return *b;
}

TEST(BroadcastRowsTest, ARowVectorIsRepeatedDownTheRows) {
  const std::optional<BroadcastRows> rows = BroadcastRowsOf(Make({1024, 768}, {768}));
  ASSERT_TRUE(rows.has_value());
  EXPECT_EQ(rows->rows, 1024);
  EXPECT_EQ(rows->columns, 768);
  EXPECT_FALSE(rows->x_repeated);
  EXPECT_FALSE(rows->y_repeated);
  int64_t xo = -1, yo = -1;
  rows->Offsets(5, &xo, &yo);
  EXPECT_EQ(xo, 5 * 768);
  EXPECT_EQ(yo, 0);
}

TEST(BroadcastRowsTest, AColumnIsOneValuePerRow) {
  const std::optional<BroadcastRows> rows = BroadcastRowsOf(Make({1024, 1}, {1024, 768}));
  ASSERT_TRUE(rows.has_value());
  EXPECT_EQ(rows->rows, 1024);
  EXPECT_TRUE(rows->x_repeated);
  EXPECT_FALSE(rows->y_repeated);
  int64_t xo = -1, yo = -1;
  rows->Offsets(7, &xo, &yo);
  EXPECT_EQ(xo, 7);
  EXPECT_EQ(yo, 7 * 768);
}

TEST(BroadcastRowsTest, AnAttentionMaskSkipsTheHeadsAndQueries) {
  // [8, 12, 128, 128] + [8, 1, 1, 128]: the view [8, 1536, 128] + [8, 1, 128].
  const std::optional<BroadcastRows> rows =
      BroadcastRowsOf(Make({8, 12, 128, 128}, {8, 1, 1, 128}));
  ASSERT_TRUE(rows.has_value());
  EXPECT_EQ(rows->rows, 8 * 12 * 128);
  EXPECT_EQ(rows->columns, 128);
  int64_t xo = -1, yo = -1;
  const int64_t row = 3 * 1536 + 700;  // batch 3, head 5, query 60
  rows->Offsets(row, &xo, &yo);
  EXPECT_EQ(xo, row * 128);
  EXPECT_EQ(yo, 3 * 128);
}

TEST(BroadcastRowsTest, ShortRowsStayWithEigen) {
  constexpr int64_t kMin = BroadcastRows::kMinColumns;
  EXPECT_FALSE(BroadcastRowsOf(Make({1024, kMin - 1}, {kMin - 1})).has_value());
  EXPECT_TRUE(BroadcastRowsOf(Make({1024, kMin}, {kMin})).has_value());
  EXPECT_FALSE(BroadcastRowsOf(Make({1024, kMin - 1}, {1024, 1})).has_value());
}

// The value of `shape`'s tensor `t` at the result index `index` (of the
// broadcast result of rank `rank`), NumPy's rules: t's dimensions align
// with the result's last ones, and a dimension of 1 is read at 0.
float At(const std::vector<float>& t, const std::vector<int64_t>& shape,
         const std::vector<int64_t>& index) {
  const size_t skip = index.size() - shape.size();
  int64_t offset = 0;
  for (size_t d = 0; d < shape.size(); ++d) {
    offset = offset * shape[d] + (shape[d] == 1 ? 0 : index[skip + d]);
  }
  return t[offset];
}

std::vector<float> Random(int64_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(0.5f, 2.0f);
  std::vector<float> v(n);
  for (float& x : v) x = dist(rng) * (rng() % 2 ? 1.0f : -1.0f);
  return v;
}

int64_t Elements(const std::vector<int64_t>& shape) {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  return n;
}

struct Case {
  std::vector<int64_t> x, y, z;
};

// Runs `op` on x and y of the case's shapes and checks every element of
// its result against `f` of the operands' broadcast values.
void ExpectElementwise(const std::string& op, const Case& c,
                       const std::function<float(float, float)>& f) {
  const std::vector<float> x = Random(Elements(c.x), 1);
  const std::vector<float> y = Random(Elements(c.y), 2);
  KernelRunner runner(MakeNodeDef("n", op, {{"T", DT_FLOAT}}));
  absl::StatusOr<std::vector<Tensor>> out =
      runner.Run({Tensor::FromVector<float>(x, TensorShape(absl::MakeConstSpan(c.x))),
                  Tensor::FromVector<float>(y, TensorShape(absl::MakeConstSpan(c.y)))});
  ASSERT_TRUE(out.ok()) << op << ": " << out.status();
  const Tensor& z = (*out)[0];
  ASSERT_EQ(z.shape(), TensorShape(absl::MakeConstSpan(c.z))) << op;
  const float* zs = z.data<float>();
  std::vector<int64_t> index(c.z.size(), 0);
  int64_t wrong = 0;
  for (int64_t i = 0; i < z.NumElements(); ++i) {
    const float want = f(At(x, c.x, index), At(y, c.y, index));
    if (!(zs[i] == want || (std::isnan(zs[i]) && std::isnan(want)))) {
      if (++wrong <= 3) ADD_FAILURE() << op << " element " << i << ": " << zs[i] << " != " << want;
    }
    for (int d = static_cast<int>(index.size()) - 1; d >= 0; --d) {
      if (++index[d] < c.z[d]) break;
      index[d] = 0;
    }
  }
  EXPECT_EQ(wrong, 0) << op;
}

const std::vector<Case>& Cases() {
  static const std::vector<Case>* cases = new std::vector<Case>{
      {{64, 768}, {768}, {64, 768}},                     // a row vector
      {{768}, {64, 768}, {64, 768}},                     // the row vector first
      {{64, 1}, {64, 96}, {64, 96}},                     // a column first
      {{64, 96}, {64, 1}, {64, 96}},                     // a column second
      {{2, 3, 5, 128}, {2, 1, 1, 128}, {2, 3, 5, 128}},  // an attention mask
      {{5, 1, 64}, {1, 3, 64}, {5, 3, 64}},              // both stretched
      {{7, 1}, {1, 40}, {7, 40}},                        // an outer product
      {{3, 1, 4, 1}, {1, 6, 1, 33}, {3, 6, 4, 33}},      // alternating
  };
  return *cases;
}

TEST(BroadcastRowsTest, BinaryOpsMatchTheBroadcastByIndices) {
  for (const Case& c : Cases()) {
    SCOPED_TRACE(TensorShape(absl::MakeConstSpan(c.x)).DebugString() + " by " +
                 TensorShape(absl::MakeConstSpan(c.y)).DebugString());
    ExpectElementwise("AddV2", c, [](float a, float b) { return a + b; });
    ExpectElementwise("Sub", c, [](float a, float b) { return a - b; });
    ExpectElementwise("Mul", c, [](float a, float b) { return a * b; });
    ExpectElementwise("RealDiv", c, [](float a, float b) { return a / b; });
    ExpectElementwise("Maximum", c, [](float a, float b) { return a > b ? a : b; });
    ExpectElementwise("SquaredDifference", c, [](float a, float b) {
      const float d = a - b;
      return d * d;
    });
  }
}

}  // namespace
}  // namespace minitf
