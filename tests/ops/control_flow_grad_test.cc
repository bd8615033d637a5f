// The gradients of v1 cond (Switch, Merge) against central differences,
// both branches taken, and the error for a while loop.
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "ops/cc/gradients.h"
#include "ops/cc/while_loop.h"
#include "ops/standard_ops.h"
#include "tests/testlib/grad_check.h"

namespace minitf {
namespace {

using test::GradientError;
using Xs = std::vector<Output>;

constexpr double kTolerance = 1e-5;

// pred ? x0 * exp(x1) : x0^2 - x1; x1 feeds both branches, x2 only the true one.
Output TwoBranches(const Scope& s, const Xs& x, bool take_true) {
  auto pred = ops::Const(s, Tensor::Scalar<bool>(take_true));
  std::vector<Output> out;
  absl::Status st = ops::Cond(
      s, pred, {x[0], x[1], x[2]},
      [](const Scope& b, const std::vector<Output>& in, std::vector<Output>* o) {
        *o = {ops::Add(b, ops::Mul(b, in[0], ops::Exp(b, in[1])), in[2])};
        return b.status();
      },
      [](const Scope& b, const std::vector<Output>& in, std::vector<Output>* o) {
        *o = {ops::Sub(b, ops::Square(b, in[0]), in[1])};
        return b.status();
      },
      &out);
  EXPECT_TRUE(st.ok()) << st;
  return out.empty() ? Output() : out[0];
}

TEST(ControlFlowGradTest, CondTakesTheGradientOfTheBranchTaken) {
  for (bool take_true : {true, false}) {
    EXPECT_LT(GradientError({{2, 3}, {2, 3}, {2, 3}}, {2, 3},
                            [&](const Scope& s, const Xs& x) {
                              return ops::Mul(s, TwoBranches(s, x, take_true), 2.0);
                            }),
              kTolerance)
        << (take_true ? "true" : "false");
  }
}

TEST(ControlFlowGradTest, ABranchReturningItsInputAndConstants) {
  // The false branch returns its input unchanged; the true one a constant
  // times it.
  for (bool take_true : {true, false}) {
    EXPECT_LT(GradientError({{3}}, {3},
                            [&](const Scope& s, const Xs& x) {
                              std::vector<Output> out;
                              EXPECT_TRUE(ops::Cond(
                                              s, ops::Const(s, Tensor::Scalar<bool>(take_true)),
                                              {x[0]},
                                              [](const Scope& b, const std::vector<Output>& in,
                                                 std::vector<Output>* o) {
                                                *o = {ops::Mul(b, in[0], 3.0)};
                                                return b.status();
                                              },
                                              [](const Scope& b, const std::vector<Output>& in,
                                                 std::vector<Output>* o) {
                                                *o = {in[0]};
                                                return b.status();
                                              },
                                              &out)
                                              .ok());
                              return ops::Square(s, out[0]);
                            }),
              kTolerance);
  }
}

TEST(ControlFlowGradTest, AWhileLoopIsAnErrorNamingIt) {
  Scope root = Scope::NewRootScope();
  auto x = ops::Placeholder(root.WithOpName("x"), DT_DOUBLE);
  std::vector<Output> out;
  ASSERT_TRUE(ops::WhileLoop(
                  root, {ops::Const(root, 0), x},
                  [](const Scope& s, const std::vector<Output>& v, Output* c) {
                    *c = ops::Less(s, v[0], 3);
                    return s.status();
                  },
                  [](const Scope& s, const std::vector<Output>& v, std::vector<Output>* next) {
                    *next = {ops::Add(s, v[0], 1), ops::Mul(s, v[1], 2.0)};
                    return s.status();
                  },
                  &out)
                  .ok());
  std::vector<Output> dx;
  absl::Status s = AddSymbolicGradients(root, {out[1]}, {x}, &dx);
  EXPECT_EQ(s.code(), absl::StatusCode::kUnimplemented);
  EXPECT_THAT(s.message(), ::testing::HasSubstr("the gradients of loops are not supported"));
  EXPECT_THAT(s.message(), ::testing::HasSubstr("(Exit)"));
}

}  // namespace
}  // namespace minitf
