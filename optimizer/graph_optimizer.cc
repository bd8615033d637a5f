#include "optimizer/graph_optimizer.h"

#include <memory>

#include "allocator/allocator.h"
#include "device/cpu_device.h"
#include "optimizer/arithmetic_optimizer.h"
#include "optimizer/batch_matmul_fusion.h"
#include "optimizer/constant_folding.h"
#include "optimizer/convert_pow.h"
#include "optimizer/dependency_optimizer.h"
#include "optimizer/div_to_reciprocal_mul.h"
#include "optimizer/graph_dump.h"
#include "optimizer/layout_optimizer.h"
#include "optimizer/optimizer_cse.h"
#include "optimizer/remapper.h"
#include "platform/logging.h"
#include "platform/status_macros.h"

namespace minitf {

absl::Status GraphOptimizer::Optimize(Graph* graph) const {
  if (host_ != nullptr) return OptimizeOn(host_, graph);
  ThreadPoolDevice host(0, 1, cpu_allocator());
  return OptimizeOn(&host, graph);
}

absl::Status GraphOptimizer::OptimizeOn(Device* host, Graph* graph) const {
  const OptimizerOptions& opts = options_.optimizer_options;
  const RewriterConfig& rewrite = options_.rewrite_options;
  const int before = graph->num_op_nodes();
  DumpGraph("before_optimization", *graph);
  ConstantFoldingOptions folding;
  if (opts.max_folded_constant_in_bytes > 0) {
    folding.max_constant_size_in_bytes = opts.max_folded_constant_in_bytes;
  }
  for (int round = 0; round < kMaxRounds; ++round) {
    bool changed = false;
    if (opts.ConstantFolding() || rewrite.On(rewrite.constant_folding)) {
      MINITF_ASSIGN_OR_RETURN(bool folded, ConstantFold(folding, host, graph));
      changed |= folded;
      // The folded values tell shape functions more (a Sum's axes).
      if (folded) MINITF_RETURN_IF_ERROR(RefineShapes(graph));
    }
    // The layout after the folding (which makes the shape inputs of the
    // gradients Consts), before the arithmetic optimizer cancels the
    // Transposes that meet; in each round, as the other passes turn nodes
    // into ones an elementwise chain can follow through (a Sum into an
    // Identity).
    if (rewrite.On(rewrite.layout_optimizer)) changed |= ConvertNchwToNhwcOnGpu(graph, nullptr);
    // Grappler's constant folding strength-reduces a division by a constant
    // (TensorFlow's GraphOptimizer does not).
    if (rewrite.On(rewrite.constant_folding)) changed |= ReduceDivToReciprocalMul(graph, nullptr);
    if (rewrite.On(rewrite.arithmetic_optimization)) {
      changed |= SimplifyArithmetic(graph, nullptr);
      changed |= ConvertPow(graph, nullptr);
    }
    const bool dependency = rewrite.On(rewrite.dependency_optimization);
    if (dependency) {
      changed |= ConvertUnusedToNoOps(graph, nullptr);
      changed |= RemoveRedundantControlEdges(graph, nullptr);
      changed |= RemoveNoOps(graph, nullptr);
    }
    if (opts.RemoveIdentities() || dependency) changed |= RemoveIdentityNodes(graph, nullptr);
    if (opts.CommonSubexpressionElimination() ||
        rewrite.On(rewrite.common_subgraph_elimination)) {
      changed |= OptimizeCSE(graph, nullptr);
    }
    if (!changed) break;
  }
  // Fusion last, once the graph is as small as it gets (as Grappler's
  // remapper runs after its other passes).
  if (rewrite.On(rewrite.remapping)) {
    FuseContractionBiasAdd(graph, nullptr);
    FuseBatchNormRelu(graph, nullptr);
    FuseBatchMatMulScaleAdd(graph, nullptr);
  }
  VLOG(1, "GraphOptimizer: {} nodes -> {}", before, graph->num_op_nodes());
  DumpGraph("after_optimization", *graph);
  return absl::OkStatus();
}

}  // namespace minitf
