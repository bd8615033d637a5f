#include "ops/kernels/cuda_kernel_set.h"

#include <algorithm>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace minitf {
namespace {

KernelDefBuilder Gpu(const char* op) {
  KernelDefBuilder builder(op);
  builder.Device(DEVICE_GPU);
  return builder;
}

std::vector<KernelDef> BuildCudaKernelSet() {
  std::vector<KernelDef> defs;
  auto add = [&defs](const KernelDefBuilder& builder) { defs.push_back(builder.Build()); };
  const std::vector<DataType> kIndices = {DT_INT32, DT_INT64};

  // Elementwise (cwise_ops_binary.cc, cwise_ops_unary.cc), float.
  for (const char* op : {"Add", "AddV2", "Sub", "Mul", "Div", "RealDiv", "Maximum", "Minimum",
                         "Pow", "SquaredDifference"}) {
    add(Gpu(op).TypeConstraint<float>("T"));
  }
  for (const char* op : {"Neg", "Square", "Exp", "Log", "Sqrt", "Rsqrt", "Sigmoid", "Tanh", "Erf",
                         "Erfc", "Relu"}) {
    add(Gpu(op).TypeConstraint<float>("T"));
  }
  for (const char* op :
       {"ReluGrad", "RsqrtGrad", "SqrtGrad", "SigmoidGrad", "TanhGrad", "ReciprocalGrad"}) {
    add(Gpu(op).TypeConstraint<float>("T"));
  }
  // Select and SelectV2 (cwise_op_select.cc): a bool condition.
  for (const char* op : {"Select", "SelectV2"}) {
    add(Gpu(op).TypeConstraint("T", {DT_FLOAT, DT_DOUBLE, DT_INT64, DT_BOOL}));
  }
  // Comparisons (cwise_ops_compare.cc), float operands, bool results.
  for (const char* op : {"Less", "LessEqual", "Greater", "GreaterEqual", "Equal", "NotEqual"}) {
    add(Gpu(op).TypeConstraint<float>("T"));
  }
  // Linear algebra, NN ops and their gradients, float.
  for (const char* op : {"AddN", "MatMul", "BatchMatMul", "BatchMatMulV2", "BiasAdd",
                         "BiasAddGrad", "Conv2D", "MaxPool", "MaxPoolGrad", "Softmax",
                         "FusedBatchNorm", "FusedBatchNormGrad", "L2Loss",
                         // The remapper's fusions (matmul_op.cc, conv_ops.cc).
                         "_FusedMatMul", "_FusedConv2D"}) {
    add(Gpu(op).TypeConstraint<float>("T"));
  }
  add(Gpu("Conv2DBackpropInput").TypeConstraint<float>("T").HostMemory("input_sizes"));
  add(Gpu("Conv2DBackpropFilter").TypeConstraint<float>("T").HostMemory("filter_sizes"));
  for (const char* op : {"FusedBatchNormV3", "FusedBatchNormGradV3", "_FusedBatchNormEx"}) {
    add(Gpu(op).TypeConstraint<float>("T").TypeConstraint<float>("U"));
  }
  for (DataType labels : kIndices) {
    add(Gpu("SparseSoftmaxCrossEntropyWithLogits")
            .TypeConstraint<float>("T")
            .TypeConstraint("Tlabels", {labels})
            .HostMemory("labels"));
  }
  // Reductions over host-memory axes.
  for (const char* op : {"Sum", "Mean", "Max"}) {
    add(Gpu(op)
            .TypeConstraint<float>("T")
            .TypeConstraint("Tidx", kIndices)
            .HostMemory("reduction_indices"));
  }
  // Data movement and constants.
  // Not int32: int32 tensors stay in host memory on GPU devices.
  for (DataType perm : kIndices) {
    add(Gpu("Transpose")
            .TypeConstraint("T", {DT_FLOAT, DT_DOUBLE, DT_INT64, DT_BOOL})
            .TypeConstraint("Tperm", {perm})
            .HostMemory("perm"));
  }
  const std::vector<DataType> kCastTypes = {DT_FLOAT, DT_DOUBLE, DT_INT64, DT_BOOL};
  add(Gpu("Cast").TypeConstraint("SrcT", kCastTypes).TypeConstraint("DstT", kCastTypes));
  for (DataType t : {DT_FLOAT, DT_DOUBLE, DT_INT64}) {
    for (DataType index : kIndices) {
      add(Gpu("Fill")
              .TypeConstraint("T", {t})
              .TypeConstraint("index_type", {index})
              .HostMemory("dims")
              .HostMemory("value"));
    }
    add(Gpu("ZerosLike").TypeConstraint("T", {t}));
    add(Gpu("OnesLike").TypeConstraint("T", {t}));
  }
  // The array kernels (element_mover.h): one strided copy each, their
  // shapes, indices and pad value in host memory, as TensorFlow's.
  const std::vector<DataType> kArrayTypes = {DT_FLOAT, DT_DOUBLE, DT_INT64, DT_BOOL};
  const std::vector<std::pair<const char*, std::vector<const char*>>> kArrayKernels = {
      {"Pad", {"paddings"}},
      {"PadV2", {"paddings", "constant_values"}},
      {"Slice", {"begin", "size"}},
      {"StridedSlice", {"begin", "end", "strides"}},
      {"StridedSliceGrad", {"shape", "begin", "end", "strides"}},
      {"Tile", {"multiples"}},
      {"ConcatV2", {"axis"}},
      {"Split", {"split_dim"}},
      {"SplitV", {"size_splits", "split_dim"}},
      {"Pack", {}},
      {"Unpack", {}},
      {"BroadcastTo", {"shape"}}};
  for (const auto& [op, host_args] : kArrayKernels) {
    KernelDefBuilder builder = Gpu(op);
    builder.TypeConstraint("T", kArrayTypes);
    for (const char* arg : host_args) builder.HostMemory(arg);
    add(builder);
  }
  // Gathers, segment sums, one-hots and scatters by index. int32 indices
  // are kept in host memory (as every int32 tensor on a GPU), checked there
  // and copied over; int64 indices are checked on the device
  // (cuda/cuda_indices.h).
  for (DataType index : kIndices) {
    const bool host = index == DT_INT32;
    KernelDefBuilder gather = Gpu("GatherV2");
    gather.TypeConstraint("Tparams", kArrayTypes).TypeConstraint("Tindices", {index});
    gather.HostMemory("axis");
    if (host) gather.HostMemory("indices");
    add(gather);
    KernelDefBuilder segment_sum = Gpu("UnsortedSegmentSum");
    segment_sum.TypeConstraint<float>("T").TypeConstraint("Tindices", {index});
    segment_sum.HostMemory("num_segments");
    if (host) segment_sum.HostMemory("segment_ids");
    add(segment_sum);
    KernelDefBuilder one_hot = Gpu("OneHot");
    one_hot.TypeConstraint("T", kArrayTypes).TypeConstraint("TI", {index}).HostMemory("depth");
    if (host) one_hot.HostMemory("indices");
    add(one_hot);
    KernelDefBuilder scatter_add = Gpu("ScatterAdd");
    scatter_add.TypeConstraint<float>("T").TypeConstraint("Tindices", {index});
    if (host) scatter_add.HostMemory("indices");
    add(scatter_add);
    // Unique: TensorFlow's host kernel for int32 values; a sort on the
    // device for the others, an int32 idx copied back to the host.
    add(Gpu("Unique")
            .TypeConstraint<int32_t>("T")
            .TypeConstraint("out_idx", {index})
            .HostMemory("x")
            .HostMemory("y")
            .HostMemory("idx"));
    KernelDefBuilder unique = Gpu("Unique");
    unique.TypeConstraint("T", {DT_FLOAT, DT_INT64}).TypeConstraint("out_idx", {index});
    if (host) unique.HostMemory("idx");
    add(unique);
  }
  // InvertPermutation: the CPU kernel on host memory, as TensorFlow's.
  add(Gpu("InvertPermutation").TypeConstraint<int32_t>("T").HostMemory("x").HostMemory("y"));
  // Random numbers (random_ops.cc), shapes in host memory.
  for (const char* op : {"RandomUniform", "RandomStandardNormal", "TruncatedNormal"}) {
    add(Gpu(op)
            .TypeConstraint("dtype", {DT_FLOAT, DT_DOUBLE})
            .TypeConstraint("T", kIndices)
            .HostMemory("shape"));
  }
  add(Gpu("RandomUniformInt")
          .TypeConstraint<int64_t>("Tout")
          .TypeConstraint("T", kIndices)
          .HostMemory("shape")
          .HostMemory("minval")
          .HostMemory("maxval"));
  // Reference variables and their updates, float.
  add(Gpu("Variable").TypeConstraint<float>("dtype"));
  add(Gpu("VariableV2").TypeConstraint<float>("dtype"));
  for (const char* op : {"Assign", "AssignAdd", "AssignSub", "ApplyGradientDescent",
                         "ApplyMomentum", "ApplyAdam"}) {
    add(Gpu(op).TypeConstraint<float>("T"));
  }
  // Resource variables and their updates, float; handles in host memory.
  for (const char* op : {"VarHandleOp", "ReadVariableOp", "AssignVariableOp"}) {
    add(Gpu(op).TypeConstraint<float>("dtype").HostMemory("resource"));
  }
  add(Gpu("VarIsInitializedOp").HostMemory("resource").HostMemory("is_initialized"));
  add(Gpu("DestroyResourceOp").HostMemory("resource"));
  add(Gpu("ResourceApplyGradientDescent").TypeConstraint<float>("T").HostMemory("var"));
  add(Gpu("ResourceApplyMomentum")
          .TypeConstraint<float>("T")
          .HostMemory("var")
          .HostMemory("accum"));
  add(Gpu("ResourceApplyAdam")
          .TypeConstraint<float>("T")
          .HostMemory("var")
          .HostMemory("m")
          .HostMemory("v"));
  return defs;
}

// Appends one line per dtype combination of constraints[i..].
void Expand(const KernelDef& def, size_t i, std::string prefix, std::vector<std::string>* out) {
  if (i == def.constraints.size()) {
    std::vector<std::string> host = def.host_memory_args;
    std::sort(host.begin(), host.end());
    out->push_back(absl::StrCat(prefix, " host=[", absl::StrJoin(host, ","), "]"));
    return;
  }
  for (DataType t : def.constraints[i].second) {
    Expand(def, i + 1, absl::StrCat(prefix, " ", def.constraints[i].first, "=", DataTypeString(t)),
           out);
  }
}

}  // namespace

const std::vector<KernelDef>& CudaKernelSet() {
  static const auto* set = new std::vector<KernelDef>(BuildCudaKernelSet());
  return *set;
}

std::vector<std::string> ExpandKernelDefs(const std::vector<KernelDef>& defs) {
  std::vector<std::string> lines;
  for (KernelDef def : defs) {
    std::sort(def.constraints.begin(), def.constraints.end());
    Expand(def, 0, def.op, &lines);
  }
  std::sort(lines.begin(), lines.end());
  return lines;
}

}  // namespace minitf
