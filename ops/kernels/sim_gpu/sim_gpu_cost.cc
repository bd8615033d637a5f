#include "ops/kernels/sim_gpu/sim_gpu_cost.h"

#include <algorithm>
#include <cmath>
#include <string>

#include "absl/container/flat_hash_map.h"
#include "runtime/node_def_util.h"

namespace minitf {
namespace {

// 0 when unknown (or too many to count).
int64_t Elements(const PartialTensorShape& shape) {
  return std::max<int64_t>(shape.num_elements(), 0);
}

// The elements one window of a pooling node reads: the product of its
// `ksize` attr, each size clipped to `input`'s dimension (ksize and the
// input share the data format; padding adds no work), so a hostile ksize
// models no more than the elements there are.
double WindowSize(const NodeDef& def, const Tensor* input) {
  std::vector<int64_t> ksize;
  if (!GetNodeAttr(def, "ksize", &ksize).ok()) return 1;
  double size = 1;
  for (size_t i = 0; i < ksize.size(); ++i) {
    int64_t k = std::max<int64_t>(ksize[i], 1);
    if (input != nullptr && static_cast<int>(i) < input->dims()) {
      k = std::min(k, std::max<int64_t>(input->dim_size(static_cast<int>(i)), 1));
    }
    size *= static_cast<double>(k);
  }
  return size;
}

// filter_rows * filter_cols * in_depth of an HWIO filter shape.
double FilterVolume(const PartialTensorShape& filter) {
  if (filter.dims() != 4) return 0;
  return static_cast<double>(filter.dim_size(0)) * static_cast<double>(filter.dim_size(1)) *
         static_cast<double>(filter.dim_size(2));
}

// The elements of the largest input or output.
double LargestElements(const std::vector<const Tensor*>& in,
                       const std::vector<PartialTensorShape>& out) {
  double largest = 0;
  for (const Tensor* t : in) {
    if (t != nullptr) largest = std::max(largest, static_cast<double>(t->NumElements()));
  }
  for (const PartialTensorShape& s : out) {
    largest = std::max(largest, static_cast<double>(Elements(s)));
  }
  return largest;
}

double Flops(const NodeDef& def, const std::vector<const Tensor*>& in,
             const std::vector<PartialTensorShape>& out) {
  auto input = [&](size_t i) -> const Tensor* { return i < in.size() ? in[i] : nullptr; };
  const std::string& op = def.op;
  if ((op == "MatMul" || op == "_FusedMatMul") && input(0) != nullptr && input(0)->dims() == 2 &&
      !out.empty()) {
    bool transpose_a = false;
    (void)GetNodeAttr(def, "transpose_a", &transpose_a);
    const double inner = static_cast<double>(input(0)->dim_size(transpose_a ? 0 : 1));
    return 2.0 * static_cast<double>(Elements(out[0])) * inner;
  }
  if (op == "BatchMatMul" && input(0) != nullptr && input(0)->dims() >= 2 && !out.empty()) {
    // 2 * B * M * N * K: the output has B * M * N elements.
    bool adj_x = false;
    (void)GetNodeAttr(def, "adj_x", &adj_x);
    const int rank = input(0)->dims();
    const double inner = static_cast<double>(input(0)->dim_size(adj_x ? rank - 2 : rank - 1));
    return 2.0 * static_cast<double>(Elements(out[0])) * inner;
  }
  if ((op == "Conv2D" || op == "_FusedConv2D") && input(1) != nullptr && !out.empty()) {
    return 2.0 * static_cast<double>(Elements(out[0])) * FilterVolume(input(1)->shape());
  }
  if (op == "Conv2DBackpropInput" && input(2) != nullptr && !out.empty()) {
    // input 1 is the filter itself.
    if (input(1) == nullptr) return 0;
    return 2.0 * static_cast<double>(input(2)->NumElements()) *
           FilterVolume(input(1)->shape());
  }
  if (op == "Conv2DBackpropFilter" && input(2) != nullptr && !out.empty()) {
    // The filter's shape is the output's.
    if (!out[0].IsFullyDefined()) return 0;
    return 2.0 * static_cast<double>(input(2)->NumElements()) * FilterVolume(out[0]);
  }
  if ((op == "MaxPool" || op == "MaxPoolGrad") && !out.empty()) {
    const double windows =
        op == "MaxPool" ? static_cast<double>(Elements(out[0]))
                        : (input(2) != nullptr ? static_cast<double>(input(2)->NumElements()) : 0);
    return windows * WindowSize(def, input(0));
  }
  const double largest = LargestElements(in, out);
  if (op == "Softmax" || op == "SparseSoftmaxCrossEntropyWithLogits") return 5.0 * largest;
  return largest;
}

// The thread blocks the kernel's CUDA twin would launch, and how many fit
// on one SM (KernelCost::blocks). Matrix products and convolutions are
// tiled GEMMs: a block per 64 x 64 tile of the output (the input's, for
// the input gradient), two blocks per SM (a tile's shared memory); the
// filter gradient splits its long reduction over blocks until the GPU is
// full (0: fills any GPU). Everything else: a thread per element of its
// largest tensor, 256 per block, 8 blocks per SM (2048 threads), as
// LaunchConfigFor (stream/cuda/gpu_launch_config.h).
void SetBlocks(const std::vector<const Tensor*>& in,
               const std::vector<PartialTensorShape>& out, se::KernelCost* cost) {
  using F = se::KernelFamily;
  constexpr double kTile = 64.0 * 64.0;
  const auto blocks_of = [](double work, double per_block) {
    return static_cast<int64_t>(std::ceil(std::max(work, 1.0) / per_block));
  };
  switch (cost->family) {
    case F::kConvBackpropFilter:
      cost->blocks = 0;
      return;
    case F::kMatMul:
    case F::kConvForward:
    case F::kConvBackpropInput:
      // Unknown output: fills any GPU.
      cost->blocks = out.empty() || Elements(out[0]) == 0
                         ? 0
                         : blocks_of(static_cast<double>(Elements(out[0])), kTile);
      cost->blocks_per_sm = 2;
      return;
    default:
      break;
  }
  cost->blocks = blocks_of(LargestElements(in, out), 256);
  cost->blocks_per_sm = 8;
}

}  // namespace

se::KernelFamily KernelFamilyOfOp(absl::string_view op) {
  using F = se::KernelFamily;
  static const auto* const kFamilies = new absl::flat_hash_map<absl::string_view, F>{
      // The remapper's fusions cost as their contraction (their CUDA twins'
      // bias-and-activation pass is one read and write of the output).
      {"Conv2D", F::kConvForward}, {"_FusedConv2D", F::kConvForward},
      {"Conv2DBackpropInput", F::kConvBackpropInput},
      {"Conv2DBackpropFilter", F::kConvBackpropFilter},
      {"MatMul", F::kMatMul}, {"_FusedMatMul", F::kMatMul}, {"BatchMatMul", F::kMatMul},
      {"BatchMatMulV2", F::kMatMul},
      // Elementwise: cwise math, activations and their gradients, fills,
      // and the optimizers' in-place updates.
      {"Abs", F::kElementwise}, {"Add", F::kElementwise}, {"AddN", F::kElementwise},
      {"AddV2", F::kElementwise}, {"BiasAdd", F::kElementwise}, {"Cast", F::kElementwise},
      {"Div", F::kElementwise}, {"Elu", F::kElementwise}, {"EluGrad", F::kElementwise},
      {"Equal", F::kElementwise}, {"Erf", F::kElementwise}, {"Erfc", F::kElementwise},
      {"Exp", F::kElementwise}, {"Fill", F::kElementwise}, {"FloorDiv", F::kElementwise},
      {"FloorMod", F::kElementwise}, {"Greater", F::kElementwise},
      {"GreaterEqual", F::kElementwise}, {"LeakyRelu", F::kElementwise},
      {"LeakyReluGrad", F::kElementwise}, {"Less", F::kElementwise},
      {"LessEqual", F::kElementwise}, {"Log", F::kElementwise}, {"LogicalAnd", F::kElementwise},
      {"LogicalNot", F::kElementwise}, {"LogicalOr", F::kElementwise},
      {"Maximum", F::kElementwise}, {"Minimum", F::kElementwise}, {"Mul", F::kElementwise},
      {"Neg", F::kElementwise}, {"NotEqual", F::kElementwise}, {"OnesLike", F::kElementwise},
      {"Pow", F::kElementwise}, {"RealDiv", F::kElementwise}, {"Reciprocal", F::kElementwise},
      {"ReciprocalGrad", F::kElementwise}, {"Relu", F::kElementwise},
      {"Relu6", F::kElementwise}, {"Relu6Grad", F::kElementwise},
      {"ReluGrad", F::kElementwise}, {"Rsqrt", F::kElementwise},
      {"RsqrtGrad", F::kElementwise}, {"Select", F::kElementwise},
      {"SelectV2", F::kElementwise}, {"Sigmoid", F::kElementwise},
      {"SigmoidGrad", F::kElementwise}, {"Sign", F::kElementwise}, {"Sqrt", F::kElementwise},
      {"SqrtGrad", F::kElementwise}, {"Square", F::kElementwise},
      {"SquaredDifference", F::kElementwise}, {"Sub", F::kElementwise},
      {"Tanh", F::kElementwise}, {"TanhGrad", F::kElementwise},
      {"ZerosLike", F::kElementwise}, {"AssignAdd", F::kElementwise},
      {"AssignSub", F::kElementwise}, {"AssignAddVariableOp", F::kElementwise},
      {"AssignSubVariableOp", F::kElementwise}, {"ApplyAdam", F::kElementwise},
      {"ApplyGradientDescent", F::kElementwise}, {"ApplyMomentum", F::kElementwise},
      {"ResourceApplyAdam", F::kElementwise},
      {"ResourceApplyGradientDescent", F::kElementwise},
      {"ResourceApplyMomentum", F::kElementwise},
      {"ArgMax", F::kReduction}, {"BiasAddGrad", F::kReduction}, {"L2Loss", F::kReduction},
      {"Max", F::kReduction}, {"Mean", F::kReduction}, {"Min", F::kReduction},
      {"Prod", F::kReduction}, {"Sum", F::kReduction},
      {"AvgPool", F::kPooling}, {"AvgPoolGrad", F::kPooling}, {"MaxPool", F::kPooling},
      {"MaxPoolGrad", F::kPooling},
      {"FusedBatchNorm", F::kBatchNorm}, {"FusedBatchNormV3", F::kBatchNorm},
      {"_FusedBatchNormEx", F::kBatchNorm},
      {"FusedBatchNormGrad", F::kBatchNorm}, {"FusedBatchNormGradV3", F::kBatchNorm},
      {"Softmax", F::kSoftmax}, {"LogSoftmax", F::kSoftmax},
      {"SoftmaxCrossEntropyWithLogits", F::kSoftmax},
      {"SparseSoftmaxCrossEntropyWithLogits", F::kSoftmax},
      // Data movement: copies (an Assign is a device-to-device copy on a
      // GPU) and the array ops that move elements.
      {"Assign", F::kDataMovement}, {"AssignVariableOp", F::kDataMovement},
      {"BroadcastTo", F::kDataMovement}, {"ConcatV2", F::kDataMovement},
      {"GatherV2", F::kDataMovement}, {"OneHot", F::kDataMovement}, {"Pack", F::kDataMovement},
      {"Pad", F::kDataMovement}, {"PadV2", F::kDataMovement}, {"ScatterAdd", F::kDataMovement},
      {"Slice", F::kDataMovement}, {"Split", F::kDataMovement}, {"SplitV", F::kDataMovement},
      {"StridedSlice", F::kDataMovement}, {"StridedSliceGrad", F::kDataMovement},
      {"Tile", F::kDataMovement}, {"Transpose", F::kDataMovement},
      {"Unique", F::kDataMovement}, {"Unpack", F::kDataMovement},
      {"UnsortedSegmentSum", F::kDataMovement},
  };
  const auto it = kFamilies->find(op);
  return it == kFamilies->end() ? F::kOther : it->second;
}

se::KernelCost EstimateKernelCost(const NodeDef& def, const std::vector<const Tensor*>& inputs,
                                  const std::vector<PartialTensorShape>& output_shapes,
                                  const std::vector<DataType>& output_types,
                                  const se::StreamExecutor& executor) {
  se::KernelCost cost;
  cost.family = KernelFamilyOfOp(def.op);
  cost.flops = Flops(def, inputs, output_shapes);
  SetBlocks(inputs, output_shapes, &cost);
  for (const Tensor* t : inputs) {
    if (t == nullptr || t->TotalBytes() == 0) continue;
    const double bytes = static_cast<double>(t->TotalBytes());
    if (executor.IsDeviceMemory(t->raw_data())) {
      cost.device_bytes += bytes;
    } else {
      cost.host_bytes += bytes;
    }
  }
  for (size_t i = 0; i < output_shapes.size() && i < output_types.size(); ++i) {
    cost.device_bytes += static_cast<double>(Elements(output_shapes[i])) *
                         static_cast<double>(DataTypeSize(RemoveRefType(output_types[i])));
  }
  return cost;
}

}  // namespace minitf
