// CPU/GPU parity of the neural-network ops (the harness, the tolerance and
// the coverage rule are in gpu_parity.h): MatMul in every transpose
// combination, BatchMatMul in every adjoint combination, BiasAdd and
// BiasAddGrad, L2Loss, the activations and their gradients, Softmax and LogSoftmax,
// the dense and sparse cross entropies, Conv2D and its two gradients (NHWC
// and NCHW),
// MaxPool, AvgPool and their gradients (SAME and VALID, strides 1 and 2),
// BatchMatMulV2 with broadcast batch dimensions, and fused batch
// normalization (training, inference, NCHW) and its gradients; the
// remapper's _FusedMatMul and _FusedConv2D with every activation (the GELUs
// for _FusedMatMul only) and its
// _FusedBatchNormEx with and without a side input; and shape
// errors, which fail the same way on both devices. The variable and
// optimizer ops are in gpu_parity_state_test.cc.
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "absl/strings/match.h"
#include "tests/ops/gpu_parity.h"

namespace minitf::gpu_parity {
namespace {

using UnaryFn = Output (*)(const Scope&, Input);

class GPUParityNnTest : public ::testing::TestWithParam<ParityCase> {};

TEST_P(GPUParityNnTest, GpuKernelRunsOnTheGpuAndMatchesTheCpuKernel) {
  ExpectGPUMatchesCpu(GetParam());
}

std::vector<ParityCase> MatMulCases() {
  std::vector<ParityCase> cases;
  for (DataType t : kNumberTypes) {
    for (bool ta : {false, true}) {
      for (bool tb : {false, true}) {
        // op(a) is [3, 5], op(b) is [5, 4].
        const TensorShape a = ta ? TensorShape({5, 3}) : TensorShape({3, 5});
        const TensorShape b = tb ? TensorShape({4, 5}) : TensorShape({5, 4});
        cases.push_back(
            {absl::StrCat("MatMul_", TypeName(t), ta ? "_TransposeA" : "", tb ? "_TransposeB" : ""),
             {Random(t, a), Random(t, b)},
             [ta, tb](const Scope& s, const std::vector<Output>& in) {
               return std::vector<Output>{ops::MatMul(s.WithOpName("op"), in[0], in[1],
                                                      {.transpose_a = ta, .transpose_b = tb})};
             }});
      }
    }
  }
  cases.push_back({"MatMul_float_Large",
                   {Random(DT_FLOAT, {65, 48}), Random(DT_FLOAT, {48, 33})},
                   [](const Scope& s, const std::vector<Output>& in) {
                     return std::vector<Output>{ops::MatMul(s.WithOpName("op"), in[0], in[1])};
                   }});
  return cases;
}

std::vector<ParityCase> BatchMatMulCases() {
  std::vector<ParityCase> cases;
  for (DataType t : kNumberTypes) {
    for (bool adj_x : {false, true}) {
      for (bool adj_y : {false, true}) {
        // op(x) is [2, 3, 5], op(y) is [2, 5, 4].
        const TensorShape x = adj_x ? TensorShape({2, 5, 3}) : TensorShape({2, 3, 5});
        const TensorShape y = adj_y ? TensorShape({2, 4, 5}) : TensorShape({2, 5, 4});
        cases.push_back({absl::StrCat("BatchMatMul_", TypeName(t), adj_x ? "_AdjX" : "",
                                      adj_y ? "_AdjY" : ""),
                         {Random(t, x), Random(t, y)},
                         [adj_x, adj_y](const Scope& s, const std::vector<Output>& in) {
                           return std::vector<Output>{ops::BatchMatMul(
                               s.WithOpName("op"), in[0], in[1], {.adj_x = adj_x, .adj_y = adj_y})};
                         }});
      }
    }
  }
  // Attention's shapes: [B, H, T, D/H] scores against keys, then values.
  cases.push_back({"BatchMatMul_float_AttentionScores",
                   {Random(DT_FLOAT, {2, 4, 16, 16}), Random(DT_FLOAT, {2, 4, 16, 16})},
                   [](const Scope& s, const std::vector<Output>& in) {
                     return std::vector<Output>{
                         ops::BatchMatMul(s.WithOpName("op"), in[0], in[1], {.adj_y = true})};
                   }});
  cases.push_back({"BatchMatMul_float_OneLargePair",
                   {Random(DT_FLOAT, {65, 48}), Random(DT_FLOAT, {48, 33})},
                   [](const Scope& s, const std::vector<Output>& in) {
                     return std::vector<Output>{ops::BatchMatMul(s.WithOpName("op"), in[0], in[1])};
                   }});
  return cases;
}

std::vector<ParityCase> BatchMatMulV2Cases() {
  std::vector<ParityCase> cases;
  for (DataType t : kNumberTypes) {
    // x [2, 1, 3, 5] broadcast against y [3, 5, 4]: output [2, 3, 3, 4].
    cases.push_back({absl::StrCat("BatchMatMulV2_", TypeName(t), "_Broadcast"),
                     {Random(t, {2, 1, 3, 5}), Random(t, {3, 5, 4})},
                     [](const Scope& s, const std::vector<Output>& in) {
                       return std::vector<Output>{
                           ops::BatchMatMulV2(s.WithOpName("op"), in[0], in[1])};
                     }});
  }
  // A dense layer over a sequence: [B, T, D] x [E, D]^T.
  cases.push_back({"BatchMatMulV2_float_SequenceTimesMatrix_AdjY",
                   {Random(DT_FLOAT, {2, 7, 6}), Random(DT_FLOAT, {5, 6})},
                   [](const Scope& s, const std::vector<Output>& in) {
                     return std::vector<Output>{
                         ops::BatchMatMulV2(s.WithOpName("op"), in[0], in[1], {.adj_y = true})};
                   }});
  return cases;
}

std::vector<ParityCase> BatchNormCases() {
  std::vector<ParityCase> cases;
  const TensorShape nhwc({2, 3, 4, 5}), nchw({2, 5, 3, 4}), channels({5});
  for (bool v3 : {true, false}) {
    for (const auto& [name, training, nchw_layout] :
         std::vector<std::tuple<std::string, bool, bool>>{
             {"Training", true, false}, {"Inference", false, false}, {"TrainingNchw", true, true}}) {
      const ops::FusedBatchNormAttrs attrs = {
          .data_format = nchw_layout ? "NCHW" : "NHWC", .is_training = training};
      const TensorShape stats = training ? TensorShape({0}) : channels;
      cases.push_back(
          {absl::StrCat(v3 ? "FusedBatchNormV3_" : "FusedBatchNorm_", "float_", name),
           {Random(DT_FLOAT, nchw_layout ? nchw : nhwc), Random(DT_FLOAT, channels, 0.5, 2),
            Random(DT_FLOAT, channels), Random(DT_FLOAT, stats), Random(DT_FLOAT, stats, 0.5, 2)},
           [v3, attrs](const Scope& s, const std::vector<Output>& in) {
             auto bn = (v3 ? ops::FusedBatchNormV3 : ops::FusedBatchNorm)(
                 s.WithOpName("op"), in[0], in[1], in[2], in[3], in[4], attrs);
             std::vector<Output> out = {bn.y, bn.batch_mean, bn.batch_variance,
                                        bn.reserve_space_1, bn.reserve_space_2};
             if (v3) out.push_back(bn.reserve_space_3);
             return out;
           }});
      // The remapper's fusion: the Relu of y, with a side input added or not.
      for (bool side : {false, true}) {
        if (!v3) break;  // _FusedBatchNormEx fuses FusedBatchNormV3.
        std::vector<Tensor> inputs = {Random(DT_FLOAT, nchw_layout ? nchw : nhwc),
                                      Random(DT_FLOAT, channels, 0.5, 2), Random(DT_FLOAT, channels),
                                      Random(DT_FLOAT, stats), Random(DT_FLOAT, stats, 0.5, 2)};
        if (side) inputs.push_back(Random(DT_FLOAT, nchw_layout ? nchw : nhwc));
        cases.push_back(
            {absl::StrCat("FusedBatchNormEx_float_", name, side ? "_SideInputRelu" : "_Relu"),
             inputs, [attrs, side](const Scope& s, const std::vector<Output>& in) {
               std::vector<Output> side_inputs;
               if (side) side_inputs.push_back(in[5]);
               return OpBuilder(s.WithOpName("op"), "_FusedBatchNormEx")
                   .Input(in[0])
                   .Input(in[1])
                   .Input(in[2])
                   .Input(in[3])
                   .Input(in[4])
                   .InputList(side_inputs)
                   .Attr("epsilon", attrs.epsilon)
                   .Attr("data_format", attrs.data_format)
                   .Attr("is_training", attrs.is_training)
                   .Attr("num_side_inputs", int64_t{side ? 1 : 0})
                   .Attr("activation_mode", std::string("Relu"))
                   .Finalize();
             }});
      }
      const ops::FusedBatchNormGradAttrs grad_attrs = {.data_format = attrs.data_format,
                                                       .is_training = training};
      const TensorShape x_shape = nchw_layout ? nchw : nhwc;
      cases.push_back(
          {absl::StrCat(v3 ? "FusedBatchNormGradV3_" : "FusedBatchNormGrad_", "float_", name),
           {Random(DT_FLOAT, x_shape), Random(DT_FLOAT, x_shape),
            Random(DT_FLOAT, channels, 0.5, 2), Random(DT_FLOAT, channels),
            Random(DT_FLOAT, channels, 0.5, 2), Random(DT_FLOAT, {})},
           [v3, grad_attrs](const Scope& s, const std::vector<Output>& in) {
             auto grad = v3 ? ops::FusedBatchNormGradV3(s.WithOpName("op"), in[0], in[1], in[2],
                                                        in[3], in[4], in[5], grad_attrs)
                            : ops::FusedBatchNormGrad(s.WithOpName("op"), in[0], in[1], in[2],
                                                      in[3], in[4], grad_attrs);
             return std::vector<Output>{grad.x_backprop, grad.scale_backprop,
                                        grad.offset_backprop};
           }});
    }
  }
  return cases;
}

std::vector<ParityCase> ActivationCases() {
  struct Unary {
    std::string op;
    UnaryFn fn;
    std::vector<DataType> types;
  };
  const std::vector<Unary> unary = {{"Relu", ops::Relu, kNumberTypes},
                                    {"Sigmoid", ops::Sigmoid, kFloatTypes},
                                    {"Tanh", ops::Tanh, kFloatTypes}};
  std::vector<ParityCase> cases;
  for (const Unary& u : unary) {
    for (DataType t : u.types) {
      cases.push_back({absl::StrCat(u.op, "_", TypeName(t)),
                       {Random(t, {2, 3, 7}, -6, 6)},
                       [fn = u.fn](const Scope& s, const std::vector<Output>& in) {
                         return std::vector<Output>{fn(s.WithOpName("op"), in[0])};
                       }});
    }
  }
  for (DataType t : kNumberTypes) {
    for (const auto& [name, value] : std::vector<std::pair<std::string, TensorShape>>{
             {"Matrix", {4, 5}}, {"Rank4", {2, 3, 3, 5}}}) {
      cases.push_back({absl::StrCat("BiasAdd_", TypeName(t), "_", name),
                       {Random(t, value), Random(t, {5})},
                       [](const Scope& s, const std::vector<Output>& in) {
                         return std::vector<Output>{ops::BiasAdd(s.WithOpName("op"), in[0], in[1])};
                       }});
    }
    cases.push_back({absl::StrCat("BiasAdd_", TypeName(t), "_NCHW"),
                     {Random(t, {2, 5, 3, 2}), Random(t, {5})},
                     [](const Scope& s, const std::vector<Output>& in) {
                       return std::vector<Output>{
                           ops::BiasAdd(s.WithOpName("op"), in[0], in[1], {.data_format = "NCHW"})};
                     }});
    cases.push_back({absl::StrCat("ReluGrad_", TypeName(t)),
                     {Random(t, {4, 6}), Random(t, {4, 6})},
                     [](const Scope& s, const std::vector<Output>& in) {
                       return std::vector<Output>{ops::ReluGrad(s.WithOpName("op"), in[0], in[1])};
                     }});
  }
  for (DataType t : kFloatTypes) {
    for (const auto& [name, shape] :
         std::vector<std::pair<std::string, TensorShape>>{{"Matrix", {4, 7}}, {"OneRow", {1, 3}}}) {
      cases.push_back({absl::StrCat("Softmax_", TypeName(t), "_", name),
                       {Random(t, shape, -10, 10)},
                       [](const Scope& s, const std::vector<Output>& in) {
                         return std::vector<Output>{ops::Softmax(s.WithOpName("op"), in[0])};
                       }});
    }
    for (const auto& [name, shape] : std::vector<std::pair<std::string, TensorShape>>{
             {"Scalar", {}}, {"Rank4", {2, 3, 3, 5}}, {"Empty", {3, 0}}, {"Long", {70000}}}) {
      cases.push_back({absl::StrCat("L2Loss_", TypeName(t), "_", name),
                       {Random(t, shape, -3, 3)},
                       [](const Scope& s, const std::vector<Output>& in) {
                         return std::vector<Output>{ops::L2Loss(s.WithOpName("op"), in[0])};
                       }});
    }
    for (DataType labels : {DT_INT32, DT_INT64}) {
      cases.push_back({absl::StrCat("SparseSoftmaxCrossEntropyWithLogits_", TypeName(t), "_",
                                    TypeName(labels), "Labels"),
                       {Random(t, {6, 5}, -4, 4), Random(labels, {6}, 0, 4)},
                       [](const Scope& s, const std::vector<Output>& in) {
                         auto xent = ops::SparseSoftmaxCrossEntropyWithLogits(s.WithOpName("op"),
                                                                              in[0], in[1]);
                         return std::vector<Output>{xent.loss, xent.backprop};
                       }});
    }
  }
  return cases;
}

// The output extent of a window of `k` with `stride` over `in`.
int64_t OutSize(int64_t in, int64_t k, int64_t stride, const std::string& padding) {
  return padding == "SAME" ? (in + stride - 1) / stride : (in - k + stride) / stride;
}

std::vector<ParityCase> ConvCases() {
  // Input [2, 7, 7, 3], filter [3, 3, 3, 4]: odd sizes make SAME pad unevenly
  // at stride 2.
  const std::vector<int64_t> input = {2, 7, 7, 3}, filter = {3, 3, 3, 4};
  std::vector<ParityCase> cases;
  for (DataType t : kFloatTypes) {
    for (const char* padding : {"SAME", "VALID"}) {
      for (int64_t stride : {1, 2}) {
        const int64_t out = OutSize(7, 3, stride, padding);
        const ops::Conv2DAttrs attrs = {.strides = {1, stride, stride, 1}, .padding = padding};
        const std::string suffix = absl::StrCat("_", TypeName(t), "_", padding, "_Stride", stride);
        cases.push_back({"Conv2D" + suffix,
                         {Random(t, TensorShape(input)), Random(t, TensorShape(filter))},
                         [attrs](const Scope& s, const std::vector<Output>& in) {
                           return std::vector<Output>{
                               ops::Conv2D(s.WithOpName("op"), in[0], in[1], attrs)};
                         }});
        cases.push_back({"Conv2DBackpropInput" + suffix,
                         {IndexVector(DT_INT32, input), Random(t, TensorShape(filter)),
                          Random(t, {2, out, out, 4})},
                         [attrs](const Scope& s, const std::vector<Output>& in) {
                           return std::vector<Output>{ops::Conv2DBackpropInput(
                               s.WithOpName("op"), in[0], in[1], in[2], attrs)};
                         }});
        cases.push_back({"Conv2DBackpropFilter" + suffix,
                         {Random(t, TensorShape(input)), IndexVector(DT_INT32, filter),
                          Random(t, {2, out, out, 4})},
                         [attrs](const Scope& s, const std::vector<Output>& in) {
                           return std::vector<Output>{ops::Conv2DBackpropFilter(
                               s.WithOpName("op"), in[0], in[1], in[2], attrs)};
                         }});
      }
    }
    // NCHW: the same convolutions with the channels at dimension 1.
    const ops::Conv2DAttrs nchw = {
        .strides = {1, 1, 2, 2}, .padding = "SAME", .data_format = "NCHW"};
    const std::string suffix = absl::StrCat("_", TypeName(t), "_NCHW");
    cases.push_back({"Conv2D" + suffix,
                     {Random(t, {2, 3, 7, 7}), Random(t, TensorShape(filter))},
                     [nchw](const Scope& s, const std::vector<Output>& in) {
                       return std::vector<Output>{
                           ops::Conv2D(s.WithOpName("op"), in[0], in[1], nchw)};
                     }});
    cases.push_back({"Conv2DBackpropInput" + suffix,
                     {IndexVector(DT_INT32, {2, 3, 7, 7}), Random(t, TensorShape(filter)),
                      Random(t, {2, 4, 4, 4})},
                     [nchw](const Scope& s, const std::vector<Output>& in) {
                       return std::vector<Output>{ops::Conv2DBackpropInput(
                           s.WithOpName("op"), in[0], in[1], in[2], nchw)};
                     }});
    cases.push_back({"Conv2DBackpropFilter" + suffix,
                     {Random(t, {2, 3, 7, 7}), IndexVector(DT_INT32, filter),
                      Random(t, {2, 4, 4, 4})},
                     [nchw](const Scope& s, const std::vector<Output>& in) {
                       return std::vector<Output>{ops::Conv2DBackpropFilter(
                           s.WithOpName("op"), in[0], in[1], in[2], nchw)};
                     }});
  }
  return cases;
}

std::vector<ParityCase> PoolCases() {
  std::vector<ParityCase> cases;
  for (DataType t : kFloatTypes) {
    for (const char* padding : {"SAME", "VALID"}) {
      for (const auto& [k, stride] : std::vector<std::pair<int64_t, int64_t>>{{2, 2}, {3, 1}}) {
        const ops::MaxPoolAttrs attrs = {
            .ksize = {1, k, k, 1}, .strides = {1, stride, stride, 1}, .padding = padding};
        const std::string suffix =
            absl::StrCat("_", TypeName(t), "_", padding, "_Window", k, "_Stride", stride);
        cases.push_back({"MaxPool" + suffix,
                         {Random(t, {2, 7, 7, 3})},
                         [attrs](const Scope& s, const std::vector<Output>& in) {
                           return std::vector<Output>{
                               ops::MaxPool(s.WithOpName("op"), in[0], attrs)};
                         }});
        const int64_t out = OutSize(7, k, stride, padding);
        // orig_output is the MaxPool of orig_input, on the same device.
        cases.push_back({"MaxPoolGrad" + suffix,
                         {Random(t, {2, 7, 7, 3}), Random(t, {2, out, out, 3})},
                         [attrs](const Scope& s, const std::vector<Output>& in) {
                           auto pooled = ops::MaxPool(s.WithOpName("pool"), in[0], attrs);
                           return std::vector<Output>{
                               ops::MaxPoolGrad(s.WithOpName("op"), in[0], pooled, in[1], attrs)};
                         }});
      }
    }
    // NCHW: [2, 3, 7, 7] pooled 3x3 with stride 2, SAME.
    const ops::MaxPoolAttrs nchw = {.ksize = {1, 1, 3, 3},
                                    .strides = {1, 1, 2, 2},
                                    .padding = "SAME",
                                    .data_format = "NCHW"};
    cases.push_back({absl::StrCat("MaxPool_", TypeName(t), "_NCHW"),
                     {Random(t, {2, 3, 7, 7})},
                     [nchw](const Scope& s, const std::vector<Output>& in) {
                       return std::vector<Output>{ops::MaxPool(s.WithOpName("op"), in[0], nchw)};
                     }});
    cases.push_back({absl::StrCat("MaxPoolGrad_", TypeName(t), "_NCHW"),
                     {Random(t, {2, 3, 7, 7}), Random(t, {2, 3, 4, 4})},
                     [nchw](const Scope& s, const std::vector<Output>& in) {
                       auto pooled = ops::MaxPool(s.WithOpName("pool"), in[0], nchw);
                       return std::vector<Output>{
                           ops::MaxPoolGrad(s.WithOpName("op"), in[0], pooled, in[1], nchw)};
                     }});
  }
  return cases;
}

std::vector<ParityCase> AvgPoolCases() {
  std::vector<ParityCase> cases;
  for (DataType t : kFloatTypes) {
    for (const char* padding : {"SAME", "VALID"}) {
      for (const auto& [k, stride] : std::vector<std::pair<int64_t, int64_t>>{{2, 2}, {3, 1}}) {
        const ops::AvgPoolAttrs attrs = {
            .ksize = {1, k, k, 1}, .strides = {1, stride, stride, 1}, .padding = padding};
        const std::string suffix =
            absl::StrCat("_", TypeName(t), "_", padding, "_Window", k, "_Stride", stride);
        cases.push_back({"AvgPool" + suffix,
                         {Random(t, {2, 7, 7, 3})},
                         [attrs](const Scope& s, const std::vector<Output>& in) {
                           return std::vector<Output>{
                               ops::AvgPool(s.WithOpName("op"), in[0], attrs)};
                         }});
        const int64_t out = OutSize(7, k, stride, padding);
        cases.push_back({"AvgPoolGrad" + suffix,
                         {IndexVector(DT_INT32, {2, 7, 7, 3}), Random(t, {2, out, out, 3})},
                         [attrs](const Scope& s, const std::vector<Output>& in) {
                           return std::vector<Output>{
                               ops::AvgPoolGrad(s.WithOpName("op"), in[0], in[1], attrs)};
                         }});
      }
    }
  }
  return cases;
}

// The activations and losses of training graphs: Relu6, LeakyRelu, Elu and
// their gradients, LogSoftmax, the dense cross entropy (labels of the
// features' shape, and one row broadcast), and BiasAddGrad in both layouts.
std::vector<ParityCase> TrainingOpCases() {
  using GradFn = Output (*)(const Scope&, Input, Input);
  std::vector<ParityCase> cases;
  auto unary = [&](const std::string& name, DataType t, auto fn) {
    cases.push_back({absl::StrCat(name, "_", TypeName(t)),
                     {Random(t, {2, 3, 7}, -8, 8)},
                     [fn](const Scope& s, const std::vector<Output>& in) {
                       return std::vector<Output>{fn(s.WithOpName("op"), in[0])};
                     }});
  };
  auto grad = [&](const std::string& name, DataType t, GradFn fn) {
    cases.push_back({absl::StrCat(name, "_", TypeName(t)),
                     {Random(t, {4, 6}), Random(t, {4, 6}, -8, 8)},
                     [fn](const Scope& s, const std::vector<Output>& in) {
                       return std::vector<Output>{fn(s.WithOpName("op"), in[0], in[1])};
                     }});
  };
  for (DataType t : kNumberTypes) {
    unary("Relu6", t, [](const Scope& s, Input x) { return ops::Relu6(s, x); });
    grad("Relu6Grad", t, [](const Scope& s, Input g, Input f) { return ops::Relu6Grad(s, g, f); });
    for (const auto& [name, shape, format] :
         std::vector<std::tuple<std::string, TensorShape, std::string>>{
             {"Matrix", {4, 5}, "NHWC"},
             {"Rank4", {2, 3, 3, 5}, "NHWC"},
             {"NCHW", {2, 5, 3, 3}, "NCHW"}}) {
      cases.push_back({absl::StrCat("BiasAddGrad_", TypeName(t), "_", name),
                       {Random(t, shape)},
                       [format = format](const Scope& s, const std::vector<Output>& in) {
                         return std::vector<Output>{
                             ops::BiasAddGrad(s.WithOpName("op"), in[0], {.data_format = format})};
                       }});
    }
  }
  for (DataType t : kFloatTypes) {
    unary("Elu", t, [](const Scope& s, Input x) { return ops::Elu(s, x); });
    unary("LeakyRelu", t,
          [](const Scope& s, Input x) { return ops::LeakyRelu(s, x, {.alpha = 0.3f}); });
    unary("LogSoftmax", t, [](const Scope& s, Input x) { return ops::LogSoftmax(s, x); });
    grad("EluGrad", t, [](const Scope& s, Input g, Input y) { return ops::EluGrad(s, g, y); });
    grad("LeakyReluGrad", t, [](const Scope& s, Input g, Input f) {
      return ops::LeakyReluGrad(s, g, f, {.alpha = 0.3f});
    });
    for (const auto& [name, labels] :
         std::vector<std::pair<std::string, TensorShape>>{{"SameShape", {6, 5}}, {"OneRow", {5}}}) {
      cases.push_back({absl::StrCat("SoftmaxCrossEntropyWithLogits_", TypeName(t), "_", name),
                       {Random(t, {6, 5}, -4, 4), Random(t, labels, 0, 1)},
                       [](const Scope& s, const std::vector<Output>& in) {
                         auto xent =
                             ops::SoftmaxCrossEntropyWithLogits(s.WithOpName("op"), in[0], in[1]);
                         return std::vector<Output>{xent.loss, xent.backprop};
                       }});
    }
  }
  return cases;
}

// The remapper's fused contractions, built as the remapper writes them
// (one bias argument, fused_ops [BiasAdd] or [BiasAdd, activation]).
std::vector<ParityCase> FusedContractionCases() {
  std::vector<ParityCase> cases;
  for (DataType t : kFloatTypes) {
    for (const std::string act :
         {"", "Relu", "Relu6", "Elu", "Tanh", "GeluApproximate", "GeluExact"}) {
      std::vector<std::string> fused_ops = {"BiasAdd"};
      if (!act.empty()) fused_ops.push_back(act);
      const std::string suffix = "_" + TypeName(t) + (act.empty() ? "" : "_" + act);
      cases.push_back({"FusedMatMul" + suffix,
                       {Random(t, {3, 5}), Random(t, {4, 5}), Random(t, {4})},
                       [fused_ops](const Scope& s, const std::vector<Output>& in) {
                         return std::vector<Output>{OpBuilder(s.WithOpName("op"), "_FusedMatMul")
                                                        .Input(in[0])
                                                        .Input(in[1])
                                                        .InputList({in[2]})
                                                        .Attr("transpose_b", true)
                                                        .Attr("fused_ops", fused_ops)
                                                        .Finalize1()};
                       }});
      // The GELUs fuse into MatMuls only.
      if (absl::StartsWith(act, "Gelu")) continue;
      cases.push_back({"FusedConv2D" + suffix,
                       {Random(t, {2, 7, 7, 3}), Random(t, {3, 3, 3, 4}), Random(t, {4})},
                       [fused_ops](const Scope& s, const std::vector<Output>& in) {
                         return std::vector<Output>{
                             OpBuilder(s.WithOpName("op"), "_FusedConv2D")
                                 .Input(in[0])
                                 .Input(in[1])
                                 .InputList({in[2]})
                                 .InputList({})  // host_args: none.
                                 .Attr("strides", std::vector<int64_t>{1, 2, 2, 1})
                                 .Attr("padding", std::string("SAME"))
                                 .Attr("fused_ops", fused_ops)
                                 .Finalize1()};
                       }});
    }
  }
  return cases;
}

INSTANTIATE_TEST_SUITE_P(MatMul, GPUParityNnTest, ::testing::ValuesIn(MatMulCases()), CaseName);
INSTANTIATE_TEST_SUITE_P(FusedContraction, GPUParityNnTest,
                         ::testing::ValuesIn(FusedContractionCases()), CaseName);
INSTANTIATE_TEST_SUITE_P(BatchMatMul, GPUParityNnTest, ::testing::ValuesIn(BatchMatMulCases()),
                         CaseName);
INSTANTIATE_TEST_SUITE_P(Activation, GPUParityNnTest, ::testing::ValuesIn(ActivationCases()),
                         CaseName);
INSTANTIATE_TEST_SUITE_P(Conv, GPUParityNnTest, ::testing::ValuesIn(ConvCases()), CaseName);
INSTANTIATE_TEST_SUITE_P(Pool, GPUParityNnTest, ::testing::ValuesIn(PoolCases()), CaseName);
INSTANTIATE_TEST_SUITE_P(AvgPool, GPUParityNnTest, ::testing::ValuesIn(AvgPoolCases()), CaseName);
INSTANTIATE_TEST_SUITE_P(BatchMatMulV2, GPUParityNnTest,
                         ::testing::ValuesIn(BatchMatMulV2Cases()), CaseName);
INSTANTIATE_TEST_SUITE_P(BatchNorm, GPUParityNnTest, ::testing::ValuesIn(BatchNormCases()),
                         CaseName);
INSTANTIATE_TEST_SUITE_P(Training, GPUParityNnTest, ::testing::ValuesIn(TrainingOpCases()),
                         CaseName);

// ---------------------------------------------------------------------------
// Errors: inputs of the wrong shape or value fail the step with the same
// code on both devices, naming the node.

std::vector<ParityCase> ErrorCases() {
  const ops::Conv2DAttrs conv = {.strides = {1, 1, 1, 1}, .padding = "VALID"};
  return {
      {"MatMul_IncompatibleShapes",
       {Random(DT_FLOAT, {2, 3}), Random(DT_FLOAT, {4, 5})},
       [](const Scope& s, const std::vector<Output>& in) {
         return std::vector<Output>{ops::MatMul(s.WithOpName("op"), in[0], in[1])};
       }},
      {"MatMul_NotAMatrix",
       {Random(DT_FLOAT, {2, 3, 4}), Random(DT_FLOAT, {4, 5})},
       [](const Scope& s, const std::vector<Output>& in) {
         return std::vector<Output>{ops::MatMul(s.WithOpName("op"), in[0], in[1])};
       }},
      {"BatchMatMul_BatchDimensionsDiffer",
       {Random(DT_FLOAT, {2, 3, 4}), Random(DT_FLOAT, {3, 4, 5})},
       [](const Scope& s, const std::vector<Output>& in) {
         return std::vector<Output>{ops::BatchMatMul(s.WithOpName("op"), in[0], in[1])};
       }},
      {"BatchMatMul_IncompatibleInnerDimensions",
       {Random(DT_FLOAT, {2, 3, 4}), Random(DT_FLOAT, {2, 4, 5})},
       [](const Scope& s, const std::vector<Output>& in) {
         return std::vector<Output>{
             ops::BatchMatMul(s.WithOpName("op"), in[0], in[1], {.adj_x = true})};
       }},
      {"BatchMatMul_RankBelowTwo",
       {Random(DT_FLOAT, {4}), Random(DT_FLOAT, {4})},
       [](const Scope& s, const std::vector<Output>& in) {
         return std::vector<Output>{ops::BatchMatMul(s.WithOpName("op"), in[0], in[1])};
       }},
      {"Conv2D_FilterDepthMismatch",
       {Random(DT_FLOAT, {1, 5, 5, 3}), Random(DT_FLOAT, {3, 3, 2, 4})},
       [conv](const Scope& s, const std::vector<Output>& in) {
         return std::vector<Output>{ops::Conv2D(s.WithOpName("op"), in[0], in[1], conv)};
       }},
      {"Conv2DBackpropInput_OutBackpropShapeMismatch",
       {IndexVector(DT_INT32, {1, 5, 5, 3}), Random(DT_FLOAT, {3, 3, 3, 4}),
        Random(DT_FLOAT, {1, 4, 4, 4})},
       [conv](const Scope& s, const std::vector<Output>& in) {
         return std::vector<Output>{
             ops::Conv2DBackpropInput(s.WithOpName("op"), in[0], in[1], in[2], conv)};
       }},
      {"BatchMatMulV2_IncompatibleBatchDimensions",
       {Random(DT_FLOAT, {2, 3, 4}), Random(DT_FLOAT, {3, 4, 5})},
       [](const Scope& s, const std::vector<Output>& in) {
         return std::vector<Output>{ops::BatchMatMulV2(s.WithOpName("op"), in[0], in[1])};
       }},
      {"AvgPoolGrad_GradShapeMismatch",
       {IndexVector(DT_INT32, {1, 4, 4, 1}), Random(DT_FLOAT, {1, 3, 3, 1})},
       [](const Scope& s, const std::vector<Output>& in) {
         return std::vector<Output>{ops::AvgPoolGrad(
             s.WithOpName("op"), in[0], in[1],
             {.ksize = {1, 2, 2, 1}, .strides = {1, 2, 2, 1}, .padding = "VALID"})};
       }},
      {"FusedBatchNormV3_ScaleSizeMismatch",
       {Random(DT_FLOAT, {2, 2, 2, 3}), Random(DT_FLOAT, {2}), Random(DT_FLOAT, {3}),
        Random(DT_FLOAT, {0}), Random(DT_FLOAT, {0})},
       [](const Scope& s, const std::vector<Output>& in) {
         return std::vector<Output>{
             ops::FusedBatchNormV3(s.WithOpName("op"), in[0], in[1], in[2], in[3], in[4]).y};
       }},
      {"BiasAdd_BiasSizeMismatch",
       {Random(DT_FLOAT, {3, 4}), Random(DT_FLOAT, {5})},
       [](const Scope& s, const std::vector<Output>& in) {
         return std::vector<Output>{ops::BiasAdd(s.WithOpName("op"), in[0], in[1])};
       }},
      {"ReluGrad_ShapeMismatch",
       {Random(DT_FLOAT, {3, 4}), Random(DT_FLOAT, {4, 3})},
       [](const Scope& s, const std::vector<Output>& in) {
         return std::vector<Output>{ops::ReluGrad(s.WithOpName("op"), in[0], in[1])};
       }},
      {"SparseSoftmaxCrossEntropyWithLogits_LabelOutOfRange",
       {Random(DT_FLOAT, {2, 5}), IndexVector(DT_INT32, {0, 7})},
       [](const Scope& s, const std::vector<Output>& in) {
         return std::vector<Output>{
             ops::SparseSoftmaxCrossEntropyWithLogits(s.WithOpName("op"), in[0], in[1]).loss};
       }},
      {"BiasAddGrad_RankBelowThreeUnderNCHW",
       {Random(DT_FLOAT, {3, 4})},
       [](const Scope& s, const std::vector<Output>& in) {
         return std::vector<Output>{
             ops::BiasAddGrad(s.WithOpName("op"), in[0], {.data_format = "NCHW"})};
       }},
      {"SoftmaxCrossEntropyWithLogits_ShapesDoNotBroadcast",
       {Random(DT_FLOAT, {2, 5}), Random(DT_FLOAT, {2, 4})},
       [](const Scope& s, const std::vector<Output>& in) {
         return std::vector<Output>{
             ops::SoftmaxCrossEntropyWithLogits(s.WithOpName("op"), in[0], in[1]).loss};
       }},
      {"EluGrad_ShapeMismatch",
       {Random(DT_FLOAT, {3, 4}), Random(DT_FLOAT, {4, 3})},
       [](const Scope& s, const std::vector<Output>& in) {
         return std::vector<Output>{ops::EluGrad(s.WithOpName("op"), in[0], in[1])};
       }},
  };
}

class GPUErrorParityNnTest : public ::testing::TestWithParam<ParityCase> {};

TEST_P(GPUErrorParityNnTest, FailsWithTheCpuStatusCodeNamingTheNode) {
  ExpectSameErrorOnGPUAndCpu(GetParam());
}

INSTANTIATE_TEST_SUITE_P(Error, GPUErrorParityNnTest, ::testing::ValuesIn(ErrorCases()), CaseName);

// ---------------------------------------------------------------------------
// Coverage.

TEST(GPUParityNnCoverageTest, EveryOpWithASimGpuKernelHasAParityFile) {
  ExpectEverySimGPUOpIsOwnedByAParityFile();
}

TEST(GPUParityNnCoverageTest, EverySimGpuKernelOfTheNnOpsRunsInACase) {
  std::vector<GraphDef> graphs;
  for (const auto& cases : {MatMulCases(), BatchMatMulCases(), BatchMatMulV2Cases(),
                            ActivationCases(), ConvCases(), PoolCases(), AvgPoolCases(),
                            BatchNormCases(), TrainingOpCases(), FusedContractionCases()}) {
    for (const ParityCase& c : cases) graphs.push_back(GPUGraphOf(c));
  }
  ExpectSimGPUKernelsExercised(kNnFileOps, graphs);
}

}  // namespace
}  // namespace minitf::gpu_parity
