// _FusedBatchNormEx (the remapper's FusedBatchNormV3 (+ Add) + Relu) on the
// CPU: the same bits as FusedBatchNormV3, the Add of a side input and Relu,
// each its own kernel, for NHWC and NCHW, training and inference, every
// output; activation Identity is the batch norm alone; and its errors: an
// activation it does not fuse, a side input count other than 0 or 1, a
// side input of another shape than x's.
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "runtime/types.h"
#include "tests/testlib/kernel_runner.h"

namespace minitf {
namespace {

using test::KernelRunner;
using test::MakeNodeDef;

Tensor Values(const TensorShape& shape, float scale, float shift) {
  Tensor t(DT_FLOAT, shape);
  for (int64_t i = 0; i < t.NumElements(); ++i) {
    t.flat<float>()(i) = scale * static_cast<float>((i * 5) % 13) + shift;
  }
  return t;
}

AttrValueMap Attrs(const std::string& format, bool training) {
  return {{"T", DT_FLOAT}, {"U", DT_FLOAT}, {"data_format", format}, {"is_training", training},
          {"epsilon", 0.001f}};
}

std::vector<Tensor> Inputs(const std::string& format) {
  const TensorShape x = format == "NHWC" ? TensorShape({2, 3, 2, 4}) : TensorShape({2, 4, 3, 2});
  return {Values(x, 0.5f, -2.0f), Values(TensorShape({4}), 0.25f, 0.5f),
          Values(TensorShape({4}), 0.1f, -0.3f), Values(TensorShape({4}), 0.2f, -0.5f),
          Values(TensorShape({4}), 0.3f, 1.0f)};
}

TEST(FusedBatchNormExOpTest, GivesWhatBatchNormAddAndReluGive) {
  for (const std::string format : {"NHWC", "NCHW"}) {
    for (bool training : {true, false}) {
      for (const std::string mode : {"Relu", "Identity"}) {
        for (bool with_side : {false, true}) {
          SCOPED_TRACE(format + (training ? " training " : " inference ") + mode +
                       (with_side ? " with a side input" : ""));
          AttrValueMap attrs = Attrs(format, training);
          KernelRunner bn(MakeNodeDef("bn", "FusedBatchNormV3", attrs));
          std::vector<Tensor> inputs = Inputs(format);
          absl::StatusOr<std::vector<Tensor>> unfused = bn.Run(inputs);
          ASSERT_TRUE(unfused.ok()) << unfused.status();
          Tensor y = (*unfused)[0];
          if (with_side) {
            const Tensor side = Values(inputs[0].shape(), -0.3f, 1.5f);
            KernelRunner add(MakeNodeDef("add", "AddV2", {{"T", DT_FLOAT}}));
            y = (*add.Run({y, side}))[0];
            inputs.push_back(side);
          }
          if (mode == "Relu") {
            KernelRunner relu(MakeNodeDef("relu", "Relu", {{"T", DT_FLOAT}}));
            y = (*relu.Run({y}))[0];
          }
          attrs["activation_mode"] = mode;
          attrs["num_side_inputs"] = int64_t{with_side ? 1 : 0};
          KernelRunner ex(MakeNodeDef("ex", "_FusedBatchNormEx", attrs));
          absl::StatusOr<std::vector<Tensor>> fused = ex.Run(inputs);
          ASSERT_TRUE(fused.ok()) << fused.status();
          ASSERT_EQ(fused->size(), 6u);
          test::ExpectTensorEqual((*fused)[0], y);
          for (int i = 1; i < 6; ++i) test::ExpectTensorEqual((*fused)[i], (*unfused)[i]);
        }
      }
    }
  }
}

TEST(FusedBatchNormExOpTest, WhatItDoesNotFuseIsRefused) {
  AttrValueMap attrs = Attrs("NHWC", true);
  attrs["activation_mode"] = std::string("Elu");
  attrs["num_side_inputs"] = int64_t{0};
  KernelRunner elu(MakeNodeDef("ex", "_FusedBatchNormEx", attrs));
  EXPECT_EQ(elu.status().code(), absl::StatusCode::kUnimplemented) << elu.status();
  attrs["activation_mode"] = std::string("Relu");
  attrs["num_side_inputs"] = int64_t{2};
  KernelRunner two(MakeNodeDef("ex", "_FusedBatchNormEx", attrs));
  EXPECT_EQ(two.status().code(), absl::StatusCode::kInvalidArgument) << two.status();
}

TEST(FusedBatchNormExOpTest, ASideInputOfAnotherShapeIsInvalidAndNamesTheNode) {
  AttrValueMap attrs = Attrs("NHWC", true);
  attrs["activation_mode"] = std::string("Relu");
  attrs["num_side_inputs"] = int64_t{1};
  KernelRunner ex(MakeNodeDef("ex", "_FusedBatchNormEx", attrs));
  std::vector<Tensor> inputs = Inputs("NHWC");
  inputs.push_back(Values(TensorShape({2, 3, 2, 1}), 1, 0));  // A broadcast Add's, not x's.
  absl::StatusOr<std::vector<Tensor>> out = ex.Run(inputs);
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(out.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(std::string(out.status().message()).find("side_input"), std::string::npos)
      << out.status();
  EXPECT_NE(std::string(out.status().message()).find("'ex'"), std::string::npos) << out.status();
}

}  // namespace
}  // namespace minitf
