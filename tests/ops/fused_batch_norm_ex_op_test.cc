// _FusedBatchNormEx (the remapper's FusedBatchNormV3 + Relu) on the CPU: the
// same bits as FusedBatchNormV3 then Relu, each its own kernel, for NHWC and
// NCHW, training and inference, every output; activation Identity is the
// batch norm alone; and its errors: an activation or side input it does
// not fuse.
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

TEST(FusedBatchNormExOpTest, GivesWhatBatchNormThenReluGive) {
  for (const std::string format : {"NHWC", "NCHW"}) {
    for (bool training : {true, false}) {
      for (const std::string mode : {"Relu", "Identity"}) {
        SCOPED_TRACE(format + (training ? " training " : " inference ") + mode);
        AttrValueMap attrs = Attrs(format, training);
        KernelRunner bn(MakeNodeDef("bn", "FusedBatchNormV3", attrs));
        absl::StatusOr<std::vector<Tensor>> unfused = bn.Run(Inputs(format));
        ASSERT_TRUE(unfused.ok()) << unfused.status();
        Tensor y = (*unfused)[0];
        if (mode == "Relu") {
          KernelRunner relu(MakeNodeDef("relu", "Relu", {{"T", DT_FLOAT}}));
          y = (*relu.Run({y}))[0];
        }
        attrs["activation_mode"] = mode;
        attrs["num_side_inputs"] = int64_t{0};
        KernelRunner ex(MakeNodeDef("ex", "_FusedBatchNormEx", attrs));
        absl::StatusOr<std::vector<Tensor>> fused = ex.Run(Inputs(format));
        ASSERT_TRUE(fused.ok()) << fused.status();
        ASSERT_EQ(fused->size(), 6u);
        test::ExpectTensorEqual((*fused)[0], y);
        for (int i = 1; i < 6; ++i) test::ExpectTensorEqual((*fused)[i], (*unfused)[i]);
      }
    }
  }
}

TEST(FusedBatchNormExOpTest, WhatItDoesNotFuseIsUnimplemented) {
  AttrValueMap attrs = Attrs("NHWC", true);
  attrs["activation_mode"] = std::string("Elu");
  attrs["num_side_inputs"] = int64_t{0};
  KernelRunner elu(MakeNodeDef("ex", "_FusedBatchNormEx", attrs));
  EXPECT_EQ(elu.status().code(), absl::StatusCode::kUnimplemented) << elu.status();
  attrs["activation_mode"] = std::string("Relu");
  attrs["num_side_inputs"] = int64_t{1};
  KernelRunner side(MakeNodeDef("ex", "_FusedBatchNormEx", attrs));
  EXPECT_EQ(side.status().code(), absl::StatusCode::kUnimplemented) << side.status();
}

}  // namespace
}  // namespace minitf
