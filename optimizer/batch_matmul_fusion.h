// Grappler's remapper fusion of an attention's scores on the CPU (its
// oneDNN build's FindFusedBatchMatMul): a BatchMatMulV2 whose output only a
// Mul by a one-element factor reads, and the Add (or AddV2) of that and an
// addend that alone reads the Mul, become one _MklFusedBatchMatMulV2
// (ops/defs/math_ops.cc; fused_ops [Mul, Add]) with the Add's name, device
// and readers, and the control inputs of all three. As in TensorFlow, only
// in float on the CPU, for a product of rank 4 and an addend of rank 4
// whose dimension 1 is 1 (a mask over every head), shapes known when the
// graph is built, the Add giving the product's shape.
//
//   bool changed = FuseBatchMatMulScaleAdd(graph, nullptr);
#ifndef MINITF_OPTIMIZER_BATCH_MATMUL_FUSION_H_
#define MINITF_OPTIMIZER_BATCH_MATMUL_FUSION_H_

#include <functional>

#include "runtime/graph.h"

namespace minitf {

// Whether anything was fused; `consider`, when set, must accept each node
// fused.
bool FuseBatchMatMulScaleAdd(Graph* graph, const std::function<bool(const Node*)>& consider);

}  // namespace minitf

#endif  // MINITF_OPTIMIZER_BATCH_MATMUL_FUSION_H_
