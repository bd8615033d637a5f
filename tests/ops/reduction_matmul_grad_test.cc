// The gradients of the reductions and the matrix products against central
// differences.
#include "gtest/gtest.h"
#include "ops/cc/math_ops.h"
#include "ops/cc/nn_ops.h"
#include "ops/cc/gradients.h"
#include "session/session.h"
#include "tests/testlib/grad_check.h"

namespace minitf {
namespace {

using test::GradientError;
using Xs = std::vector<Output>;

constexpr double kTolerance = 1e-6;

using ReduceFn = Output (*)(const Scope&, Input, Input, const ops::ReductionAttrs&);

void ExpectReductionGradient(const char* name, ReduceFn reduce) {
  struct Case {
    std::vector<int> axes;
    bool keep_dims;
    TensorShape out;
  };
  const Case cases[] = {{{0}, false, {3, 4}},       {{1}, false, {2, 4}},
                        {{-1}, true, {2, 3, 1}},    {{0, 2}, false, {3}},
                        {{0, 1, 2}, false, {}},     {{2, 0}, true, {1, 3, 1}},
                        {{}, false, {2, 3, 4}}};
  for (const Case& c : cases) {
    const double error = GradientError({{2, 3, 4}}, c.out, [&](const Scope& s, const Xs& x) {
      Tensor axes = Tensor::FromVector<int32_t>(absl::Span<const int32_t>(c.axes),
                                                TensorShape({static_cast<int64_t>(c.axes.size())}));
      return reduce(s, x[0], axes, {.keep_dims = c.keep_dims});
    });
    EXPECT_LT(error, kTolerance) << name << " axes of size " << c.axes.size() << " keep_dims "
                                 << c.keep_dims;
  }
}

TEST(ReductionGradTest, SumMeanMaxMin) {
  ExpectReductionGradient("Sum", ops::Sum);
  ExpectReductionGradient("Mean", ops::Mean);
  // Random values: no ties within the difference step.
  ExpectReductionGradient("Max", ops::Max);
  ExpectReductionGradient("Min", ops::Min);
}

TEST(ReductionGradTest, ProdWithoutZeros) {
  ExpectReductionGradient("Prod", ops::Prod);
}

TEST(ReductionGradTest, ProdWithOneOrTwoZerosInARow) {
  // Row 0 has one zero (its entry gets the product of the others), row 1
  // two (every entry gets 0, the product staying 0 to first order), row 2 none.
  Tensor x = Tensor::FromVector<double>({0.5, 0.0, -2.0, 0.0, 3.0, 0.0, 1.5, -0.5, 2.0},
                                        TensorShape({3, 3}));
  EXPECT_LT(test::GradientErrorAt({x}, {3},
                                  [](const Scope& s, const Xs& v) {
                                    return ops::Prod(s, v[0], {1});
                                  }),
            kTolerance);
}

TEST(ReductionGradTest, MaxSharesTheGradientBetweenTies) {
  // d max / d x is 1/2 for each of two equal maxima (TensorFlow's choice); a
  // central difference cannot see that, so check the values.
  Scope root = Scope::NewRootScope();
  auto x = ops::Placeholder(root.WithOpName("x"), DT_DOUBLE);
  auto y = ops::Max(root, x, {0});
  std::vector<Output> dx;
  ASSERT_TRUE(AddSymbolicGradients(root, {y}, {x}, &dx).ok());
  GraphDef graph;
  ASSERT_TRUE(root.ToGraphDef(&graph).ok());
  SessionOptions options;
  options.config.device_count = {{"GPU", 0}};
  auto session = NewSession(options);
  ASSERT_TRUE(session.ok());
  ASSERT_TRUE((*session)->Create(graph).ok());
  std::vector<Tensor> out;
  ASSERT_TRUE((*session)
                  ->Run({{"x", Tensor::FromVector<double>({3, 1, 3}, TensorShape({3}))}},
                        {dx[0].name()}, {}, &out)
                  .ok());
  EXPECT_DOUBLE_EQ(out[0].data<double>()[0], 0.5);
  EXPECT_DOUBLE_EQ(out[0].data<double>()[1], 0.0);
  EXPECT_DOUBLE_EQ(out[0].data<double>()[2], 0.5);
}

TEST(MatMulGradTest, EveryTransposeCombination) {
  for (bool ta : {false, true}) {
    for (bool tb : {false, true}) {
      const TensorShape a = ta ? TensorShape({3, 2}) : TensorShape({2, 3});
      const TensorShape b = tb ? TensorShape({4, 3}) : TensorShape({3, 4});
      const double error = GradientError({a, b}, {2, 4}, [&](const Scope& s, const Xs& x) {
        return ops::MatMul(s, x[0], x[1], {.transpose_a = ta, .transpose_b = tb});
      });
      EXPECT_LT(error, kTolerance) << "transpose_a " << ta << " transpose_b " << tb;
    }
  }
}

TEST(MatMulGradTest, BatchMatMulEveryAdjointCombination) {
  for (bool ax : {false, true}) {
    for (bool ay : {false, true}) {
      const TensorShape a = ax ? TensorShape({2, 3, 2}) : TensorShape({2, 2, 3});
      const TensorShape b = ay ? TensorShape({2, 4, 3}) : TensorShape({2, 3, 4});
      const double error = GradientError({a, b}, {2, 2, 4}, [&](const Scope& s, const Xs& x) {
        return ops::BatchMatMul(s, x[0], x[1], {.adj_x = ax, .adj_y = ay});
      });
      EXPECT_LT(error, kTolerance) << "adj_x " << ax << " adj_y " << ay;
    }
  }
}

TEST(MatMulGradTest, BatchMatMulV2SumsOverBroadcastBatches) {
  struct Case {
    TensorShape a, b, out;
    bool adj_y;
  };
  const Case cases[] = {{{2, 2, 3}, {3, 4}, {2, 2, 4}, false},
                        {{1, 2, 3}, {2, 1, 3, 2}, {2, 1, 2, 2}, false},
                        {{2, 2, 3}, {1, 4, 3}, {2, 2, 4}, true}};
  for (const Case& c : cases) {
    const double error = GradientError({c.a, c.b}, c.out, [&](const Scope& s, const Xs& x) {
      return ops::BatchMatMulV2(s, x[0], x[1], {.adj_y = c.adj_y});
    });
    EXPECT_LT(error, kTolerance) << c.a.DebugString() << " x " << c.b.DebugString();
  }
}

}  // namespace
}  // namespace minitf
