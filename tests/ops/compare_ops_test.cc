// Tests of the ops with a bool result: the comparisons Less, LessEqual,
// Greater, GreaterEqual, Equal, NotEqual and the logical ops LogicalAnd,
// LogicalOr, LogicalNot. Their CPU kernels (each dtype, broadcasting, NaN,
// shape errors, Equal's incompatible_shape_error), shape functions and
// graph builders; and CPU/SimGPU parity (the harness is gpu_parity.h, which
// gives this file the ops of kCompareFileOps to cover).
#include <algorithm>
#include <cstdint>
#include <limits>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "ops/cc/math_ops.h"
#include "tests/ops/gpu_parity.h"
#include "tests/testlib/kernel_runner.h"

namespace minitf {
namespace {

using test::ExpectTensorEqual;
using test::KernelRunner;
using test::MakeNodeDef;

const std::vector<std::string> kComparisonOps = {"Less",         "LessEqual", "Greater",
                                                 "GreaterEqual", "Equal",     "NotEqual"};

// What each comparison op computes, for the reference results below.
bool Compare(const std::string& op, double a, double b) {
  if (op == "Less") return a < b;
  if (op == "LessEqual") return a <= b;
  if (op == "Greater") return a > b;
  if (op == "GreaterEqual") return a >= b;
  if (op == "Equal") return a == b;
  if (op == "NotEqual") return a != b;
  ADD_FAILURE() << "not a comparison: " << op;
  return false;
}

// A tensor of type T holding `values` (converted) in `shape`.
template <typename T>
Tensor Values(const std::vector<double>& values, const TensorShape& shape) {
  std::vector<T> converted;
  for (double v : values) converted.push_back(static_cast<T>(v));
  return Tensor::FromVector<T>(absl::Span<const T>(converted), shape);
}

Tensor Bools(const std::vector<bool>& values, const TensorShape& shape) {
  Tensor t(DT_BOOL, shape);
  for (size_t i = 0; i < values.size(); ++i) t.flat<bool>()(static_cast<int64_t>(i)) = values[i];
  return t;
}

// Runs node `node_name` of op `op` on `inputs`; attr T (when the op has it)
// is the first input's type.
absl::StatusOr<Tensor> RunOp(const std::string& op, const std::vector<Tensor>& inputs,
                             AttrValueMap attrs = {}, const std::string& node_name = "n") {
  if (op != "LogicalAnd" && op != "LogicalOr" && op != "LogicalNot") {
    attrs["T"] = inputs[0].dtype();
  }
  KernelRunner runner(MakeNodeDef(node_name, op, std::move(attrs)));
  absl::StatusOr<std::vector<Tensor>> out = runner.Run(inputs);
  if (!out.ok()) return out.status();
  return (*out)[0];
}

void ExpectResult(const std::string& op, const Tensor& x, const Tensor& y, const Tensor& expected,
                  const AttrValueMap& attrs = {}) {
  absl::StatusOr<Tensor> z = RunOp(op, {x, y}, attrs);
  ASSERT_TRUE(z.ok()) << op << ": " << z.status();
  SCOPED_TRACE(op);
  ExpectTensorEqual(*z, expected);
}

// `op` of x and y broadcast NumPy-style, computed one element at a time
// from the doubles the inputs hold.
template <typename T>
Tensor ReferenceResult(const std::string& op, const Tensor& x, const Tensor& y) {
  const int rank = std::max(x.dims(), y.dims());
  // The operand's size in output dimension d (1 where it has none).
  auto size_in = [rank](const Tensor& t, int d) {
    const int td = d - (rank - t.dims());
    return td >= 0 ? t.dim_size(td) : int64_t{1};
  };
  TensorShape out_shape;
  for (int d = 0; d < rank; ++d) out_shape.AddDim(std::max(size_in(x, d), size_in(y, d)));
  Tensor out(DT_BOOL, out_shape);
  for (int64_t i = 0; i < out_shape.num_elements(); ++i) {
    int64_t rest = i, xi = 0, yi = 0, x_stride = 1, y_stride = 1;
    for (int d = rank - 1; d >= 0; --d) {
      const int64_t coord = rest % out_shape.dim_size(d);
      rest /= out_shape.dim_size(d);
      if (size_in(x, d) != 1) xi += coord * x_stride;
      if (size_in(y, d) != 1) yi += coord * y_stride;
      x_stride *= size_in(x, d);
      y_stride *= size_in(y, d);
    }
    out.flat<bool>()(i) =
        Compare(op, static_cast<double>(x.flat<T>()(xi)), static_cast<double>(y.flat<T>()(yi)));
  }
  return out;
}

// ---------------------------------------------------------------------------
// Comparisons, for each dtype.

template <typename T>
class ComparisonOpsTest : public ::testing::Test {};
using NumberTypes = ::testing::Types<float, double, int32_t, int64_t>;
TYPED_TEST_SUITE(ComparisonOpsTest, NumberTypes);

TYPED_TEST(ComparisonOpsTest, SameShapeOperandsCompareElementwise) {
  using T = TypeParam;
  const TensorShape s({2, 2});
  const Tensor x = Values<T>({1, 2, 3, -1}, s);
  const Tensor y = Values<T>({2, 2, 1, -1}, s);
  ExpectResult("Less", x, y, Bools({true, false, false, false}, s));
  ExpectResult("LessEqual", x, y, Bools({true, true, false, true}, s));
  ExpectResult("Greater", x, y, Bools({false, false, true, false}, s));
  ExpectResult("GreaterEqual", x, y, Bools({false, true, true, true}, s));
  ExpectResult("Equal", x, y, Bools({false, true, false, true}, s));
  ExpectResult("NotEqual", x, y, Bools({true, false, true, false}, s));
}

TYPED_TEST(ComparisonOpsTest, ScalarOperandBroadcastsOnEitherSide) {
  using T = TypeParam;
  const Tensor scalar = Values<T>({2}, TensorShape());
  const Tensor v = Values<T>({1, 2, 3}, TensorShape({3}));
  for (const std::string& op : kComparisonOps) {
    ExpectResult(op, scalar, v, ReferenceResult<T>(op, scalar, v));
    ExpectResult(op, v, scalar, ReferenceResult<T>(op, v, scalar));
  }
  ExpectResult("Less", scalar, v, Bools({false, false, true}, TensorShape({3})));
  ExpectResult("Less", v, scalar, Bools({true, false, false}, TensorShape({3})));
}

TYPED_TEST(ComparisonOpsTest, BothOperandsBroadcastAgainstEachOther) {
  using T = TypeParam;
  // Column with row, then merged views of rank 3, 4 and 5 (stretched
  // dimensions alternating between the operands).
  const std::vector<std::pair<TensorShape, TensorShape>> shapes = {
      {{3, 1}, {1, 4}},
      {{2, 1, 3}, {4, 1}},
      {{2, 1, 3, 1}, {1, 4, 1, 5}},
      {{2, 1, 3, 1, 2}, {1, 4, 1, 5, 1}},
  };
  for (const auto& [xs, ys] : shapes) {
    SCOPED_TRACE(xs.DebugString() + " vs. " + ys.DebugString());
    const Tensor x = gpu_parity::Random(DataTypeToEnum<T>::value, xs);
    const Tensor y = gpu_parity::Random(DataTypeToEnum<T>::value, ys);
    for (const std::string& op : kComparisonOps) {
      ExpectResult(op, x, y, ReferenceResult<T>(op, x, y));
    }
  }
  ExpectResult("GreaterEqual", Values<T>({0, 1, 2}, TensorShape({3, 1})),
               Values<T>({1, 2}, TensorShape({1, 2})),
               Bools({false, false, true, false, true, true}, TensorShape({3, 2})));
}

TYPED_TEST(ComparisonOpsTest, EmptyOperandGivesAnEmptyResult) {
  using T = TypeParam;
  for (const std::string& op : kComparisonOps) {
    ExpectResult(op, Values<T>({}, TensorShape({0, 3})), Values<T>({1, 2, 3}, TensorShape({3})),
                 Tensor(DT_BOOL, TensorShape({0, 3})));
  }
}

TEST(ComparisonOpsTest, Int64ValuesAreComparedWithoutNarrowing) {
  const int64_t big = int64_t{1} << 40;
  const Tensor x = Tensor::FromVector<int64_t>({big + 1, big, -big});
  const Tensor y = Tensor::FromVector<int64_t>({big, big, big});
  ExpectResult("Greater", x, y, Tensor::FromVector<bool>({true, false, false}));
  ExpectResult("Equal", x, y, Tensor::FromVector<bool>({false, true, false}));
}

TEST(ComparisonOpsTest, NaNComparesFalseExceptUnderNotEqual) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const float inf = std::numeric_limits<float>::infinity();
  const Tensor x = Tensor::FromVector<float>({nan, nan, 1, nan});
  const Tensor y = Tensor::FromVector<float>({1, nan, nan, inf});
  const Tensor all_false = Tensor::FromVector<bool>({false, false, false, false});
  for (const char* op : {"Less", "LessEqual", "Greater", "GreaterEqual", "Equal"}) {
    ExpectResult(op, x, y, all_false);
  }
  ExpectResult("NotEqual", x, y, Tensor::FromVector<bool>({true, true, true, true}));
  // A NaN scalar broadcast over a vector, in double.
  const Tensor dnan = Tensor::Scalar<double>(std::numeric_limits<double>::quiet_NaN());
  const Tensor dv = Tensor::FromVector<double>({-1, 0, 1});
  ExpectResult("LessEqual", dnan, dv, Tensor::FromVector<bool>({false, false, false}));
  ExpectResult("GreaterEqual", dv, dnan, Tensor::FromVector<bool>({false, false, false}));
  ExpectResult("NotEqual", dnan, dnan, Tensor::Scalar<bool>(true));
  ExpectResult("Equal", dnan, dnan, Tensor::Scalar<bool>(false));
}

TEST(ComparisonOpsTest, EqualityOfBools) {
  const Tensor x = Tensor::FromVector<bool>({true, true, false, false});
  const Tensor y = Tensor::FromVector<bool>({true, false, true, false});
  ExpectResult("Equal", x, y, Tensor::FromVector<bool>({true, false, false, true}));
  ExpectResult("NotEqual", x, y, Tensor::FromVector<bool>({false, true, true, false}));
  ExpectResult("Equal", x, Tensor::Scalar<bool>(false),
               Tensor::FromVector<bool>({false, false, true, true}));
}

TEST(ComparisonOpsTest, OrderingOpsRejectBoolNamingTheNode) {
  for (const char* op : {"Less", "LessEqual", "Greater", "GreaterEqual"}) {
    KernelRunner runner(MakeNodeDef("bool_order", op, {{"T", DT_BOOL}}));
    ASSERT_FALSE(runner.status().ok()) << op;
    EXPECT_EQ(runner.status().code(), absl::StatusCode::kInvalidArgument) << runner.status();
    EXPECT_NE(runner.status().message().find("bool_order"), absl::string_view::npos)
        << runner.status();
  }
}

TEST(ComparisonOpsTest, IncompatibleShapesAreInvalidArgumentNamingTheNode) {
  for (const std::string& op : kComparisonOps) {
    absl::StatusOr<Tensor> z =
        RunOp(op, {Tensor::FromVector<float>({1, 2}), Tensor::FromVector<float>({1, 2, 3})}, {},
              "bad_compare");
    ASSERT_FALSE(z.ok()) << op;
    EXPECT_EQ(z.status().code(), absl::StatusCode::kInvalidArgument) << op;
    EXPECT_EQ(z.status().message(),
              "Node 'bad_compare' (op '" + op + "'): Incompatible shapes: [2] vs. [3]");
  }
}

TEST(ComparisonOpsTest, EqualityWithoutIncompatibleShapeErrorGivesAScalar) {
  const AttrValueMap lenient = {{"incompatible_shape_error", false}};
  const Tensor two = Tensor::FromVector<int32_t>({1, 2});
  const Tensor three = Tensor::FromVector<int32_t>({1, 2, 3});
  ExpectResult("Equal", two, three, Tensor::Scalar<bool>(false), lenient);
  ExpectResult("NotEqual", two, three, Tensor::Scalar<bool>(true), lenient);
  // Shapes that broadcast compare as usual.
  ExpectResult("Equal", two, Tensor::Scalar<int32_t>(2), Tensor::FromVector<bool>({false, true}),
               lenient);
  ExpectResult("NotEqual", Tensor::FromVector<int32_t>({1, 2}, TensorShape({2, 1})), two,
               Tensor::FromVector<bool>({false, true, true, false}, TensorShape({2, 2})), lenient);
}

// ---------------------------------------------------------------------------
// Logical ops.

TEST(LogicalOpsTest, TruthTables) {
  const Tensor x = Tensor::FromVector<bool>({true, true, false, false});
  const Tensor y = Tensor::FromVector<bool>({true, false, true, false});
  ExpectResult("LogicalAnd", x, y, Tensor::FromVector<bool>({true, false, false, false}));
  ExpectResult("LogicalOr", x, y, Tensor::FromVector<bool>({true, true, true, false}));
  absl::StatusOr<Tensor> not_x = RunOp("LogicalNot", {x});
  ASSERT_TRUE(not_x.ok()) << not_x.status();
  ExpectTensorEqual(*not_x, Tensor::FromVector<bool>({false, false, true, true}));
}

TEST(LogicalOpsTest, BinaryLogicalOpsBroadcast) {
  const Tensor col = Tensor::FromVector<bool>({true, false}, TensorShape({2, 1}));
  const Tensor row = Tensor::FromVector<bool>({true, false, true}, TensorShape({1, 3}));
  ExpectResult("LogicalAnd", col, row,
               Bools({true, false, true, false, false, false}, TensorShape({2, 3})));
  ExpectResult("LogicalOr", col, row,
               Bools({true, true, true, true, false, true}, TensorShape({2, 3})));
  ExpectResult("LogicalOr", Tensor::Scalar<bool>(false), row, row);
  absl::StatusOr<Tensor> bad =
      RunOp("LogicalAnd",
            {Tensor::FromVector<bool>({true, false}), Tensor::FromVector<bool>({true, true, true})},
            {}, "bad_and");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().message(),
            "Node 'bad_and' (op 'LogicalAnd'): Incompatible shapes: [2] vs. [3]");
}

// ---------------------------------------------------------------------------
// Shape functions.

absl::StatusOr<PartialTensorShape> InferShape(const std::string& op, DataType t,
                                              const PartialTensorShape& x,
                                              const PartialTensorShape& y,
                                              AttrValueMap attrs = {}) {
  attrs["T"] = t;
  absl::StatusOr<std::vector<PartialTensorShape>> s =
      test::InferShapes(MakeNodeDef("shape_node", op, std::move(attrs)), {x, y});
  if (!s.ok()) return s.status();
  return (*s)[0];
}

TEST(CompareOpsShapeTest, OutputShapeIsTheBroadcastShape) {
  for (const std::string& op : kComparisonOps) {
    absl::StatusOr<PartialTensorShape> s =
        InferShape(op, DT_FLOAT, PartialTensorShape({-1, 1, 3}), PartialTensorShape({4, 1}));
    ASSERT_TRUE(s.ok()) << op << ": " << s.status();
    EXPECT_EQ(s->DebugString(), "[?,4,3]") << op;
  }
  absl::StatusOr<std::vector<PartialTensorShape>> s = test::InferShapes(
      MakeNodeDef("n", "LogicalOr"), {PartialTensorShape({2, 1}), PartialTensorShape({5})});
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_EQ((*s)[0].DebugString(), "[2,5]");
}

TEST(CompareOpsShapeTest, IncompatibleShapesAreRejectedNamingTheNode) {
  absl::StatusOr<PartialTensorShape> s =
      InferShape("Less", DT_INT32, PartialTensorShape({2}), PartialTensorShape({3}));
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(s.status().message().find("shape_node"), absl::string_view::npos) << s.status();
}

TEST(CompareOpsShapeTest, LenientEqualityIsScalarForIncompatibleShapesAndUnknownWhenUnsure) {
  const AttrValueMap lenient = {{"incompatible_shape_error", false}};
  for (const char* op : {"Equal", "NotEqual"}) {
    auto s = InferShape(op, DT_FLOAT, PartialTensorShape({2}), PartialTensorShape({3}), lenient);
    ASSERT_TRUE(s.ok()) << s.status();
    EXPECT_EQ(s->DebugString(), "[]") << op;
    s = InferShape(op, DT_FLOAT, PartialTensorShape({2, 1}), PartialTensorShape({3}), lenient);
    ASSERT_TRUE(s.ok()) << s.status();
    EXPECT_EQ(s->DebugString(), "[2,3]") << op;
    // [?] may turn out to be 3 (a scalar result) or 2 (a [2] result).
    s = InferShape(op, DT_FLOAT, PartialTensorShape({-1}), PartialTensorShape({2}), lenient);
    ASSERT_TRUE(s.ok()) << s.status();
    EXPECT_TRUE(s->unknown_rank()) << op << ": " << s->DebugString();
  }
}

// ---------------------------------------------------------------------------
// Graph builders, run in a CPU-only session.

using gpu_parity::ParityCase;
using gpu_parity::RunCase;

TEST(CompareOpsBuilderTest, BuildersRunWithLiteralOperandsOfTheOtherOperandsType) {
  const ParityCase c = {
      "Builders",
      {Tensor::FromVector<int32_t>({3, 10, 12})},
      [](const Scope& s, const std::vector<Output>& in) {
        const Output less = ops::Less(s.WithOpName("less"), in[0], 10);
        const Output in_range =
            ops::LogicalAnd(s, ops::GreaterEqual(s, in[0], 3), ops::LessEqual(s, in[0], 11));
        const Output outside = ops::LogicalNot(s, in_range);
        const Output odd = ops::LogicalOr(s, ops::Greater(s, in[0], 11), ops::Equal(s, in[0], 3));
        const Output not_ten = ops::NotEqual(s, in[0], 10);
        EXPECT_EQ(less.type(), DT_BOOL);
        return std::vector<Output>{less, in_range, outside, odd, not_ten};
      }};
  const gpu_parity::Outcome out = RunCase(c, /*gpu=*/false);
  ASSERT_TRUE(out.status.ok()) << out.status;
  ASSERT_EQ(out.outputs.size(), 5u);
  ExpectTensorEqual(out.outputs[0], Tensor::FromVector<bool>({true, false, false}));
  ExpectTensorEqual(out.outputs[1], Tensor::FromVector<bool>({true, true, false}));
  ExpectTensorEqual(out.outputs[2], Tensor::FromVector<bool>({false, false, true}));
  ExpectTensorEqual(out.outputs[3], Tensor::FromVector<bool>({true, false, true}));
  ExpectTensorEqual(out.outputs[4], Tensor::FromVector<bool>({true, false, true}));
}

TEST(CompareOpsBuilderTest, EqualAttrsSetIncompatibleShapeError) {
  const ParityCase c = {"Lenient",
                        {Tensor::FromVector<float>({1, 2}), Tensor::FromVector<float>({1, 2, 3})},
                        [](const Scope& s, const std::vector<Output>& in) {
                          const ops::EqualAttrs lenient = {.incompatible_shape_error = false};
                          return std::vector<Output>{ops::Equal(s, in[0], in[1], lenient),
                                                     ops::NotEqual(s, in[0], in[1], lenient)};
                        }};
  const gpu_parity::Outcome out = RunCase(c, /*gpu=*/false);
  ASSERT_TRUE(out.status.ok()) << out.status;
  ExpectTensorEqual(out.outputs[0], Tensor::Scalar<bool>(false));
  ExpectTensorEqual(out.outputs[1], Tensor::Scalar<bool>(true));
}

}  // namespace

// ---------------------------------------------------------------------------
// CPU/SimGPU parity.

namespace gpu_parity {
namespace {

using BinaryFn = Output (*)(const Scope&, Input, Input);

// `fn(in[0], in[1])` as node "op".
Builder BinaryBuilder(BinaryFn fn) {
  return [fn](const Scope& s, const std::vector<Output>& in) {
    return std::vector<Output>{fn(s.WithOpName("op"), in[0], in[1])};
  };
}

Output EqualOp(const Scope& s, Input x, Input y) { return ops::Equal(s, x, y); }
Output NotEqualOp(const Scope& s, Input x, Input y) { return ops::NotEqual(s, x, y); }

const std::vector<std::tuple<std::string, TensorShape, TensorShape>> kShapes = {
    {"Same", {3, 4}, {3, 4}},           {"ScalarWithMatrix", {}, {3, 4}},
    {"MatrixWithScalar", {3, 4}, {}},   {"ColumnWithRow", {3, 1}, {1, 4}},
    {"Rank3WithRank1", {2, 3, 4}, {4}}, {"Empty", {0, 4}, {1, 4}},
};

std::vector<ParityCase> ComparisonCases() {
  struct Op {
    std::string name;
    BinaryFn fn;
    std::vector<DataType> types;
  };
  const std::vector<Op> comparisons = {{"Less", ops::Less, kNumberTypes},
                                       {"LessEqual", ops::LessEqual, kNumberTypes},
                                       {"Greater", ops::Greater, kNumberTypes},
                                       {"GreaterEqual", ops::GreaterEqual, kNumberTypes},
                                       {"Equal", EqualOp, kAllTypes},
                                       {"NotEqual", NotEqualOp, kAllTypes},
                                       {"LogicalAnd", ops::LogicalAnd, {DT_BOOL}},
                                       {"LogicalOr", ops::LogicalOr, {DT_BOOL}}};
  std::vector<ParityCase> cases;
  for (const Op& op : comparisons) {
    for (DataType t : op.types) {
      for (const auto& [shape_name, x, y] : kShapes) {
        // Few distinct values, so that equal operands are common.
        cases.push_back({absl::StrCat(op.name, "_", TypeName(t), "_", shape_name),
                         {Random(t, x, -2, 2), Random(t, y, -2, 2)},
                         BinaryBuilder(op.fn)});
      }
    }
  }
  const float nan = std::numeric_limits<float>::quiet_NaN();
  for (const auto& [op, fn] : std::vector<std::pair<std::string, BinaryFn>>{
           {"Less", ops::Less}, {"NotEqual", NotEqualOp}}) {
    cases.push_back(
        {op + "_float_NaN",
         {Tensor::FromVector<float>({nan, nan, 1}), Tensor::FromVector<float>({1, nan, nan})},
         BinaryBuilder(fn)});
  }
  for (const auto& [shape_name, shape] :
       std::vector<std::pair<std::string, TensorShape>>{{"Scalar", {}}, {"Matrix", {5, 7}}}) {
    cases.push_back({"LogicalNot_bool_" + shape_name,
                     {Random(DT_BOOL, shape)},
                     [](const Scope& s, const std::vector<Output>& in) {
                       return std::vector<Output>{ops::LogicalNot(s.WithOpName("op"), in[0])};
                     }});
  }
  return cases;
}

class GPUParityCompareTest : public ::testing::TestWithParam<ParityCase> {};

TEST_P(GPUParityCompareTest, GpuKernelRunsOnTheGpuAndMatchesTheCpuKernel) {
  ExpectGPUMatchesCpu(GetParam());
}

INSTANTIATE_TEST_SUITE_P(Compare, GPUParityCompareTest, ::testing::ValuesIn(ComparisonCases()),
                         CaseName);

TEST(GPUErrorParityCompareTest, IncompatibleShapesFailTheSameWayNamingTheNode) {
  ExpectSameErrorOnGPUAndCpu({"Less_IncompatibleShapes",
                              {Random(DT_FLOAT, {2}), Random(DT_FLOAT, {3})},
                              BinaryBuilder(ops::Less)});
}

TEST(GPUParityCompareCoverageTest, EverySimGpuKernelOfTheCompareOpsRunsInACase) {
  std::vector<GraphDef> graphs;
  for (const ParityCase& c : ComparisonCases()) graphs.push_back(GPUGraphOf(c));
  ExpectSimGPUKernelsExercised(kCompareFileOps, graphs);
}

}  // namespace
}  // namespace gpu_parity
}  // namespace minitf
