#include "ops/kernels/sim_gpu/sim_gpu_cost.h"

#include <algorithm>
#include <string>

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

double Flops(const NodeDef& def, const std::vector<const Tensor*>& in,
             const std::vector<PartialTensorShape>& out) {
  auto input = [&](size_t i) -> const Tensor* { return i < in.size() ? in[i] : nullptr; };
  const std::string& op = def.op;
  if (op == "MatMul" && input(0) != nullptr && input(0)->dims() == 2 && !out.empty()) {
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
  if (op == "Conv2D" && input(1) != nullptr && !out.empty()) {
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
  double largest = 0;
  for (const Tensor* t : in) {
    if (t != nullptr) largest = std::max(largest, static_cast<double>(t->NumElements()));
  }
  for (const PartialTensorShape& s : out) {
    largest = std::max(largest, static_cast<double>(Elements(s)));
  }
  if (op == "Softmax" || op == "SparseSoftmaxCrossEntropyWithLogits") return 5.0 * largest;
  return largest;
}

}  // namespace

se::KernelCost EstimateKernelCost(const NodeDef& def, const std::vector<const Tensor*>& inputs,
                                  const std::vector<PartialTensorShape>& output_shapes,
                                  const std::vector<DataType>& output_types,
                                  const se::StreamExecutor& executor) {
  se::KernelCost cost;
  cost.flops = Flops(def, inputs, output_shapes);
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
