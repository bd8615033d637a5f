// Tests of the elementwise math ops: Add, Sub, Mul, Div, Maximum, Minimum
// (with broadcasting) and Neg, Square, Sqrt, Exp, Log: kernels, shape
// functions and graph-builder wrappers.
#include "ops/cc/math_ops.h"

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "ops/cc/array_ops.h"
#include "runtime/graph.h"
#include "tests/testlib/kernel_runner.h"

namespace minitf {
namespace {

using test::ExpectTensorEqual;
using test::ExpectTensorNear;
using test::KernelRunner;
using test::MakeNodeDef;

// Runs op `op` (a one-output op typed by attr T = x's type) on `inputs`.
absl::StatusOr<Tensor> RunOp(const std::string& op, const std::vector<Tensor>& inputs,
                             const std::string& node_name = "n") {
  KernelRunner runner(MakeNodeDef(node_name, op, {{"T", inputs[0].dtype()}}));
  absl::StatusOr<std::vector<Tensor>> out = runner.Run(inputs);
  if (!out.ok()) return out.status();
  return (*out)[0];
}

// Checks that `op(x, y)` succeeds and returns `expected` exactly.
void ExpectBinary(const std::string& op, const Tensor& x, const Tensor& y, const Tensor& expected) {
  absl::StatusOr<Tensor> z = RunOp(op, {x, y});
  ASSERT_TRUE(z.ok()) << op << ": " << z.status();
  ExpectTensorEqual(*z, expected);
}

TEST(BinaryOpsTest, SameShapeOperandsCombineElementwise) {
  const Tensor x = Tensor::FromVector<int32_t>({7, -3, 0, 5}, TensorShape({2, 2}));
  const Tensor y = Tensor::FromVector<int32_t>({2, 4, -1, 5}, TensorShape({2, 2}));
  const TensorShape s({2, 2});
  ExpectBinary("Add", x, y, Tensor::FromVector<int32_t>({9, 1, -1, 10}, s));
  ExpectBinary("Sub", x, y, Tensor::FromVector<int32_t>({5, -7, 1, 0}, s));
  ExpectBinary("Mul", x, y, Tensor::FromVector<int32_t>({14, -12, 0, 25}, s));
  ExpectBinary("Maximum", x, y, Tensor::FromVector<int32_t>({7, 4, 0, 5}, s));
  ExpectBinary("Minimum", x, y, Tensor::FromVector<int32_t>({2, -3, -1, 5}, s));
}

TEST(BinaryOpsTest, EveryNumberTypeIsSupported) {
  ExpectBinary("Add", Tensor::FromVector<float>({1.5f, 2}), Tensor::FromVector<float>({0.25f, -2}),
               Tensor::FromVector<float>({1.75f, 0}));
  ExpectBinary("Mul", Tensor::FromVector<double>({1.5, -2}), Tensor::FromVector<double>({4, 0.5}),
               Tensor::FromVector<double>({6, -1}));
  const int64_t big = int64_t{1} << 40;
  ExpectBinary("Sub", Tensor::FromVector<int64_t>({big, 3}), Tensor::FromVector<int64_t>({1, big}),
               Tensor::FromVector<int64_t>({big - 1, 3 - big}));
  ExpectBinary("Maximum", Tensor::FromVector<double>({-1.5, 2}),
               Tensor::FromVector<double>({-2.5, 3}), Tensor::FromVector<double>({-1.5, 3}));
  ExpectBinary("Minimum", Tensor::FromVector<float>({-1.5f, 2}),
               Tensor::FromVector<float>({-2.5f, 3}), Tensor::FromVector<float>({-2.5f, 2}));
}

TEST(BinaryOpsTest, FloatingDivIsTrueDivisionAndDivisionByZeroIsInfinite) {
  absl::StatusOr<Tensor> z = RunOp(
      "Div", {Tensor::FromVector<float>({7, -1, 1, 0}), Tensor::FromVector<float>({2, 4, 0, 0})});
  ASSERT_TRUE(z.ok()) << z.status();
  auto v = z->flat<float>();
  EXPECT_EQ(v(0), 3.5f);
  EXPECT_EQ(v(1), -0.25f);
  EXPECT_EQ(v(2), std::numeric_limits<float>::infinity());
  EXPECT_TRUE(std::isnan(v(3)));
}

TEST(BinaryOpsTest, IntegerDivTruncatesTowardZero) {
  ExpectBinary("Div", Tensor::FromVector<int32_t>({7, -7, 7, -7, 6}),
               Tensor::FromVector<int32_t>({2, 2, -2, -2, 3}),
               Tensor::FromVector<int32_t>({3, -3, -3, 3, 2}));
  ExpectBinary("Div", Tensor::FromVector<int64_t>({-9}), Tensor::FromVector<int64_t>({4}),
               Tensor::FromVector<int64_t>({-2}));
}

TEST(BinaryOpsTest, IntegerDivOfLowestByMinusOneWrapsInsteadOfTrapping) {
  const int32_t lowest = std::numeric_limits<int32_t>::min();
  ExpectBinary("Div", Tensor::FromVector<int32_t>({lowest, 8}),
               Tensor::FromVector<int32_t>({-1, -1}), Tensor::FromVector<int32_t>({lowest, -8}));
}

TEST(BinaryOpsTest, IntegerDivisionByZeroIsInvalidArgumentNamingTheNode) {
  for (const Tensor& divisor :
       {Tensor::FromVector<int32_t>({1, 0, 2}), Tensor::Scalar<int32_t>(0)}) {
    absl::StatusOr<Tensor> z =
        RunOp("Div", {Tensor::FromVector<int32_t>({4, 5, 6}), divisor}, "my_div");
    ASSERT_FALSE(z.ok());
    EXPECT_EQ(z.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_NE(z.status().message().find("my_div"), absl::string_view::npos) << z.status();
    EXPECT_NE(z.status().message().find("division by zero"), absl::string_view::npos) << z.status();
  }
  absl::StatusOr<Tensor> z64 =
      RunOp("Div", {Tensor::FromVector<int64_t>({1}), Tensor::FromVector<int64_t>({0})});
  EXPECT_EQ(z64.status().code(), absl::StatusCode::kInvalidArgument);
}

TEST(BinaryOpsTest, ScalarBroadcastsAgainstATensorOnEitherSide) {
  const Tensor v = Tensor::FromVector<float>({1, 2, 3, 4, 5, 6}, TensorShape({2, 3}));
  const Tensor ten = Tensor::Scalar<float>(10);
  ExpectBinary("Sub", ten, v, Tensor::FromVector<float>({9, 8, 7, 6, 5, 4}, TensorShape({2, 3})));
  ExpectBinary("Sub", v, ten,
               Tensor::FromVector<float>({-9, -8, -7, -6, -5, -4}, TensorShape({2, 3})));
  // A one-element tensor of higher rank raises the result's rank.
  ExpectBinary("Div", Tensor::FromVector<int32_t>({8, 9}),
               Tensor::FromVector<int32_t>({2}, TensorShape({1, 1})),
               Tensor::FromVector<int32_t>({4, 4}, TensorShape({1, 2})));
}

TEST(BinaryOpsTest, ColumnTimesRowIsTheOuterProduct) {
  const Tensor col = Tensor::FromVector<int32_t>({1, 2, 3, 4}, TensorShape({4, 1}));
  const Tensor row = Tensor::FromVector<int32_t>({1, 10, 100, -1, 0}, TensorShape({1, 5}));
  ExpectBinary("Mul", col, row,
               Tensor::FromVector<int32_t>({1, 10, 100, -1, 0,  //
                                            2, 20, 200, -2, 0,  //
                                            3, 30, 300, -3, 0,  //
                                            4, 40, 400, -4, 0},
                                           TensorShape({4, 5})));
}

TEST(BinaryOpsTest, Rank3BroadcastsAgainstATrailingRank2Operand) {
  // x[i,j,k] = 12i + 4j + k; y[j,0] = 100 (j + 1); z = x + y has shape [2,3,4].
  std::vector<float> xv(24), expected(24);
  for (int i = 0; i < 24; ++i) xv[i] = static_cast<float>(i);
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 3; ++j)
      for (int k = 0; k < 4; ++k) expected[12 * i + 4 * j + k] = 12 * i + 4 * j + k + 100 * (j + 1);
  const Tensor x = Tensor::FromVector<float>(absl::MakeConstSpan(xv), TensorShape({2, 3, 4}));
  const Tensor y = Tensor::FromVector<float>({100, 200, 300}, TensorShape({3, 1}));
  const Tensor want =
      Tensor::FromVector<float>(absl::MakeConstSpan(expected), TensorShape({2, 3, 4}));
  ExpectBinary("Add", x, y, want);
  ExpectBinary("Add", y, x, want);  // Broadcasting is symmetric.
}

TEST(BinaryOpsTest, Rank5OperandsStretchedAlongAlternatingDimensions) {
  // x: [2,1,3,1,2], y: [1,2,1,2,1] -> z: [2,2,3,2,2], with every dimension
  // stretching the other operand than its neighbours (nothing merges).
  const int64_t I = 2, J = 2, K = 3, L = 2, M = 2;
  std::vector<int64_t> xv, yv, zv;
  for (int64_t i = 0; i < I; ++i)
    for (int64_t k = 0; k < K; ++k)
      for (int64_t m = 0; m < M; ++m) xv.push_back(100 * i + 10 * k + m);
  for (int64_t j = 0; j < J; ++j)
    for (int64_t l = 0; l < L; ++l) yv.push_back(1000 * j + 10000 * l);
  for (int64_t i = 0; i < I; ++i)
    for (int64_t j = 0; j < J; ++j)
      for (int64_t k = 0; k < K; ++k)
        for (int64_t l = 0; l < L; ++l)
          for (int64_t m = 0; m < M; ++m) zv.push_back(100 * i + 10 * k + m + 1000 * j + 10000 * l);
  ExpectBinary("Add",
               Tensor::FromVector<int64_t>(absl::MakeConstSpan(xv), TensorShape({I, 1, K, 1, M})),
               Tensor::FromVector<int64_t>(absl::MakeConstSpan(yv), TensorShape({1, J, 1, L, 1})),
               Tensor::FromVector<int64_t>(absl::MakeConstSpan(zv), TensorShape({I, J, K, L, M})));
}

TEST(BinaryOpsTest, HighRankOperandsWorkWhenTheirDimensionsMerge) {
  // Rank 7, but only two merged runs: [2*3*2*2*2*3 | 2] against [1 | 2].
  const TensorShape big({2, 3, 2, 2, 2, 3, 2});
  Tensor x(DT_DOUBLE, big), want(DT_DOUBLE, big);
  for (int64_t i = 0; i < x.NumElements(); ++i) {
    x.flat<double>()(i) = static_cast<double>(i);
    want.flat<double>()(i) = static_cast<double>(i) * (i % 2 == 0 ? 0.5 : -1.0);
  }
  ExpectBinary("Mul", x, Tensor::FromVector<double>({0.5, -1.0}), want);
}

TEST(BinaryOpsTest, TooManyAlternatingStretchesIsUnimplementedNamingTheNode) {
  KernelRunner runner(MakeNodeDef("deep_add", "Add", {{"T", DT_FLOAT}}));
  absl::StatusOr<std::vector<Tensor>> out =
      runner.Run({Tensor(DT_FLOAT, TensorShape({2, 1, 2, 1, 2, 1})),
                  Tensor(DT_FLOAT, TensorShape({1, 2, 1, 2, 1, 2}))});
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(out.status().code(), absl::StatusCode::kUnimplemented);
  EXPECT_NE(out.status().message().find("deep_add"), absl::string_view::npos) << out.status();
}

TEST(BinaryOpsTest, IncompatibleShapesAreInvalidArgumentNamingNodeAndShapes) {
  for (const char* op : {"Add", "Sub", "Mul", "Div", "Maximum", "Minimum"}) {
    absl::StatusOr<Tensor> z =
        RunOp(op, {Tensor(DT_FLOAT, TensorShape({2, 3})), Tensor(DT_FLOAT, TensorShape({4}))},
              "bad_node");
    ASSERT_FALSE(z.ok()) << op;
    EXPECT_EQ(z.status().code(), absl::StatusCode::kInvalidArgument) << op;
    const std::string message(z.status().message());
    EXPECT_NE(message.find("bad_node"), std::string::npos) << message;
    EXPECT_NE(message.find("[2,3]"), std::string::npos) << message;
    EXPECT_NE(message.find("[4]"), std::string::npos) << message;
  }
}

TEST(BinaryOpsTest, EmptyOperandsGiveAnEmptyBroadcastResult) {
  absl::StatusOr<Tensor> z =
      RunOp("Div", {Tensor(DT_INT32, TensorShape({0, 1})), Tensor::FromVector<int32_t>({1, 2, 3})});
  ASSERT_TRUE(z.ok()) << z.status();
  EXPECT_EQ(z->shape(), TensorShape({0, 3}));
}

// Runs `op` with inputs whose buffers only the kernel holds, so it may
// reuse one; returns the output.
Tensor RunForwardable(const std::string& op, Tensor* x, Tensor* y) {
  KernelRunner runner(MakeNodeDef("n", op, {{"T", x->dtype()}}));
  absl::StatusOr<std::vector<Tensor>> out =
      runner.RunWithValues({TensorValue{x, nullptr}, TensorValue{y, nullptr}});
  EXPECT_TRUE(out.ok()) << out.status();
  return out.ok() ? (*out)[0] : Tensor();
}

TEST(BinaryOpsTest, OutputReusesAnUnsharedInputOfTheResultShape) {
  Tensor x = Tensor::FromVector<float>({1, 2, 3});
  Tensor y = Tensor::FromVector<float>({10, 20, 30});
  Tensor z = RunForwardable("Add", &x, &y);
  EXPECT_TRUE(z.SharesBufferWith(x));
  ExpectTensorEqual(z, Tensor::FromVector<float>({11, 22, 33}));

  // Broadcasting: only the operand that is not stretched can be reused.
  Tensor s = Tensor::Scalar<float>(10);
  Tensor v = Tensor::FromVector<float>({1, 2, 3});
  Tensor w = RunForwardable("Sub", &s, &v);
  EXPECT_TRUE(w.SharesBufferWith(v));
  EXPECT_FALSE(w.SharesBufferWith(s));
  ExpectTensorEqual(w, Tensor::FromVector<float>({9, 8, 7}));
}

TEST(BinaryOpsTest, OutputDoesNotReuseAnInputSomeoneElseHolds) {
  const Tensor x = Tensor::FromVector<float>({1, 2, 3});
  KernelRunner runner(MakeNodeDef("n", "Add", {{"T", DT_FLOAT}}));
  absl::StatusOr<std::vector<Tensor>> out = runner.Run({x, x});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_FALSE((*out)[0].SharesBufferWith(x));
  ExpectTensorEqual(x, Tensor::FromVector<float>({1, 2, 3}));
  ExpectTensorEqual((*out)[0], Tensor::FromVector<float>({2, 4, 6}));
}

TEST(BinaryOpsTest, LargeBroadcastMatchesThePerElementFormula) {
  // Big enough that Eigen splits the work over the intra-op threads.
  const int64_t rows = 300, cols = 500;
  Tensor x(DT_FLOAT, TensorShape({rows, 1}));
  Tensor y(DT_FLOAT, TensorShape({cols}));
  for (int64_t r = 0; r < rows; ++r) x.flat<float>()(r) = static_cast<float>(r);
  for (int64_t c = 0; c < cols; ++c) y.flat<float>()(c) = static_cast<float>(c) * 1000;
  absl::StatusOr<Tensor> z = RunOp("Add", {x, y});
  ASSERT_TRUE(z.ok()) << z.status();
  ASSERT_EQ(z->shape(), TensorShape({rows, cols}));
  auto m = z->matrix<float>();
  for (int64_t r = 0; r < rows; r += 7)
    for (int64_t c = 0; c < cols; c += 11) ASSERT_EQ(m(r, c), r + 1000.0f * c) << r << "," << c;
}

absl::StatusOr<PartialTensorShape> InferBinaryShape(const PartialTensorShape& x,
                                                    const PartialTensorShape& y) {
  absl::StatusOr<std::vector<PartialTensorShape>> out =
      test::InferShapes(MakeNodeDef("shape_node", "Mul", {{"T", DT_FLOAT}}), {x, y});
  if (!out.ok()) return out.status();
  return (*out)[0];
}

TEST(BinaryOpsShapeTest, ShapeFunctionBroadcastsPartialShapes) {
  auto s = InferBinaryShape(PartialTensorShape({2, 3, 4}), PartialTensorShape({3, 1}));
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_EQ(s->DebugString(), "[2,3,4]");
  s = InferBinaryShape(PartialTensorShape({-1, 1}), PartialTensorShape({1, 5}));
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_EQ(s->DebugString(), "[?,5]");
  s = InferBinaryShape(PartialTensorShape({}), PartialTensorShape({-1, 7}));
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_EQ(s->DebugString(), "[?,7]");
  s = InferBinaryShape(PartialTensorShape(), PartialTensorShape({2}));
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_TRUE(s->unknown_rank());
}

TEST(BinaryOpsShapeTest, ShapeFunctionRejectsIncompatibleShapesNamingNodeAndShapes) {
  auto s = InferBinaryShape(PartialTensorShape({2, 3}), PartialTensorShape({-1, 4}));
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.status().code(), absl::StatusCode::kInvalidArgument);
  const std::string message(s.status().message());
  EXPECT_NE(message.find("shape_node"), std::string::npos) << message;
  EXPECT_NE(message.find("[2,3]"), std::string::npos) << message;
  EXPECT_NE(message.find("[?,4]"), std::string::npos) << message;
}

TEST(UnaryOpsTest, NegAndSquareWorkOnEveryNumberType) {
  auto neg = RunOp("Neg", {Tensor::FromVector<int32_t>({3, -4, 0})});
  ASSERT_TRUE(neg.ok()) << neg.status();
  ExpectTensorEqual(*neg, Tensor::FromVector<int32_t>({-3, 4, 0}));
  auto sq = RunOp("Square", {Tensor::FromVector<int64_t>({3, -4, int64_t{1} << 20})});
  ASSERT_TRUE(sq.ok()) << sq.status();
  ExpectTensorEqual(*sq, Tensor::FromVector<int64_t>({9, 16, int64_t{1} << 40}));
  auto negf = RunOp("Neg", {Tensor::FromVector<double>({1.5, -0.25})});
  ASSERT_TRUE(negf.ok()) << negf.status();
  ExpectTensorEqual(*negf, Tensor::FromVector<double>({-1.5, 0.25}));
  auto sqf = RunOp("Square", {Tensor::FromVector<float>({1.5f, -3}, TensorShape({2, 1}))});
  ASSERT_TRUE(sqf.ok()) << sqf.status();
  ExpectTensorEqual(*sqf, Tensor::FromVector<float>({2.25f, 9}, TensorShape({2, 1})));
}

TEST(UnaryOpsTest, SqrtExpLogMatchTheirMathDefinitions) {
  auto sqrt = RunOp("Sqrt", {Tensor::FromVector<float>({4, 2.25f, 0, -1})});
  ASSERT_TRUE(sqrt.ok()) << sqrt.status();
  ExpectTensorNear(*sqrt, Tensor::FromVector<float>({2, 1.5f, 0, std::nanf("")}));
  auto exp = RunOp("Exp", {Tensor::FromVector<double>({0, 1, -2})});
  ASSERT_TRUE(exp.ok()) << exp.status();
  ExpectTensorNear(*exp, Tensor::FromVector<double>({1, 2.718281828459045, 0.1353352832366127}),
                   1e-12, 1e-12);
  auto log = RunOp("Log", {Tensor::FromVector<float>({1, 2.718281828f, 0.5f})});
  ASSERT_TRUE(log.ok()) << log.status();
  ExpectTensorNear(*log, Tensor::FromVector<float>({0, 1, -0.6931472f}));
  auto log0 = RunOp("Log", {Tensor::Scalar<double>(0)});
  ASSERT_TRUE(log0.ok()) << log0.status();
  EXPECT_EQ(log0->scalar<double>()(), -std::numeric_limits<double>::infinity());
}

TEST(UnaryOpsTest, OutputReusesAnUnsharedInput) {
  Tensor x = Tensor::FromVector<float>({1, 4, 9});
  KernelRunner runner(MakeNodeDef("n", "Sqrt", {{"T", DT_FLOAT}}));
  absl::StatusOr<std::vector<Tensor>> out = runner.RunWithValues({TensorValue{&x, nullptr}});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_TRUE((*out)[0].SharesBufferWith(x));
  ExpectTensorEqual((*out)[0], Tensor::FromVector<float>({1, 2, 3}));
}

TEST(UnaryOpsTest, FloatingOnlyOpsRejectIntegerTypesNamingTheNode) {
  for (const char* op : {"Sqrt", "Exp", "Log"}) {
    KernelRunner runner(MakeNodeDef("int_root", op, {{"T", DT_INT32}}));
    ASSERT_FALSE(runner.status().ok()) << op;
    EXPECT_EQ(runner.status().code(), absl::StatusCode::kInvalidArgument) << runner.status();
    EXPECT_NE(runner.status().message().find("int_root"), absl::string_view::npos)
        << runner.status();
  }
  Scope root = Scope::NewRootScope();
  ops::Sqrt(root.WithOpName("graph_root"), ops::Const(root, Tensor::FromVector<int32_t>({4})));
  ASSERT_FALSE(root.ok());
  EXPECT_NE(root.status().message().find("graph_root"), absl::string_view::npos) << root.status();
}

TEST(UnaryOpsTest, ShapeFunctionKeepsTheInputShape) {
  auto s =
      test::InferShapes(MakeNodeDef("n", "Exp", {{"T", DT_FLOAT}}), {PartialTensorShape({2, -1})});
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_EQ((*s)[0].DebugString(), "[2,?]");
}

// Builds the graph `root` holds and returns it; fails the test on error.
std::unique_ptr<Graph> BuildGraph(const Scope& root) {
  GraphDef def;
  absl::Status s = root.ToGraphDef(&def);
  EXPECT_TRUE(s.ok()) << s;
  if (!s.ok()) return nullptr;
  absl::StatusOr<std::unique_ptr<Graph>> g = ConvertGraphDefToGraph(def);
  EXPECT_TRUE(g.ok()) << g.status();
  return g.ok() ? *std::move(g) : nullptr;
}

TEST(MathOpsWrapperTest, WrappersBuildNodesWithBroadcastOutputShapes) {
  Scope root = Scope::NewRootScope();
  auto col = ops::Placeholder(root.WithOpName("col"), DT_FLOAT, {.shape = {4, 1}});
  auto row = ops::Placeholder(root.WithOpName("row"), DT_FLOAT, {.shape = {-1, 5}});
  auto prod = ops::Mul(root.WithOpName("prod"), col, row);
  auto shifted = ops::Add(root.WithOpName("shifted"), prod, 2.0f);
  auto clipped = ops::Minimum(root.WithOpName("clipped"), ops::Maximum(root, shifted, 0.0f), 6.0f);
  auto root_of = ops::Sqrt(root.WithOpName("root_of"), ops::Exp(root, ops::Neg(root, clipped)));
  EXPECT_EQ(root_of.type(), DT_FLOAT);
  std::unique_ptr<Graph> g = BuildGraph(root);
  ASSERT_NE(g, nullptr);
  EXPECT_EQ(g->FindNode("prod")->output_shapes()[0].DebugString(), "[4,5]");
  EXPECT_EQ(g->FindNode("shifted")->output_shapes()[0].DebugString(), "[4,5]");
  EXPECT_EQ(g->FindNode("root_of")->output_shapes()[0].DebugString(), "[4,5]");
  // The literal became a float Const feeding input 1.
  const Node* shifted_node = g->FindNode("shifted");
  absl::StatusOr<const Edge*> e = shifted_node->input_edge(1);
  ASSERT_TRUE(e.ok()) << e.status();
  EXPECT_EQ((*e)->src()->type_string(), "Const");
  EXPECT_EQ((*e)->src()->output_type(0), DT_FLOAT);
}

TEST(MathOpsWrapperTest, IncompatibleStaticShapesFailGraphConstructionNamingTheNode) {
  Scope root = Scope::NewRootScope();
  auto a = ops::Placeholder(root.WithOpName("a"), DT_INT32, {.shape = {2, 3}});
  auto b = ops::Placeholder(root.WithOpName("b"), DT_INT32, {.shape = {4}});
  ops::Sub(root.WithOpName("bad_sub"), a, b);
  GraphDef def;
  ASSERT_TRUE(root.ToGraphDef(&def).ok());
  absl::StatusOr<std::unique_ptr<Graph>> g = ConvertGraphDefToGraph(def);
  ASSERT_FALSE(g.ok());
  EXPECT_NE(g.status().message().find("bad_sub"), absl::string_view::npos) << g.status();
}

}  // namespace
}  // namespace minitf
