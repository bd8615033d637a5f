// _FusedMatMul (the remapper's MatMul + BiasAdd + activation) on the CPU:
// the same values as MatMul, BiasAdd and the activation's own kernel run
// one after another, for each activation and transpose; the GELUs' values
// as tf.nn.gelu's formulas give them; a residual connection's Add
// (fused_ops [BiasAdd, Add]) as MatMul, BiasAdd and AddV2 give it; and its
// errors: a fusion it does not know, a bias of the wrong size, two
// arguments for one, an addend of another shape or a missing one.
#include <cmath>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "runtime/types.h"
#include "tests/testlib/kernel_runner.h"

namespace minitf {
namespace {

using test::KernelRunner;
using test::MakeNodeDef;

Tensor Matrix(int64_t rows, int64_t cols, float scale) {
  Tensor t(DT_FLOAT, TensorShape({rows, cols}));
  for (int64_t i = 0; i < t.NumElements(); ++i) {
    t.flat<float>()(i) = scale * static_cast<float>((i * 7) % 11 - 5);
  }
  return t;
}

NodeDef Fused(bool transpose_a, bool transpose_b, std::vector<std::string> fused_ops,
              int64_t num_args = 1) {
  return MakeNodeDef("fused", "_FusedMatMul",
                     {{"T", DT_FLOAT},
                      {"transpose_a", transpose_a},
                      {"transpose_b", transpose_b},
                      {"num_args", num_args},
                      {"fused_ops", std::move(fused_ops)}});
}

// MatMul, BiasAdd and the activation, each its own kernel.
Tensor Unfused(const Tensor& a, const Tensor& b, const Tensor& bias, bool transpose_a,
               bool transpose_b, const std::string& activation) {
  KernelRunner matmul(MakeNodeDef("mm", "MatMul", {{"T", DT_FLOAT},
                                                   {"transpose_a", transpose_a},
                                                   {"transpose_b", transpose_b}}));
  Tensor product = (*matmul.Run({a, b}))[0];
  KernelRunner bias_add(MakeNodeDef("ba", "BiasAdd", {{"T", DT_FLOAT}}));
  Tensor sum = (*bias_add.Run({product, bias}))[0];
  if (activation.empty()) return sum;
  KernelRunner act(MakeNodeDef("act", activation, {{"T", DT_FLOAT}}));
  return (*act.Run({sum}))[0];
}

TEST(FusedMatMulOpTest, GivesWhatTheUnfusedKernelsGive) {
  const Tensor bias = Matrix(1, 5, 0.3f);
  Tensor bias_vec(DT_FLOAT, TensorShape({5}));
  for (int i = 0; i < 5; ++i) bias_vec.flat<float>()(i) = bias.flat<float>()(i);
  for (const std::string activation : {"", "Relu", "Relu6", "Elu", "Tanh"}) {
    for (bool ta : {false, true}) {
      for (bool tb : {false, true}) {
        SCOPED_TRACE(activation + (ta ? " transpose_a" : "") + (tb ? " transpose_b" : ""));
        const Tensor a = ta ? Matrix(4, 3, 0.5f) : Matrix(3, 4, 0.5f);
        const Tensor b = tb ? Matrix(5, 4, 0.25f) : Matrix(4, 5, 0.25f);
        std::vector<std::string> ops = {"BiasAdd"};
        if (!activation.empty()) ops.push_back(activation);
        KernelRunner fused(Fused(ta, tb, ops));
        absl::StatusOr<std::vector<Tensor>> out = fused.Run({a, b, bias_vec});
        ASSERT_TRUE(out.ok()) << out.status();
        const Tensor expected = Unfused(a, b, bias_vec, ta, tb, activation);
        ASSERT_EQ((*out)[0].shape(), expected.shape());
        for (int64_t i = 0; i < expected.NumElements(); ++i) {
          EXPECT_NEAR((*out)[0].flat<float>()(i), expected.flat<float>()(i), 1e-6f) << i;
        }
      }
    }
  }
}

// TensorFlow's GELUs (tf.nn.gelu), in double.
double GeluApproximate(double x) {
  return 0.5 * x * (1 + std::tanh(0.7978845608028654 * (x + 0.044715 * x * x * x)));
}
double GeluExact(double x) { return 0.5 * x * std::erfc(-x / std::sqrt(2.0)); }

TEST(FusedMatMulOpTest, TheGelusAreTensorFlowsFormulas) {
  Tensor bias(DT_FLOAT, TensorShape({5}));
  for (int i = 0; i < 5; ++i) bias.flat<float>()(i) = 0.7f * static_cast<float>(i) - 1.4f;
  const Tensor a = Matrix(6, 4, 0.6f);
  const Tensor b = Matrix(4, 5, 0.35f);
  const Tensor sum = Unfused(a, b, bias, false, false, "");
  for (const bool approximate : {true, false}) {
    SCOPED_TRACE(approximate ? "GeluApproximate" : "GeluExact");
    KernelRunner fused(
        Fused(false, false, {"BiasAdd", approximate ? "GeluApproximate" : "GeluExact"}));
    absl::StatusOr<std::vector<Tensor>> out = fused.Run({a, b, bias});
    ASSERT_TRUE(out.ok()) << out.status();
    bool below_zero = false, above_two = false;
    for (int64_t i = 0; i < sum.NumElements(); ++i) {
      const double x = sum.flat<float>()(i);
      below_zero |= x < -1;
      above_two |= x > 2;
      const double want = approximate ? GeluApproximate(x) : GeluExact(x);
      EXPECT_NEAR((*out)[0].flat<float>()(i), want, 2e-6 * (1 + std::abs(want))) << x;
    }
    EXPECT_TRUE(below_zero && above_two);
  }
}

TEST(FusedMatMulOpTest, AnUnknownFusionIsUnimplemented) {
  for (const std::vector<std::string>& ops :
       {std::vector<std::string>{}, {"Relu"}, {"BiasAdd", "Sigmoid"}, {"BiasAdd", "Relu", "Tanh"}}) {
    KernelRunner fused(Fused(false, false, ops));
    absl::StatusOr<std::vector<Tensor>> out =
        fused.Run({Matrix(2, 2, 1), Matrix(2, 2, 1), Tensor(DT_FLOAT, TensorShape({2}))});
    ASSERT_FALSE(out.ok());
    EXPECT_EQ(out.status().code(), absl::StatusCode::kUnimplemented) << out.status();
  }
}

TEST(FusedMatMulOpTest, ABiasOfTheWrongSizeIsInvalid) {
  KernelRunner fused(Fused(false, false, {"BiasAdd"}));
  absl::StatusOr<std::vector<Tensor>> out =
      fused.Run({Matrix(2, 3, 1), Matrix(3, 4, 1), Tensor(DT_FLOAT, TensorShape({3}))});
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(out.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(std::string(out.status().message()).find("3 vs. 4"), std::string::npos)
      << out.status();
}

TEST(FusedMatMulOpTest, TwoArgumentsAreInvalidAndNamed) {
  KernelRunner fused(Fused(false, false, {"BiasAdd"}, 2));
  const Tensor bias(DT_FLOAT, TensorShape({2}));
  absl::StatusOr<std::vector<Tensor>> out =
      fused.Run({Matrix(2, 2, 1), Matrix(2, 2, 1), bias, bias});
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(out.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(std::string(out.status().message()).find("num_args is 2"), std::string::npos)
      << out.status();
}

TEST(FusedMatMulOpTest, TheResidualAddIsTheUnfusedSum) {
  Tensor bias(DT_FLOAT, TensorShape({5}));
  for (int i = 0; i < 5; ++i) bias.flat<float>()(i) = 0.4f * static_cast<float>(i) - 0.9f;
  const Tensor addend = Matrix(3, 5, -0.2f);
  for (bool ta : {false, true}) {
    for (bool tb : {false, true}) {
      SCOPED_TRACE(std::string(ta ? " transpose_a" : "") + (tb ? " transpose_b" : ""));
      const Tensor a = ta ? Matrix(4, 3, 0.5f) : Matrix(3, 4, 0.5f);
      const Tensor b = tb ? Matrix(5, 4, 0.25f) : Matrix(4, 5, 0.25f);
      KernelRunner fused(Fused(ta, tb, {"BiasAdd", "Add"}, 2));
      absl::StatusOr<std::vector<Tensor>> out = fused.Run({a, b, bias, addend});
      ASSERT_TRUE(out.ok()) << out.status();
      KernelRunner add(MakeNodeDef("add", "AddV2", {{"T", DT_FLOAT}}));
      const Tensor expected = (*add.Run({Unfused(a, b, bias, ta, tb, ""), addend}))[0];
      ASSERT_EQ((*out)[0].shape(), expected.shape());
      for (int64_t i = 0; i < expected.NumElements(); ++i) {
        EXPECT_NEAR((*out)[0].flat<float>()(i), expected.flat<float>()(i), 1e-6f) << i;
      }
    }
  }
}

TEST(FusedMatMulOpTest, AResidualAddendOfAnotherShapeIsInvalidAndNamed) {
  const Tensor bias(DT_FLOAT, TensorShape({4}));
  // AddV2 would broadcast a row; the fused node adds an addend of the
  // product's own shape only (the remapper fuses no other).
  for (const TensorShape& shape : {TensorShape({4}), TensorShape({1, 4}), TensorShape({4, 2})}) {
    SCOPED_TRACE(shape.DebugString());
    KernelRunner fused(Fused(false, false, {"BiasAdd", "Add"}, 2));
    absl::StatusOr<std::vector<Tensor>> out =
        fused.Run({Matrix(2, 3, 1), Matrix(3, 4, 1), bias, Tensor(DT_FLOAT, shape)});
    ASSERT_FALSE(out.ok());
    EXPECT_EQ(out.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_NE(std::string(out.status().message()).find("Incompatible shapes: [2,4] vs. "),
              std::string::npos)
        << out.status();
    EXPECT_NE(std::string(out.status().message()).find("'fused'"), std::string::npos)
        << out.status();
  }
}

TEST(FusedMatMulOpTest, AResidualAddWithOneArgumentIsInvalid) {
  KernelRunner fused(Fused(false, false, {"BiasAdd", "Add"}, 1));
  absl::StatusOr<std::vector<Tensor>> out =
      fused.Run({Matrix(2, 2, 1), Matrix(2, 2, 1), Tensor(DT_FLOAT, TensorShape({2}))});
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(out.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(std::string(out.status().message()).find("num_args is 1"), std::string::npos)
      << out.status();
}

}  // namespace
}  // namespace minitf
