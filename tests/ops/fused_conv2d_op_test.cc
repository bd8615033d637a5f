// _FusedConv2D (the remapper's Conv2D + BiasAdd + activation) on the CPU:
// the same values as Conv2D, BiasAdd and the activation's own kernel run one
// after another, for each activation, strides and padding, in float (oneDNN,
// or im2col where ctest turns oneDNN off) and double; and its errors: a
// fusion it does not know, a bias of the wrong size, a filter format other
// than HWIO, an argument count other than one.
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "runtime/types.h"
#include "tests/testlib/kernel_runner.h"

namespace minitf {
namespace {

using test::KernelRunner;
using test::MakeNodeDef;

template <typename T>
Tensor Values(const TensorShape& shape, float scale) {
  Tensor t(DataTypeToEnum<T>::value, shape);
  for (int64_t i = 0; i < t.NumElements(); ++i) {
    t.flat<T>()(i) = static_cast<T>(scale * static_cast<float>((i * 7) % 13 - 6));
  }
  return t;
}

struct Window {
  std::vector<int64_t> strides;
  std::string padding;
};

AttrValueMap ConvAttrs(DataType dtype, const Window& w) {
  return {{"T", dtype}, {"strides", w.strides}, {"padding", w.padding}};
}

NodeDef Fused(DataType dtype, const Window& w, std::vector<std::string> fused_ops,
              int64_t num_args = 1) {
  AttrValueMap attrs = ConvAttrs(dtype, w);
  attrs["num_args"] = num_args;
  attrs["fused_ops"] = std::move(fused_ops);
  return MakeNodeDef("fused", "_FusedConv2D", std::move(attrs));
}

// Conv2D, BiasAdd and the activation, each its own kernel.
Tensor Unfused(DataType dtype, const Window& w, const Tensor& input, const Tensor& filter,
               const Tensor& bias, const std::string& activation) {
  KernelRunner conv(MakeNodeDef("conv", "Conv2D", ConvAttrs(dtype, w)));
  Tensor convolved = (*conv.Run({input, filter}))[0];
  KernelRunner bias_add(MakeNodeDef("ba", "BiasAdd", {{"T", dtype}}));
  Tensor sum = (*bias_add.Run({convolved, bias}))[0];
  if (activation.empty()) return sum;
  KernelRunner act(MakeNodeDef("act", activation, {{"T", dtype}}));
  return (*act.Run({sum}))[0];
}

template <typename T>
void CheckAgainstUnfused(double tolerance) {
  const DataType dtype = DataTypeToEnum<T>::value;
  const Tensor input = Values<T>(TensorShape({2, 7, 6, 3}), 0.5f);
  const Tensor filter = Values<T>(TensorShape({3, 3, 3, 5}), 0.25f);
  const Tensor bias = Values<T>(TensorShape({5}), 0.3f);
  for (const Window& w : {Window{{1, 1, 1, 1}, "SAME"}, Window{{1, 2, 2, 1}, "VALID"},
                          Window{{1, 2, 1, 1}, "SAME"}}) {
    for (const std::string activation : {"", "Relu", "Relu6", "Elu", "Tanh"}) {
      SCOPED_TRACE(activation + " " + w.padding + " stride " + std::to_string(w.strides[1]));
      std::vector<std::string> ops = {"BiasAdd"};
      if (!activation.empty()) ops.push_back(activation);
      KernelRunner fused(Fused(dtype, w, ops));
      absl::StatusOr<std::vector<Tensor>> out = fused.Run({input, filter, bias});
      ASSERT_TRUE(out.ok()) << out.status();
      const Tensor expected = Unfused(dtype, w, input, filter, bias, activation);
      ASSERT_EQ((*out)[0].shape(), expected.shape());
      bool some_negative_sum = false;
      for (int64_t i = 0; i < expected.NumElements(); ++i) {
        EXPECT_NEAR((*out)[0].flat<T>()(i), expected.flat<T>()(i), tolerance) << i;
        some_negative_sum |= expected.flat<T>()(i) < 0;
      }
      // Relu and Relu6 have something to cut: the unfused sum has negatives.
      if (activation.empty()) {
        EXPECT_TRUE(some_negative_sum);
      }
    }
  }
}

TEST(FusedConv2DOpTest, GivesWhatTheUnfusedKernelsGive) {
  CheckAgainstUnfused<float>(1e-5);
  CheckAgainstUnfused<double>(1e-12);
}

TEST(FusedConv2DOpTest, AnUnknownFusionIsUnimplemented) {
  const Window w{{1, 1, 1, 1}, "SAME"};
  for (const std::vector<std::string>& ops :
       {std::vector<std::string>{}, {"Relu"}, {"BiasAdd", "Sigmoid"}, {"BiasAdd", "Relu", "Tanh"},
        {"BiasAdd", "GeluApproximate"}, {"BiasAdd", "GeluExact"}}) {
    KernelRunner fused(Fused(DT_FLOAT, w, ops));
    absl::StatusOr<std::vector<Tensor>> out =
        fused.Run({Values<float>(TensorShape({1, 3, 3, 2}), 1),
                   Values<float>(TensorShape({1, 1, 2, 2}), 1), Tensor(DT_FLOAT, TensorShape({2}))});
    ASSERT_FALSE(out.ok());
    EXPECT_EQ(out.status().code(), absl::StatusCode::kUnimplemented) << out.status();
  }
}

TEST(FusedConv2DOpTest, ABiasOfTheWrongSizeIsInvalidAndNamesTheNode) {
  KernelRunner fused(Fused(DT_FLOAT, {{1, 1, 1, 1}, "SAME"}, {"BiasAdd", "Relu"}));
  absl::StatusOr<std::vector<Tensor>> out =
      fused.Run({Values<float>(TensorShape({1, 4, 4, 2}), 1),
                 Values<float>(TensorShape({2, 2, 2, 3}), 1), Tensor(DT_FLOAT, TensorShape({2}))});
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(out.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(std::string(out.status().message()).find("3 output channels"), std::string::npos)
      << out.status();
  EXPECT_NE(std::string(out.status().message()).find("fused"), std::string::npos)
      << out.status();
}

TEST(FusedConv2DOpTest, OtherFilterFormatsAndArgumentCountsAreRefused) {
  NodeDef oihw = Fused(DT_FLOAT, {{1, 1, 1, 1}, "SAME"}, {"BiasAdd"});
  oihw.attr["filter_format"] = std::string("OIHW");
  KernelRunner by_oihw(oihw);
  const std::vector<Tensor> inputs = {Values<float>(TensorShape({1, 3, 3, 2}), 1),
                                      Values<float>(TensorShape({1, 1, 2, 2}), 1),
                                      Tensor(DT_FLOAT, TensorShape({2}))};
  absl::StatusOr<std::vector<Tensor>> out = by_oihw.Run(inputs);
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(out.status().code(), absl::StatusCode::kUnimplemented) << out.status();
  KernelRunner two_args(Fused(DT_FLOAT, {{1, 1, 1, 1}, "SAME"}, {"BiasAdd"}, 2));
  out = two_args.Run({inputs[0], inputs[1], inputs[2], inputs[2]});
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(out.status().code(), absl::StatusCode::kInvalidArgument) << out.status();
}

}  // namespace
}  // namespace minitf
