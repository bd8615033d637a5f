// Sessions running the shipped ops: state across Runs, kernel errors.
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "ops/standard_ops.h"
#include "session/session.h"
#include "tests/testlib/kernel_runner.h"

namespace minitf {
namespace {

using ::testing::HasSubstr;

std::unique_ptr<Session> SessionFor(const Scope& root) {
  GraphDef def;
  EXPECT_TRUE(root.ToGraphDef(&def).ok()) << root.status();
  auto session = NewSession(SessionOptions());
  EXPECT_TRUE(session.ok());
  EXPECT_TRUE((*session)->Create(def).ok());
  return *std::move(session);
}

TEST(SessionOpsTest, VariablesKeepTheirValueAcrossRunsAndSignatures) {
  Scope root = Scope::NewRootScope();
  auto v = ops::Variable(root.WithOpName("v"), TensorShape({2}), DT_FLOAT);
  ops::Assign(root.WithOpName("init"), v, Tensor::FromVector<float>({1, 2}));
  ops::AssignAdd(root.WithOpName("add_one"), v, Tensor::FromVector<float>({1, 1}));
  ops::Identity(root.WithOpName("read"), v);
  auto session = SessionFor(root);
  std::vector<Tensor> out;
  // Reading before initialization names the variable.
  absl::Status s = session->Run({}, {"read"}, {}, &out);
  EXPECT_EQ(s.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(std::string(s.message()), HasSubstr("uninitialized value v"));
  ASSERT_TRUE(session->Run({}, {}, {"init"}, nullptr).ok());
  for (int i = 0; i < 3; ++i) ASSERT_TRUE(session->Run({}, {}, {"add_one"}, nullptr).ok());
  ASSERT_TRUE(session->Run({}, {"read"}, {}, &out).ok());
  test::ExpectTensorEqual(out[0], Tensor::FromVector<float>({4, 5}));
}

TEST(SessionOpsTest, MatMulInnerDimensionMismatchNamesTheNode) {
  Scope root = Scope::NewRootScope();
  auto a = ops::Placeholder(root.WithOpName("a"), DT_FLOAT);
  auto b = ops::Placeholder(root.WithOpName("b"), DT_FLOAT);
  ops::MatMul(root.WithOpName("product"), a, b);
  auto session = SessionFor(root);
  std::vector<Tensor> out;
  absl::Status s = session->Run({{"a", Tensor(DT_FLOAT, TensorShape({2, 3}))},
                                 {"b", Tensor(DT_FLOAT, TensorShape({4, 5}))}},
                                {"product"}, {}, &out);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(s.message()), HasSubstr("product"));
  EXPECT_THAT(std::string(s.message()), HasSubstr("[2,3]"));
  EXPECT_THAT(std::string(s.message()), HasSubstr("[4,5]"));
  // The session stays usable after the failed step.
  Tensor a_ok(DT_FLOAT, TensorShape({1, 2}));
  a_ok.flat<float>().setConstant(1.0f);
  Tensor b_ok(DT_FLOAT, TensorShape({2, 1}));
  b_ok.flat<float>().setConstant(2.0f);
  ASSERT_TRUE(session->Run({{"a", a_ok}, {"b", b_ok}}, {"product"}, {}, &out).ok());
  EXPECT_EQ(out[0].matrix<float>()(0, 0), 4.0f);
}

TEST(SessionOpsTest, StaticShapeErrorsAreReportedAtCreate) {
  Scope root = Scope::NewRootScope();
  auto a = ops::Const(root, Tensor(DT_FLOAT, TensorShape({2, 3})));
  auto b = ops::Const(root, Tensor(DT_FLOAT, TensorShape({4, 5})));
  ops::MatMul(root.WithOpName("bad_product"), a, b);
  GraphDef def;
  ASSERT_TRUE(root.ToGraphDef(&def).ok());
  auto session = NewSession(SessionOptions());
  ASSERT_TRUE(session.ok());
  absl::Status s = (*session)->Create(def);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(s.message()), HasSubstr("bad_product"));
}

TEST(SessionOpsTest, CondPicksABranchThroughSwitchAndMerge) {
  Scope root = Scope::NewRootScope();
  auto x = ops::Placeholder(root.WithOpName("x"), DT_FLOAT);
  auto pred = ops::Placeholder(root.WithOpName("pred"), DT_BOOL, {.shape = TensorShape()});
  auto sw = ops::Switch(root, x, pred);
  auto doubled = ops::Mul(root, sw.output_true, 2.0f);
  auto negated = ops::Neg(root, sw.output_false);
  ops::Merge(root.WithOpName("cond"), {doubled, negated});
  auto session = SessionFor(root);
  std::vector<Tensor> out;
  ASSERT_TRUE(session
                  ->Run({{"x", Tensor::Scalar<float>(3)}, {"pred", Tensor::Scalar<bool>(true)}},
                        {"cond"}, {}, &out)
                  .ok());
  EXPECT_EQ(out[0].scalar<float>()(), 6.0f);
  ASSERT_TRUE(session
                  ->Run({{"x", Tensor::Scalar<float>(3)}, {"pred", Tensor::Scalar<bool>(false)}},
                        {"cond"}, {}, &out)
                  .ok());
  EXPECT_EQ(out[0].scalar<float>()(), -3.0f);
}

TEST(SessionOpsTest, FetchingTheUntakenBranchIsAnInvalidArgumentNamingIt) {
  // TensorFlow: "Retval[0] does not have value"; minitf names the fetch too.
  Scope root = Scope::NewRootScope();
  auto x = ops::Placeholder(root.WithOpName("x"), DT_FLOAT);
  auto pred = ops::Placeholder(root.WithOpName("pred"), DT_BOOL, {.shape = TensorShape()});
  auto sw = ops::Switch(root.WithOpName("sw"), x, pred);
  ops::Neg(root.WithOpName("no"), sw.output_false);
  auto session = SessionFor(root);
  std::vector<Tensor> out;
  absl::Status s = session->Run(
      {{"x", Tensor::Scalar<float>(3)}, {"pred", Tensor::Scalar<bool>(true)}}, {"no:0"}, {}, &out);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << s;
  EXPECT_THAT(s.message(), HasSubstr("Retval[0] does not have value"));
  EXPECT_THAT(s.message(), HasSubstr("'no:0'"));
  EXPECT_THAT(s.message(), HasSubstr("dead"));
}

}  // namespace
}  // namespace minitf
